"""A private PostgreSQL cluster for the tests: ``initdb`` into a temporary folder, a free loopback port,
its unix socket in that folder; stopped and removed afterwards.

Debian's ``postgresql`` package provides the programs (``scripts/test.sh`` installs it).  PostgreSQL
refuses to run as root, so as root the cluster runs as the ``postgres`` user (``runuser``) in a folder
it owns.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from serving import free_port


def _bindir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def unavailable() -> str | None:
    """Why no cluster can be started here (None when one can)."""
    if _bindir() is None:
        return "needs PostgreSQL's initdb (scripts/test.sh installs Debian's postgresql)"
    try:
        import psycopg  # noqa: F401, PLC0415  (only to know it is there)
    except ImportError:
        return "needs psycopg (pip install -e '.[postgres]'; scripts/test.sh does)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root needs the postgres user (from Debian's postgresql package)"
    return None


class Cluster:
    """One running cluster; :meth:`database` makes a fresh database and returns its SQLAlchemy URL."""

    def __init__(self) -> None:
        bindir = _bindir()
        assert bindir is not None
        self.bindir = bindir
        self.dir = Path(tempfile.mkdtemp(prefix="daer-pg-"))
        self.data = self.dir / "data"
        self.port = free_port()
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
            self.prefix = ["runuser", "-u", "postgres", "--"]
        self.n = 0
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C",
                  "--no-sync")
        opts = (f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
                "-c full_page_writes=off -c max_connections=200")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.dir / "log"), "-w", "-t", "60", "-o", opts, "start")

    def _run(self, program: str, *args: str) -> None:
        subprocess.run([*self.prefix, str(self.bindir / program), *args], check=True, capture_output=True,
                       cwd=self.dir)

    def database(self) -> str:
        """A new empty database; its URL."""
        import psycopg  # noqa: PLC0415  (the postgres extra is optional)

        self.n += 1
        name = f"daer_{os.getpid()}_{self.n}_{int(time.time() * 1000) % 100000}"
        with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="postgres",
                             autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        """Stop the server and remove its files."""
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
