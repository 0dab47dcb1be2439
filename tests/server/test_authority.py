"""Authority on every action: a connection whose seat changed hands is told and closed; double taps are harmless."""

from __future__ import annotations

import sqlite3
import threading
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


def at_once(url: str, body: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """The answers to two POSTs of ``body`` sent together from two threads."""
    answers: list[tuple[int, dict[str, Any]]] = []
    start = threading.Barrier(2)

    def tap() -> None:
        start.wait()
        answers.append(post(url, body))

    taps = [threading.Thread(target=tap) for _ in range(2)]
    for t in taps:
        t.start()
    for t in taps:
        t.join()
    return answers


def test_a_double_tap_on_join_sent_at_once_gets_one_seat_and_one_answer_twice(server: Server) -> None:
    """Two joins with one rid in flight together (the second arrives while the first waits for its seat's
    commit): the second waits for the first's answer.  Before, it tried to store a second seat under the same
    rid: the write failed, one tap got 503 and every socket of the room was closed."""
    for trial in range(8):
        r = room(server)
        watcher = Client(server, r["code"], r["token"])
        watcher.state(lambda m: True)
        answers = at_once(f"{server.url}/api/rooms/{r['code']}/join", {"name": "B", "rid": f"tap-at-once-{trial}"})
        assert answers[0] == answers[1] and answers[0][0] == 200, answers
        watcher.send({"t": "ping"})  # the host's socket was not closed
        assert watcher.until(lambda m: m["t"] in ("pong", "closed"))["t"] == "pong"
        seats = watcher.state(lambda m: m["room"]["seats"][1]["kind"] == "human")["room"]["seats"]
        assert [s["kind"] for s in seats] == ["human", "human", "empty", "empty"]
        watcher.close()
