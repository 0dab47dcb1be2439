"""Leases and fencing (daer.server.table.port, daer.store.leases), in process, on SQLite and PostgreSQL: a worker
takes a room only while nobody else holds it, every write is fenced by the lease's epoch and the room's version,
and when two workers believe they own one room exactly one write wins and the other stops serving it."""

from __future__ import annotations

import asyncio
import threading
from importlib import resources
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import text

from daer.server import protocol as p
from daer.server.safety.bounds import RoomConfig, RoomError
from daer.server.serving.manager import RoomManager
from daer.server.table.audience import Audience
from daer.server.table.seating import Conn, Seat
from daer.store import Store
from daer.store.leases import LeaseLost, expire_unclaimed, holder


def _expire(store: Store, code: str) -> None:
    """The lease runs out (its worker stopped renewing: paused, cut off or dead)."""
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE rooms SET lease_until = 0 WHERE code = :c"), {"c": code})


def _workers(db_url: str) -> tuple[RoomManager, RoomManager]:
    """Two workers of one cluster (no sole process: leases are taken only when free)."""
    return (RoomManager(Store(db_url), bot_delay=0.0, worker="a", lease_ttl=30.0, sole=False),
            RoomManager(Store(db_url), bot_delay=0.0, worker="b", lease_ttl=30.0, sole=False))


def _frames(conn: Conn) -> list[str | None]:
    """The frames queued for ``conn``, as text (an update is queued as the encoder's UTF-8 bytes)."""
    out = []
    while not conn.queue.empty():
        frame = conn.queue.get_nowait()
        out.append(frame.decode() if isinstance(frame, bytes) else frame)
    return out


def test_a_room_is_served_by_one_worker_at_a_time_and_handed_over_on_request(db_url: str) -> None:
    a, b = _workers(db_url)
    room, _seat, _token = a.create(RoomConfig(timer=0), "A")
    assert holder(a.store.engine, room.code) == (None, 0, False)  # created through any worker: nobody holds it
    assert a.get(room.code) is not None
    assert holder(a.store.engine, room.code)[:2] == ("a", 1)  # type: ignore[index]
    with pytest.raises(RoomError) as moved:
        b.get(room.code)  # a lives: b answers "moved" (the client retries) and asks a for the room
    assert moved.value.code == "moved"
    a.rooms[room.code].port.since -= 60  # held long enough to be handed over
    a.keep_leases()  # a renews, sees b's request, releases
    assert room.code not in a.rooms
    assert b.get(room.code) is not None  # the retry lands
    assert holder(b.store.engine, room.code)[:2] == ("b", 2)  # type: ignore[index]
    for m in (a, b):
        m.store.close()


def test_a_dead_workers_rooms_are_taken_over_once_their_lease_ends(db_url: str) -> None:
    a, b = _workers(db_url)
    codes = [a.create(RoomConfig(timer=0), "A")[0].code for _ in range(3)]
    for code in codes:
        assert a.get(code) is not None
    b.keep_leases()
    assert not b.rooms  # a's leases are live
    for code in codes:
        _expire(a.store, code)  # a died: nobody renews
    b.keep_leases()  # b finds them and takes them over
    assert set(b.rooms) == set(codes)
    a.keep_leases()  # a comes back from a long pause: it renews nothing and serves none of them
    assert not a.rooms
    for m in (a, b):
        m.store.close()


@pytest.mark.parametrize("tick", [False, True], ids=["committed-at-once", "group-commit"])
def test_split_brain_exactly_one_write_wins_and_the_loser_stops_serving(db_url: str, tick: bool) -> None:
    a, b = _workers(db_url)
    code = a.create(RoomConfig(timer=0), "A")[0].code
    old = a.get(code)
    assert old is not None
    _expire(a.store, code)  # a is paused past its lease; b is asked for the room and takes it ...
    new = b.get(code)
    assert new is not None and old.serving  # ... while a still believes it serves the room
    watcher = Conn(None)
    old.conns.add(watcher)

    async def both_write() -> list[str]:
        results = []
        if tick:
            for m in (a, b):
                m.store.writer.on_fail = m.store_failed
                m.store.writer.start()
            watcher.gate = a.store.writer
        for name, room in (("a", old), ("b", new)):  # the same change, at the same version, by both
            try:
                room.join(f"from {name}")
                results.append(name)
            except LeaseLost:
                results.append(f"{name} refused")
        for m in (a, b):
            await m.store.writer.synced()
            m.store.writer.stop()
        return results

    results = asyncio.run(both_write())
    if not tick:
        assert results == ["a refused", "b"]  # committed at once: a's write is refused in the act
    stored = Store(db_url)
    row = stored.load_room(code)
    assert row is not None
    assert [s.name for s in row.seats if s.kind == "human"] == ["A", "from b"]  # exactly one write won: b's
    assert row.version == new.version == 1
    assert not old.serving and code not in a.rooms and code in b.rooms  # the loser stopped serving the room
    frames = _frames(watcher)
    assert frames[-1] is None and watcher.close_code == p.RECONNECT  # its socket: closed with the reconnect code
    assert all(f is None or '"from a"' not in f for f in frames)  # nobody heard of the refused write
    with pytest.raises(LeaseLost):
        old.join("late")  # every later write of the stale copy is refused too
    for m in (a, b, stored):
        store = m if isinstance(m, Store) else m.store
        store.close()


def test_a_drained_worker_hands_every_room_over(db_url: str) -> None:
    a, b = _workers(db_url)
    codes = [a.create(RoomConfig(timer=0), "A")[0].code for _ in range(2)]
    conns = []
    for code in codes:
        room = a.get(code)
        assert room is not None
        conn = Conn(0)
        room.conns.add(conn)
        conns.append(conn)

    async def drain() -> int:
        n = a.drain()
        await asyncio.sleep(0)
        return n

    assert asyncio.run(drain()) == 2
    assert not a.rooms and all(c.close_code == p.RECONNECT and _frames(c)[-1] is None for c in conns)
    with pytest.raises(RoomError):
        a.get(codes[0])  # a drained worker takes no room
    b.keep_leases()  # released leases are free at once: no waiting for them to expire
    assert set(b.rooms) == set(codes)
    for m in (a, b):
        m.store.close()


def test_the_audience_sends_one_frame_per_seat_and_private_steps_to_their_seat_only() -> None:
    async def run() -> None:
        aud = Audience()
        seats = [Seat(0, "human", "A", "h0"), Seat(1, "human", "B", "h1")]
        c0, c0b, c1, spec = Conn(0), Conn(0), Conn(1), Conn(None)
        c0.holder = c0b.holder = "h0"
        c1.holder = "other"  # proved a token the seat no longer has
        aud.conns |= {c0, c0b, c1, spec}
        built: list[int | None] = []
        aud.send(lambda seat: (built.append(seat), f"frame {seat}")[1])
        assert sorted(built, key=str) == sorted([0, 1, None], key=str)  # one frame per seat, shared
        assert _frames(c0) == _frames(c0b) == ["frame 0"] and _frames(spec) == ["frame None"]
        _frames(c1)
        aud.send(lambda seat: f"private {seat}", only=0)
        assert _frames(c0) == _frames(c0b) == ["private 0"] and _frames(c1) == [] and _frames(spec) == []
        assert aud.stale(seats) == [c1]
        assert aud.remove(c1, seats) and not aud.remove(c1, seats)
        aud.reconnect_all()
        await asyncio.sleep(0)
        assert all(_frames(c) == [None] and c.close_code == p.RECONNECT for c in (c0, c0b, spec))
        assert len(aud) == 0

    asyncio.run(run())


def test_workers_starting_together_migrate_once(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    from databases import new_database  # noqa: PLC0415

    url = new_database(request, "postgresql", tmp_path)
    errors: list[BaseException] = []

    def start() -> None:
        try:
            Store(url).close()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []  # without the advisory lock, concurrent CREATE TABLEs fail
    store = Store(url)
    with store.engine.connect() as conn:
        head = ScriptDirectory(str(resources.files("daer.store") / "migrations")).get_current_head()
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == head
    store.close()


def test_rooms_made_in_a_cluster_that_nobody_joined_expire_and_a_claimed_one_stays(db_url: str) -> None:
    a, b = _workers(db_url)
    idle = a.create(RoomConfig(timer=0), "A")[0].code
    used = a.create(RoomConfig(timer=0), "A")[0].code
    assert b.get(used) is not None  # somebody connected: its worker holds it
    assert expire_unclaimed(a.store.engine, created_before=0.0) == 0  # nothing old enough
    assert expire_unclaimed(a.store.engine, created_before=float("inf")) == 1
    assert a.get(idle) is None  # expired: never served
    assert used in b.rooms and b.store.load_room(used).status == "waiting"  # type: ignore[union-attr]
    for m in (a, b):
        m.store.close()


def test_a_renewal_never_waits_for_a_room_row_that_a_write_in_flight_holds(
        request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """The one-worker cluster's ~1 s stalls: the renewal (a worker thread) and the writer's group commit (the
    loop) locked the same rows in different orders; PostgreSQL broke the deadlock after deadlock_timeout (1 s)
    with the loop blocked all along.  A renewal must not wait for a row lock at all: here a write holds one
    room's row, uncommitted, and the renewal must still end — the other rooms extended, the locked one
    reported held (extended at the next renewal), and every room extended once the write commits."""
    from databases import new_database  # noqa: PLC0415

    url = new_database(request, "postgresql", tmp_path)
    a = RoomManager(Store(url), bot_delay=0.0, worker="a", lease_ttl=30.0, sole=False)
    codes = [a.create(RoomConfig(timer=0), "A")[0].code for _ in range(3)]
    for code in codes:
        assert a.get(code) is not None

    def until(code: str) -> float:
        with a.store.engine.connect() as conn:
            return float(conn.execute(text("SELECT lease_until FROM rooms WHERE code = :c"), {"c": code}).scalar())

    before = {c: until(c) for c in codes}
    writer = a.store.engine.connect()  # a write of room 0 in flight: its row locked until it commits
    writer.execute(text("UPDATE rooms SET version = version WHERE code = :c AND owner = 'a'"), {"c": codes[0]})
    got: list[dict[str, tuple[int, str | None]]] = []
    renewal = threading.Thread(target=lambda: got.append(a.leases.extend(codes)), daemon=True)
    renewal.start()
    renewal.join(timeout=30)
    blocked = renewal.is_alive()
    writer.commit()  # let a blocked renewal go before failing
    renewal.join()
    writer.close()
    assert not blocked, "the renewal waited for the row lock of a write in flight"
    assert got == [dict.fromkeys(codes, (1, None))]  # all still held; the locked one read without a lock
    assert until(codes[0]) == before[codes[0]]  # its lease not extended this time...
    assert all(until(c) > before[c] for c in codes[1:])
    assert a.leases.extend(codes) == dict.fromkeys(codes, (1, None))
    assert until(codes[0]) > before[codes[0]]  # ...but at the next renewal
    a.store.close()


def test_renewals_and_lost_leases_are_counted_in_the_metrics(db_url: str) -> None:
    """``daer_lease_renewals_total{result}`` counts each renewal (a failed one too, which before showed only in
    the log) and ``daer_leases_lost_total`` each room dropped because its lease was taken over."""
    from daer.server.ops.metrics import REGISTRY  # noqa: PLC0415
    from daer.server.serving.manager import keep_leases_forever  # noqa: PLC0415

    def count(name: str, **labels: str) -> float:
        return REGISTRY.get_sample_value(name, labels) or 0.0

    a, b = _workers(db_url)
    code = a.create(RoomConfig(timer=0), "A")[0].code
    assert a.get(code) is not None
    ok, failed, lost = (count("daer_lease_renewals_total", result="ok"),
                        count("daer_lease_renewals_total", result="failed"), count("daer_leases_lost_total"))

    async def renew_until(name: str, floor: float, **labels: str) -> None:
        a.leases.ttl = 3.0  # a renewal every second
        task = asyncio.create_task(keep_leases_forever(a))
        try:
            async with asyncio.timeout(30):
                while count(name, **labels) <= floor:
                    await asyncio.sleep(0.05)
        finally:
            task.cancel()

    asyncio.run(renew_until("daer_lease_renewals_total", ok, result="ok"))
    assert count("daer_lease_renewals_total", result="failed") == failed and code in a.rooms
    renew = a.leases.extend

    def broken(codes: list[str]) -> dict[str, tuple[int, str | None]]:
        raise RuntimeError("the database is unreachable")

    a.leases.extend = broken  # type: ignore[method-assign]
    asyncio.run(renew_until("daer_lease_renewals_total", failed, result="failed"))
    a.leases.extend = renew  # type: ignore[method-assign]
    assert count("daer_leases_lost_total") == lost
    _expire(a.store, code)
    assert b.get(code) is not None  # taken over
    a.keep_leases()
    assert code not in a.rooms and count("daer_leases_lost_total") == lost + 1
    for m in (a, b):
        m.store.close()


def test_a_survivor_takes_a_dead_workers_rooms_over_one_per_turn_of_the_loop(db_url: str) -> None:
    """Each take-over is a lease, a load and a replay on the loop; a survivor adopting a killed worker's rooms
    must let its own rooms' callbacks run between two of them (before, up to 100 were taken in one callback:
    the loop stood still for all of them)."""
    from daer.server.serving.manager import adopt_orphans  # noqa: PLC0415

    a, b = _workers(db_url)
    codes = [a.create(RoomConfig(timer=0), "A")[0].code for _ in range(5)]
    for code in codes:
        assert a.get(code) is not None
        _expire(a.store, code)  # a died
    seen: list[int] = []

    async def run() -> int:
        loop = asyncio.get_running_loop()
        going = True

        def probe() -> None:  # another callback of the loop: what it sees of the take-over
            seen.append(len(b.rooms))
            if going:
                loop.call_soon(probe)

        loop.call_soon(probe)
        try:
            return await adopt_orphans(b)
        finally:
            going = False
            for room in b.rooms.values():
                room.stop()

    assert asyncio.run(run()) == 5 and set(b.rooms) == set(codes)
    assert {1, 2, 3, 4} <= set(seen)  # the loop turned between every two rooms
    for m in (a, b):
        m.store.close()


def test_the_sweep_of_rooms_nobody_joined_runs_off_the_event_loop(tmp_path: Path) -> None:
    """``expire_unclaimed`` is one UPDATE over the whole rooms table (which only grows), every sweep: it must
    not hold the loop — it runs in a worker thread (it ran on the loop before)."""
    from daer.server.safety.limits import Limits  # noqa: PLC0415
    from daer.server.serving.expiry import sweep_forever  # noqa: PLC0415

    m = RoomManager(Store(f"sqlite:///{tmp_path / 'd.db'}"), bot_delay=0.0, worker="a", sole=False)
    threads: list[threading.Thread] = []

    def expire(created_before: float) -> int:
        threads.append(threading.current_thread())
        return 0

    m.leases.expire_unclaimed = expire  # type: ignore[method-assign]

    async def run() -> threading.Thread:
        task = asyncio.create_task(sweep_forever(m, Limits(sweep_every=0.01)))
        try:
            async with asyncio.timeout(30):
                while not threads:
                    await asyncio.sleep(0.01)
        finally:
            task.cancel()
        return threading.current_thread()

    loop_thread = asyncio.run(run())
    assert threads and threads[0] is not loop_thread
    m.store.close()
