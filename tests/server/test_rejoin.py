"""A join repeated with its request id gets the same seat on any worker (issue 12, cluster-wide request-id
answers): each worker keeps the answers it gave in memory, but the balancer may send the repeat elsewhere (the
room moved after its worker died) or the worker may have restarted.  The seat a join took is stored with it
(its token only as a hash), so the repeat gets that seat again with a new token — never a second seat."""

from __future__ import annotations

from contextlib import ExitStack

import pytest
from starlette.testclient import TestClient

from daer.server import create_app
from daer.server.bounds import RoomError
from daer.server.limits import Limits, Rate, address_key
from daer.server.manager import RoomManager
from daer.server.seating import token_hash

HIGH = Rate(100000, 100000)


def _app(db_url: str, worker: str) -> TestClient:
    return TestClient(create_app(db_url, bot_delay=0.0, worker=worker,
                                 limits=Limits(rates={"create": HIGH, "join": HIGH, "lookup": HIGH})))


def _manager(c: TestClient) -> RoomManager:
    m = c.app.state.manager  # type: ignore[attr-defined]
    assert isinstance(m, RoomManager)
    return m


def test_a_join_repeated_on_another_worker_or_after_a_restart_gets_the_same_seat(db_url: str) -> None:
    cluster = db_url.startswith("postgresql")
    with ExitStack() as first_worker:
        a = first_worker.enter_context(_app(db_url, "a"))
        code = a.post("/api/rooms", json={"name": "A", "config": {"timer": 0}}).json()["code"]
        first = a.post(f"/api/rooms/{code}/join", json={"name": "B", "rid": "join-1"})
        assert first.status_code == 200 and first.json()["seat"] == 1
        assert a.post(f"/api/rooms/{code}/join", json={"name": "B", "rid": "join-1"}).json() == first.json()
        _manager(a).release(code)  # its worker gave the room up (drained, or died and its lease ran out)
        if not cluster:  # SQLite: one process, stopped; its answers in memory are gone as after a restart
            first_worker.close()
        with _app(db_url, "b" if cluster else "sole") as b:
            again = b.post(f"/api/rooms/{code}/join", json={"name": "B", "rid": "join-1"})
            assert again.status_code == 200, again.json()
            assert again.json()["seat"] == 1 and again.json()["token"] != first.json()["token"]
            room = _manager(b).get(code)
            assert room is not None
            assert [s.kind for s in room.seats] == ["human", "human", "empty", "empty"]  # not a second seat
            assert room.seat_of(again.json()["token"]) == 1 and room.seat_of(first.json()["token"]) is None
            assert b.post(f"/api/rooms/{code}/join", json={"name": "C", "rid": "join-2"}).json()["seat"] == 2
            # once the seat changed hands, the repeat of its join is refused (not the seat of someone else)
            room.seats[1].token_hash = token_hash("someone else")
            with pytest.raises(RoomError) as used:
                room.rejoin(address_key("testclient\njoin-1")[:40])
            assert used.value.code == "rid_used" and room.seats[1].token_hash == token_hash("someone else")
