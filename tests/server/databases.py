"""The databases the server tests run on: SQLite files and databases of a private PostgreSQL cluster."""

from pathlib import Path

import pytest
from pgcluster import Cluster

DATABASES = ["sqlite", "postgresql"]
"""Every server test that takes ``db_url`` (or a server fixture parametrized by these) runs on each."""


def new_database(request: pytest.FixtureRequest, kind: str, folder: Path) -> str:
    """A fresh database of ``kind``: a SQLite file in ``folder`` or a database of the test cluster."""
    if kind == "sqlite":
        return f"sqlite:///{folder / 'daer.db'}"
    cluster = request.getfixturevalue("pg_cluster")
    assert isinstance(cluster, Cluster)
    url = cluster.database()
    # dropped when its test (or module) is done: a whole run made ~3 GB of databases, which the cluster's removal
    # at the end then waited a minute or more for (the disk writing back what was about to be deleted)
    request.addfinalizer(lambda: cluster.drop(url))
    return url
