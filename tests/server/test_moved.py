"""Two workers on one PostgreSQL database, reached directly (no balancer): a request for a room the other
worker serves is answered ``moved`` — HTTP 503 with ``Retry-After: 1``, on a socket an error and close code
4001 — and the room is handed over on that request; ``/ws/{code}`` must name the room of its ``hello``."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from serving import TEST_LIMITS, Client, Server, room
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect


def _get(url: str) -> tuple[int, str | None]:
    """(status, Retry-After header)."""
    try:
        with urllib.request.urlopen(url, timeout=10) as res:
            return res.status, res.headers.get("Retry-After")
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("Retry-After")


def test_a_room_held_by_another_worker_is_answered_moved_then_handed_over(
        request: pytest.FixtureRequest, tmp_path: Path) -> None:
    from databases import new_database  # noqa: PLC0415

    url = new_database(request, "postgresql", tmp_path)
    args = (*TEST_LIMITS, "--lease-ttl", "1.5")
    a = Server(tmp_path / "a.db", url=url, args=args).start()
    b = Server(tmp_path / "b.db", url=url, args=args).start()
    try:
        r = room(a)
        seated = Client(a, r["code"], r["token"])  # the first request takes the lease: a serves the room
        assert seated.welcome["t"] == "welcome"
        assert _get(f"{b.url}/api/rooms/{r['code']}") == (503, "1")
        moved = Client(b, r["code"], r["token"])
        assert moved.welcome["t"] == "error" and moved.welcome["code"] == "moved"
        with pytest.raises(ConnectionClosed) as closed:
            moved.recv(5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4001
        # b asked for the room: a hands it over at a renewal once it held it a lease's time; a's socket is closed
        # with 4001, and b's retry lands
        with pytest.raises(ConnectionClosed) as handed:
            while True:
                seated.recv(10)
        assert handed.value.rcvd is not None and handed.value.rcvd.code == 4001
        deadline = time.monotonic() + 10
        while _get(f"{b.url}/api/rooms/{r['code']}")[0] != 200:
            assert time.monotonic() < deadline
            time.sleep(0.2)
        again = Client(b, r["code"], r["token"])
        assert again.welcome["t"] == "welcome"
        other = room(b)
        with connect(f"{b.ws_url}/{other['code']}") as ws:  # hello for one room on the URL of another
            ws.send(json.dumps({"t": "hello", "room": r["code"]}))
            assert json.loads(ws.recv(timeout=5))["code"] == "wrong_room"
    finally:
        a.stop()
        b.stop()
