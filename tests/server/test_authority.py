"""Authority on every action: a connection whose seat changed hands is told and closed; double taps are harmless."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest
from serving import Client, Server, post, room
from websockets.exceptions import ConnectionClosed


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("authority") / "daer.db").start()
    yield srv
    srv.stop()


def closed_then_gone(c: Client) -> dict[str, Any]:
    """The ``closed`` message a connection gets, then the socket ends (nothing else arrives after it)."""
    m = c.until(lambda m: m["t"] == "closed")
    with pytest.raises(ConnectionClosed):
        while True:
            c.recv(timeout=5)
    return m


def test_two_sockets_one_token_leave_on_one_closes_the_other_before_anyone_else_takes_the_seat(
        server: Server) -> None:
    r = room(server)
    a = Client(server, r["code"], r["token"])
    b = Client(server, r["code"], r["token"])
    assert a.welcome["seat"] == b.welcome["seat"] == 0
    a.state(lambda m: True)
    b.state(lambda m: True)
    assert a.cmd("leave")["t"] == "ack"
    told = closed_then_gone(b)
    assert told["zh"].startswith("你已不在这个座位上") and told["en"]
    # the next person takes seat 0; the old socket is gone, so it can neither see their hand nor act for them
    status, joined = post(f"{server.url}/api/rooms/{r['code']}/join", {"name": "C"})
    assert status == 200 and joined["seat"] == 0
    frames_b = len(b.frames)
    c = Client(server, r["code"], joined["token"])
    c.cmd("start")
    upd = c.state(lambda m: m["view"] is not None and bool(m["view"]["hand"]))
    assert upd["view"]["seat"] == 0
    assert len(b.frames) == frames_b


def test_leaving_in_mid_hand_closes_every_socket_of_the_seat_and_the_bot_plays_on(server: Server) -> None:
    r = room(server)
    a = Client(server, r["code"], r["token"])
    b = Client(server, r["code"], r["token"])
    a.cmd("start")
    b.state(lambda m: m["view"] is not None)
    a.cmd("leave")
    closed_then_gone(b)
    watcher = Client(server, r["code"])
    assert watcher.state(lambda m: m["room"]["seats"][0]["kind"] == "bot")


def rooms_stored(server: Server) -> int:
    with sqlite3.connect(server.db) as db:
        return int(db.execute("select count(*) from rooms").fetchone()[0])


def test_a_double_tap_on_create_makes_one_room(server: Server) -> None:
    before = rooms_stored(server)
    body = {"name": "A", "rid": "tap-create-1", "config": {"timer": 0}}
    first = post(f"{server.url}/api/rooms", body)
    second = post(f"{server.url}/api/rooms", body)
    assert first == second and first[0] == 200
    assert rooms_stored(server) == before + 1
    third = post(f"{server.url}/api/rooms", {**body, "rid": "tap-create-2"})
    assert third[1]["code"] != first[1]["code"]


def test_a_double_tap_on_join_takes_one_seat(server: Server) -> None:
    r = room(server)
    url = f"{server.url}/api/rooms/{r['code']}/join"
    first = post(url, {"name": "B", "rid": "tap-join"})
    second = post(url, {"name": "B", "rid": "tap-join"})
    assert first == second and first[1]["seat"] == 1
    watcher = Client(server, r["code"])
    seats = watcher.state(lambda m: True)["room"]["seats"]
    assert [s["kind"] for s in seats] == ["human", "human", "empty", "empty"]
    # the same rid in another room is another request
    other = room(server)
    assert post(f"{server.url}/api/rooms/{other['code']}/join", {"name": "B", "rid": "tap-join"})[1]["seat"] == 1
