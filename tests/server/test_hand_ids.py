"""A new hand's id is taken before its row is committed (Writer.next_id): ids stay unique within a tick, after a
failed write and across a restart, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio

import msgspec
import pytest

from daer.server.safety.bounds import RoomConfig
from daer.store import Store
from daer.store.leases import Fence
from daer.store.writer import IDS_AHEAD


def _room(store: Store, code: str) -> None:
    store.create_room(code=code, created_at=0.0, config=msgspec.json.encode(RoomConfig()).decode(), scores="[0]",
                      dealer=0, seats=[], owner="t", ttl=60.0)


def _deal(store: Store, code: str, number: int, version: int) -> int:
    return store.start_hand(code=code, number=number, rules="luzhou", overrides="{}", dealer=0, deck="[]",
                            version=version + 1, fence=Fence("t", 1, version))


def test_hand_ids_are_unique_before_their_commit_after_a_failed_write_and_after_a_restart(db_url: str) -> None:
    store = Store(db_url)
    for code in ("AAAAA", "BBBBB", "CCCCC"):
        _room(store, code)

    async def tick() -> list[int]:
        store.writer.start()
        ids = [_deal(store, "AAAAA", 1, 0), _deal(store, "BBBBB", 1, 0)]  # one tick: neither row committed yet
        ids.append(_deal(store, "CCCCC", 1, 7))  # a stale fence: this unit fails, its id is never stored
        await store.writer.synced()
        ids.append(_deal(store, "AAAAA", 2, 1))
        await store.writer.synced()
        store.writer.stop()
        return ids

    ids = asyncio.run(tick())
    assert len(set(ids)) == 4, ids
    stored = {h[0] for code in ("AAAAA", "BBBBB", "CCCCC") for h in store.hands_of(code)}
    assert stored == {ids[0], ids[1], ids[3]}, (ids, stored)
    store.close()
    again = Store(db_url)  # a restart: the new process's ids continue past every stored one
    assert _deal(again, "BBBBB", 2, 1) > max(stored)
    again.close()


def test_two_workers_taking_ids_ahead_never_hand_out_one_twice_and_ask_the_sequence_once_a_block(
        db_url: str) -> None:
    """PostgreSQL hands out :data:`IDS_AHEAD` ids a round trip; two stores (two workers) interleaving deals get
    disjoint ids, and every hand's row is stored with its own."""
    if not db_url.startswith("postgresql"):
        pytest.skip("ids are taken ahead from PostgreSQL's sequence only")
    a, b = Store(db_url), Store(db_url)
    asked: list[str] = []
    real = a.writer._dbapi

    def counting() -> object:
        conn = real()

        class Cursor:
            def __init__(self) -> None:
                self.cur = conn.cursor()

            def execute(self, sql: str, params: object = None) -> object:
                asked.append(sql)
                return self.cur.execute(sql, params)

            def __getattr__(self, name: str) -> object:
                return getattr(self.cur, name)

        class Conn:
            def cursor(self) -> Cursor:
                return Cursor()

        return Conn()

    codes = [f"R{i:04d}" for i in range(2 * IDS_AHEAD + 2)]
    for code in codes:
        _room(a, code)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(a.writer, "_dbapi", counting)
        ids_a = [a.writer.next_id("hands") for _ in range(2 * IDS_AHEAD)]
    assert sum("nextval" in q for q in asked) == 2 and sum("pg_get_serial_sequence" in q for q in asked) == 1
    ids_b = [b.writer.next_id("hands") for _ in range(IDS_AHEAD)]
    assert len(set(ids_a) | set(ids_b)) == 3 * IDS_AHEAD  # no id twice across the two workers
    dealt = [_deal(a if i % 2 else b, code, 1, 0) for i, code in enumerate(codes)]
    assert len(set(dealt)) == len(dealt)
    assert not set(dealt) & (set(ids_a) | set(ids_b))  # ids taken ahead and used are never taken again
    stored = {h[0] for code in codes for h in a.hands_of(code)}
    assert stored == set(dealt)
    a.close()
    b.close()
