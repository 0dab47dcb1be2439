"""A join repeated with its request id gets the same seat on any worker (issue 12, cluster-wide request-id
answers): each worker keeps the answers it gave in memory, but the balancer may send the repeat elsewhere (the
room moved after its worker died) or the worker may have restarted.  The seat a join took is stored with it
(its token only as a hash), so the repeat gets that seat again with a new token — never a second seat."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest
from sqlalchemy import text
from starlette.testclient import TestClient

from daer.server import create_app
from daer.server.safety.bounds import RoomConfig, RoomError
from daer.server.safety.limits import Limits, Rate, address_key
from daer.server.serving.manager import RoomManager
from daer.server.table.rooms import request_key
from daer.server.table.seating import token_hash
from daer.store import Store
from daer.store.leases import LeaseLost, holder

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
                room.rejoin(request_key("join", "testclient", "join-1"))
            assert used.value.code == "rid_used" and room.seats[1].token_hash == token_hash("someone else")


def test_a_create_repeated_on_another_worker_or_after_a_restart_gets_the_same_room(db_url: str) -> None:
    """The create's request id is stored with the room (its host token only as a hash): a repeat that reaches
    another worker, or the process after a restart, gets that room's host seat with a new token — not a second
    room."""
    cluster = db_url.startswith("postgresql")
    body = {"name": "A", "rid": "create-1", "config": {"timer": 0}}
    with ExitStack() as first_worker:
        a = first_worker.enter_context(_app(db_url, "a"))
        first = a.post("/api/rooms", json=body)
        assert first.status_code == 200, first.json()
        code = first.json()["code"]
        assert a.post("/api/rooms", json=body).json() == first.json()  # the same worker: from its memory
        if not cluster:  # SQLite: the one process stops; its answers in memory are gone as after a restart
            first_worker.close()
        with _app(db_url, "b" if cluster else "sole") as b:
            again = b.post("/api/rooms", json=body)
            assert again.status_code == 200, again.json()
            assert again.json()["code"] == code and again.json()["seat"] == 0
            assert again.json()["token"] != first.json()["token"]
            assert b.post("/api/rooms", json=body).json() == again.json()
            other = b.post("/api/rooms", json={**body, "rid": "create-2"}).json()["code"]
            assert other != code
            manager = _manager(b)
            assert manager.store.live_rooms_of(address_key("testclient")) == 2  # not a third room
            if cluster:  # still served by no worker: the one the balancer sends its code to takes it, as any new room
                assert holder(manager.store.engine, code) == (None, 0, False)
                assert code not in manager.rooms and code not in manager.leases.orphans()
            room = manager.get(code)
            assert room is not None
            assert [s.kind for s in room.seats] == ["human", "empty", "empty", "empty"]
            assert room.seat_of(again.json()["token"]) == 0 and room.seat_of(first.json()["token"]) is None
            # once the host seat changed hands, the repeat is refused (not someone else's seat)
            room.seats[0].token_hash = token_hash("someone else")
            with pytest.raises(RoomError) as used:
                manager.recreate("testclient", request_key("create", "testclient", "create-1"))
            assert used.value.code == "rid_used" and room.seats[0].token_hash == token_hash("someone else")


def test_a_write_to_a_room_nobody_served_is_refused_once_a_worker_took_its_lease(tmp_path: Path) -> None:
    """A repeated create writes the host's new token to a room of a cluster that no worker served yet without
    taking its lease (fenced by epoch 0 and the version): once a worker took the lease, such a write fails."""
    store = Store(f"sqlite:///{tmp_path / 'daer.db'}")
    a, b = RoomManager(store, worker="a", sole=False), RoomManager(store, worker="b", sole=False)
    room, _, _ = a.create(RoomConfig(timer=0), "A", creator="192.0.2.1", rid=request_key("create", "192.0.2.1", "r"))
    port = a.leases.unserved(room.code, 0)
    assert port is not None and room.code not in a.rooms
    port.update_room(version=1)
    assert holder(store.engine, room.code) == (None, 0, False)
    assert b.get(room.code) is not None  # the worker its code is routed to takes it (epoch 1)
    assert a.leases.unserved(room.code, 1) is None
    with pytest.raises(LeaseLost):
        port.update_room(version=2)
    store.close()


def _two_workers(db_url: str) -> tuple[RoomManager, RoomManager]:
    return (RoomManager(Store(db_url), bot_delay=0.0, worker="a", sole=False),
            RoomManager(Store(db_url), bot_delay=0.0, worker="b", sole=False))


def test_two_creates_with_one_request_id_at_the_same_instant_on_two_workers_make_one_room(db_url: str) -> None:
    """Both workers looked for the request's room before either stored it (the balancer sent a retry to the
    other worker while the worker set changed): each then creates.  The create key is unique over all rooms
    (migration 0005), so the second insert fails whole and that worker answers with the first one's room and
    host seat (a new token; the first stops working, as for any repeat) — one room, both answers agree."""
    a, b = _two_workers(db_url)
    rid = request_key("create", "1.2.3.4", "tap-1")
    assert a.recreate("1.2.3.4", rid) is None and b.recreate("1.2.3.4", rid) is None  # neither found it
    room_a, seat_a, token_a = a.create(RoomConfig(timer=0), "A", creator="1.2.3.4", rid=rid)
    # (with a cap of one room: the first room counts, but it is this request's — the answer, not a refusal)
    room_b, seat_b, token_b = b.create(RoomConfig(timer=0), "A", creator="1.2.3.4", rid=rid, at_most=1)
    assert (room_b.code, seat_b) == (room_a.code, seat_a) == (room_a.code, 0)
    assert a.store.live_rooms_of(address_key("1.2.3.4")) == 1  # before: 2 (one room per worker)
    assert a.store.room_codes() == [room_a.code]
    stored = a.store.load_room(room_a.code)
    assert stored is not None and stored.seats[0].token_hash == token_hash(token_b) != token_hash(token_a)
    assert not b.rooms  # nothing of the refused create kept (a cluster's new room waits for its worker)
    other = b.create(RoomConfig(timer=0), "A", creator="1.2.3.4", rid=request_key("create", "1.2.3.4", "tap-2"))
    assert other[0].code != room_a.code  # another request id: another room
    for m in (a, b):
        m.store.close()


def test_creates_with_one_request_id_racing_in_threads_on_postgresql_make_one_room(
        request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """The same, truly at once: two workers' creates released together by a barrier, many times (PostgreSQL
    makes the later insert wait on the unique index until the first commits, then refuses it)."""
    import threading  # noqa: PLC0415

    from databases import new_database  # noqa: PLC0415

    url = new_database(request, "postgresql", tmp_path)
    workers = _two_workers(url)
    for i in range(20):
        rid = request_key("create", "1.2.3.4", f"tap-{i}")
        gate = threading.Barrier(len(workers))
        answers: list[tuple[str, int]] = []
        errors: list[BaseException] = []

        def create(m: RoomManager, rid: str = rid, gate: threading.Barrier = gate,
                   answers: list[tuple[str, int]] = answers, errors: list[BaseException] = errors) -> None:
            gate.wait()
            try:
                room, seat, _token = m.create(RoomConfig(timer=0), "A", creator="1.2.3.4", rid=rid)
                answers.append((room.code, seat))
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=create, args=(m,)) for m in workers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert len(answers) == 2 and answers[0] == answers[1] and answers[0][1] == 0
    assert len(workers[0].store.room_codes()) == 20  # one room per request id
    for m in workers:
        m.store.close()


def test_two_joins_with_one_request_id_on_two_workers_that_both_believe_they_hold_the_room_take_one_seat(
        db_url: str) -> None:
    """A join is a write of the room, fenced by its lease: when the same join reaches two workers that both
    believe they serve the room (one paused past its lease), the stale one's write is refused whole and the
    request's repeat gets the one seat taken."""
    a, b = _two_workers(db_url)
    code = a.create(RoomConfig(timer=0), "A")[0].code
    stale = a.get(code)
    assert stale is not None
    with a.store.engine.begin() as conn:  # a paused past its lease; b takes the room
        conn.execute(text("UPDATE rooms SET lease_until = 0 WHERE code = :c"), {"c": code})
    live = b.get(code)
    assert live is not None and stale.serving
    rid = request_key("join", "5.6.7.8", "tap-1")
    with pytest.raises((LeaseLost, RoomError)):
        stale.join("B", rid=rid)
    seat, token = live.join("B", rid=rid)
    again = live.rejoin(rid)  # the client's retry (its first answer was the refusal)
    assert again is not None and again[0] == seat == 1
    row = b.store.load_room(code)
    assert row is not None and [s.kind for s in row.seats] == ["human", "human", "empty", "empty"]
    assert row.seats[1].token_hash == token_hash(again[1]) != token_hash(token)
    for m in (a, b):
        m.store.close()
