"""The live club page (issue 20, item 4): a club page's event stream hears of seats taken, tables finished and
members coming and going, within a moment; a removed member's stream is told at once and their next fetch is
refused; a finished match at a standing table opens the next one.  On one process (SQLite) the events stay in
process; across two workers on PostgreSQL they go through LISTEN/NOTIFY (``test_cluster.py``)."""

from __future__ import annotations

import json
import queue
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from serving import Client, Server
from test_settlement_payload import play_hand

from daer.server.clubs.routes import PAGES_MAX


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("clublive") / "daer.db", bot_delay=0.0).start()
    yield srv
    srv.stop()


class Stream:
    """A club page's event stream, read in a thread: ``events`` gets each ``data:`` line's kind."""

    def __init__(self, client: httpx.Client, number: str) -> None:
        self.events: queue.Queue[str] = queue.Queue()
        self.status = 0
        self.ended = threading.Event()
        self._thread = threading.Thread(target=self._read, args=(client, number), daemon=True)
        self._thread.start()

    def _read(self, client: httpx.Client, number: str) -> None:
        try:
            with client.stream("GET", f"/api/clubs/{number}/events", timeout=httpx.Timeout(5, read=60)) as res:
                self.status = res.status_code
                for line in res.iter_lines():
                    if line.startswith("data: "):
                        self.events.put(str(json.loads(line[6:])["kind"]))
        except httpx.HTTPError:
            pass
        finally:
            self.ended.set()

    def wait_for(self, kind: str, timeout: float = 10) -> list[str]:
        """The kinds heard until one holding ``kind`` (fails after ``timeout`` seconds)."""
        seen: list[str] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                got = self.events.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            seen.append(got)
            if kind in got.split(","):
                return seen
        raise AssertionError(f"no {kind!r} event within {timeout} s; heard {seen}")


def person(server: Server) -> httpx.Client:
    """A device: its own cookie jar."""
    return httpx.Client(base_url=server.url, headers={"content-type": "application/json"}, timeout=10)


def club_with_friend(server: Server, hands: int = 1) -> tuple[httpx.Client, httpx.Client, str]:
    owner, friend = person(server), person(server)
    res = owner.post("/api/clubs", json={"name": "牌友圈"})
    assert res.status_code == 201, res.text
    number = res.json()["number"]
    assert owner.post(f"/api/clubs/{number}/templates", json={"name": "一局", "config": {
        "timer": 0, "hands": hands}}).status_code == 201
    url = owner.post(f"/api/clubs/{number}/invites", json={"hours": 1, "uses": 5}).json()["url"]
    assert friend.post("/api/clubs/join", json={"secret": url.split("#invite=")[1]}).status_code == 200
    return owner, friend, number


def test_a_seat_taken_reaches_another_members_page_and_a_removal_closes_it_at_once(server: Server) -> None:
    owner, friend, number = club_with_friend(server)
    stream = Stream(friend, number)
    assert stream.wait_for("hello") and stream.status == 200
    code = owner.get(f"/api/clubs/{number}").json()["tables"][0]["code"]
    t0 = time.monotonic()
    assert owner.post(f"/api/clubs/{number}/tables/{code}/sit", json={}).status_code == 200
    stream.wait_for("tables")
    assert time.monotonic() - t0 < 3
    seats = friend.get(f"/api/clubs/{number}").json()["tables"][0]["seats"]
    assert seats[0]["kind"] == "human" and seats[0]["player"] == owner.get("/api/me").json()["id"]
    fid = friend.get("/api/me").json()["id"]
    assert owner.post(f"/api/clubs/{number}/members/{fid}/remove", json={}).status_code == 200
    stream.wait_for("gone")
    assert stream.ended.wait(5)  # the stream is closed by the server
    assert friend.get(f"/api/clubs/{number}").status_code == 403
    again = Stream(friend, number)
    assert again.ended.wait(5) and again.status == 403


def test_a_member_opening_the_page_shows_online_to_the_others(server: Server) -> None:
    owner, friend, number = club_with_friend(server)
    watching = Stream(owner, number)
    watching.wait_for("hello")
    fid = friend.get("/api/me").json()["id"]
    assert not next(m for m in owner.get(f"/api/clubs/{number}").json()["members"] if m["id"] == fid)["online"]
    Stream(friend, number)
    watching.wait_for("online")
    assert next(m for m in owner.get(f"/api/clubs/{number}").json()["members"] if m["id"] == fid)["online"]


def test_a_finished_match_at_a_standing_table_opens_the_next_one(server: Server) -> None:
    owner, _friend, number = club_with_friend(server, hands=1)
    stream = Stream(owner, number)
    stream.wait_for("hello")
    first = owner.get(f"/api/clubs/{number}").json()["tables"][0]["code"]
    sat = owner.post(f"/api/clubs/{number}/tables/{first}/sit", json={}).json()
    c = Client(server, first, sat["token"])
    c.cmd("start")
    play_hand(c)
    c.close()
    deadline = time.monotonic() + 10
    tables: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        tables = owner.get(f"/api/clubs/{number}").json()["tables"]
        if tables and tables[0]["code"] != first:
            break
        time.sleep(0.2)
    assert len(tables) == 1 and tables[0]["code"] != first and tables[0]["status"] == "waiting"
    assert all(s["kind"] == "empty" for s in tables[0]["seats"])


def test_a_player_holds_at_most_a_few_live_pages_of_one_club(server: Server) -> None:
    owner, _friend, number = club_with_friend(server)
    pages = [Stream(owner, number) for _ in range(PAGES_MAX)]
    for page in pages:
        page.wait_for("hello")
    extra = Stream(owner, number)
    assert extra.ended.wait(5) and extra.status == 429
    assert not any(p.ended.is_set() for p in pages)  # the others stay open


def test_a_draining_server_ends_its_club_pages_streams_and_stops_at_once(tmp_path: Path) -> None:
    """SIGTERM (a drain): the club pages' streams end at once, as the rooms' sockets are told to reconnect, so the
    process stops without waiting for streams that never end (it waited for them until it was killed)."""
    srv = Server(tmp_path / "daer.db", bot_delay=0.0).start()
    try:
        owner, _friend, number = club_with_friend(srv)
        pages = [Stream(owner, number) for _ in range(2)]
        for page in pages:
            page.wait_for("hello")
        assert srv.proc is not None
        t0 = time.monotonic()
        srv.proc.send_signal(signal.SIGTERM)
        assert all(page.ended.wait(3) for page in pages), "a club page's stream outlived the drain"
        srv.proc.wait(5)
        assert time.monotonic() - t0 < 5
    finally:
        srv.stop()
