"""Make the helper modules of this folder importable; the database fixtures (SQLite and PostgreSQL)."""

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from databases import DATABASES, new_database
from pgcluster import Cluster, unavailable


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """A fresh event loop set as the thread's current one (tests that drive rooms' timers by hand)."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield loop
    loop.close()
    asyncio.set_event_loop(None)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """A private PostgreSQL cluster for the whole run (skipped when PostgreSQL is not installed)."""
    why = unavailable()
    if why is not None:
        pytest.skip(why)
    cluster = Cluster()
    yield cluster
    cluster.stop()


@pytest.fixture(params=DATABASES)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh database for one test, once on SQLite and once on PostgreSQL."""
    return new_database(request, str(request.param), tmp_path)

SLOW_ONLY_ON_REQUEST = {"test_fuzz.py", "test_bounds.py"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The slow fuzz and bounds tests (minutes of fuzzing, a server loaded with search bots) run only with
    ``-m slow``."""
    if "slow" in (config.getoption("markexpr") or ""):
        return
    here = Path(__file__).resolve().parent
    for item in items:
        if "slow" in item.keywords and item.path.parent == here and item.path.name in SLOW_ONLY_ON_REQUEST:
            item.add_marker(pytest.mark.skip(reason="slow: run with -m slow"))
