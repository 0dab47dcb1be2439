"""A private PostgreSQL server from Debian's packages: ``initdb`` into a folder, a free loopback port, its unix
socket in that folder.  PostgreSQL refuses to run as root, so as root it runs as the ``postgres`` user
(``runuser``) in a folder that user owns.  Used by ``daer cluster`` and by the tests (``tests/server/pgcluster.py``).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import time
from pathlib import Path


def bindir() -> Path | None:
    """Where Debian's (newest) PostgreSQL programs are, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def unavailable() -> str | None:
    """Why no server can be started here (None when one can)."""
    if bindir() is None:
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


class Postgres:
    """One server in ``folder`` on ``port``; :meth:`start`, :meth:`database`, :meth:`stop`."""

    def __init__(self, folder: Path, port: int, *, durable: bool = False) -> None:
        found = bindir()
        if found is None:
            raise RuntimeError(unavailable() or "no PostgreSQL")
        self.bindir = found
        self.dir = folder
        self.data = folder / "data"
        self.port = port
        self.durable = durable
        """False: fsync off (tests, a local cluster); True: PostgreSQL's own durable defaults."""
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            self.prefix = ["runuser", "-u", "postgres", "--"]
        self.n = 0

    def _run(self, program: str, *args: str) -> None:
        subprocess.run([*self.prefix, str(self.bindir / program), *args], check=True, capture_output=True,
                       cwd=self.dir)

    def start(self) -> Postgres:
        """initdb (once) and start; returns self."""
        self.dir.mkdir(parents=True, exist_ok=True)
        if self.prefix:
            shutil.chown(self.dir, "postgres", "postgres")
        if not self.data.exists():
            self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C",
                      *(() if self.durable else ("--no-sync",)))
        opts = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c max_connections=300"
        if not self.durable:
            opts += " -c fsync=off -c full_page_writes=off"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.dir / "log"), "-w", "-t", "60", "-o", opts, "start")
        return self

    def database(self, name: str | None = None) -> str:
        """A new empty database (a fresh name unless given); its SQLAlchemy URL."""
        import psycopg  # noqa: PLC0415  (the postgres extra is optional)

        self.n += 1
        name = name or f"daer_{os.getpid()}_{self.n}_{int(time.time() * 1000) % 100000}"
        with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="postgres",
                             autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def url(self, name: str) -> str:
        """The SQLAlchemy URL of database ``name``."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"

    def restart(self, mode: str = "immediate") -> None:
        """Stop the running server with ``pg_ctl -m mode`` (``immediate``: like a crash, in-flight transactions cut
        and crash recovery at the start; ``fast``: rolled back, a checkpoint first) and start it again with the
        options it ran with (``postmaster.opts``); returns once it accepts connections."""
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.dir / "log"), "-m", mode, "-w", "-t", "60",
                  "restart")

    def stop(self, *, remove: bool = True) -> None:
        """Stop the server (and remove its files)."""
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            if remove:
                shutil.rmtree(self.dir, ignore_errors=True)
