"""A real ``daer serve`` process on a free loopback port with a temporary database (for tests and scripts)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``daer serve`` in a child process; ``kill9`` and ``start`` again to test durability."""

    def __init__(self, db: Path, *, bot_delay: float = 0.0, port: int | None = None) -> None:
        self.db = db
        self.bot_delay = bot_delay
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = db.with_suffix(".log")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self) -> Server:
        cmd = [sys.executable, "-m", "daer", "serve", "--port", str(self.port), "--db", f"sqlite:///{self.db}",
               "--bot-delay", str(self.bot_delay)]
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=out, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"daer serve exited: {self.log.read_text()}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/options", timeout=1):
                    return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("daer serve did not start")

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
