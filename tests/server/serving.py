"""A real ``daer serve`` process on a free loopback port with a temporary database (for tests and scripts)."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from websockets.sync.client import connect


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


TEST_LIMITS = ("--create-rate", "100000", "--join-rate", "100000", "--lookup-rate", "100000", "--score-rate", "100000",
               "--other-rate", "100000", "--max-rooms-per-address", "100000", "--max-rooms", "100000",
               "--max-conns-per-address", "10000", "--player-rate", "100000", "--signin-rate", "100000",
               "--signin-link-rate", "100000", "--club-rate", "100000", "--review-rate", "100000")
"""Limits raised for tests that make many rooms and sockets from one address (pass ``args`` to test a limit)."""


class Server:
    """``daer serve`` in a child process; ``kill9`` and ``start`` again to test durability."""

    def __init__(self, db: Path, *, bot_delay: float = 0.0, claim_window: float = 0.0, port: int | None = None,
                 args: tuple[str, ...] = TEST_LIMITS, url: str | None = None) -> None:
        self.db = db
        self.db_url = url or f"sqlite:///{db}"
        """The database (SQLite at ``db`` unless ``url`` names another); ``db`` also names the log file."""
        self.bot_delay = bot_delay
        self.claim_window = claim_window
        self.args = args
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
        cmd = [sys.executable, "-m", "daer", "serve", "--port", str(self.port), "--db", self.db_url,
               "--bot-delay", str(self.bot_delay), "--claim-window", str(self.claim_window), *self.args]
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
        self.proc.kill()  # not left running behind the failed test
        self.proc.wait()
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


def post(url: str, body: dict[str, Any], *, timeout: float = 10) -> tuple[int, dict[str, Any]]:
    """POST JSON; (status, decoded body)."""
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def room(server: Server, **config: Any) -> dict[str, Any]:
    """A new room (no turn timer unless given) with seat 0 taken: the create answer (code, seat, token)."""
    status, body = post(f"{server.url}/api/rooms", {"name": "A", "config": {"timer": 0, **config}})
    assert status == 200, body
    return body


def get(url: str) -> tuple[int, Any]:
    """GET; (status, decoded JSON body)."""
    try:
        with urllib.request.urlopen(url, timeout=10) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


class Client:
    """A WebSocket player: remembers the last update; ``act`` returns the reply to its id."""

    def __init__(self, server: Server, code: str, token: str | None = None, v: int | None = None,
                 p: int | None = None, *, source: str | None = None, headers: dict[str, str] | None = None) -> None:
        # ``source``: the loopback address the client connects from (127.0.0.2, 127.1.0.3 …: another "network")
        sock = None if source is None else socket.create_connection(("127.0.0.1", server.port), timeout=10,
                                                                    source_address=(source, 0))
        self.ws = connect(f"{server.ws_url}/{code}", max_size=2**22, sock=sock,
                          additional_headers=headers).__enter__()
        self.frames: list[dict[str, Any]] = []
        self.upd: dict[str, Any] | None = None
        self.n = 0
        self.prefix = secrets.token_hex(4)
        """Ids are unique per connection: the server answers a seat's repeated id with its first answer."""
        self.send({"t": "hello", "room": code, "token": token, "v": v} | ({} if p is None else {"p": p}))
        self.welcome = self.until(lambda m: m["t"] in ("welcome", "error"))

    def send(self, msg: dict[str, Any] | str) -> None:
        self.ws.send(msg if isinstance(msg, str) else json.dumps(msg))

    def recv(self, timeout: float = 20) -> dict[str, Any]:
        m: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        self.frames.append(m)
        if m["t"] == "update":
            self.upd = m
        return m

    def until(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 30) -> dict[str, Any]:
        """Read frames until one satisfies ``pred`` (fails after ``timeout`` seconds without one)."""
        deadline = time.monotonic() + timeout
        while True:
            m = self.recv(max(0.1, deadline - time.monotonic()))
            if pred(m):
                return m

    def state(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 30) -> dict[str, Any]:
        """The latest update if it satisfies ``pred``, else the next one that does."""
        if self.upd is not None and pred(self.upd):
            return self.upd
        return self.until(lambda m: m["t"] == "update" and pred(m), timeout)

    def reply(self, msg_id: str) -> dict[str, Any]:
        return self.until(lambda m: m["t"] in ("ack", "error") and m.get("id") == msg_id)

    def act(self, action: dict[str, Any], *, v: int | None = None, msg_id: str | None = None) -> dict[str, Any]:
        self.n += 1
        msg_id = msg_id or f"{self.prefix}-a{self.n}"
        assert self.upd is not None
        self.send({"t": "act", "id": msg_id, "v": self.upd["v"] if v is None else v, "action": action})
        return self.reply(msg_id)

    def cmd(self, name: str, *, msg_id: str | None = None, **fields: Any) -> dict[str, Any]:
        self.n += 1
        msg_id = msg_id or f"{self.prefix}-c{self.n}"
        self.send({"t": "cmd", "id": msg_id, "name": name, **fields})
        return self.reply(msg_id)

    def close(self) -> None:
        self.ws.close()
