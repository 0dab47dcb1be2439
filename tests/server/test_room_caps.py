"""The per-address cap of live rooms holds for a whole cluster: workers count an address's live rooms in the
store (migration 0004's ``rooms.creator``), whichever worker made them; the sole process of a SQLite store
counts those in its memory, as before (issue 12, cluster-wide limits)."""

from __future__ import annotations

from contextlib import ExitStack

from starlette.testclient import TestClient

from daer.server import create_app
from daer.server.limits import Limits, Rate
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
