"""A room that leaves a process's memory leaves nothing of itself behind in the server's own tables.

A worker runs for weeks: what it remembers per room must follow the rooms it holds now, not every room it ever
served.  (Before: the clubs' and the tournaments' room → club / table look-ups kept every code served, up to 65,536
entries each, ~10 MiB that a soak's workers took hours to fill: growth a soak could not tell from a leak.)  Rooms
are played — one to its end, one left mid-hand, one never started — then taken out of memory by the expiry sweep,
and every dict and set the process holds is searched for their codes."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from playing import play
from starlette.testclient import TestClient

from daer.server import create_app
from daer.server.safety.limits import Limits, Rate
from daer.server.serving.expiry import sweep
from daer.server.serving.manager import RoomManager

HIGH = Rate(100000, 100000)


def holders_of(codes: set[str]) -> list[str]:
    """The dicts (by key) and sets the process holds that name one of ``codes``, with what holds each.  A dict
    or set of strings only is not tracked by the collector: it is found among the referents of what is.  (Types
    are compared, not ``isinstance``: the process may hold dead weak proxies, which raise on any use.)"""
    found, seen = [], {id(codes)}
    for owner in gc.get_objects():
        for o in (owner, *gc.get_referents(owner)):
            kind = type(o)
            if not issubclass(kind, dict | set | frozenset) or id(o) in seen:
                continue
            seen.add(id(o))
            keys = [k for k in list(o) if (k in codes if type(k) is str else type(k) is tuple and
                                           any(type(x) is str and x in codes for x in k))]
            if keys:
                found.append(f"{kind.__name__} of {type(owner).__qualname__} holding {keys[:2]}")
    return found


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    limits = Limits(rates={"create": HIGH, "join": HIGH, "lookup": HIGH})
    with TestClient(create_app(f"sqlite:///{tmp_path / 'daer.db'}", bot_delay=0.0, limits=limits)) as c:
        yield c


def test_rooms_that_leave_memory_leave_no_key_behind(client: TestClient) -> None:
    manager: RoomManager = client.app.state.manager  # type: ignore[attr-defined]
    codes = {play(client, 1)[0], play(client, 3, quit_after=3)[0],
             client.post("/api/rooms", json={"name": "B", "config": {"timer": 0}}).json()["code"]}
    assert codes <= set(manager.rooms)
    assert client.portal is not None
    # a day later: the finished room leaves memory, the others are closed (stored as expired) and leave it too
    gone = client.portal.call(lambda: sweep(manager, waiting_ttl=0, idle_ttl=0, finished_ttl=0, now=1e12))
    assert gone >= 3 and not codes & set(manager.rooms)
    left = client.portal.call(holders_of, codes)
    assert left == [], f"rooms out of memory still named in: {left}"


def test_the_search_sees_a_code_held_by_a_service(client: TestClient) -> None:
    """The search above can fail: a code the clubs' look-up still holds (as before the fix) is found."""
    code = play(client, 1)[0]
    tables = next(o for o in gc.get_objects() if type(o).__name__ == "ClubTables")
    assert client.portal is not None
    client.portal.call(lambda: sweep(client.app.state.manager, waiting_ttl=0, idle_ttl=0,  # type: ignore[attr-defined]
                                     finished_ttl=0, now=1e12))
    tables._of[code] = None  # what the look-up kept before rooms leaving memory were forgotten
    held = client.portal.call(holders_of, {code})
    assert any("ClubTables" in h for h in held), held
