"""A new hand's id is taken before its row is committed (Writer.next_id): ids stay unique within a tick, after a
failed write and across a restart, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio

import msgspec

from daer.server.safety.bounds import RoomConfig
from daer.store import Store
from daer.store.leases import Fence


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
