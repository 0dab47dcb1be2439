"""The per-address cap of live rooms holds for a whole cluster: workers count an address's live rooms in the
store (migration 0004's ``rooms.creator``), whichever worker made them — counted again as a room is stored, so
creates racing on several workers cannot pass it; the sole process of a SQLite store counts those in its
memory, as before (issue 12, cluster-wide limits)."""

from __future__ import annotations

import threading
from contextlib import ExitStack
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from daer.server import create_app
from daer.server.safety.bounds import RoomConfig, RoomError
from daer.server.safety.limits import Limits, Rate
from daer.server.serving.manager import RoomManager
from daer.store import Store

HIGH = Rate(100000, 100000)


def _limits() -> Limits:
    return Limits(rates={"create": HIGH, "join": HIGH, "lookup": HIGH}, max_rooms_per_address=3)


def _create(c: TestClient) -> tuple[int, dict[str, object]]:
    res = c.post("/api/rooms", json={"name": "A", "config": {"timer": 0}})
    return res.status_code, res.json()


def test_the_room_cap_per_address_counts_the_rooms_every_worker_made(db_url: str) -> None:
    workers = ["a", "b"] if db_url.startswith("postgresql") else ["sole"]  # SQLite: one process
    with ExitStack() as stack:
        clients = [stack.enter_context(TestClient(create_app(db_url, bot_delay=0.0, limits=_limits(), worker=w)))
                   for w in workers]
        made = [_create(clients[i % len(clients)]) for i in range(3)]  # spread over the workers
        assert all(status == 200 for status, _ in made), made
        for c in clients:  # every worker refuses the address's fourth live room
            status, body = _create(c)
            assert status == 429 and body["error"] == "too_many_rooms", body
        # a room that is over no longer counts
        code = str(made[0][1]["code"])
        store = Store(db_url)
        try:
            with store.engine.begin() as conn:
                conn.exec_driver_sql(f"UPDATE rooms SET status = 'finished' WHERE code = '{code}'")
        finally:
            store.close()
        if len(workers) == 1:  # the sole process counts its memory: the room's status there changes
            clients[0].app.state.manager.rooms[code].status = "finished"  # type: ignore[attr-defined]
        assert _create(clients[-1])[0] == 200


def test_creates_of_one_address_racing_on_four_workers_never_pass_the_cap(
        request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """Every worker counted the address's rooms before any of them stored one (the count and the insert are
    two steps): the cap is counted again in the insert's transaction, after an advisory lock on the address,
    so of four creates released together with a cap of 2, two make rooms and two are refused — before, all
    four made one."""
    from databases import new_database  # noqa: PLC0415

    url = new_database(request, "postgresql", tmp_path)
    workers = [RoomManager(Store(url), bot_delay=0.0, worker=f"w{i}", sole=False) for i in range(4)]
    for m in workers:
        assert m.rooms_made_by("1.2.3.4") == 0  # each passed the caller's check
    gate = threading.Barrier(len(workers))
    made: list[str] = []
    refused: list[str] = []

    def create(m: RoomManager) -> None:
        gate.wait()
        try:
            made.append(m.create(RoomConfig(timer=0), "A", creator="1.2.3.4", at_most=2)[0].code)
        except RoomError as exc:
            refused.append(exc.code)

    threads = [threading.Thread(target=create, args=(m,)) for m in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(made) == 2 and refused == ["too_many_rooms"] * 2
    assert workers[0].rooms_made_by("1.2.3.4") == 2 and sorted(workers[0].store.room_codes()) == sorted(made)
    assert workers[0].create(RoomConfig(timer=0), "A", creator="5.6.7.8", at_most=2)  # another address: free
    for m in workers:
        m.store.close()
