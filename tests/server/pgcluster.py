"""A private PostgreSQL cluster for the tests (``daer.cluster.pg``: ``initdb`` into a temporary folder, a free
loopback port, its unix socket in that folder; stopped and removed afterwards).

Debian's ``postgresql`` package provides the programs (``scripts/test.sh`` installs it).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from serving import free_port

from daer.cluster.pg import Postgres, unavailable

__all__ = ["Cluster", "unavailable"]


class Cluster(Postgres):
    """One running cluster; :meth:`database` makes a fresh database and returns its SQLAlchemy URL."""

    def __init__(self) -> None:
        super().__init__(Path(tempfile.mkdtemp(prefix="daer-pg-")), free_port())
        self.start()

    def drop(self, url: str) -> None:
        """Drop the database of ``url`` (made by :meth:`database`), its connections cut."""
        import psycopg  # noqa: PLC0415  (the postgres extra is optional)

        name = url.rsplit("/", 1)[1]
        with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="postgres",
                             autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
