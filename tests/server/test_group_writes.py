"""How the store's writer groups writes (daer.store.writer; issue 26, item 1): the writes of a commit window
share one transaction and what reports them waits for its commit; on PostgreSQL a group's fences, actions and
answers go as one statement each, a room's fences merged into one compare-and-set — and a lost fence, a broken
chain or a write that may not be batched still fails only its own room, as one statement at a time would."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from sqlalchemy import text
from test_writer import _frames

from daer.server.safety.bounds import RoomConfig
from daer.server.table.seating import Conn
from daer.store import ActionRow, ReplyRow, Store
from daer.store.leases import Fence
from daer.store.writer import MIN_BATCH, Writer


def _room(store: Store, code: str) -> int:
    """A room served by worker "t" (epoch 1) with one hand stored; the hand's id."""
    store.create_room(code=code, created_at=0.0, config=msgspec.json.encode(RoomConfig()).decode(), scores="[0]",
                      dealer=0, seats=[], owner="t", ttl=60.0)
    hand = store.start_hand(code=code, number=1, rules="luzhou", overrides="{}", dealer=0, deck="[]", version=1,
                            fence=Fence("t", 1, 0))
    store.flush()
    return hand


def _act(store: Store, code: str, hand: int, version: int, *, reply: bool = False) -> None:
    """The action that takes the room from ``version`` to ``version + 1`` (a person's, with its answer)."""
    store.append_action(code=code, hand_id=hand, row=ActionRow(version, version + 1, 0, f"c{version}" if reply
                                                                 else None, '{"t":"pass"}'),
                        fence=Fence("t", 1, version),
                        reply=ReplyRow(0, f"c{version}", "{}") if reply else None)


def _stored(store: Store, code: str) -> tuple[int, list[int], int]:
    """(the room's version, its hand's action indexes, its answers) as the database holds them."""
    with store.engine.connect() as db:
        version = db.execute(text("SELECT version FROM rooms WHERE code = :c"), {"c": code}).scalar_one()
        idx = [r[0] for r in db.execute(text(
            "SELECT a.idx FROM actions a JOIN hands h ON h.id = a.hand_id WHERE h.room_code = :c ORDER BY a.idx"),
            {"c": code})]
        replies = db.execute(text("SELECT count(*) FROM replies WHERE room_code = :c"), {"c": code}).scalar_one()
    return int(version), idx, int(replies)


def _spy(writer: Writer) -> list[tuple[int, int]]:
    """(units sent one statement at a time, batches) of each group the writer commits."""
    seen: list[tuple[int, int]] = []
    real = writer._batched

    def batched(units: Any) -> Any:
        one_by_one, rows = real(units)
        seen.append((len(one_by_one), len(rows)))
        return one_by_one, rows

    writer._batched = batched  # type: ignore[method-assign]
    return seen


def _in_loop(store: Store, body: Callable[[], Any]) -> None:
    async def run() -> None:
        store.writer.start()
        await body()
        await store.writer.synced()
        store.writer.stop()

    asyncio.run(run())


def test_writes_within_the_commit_window_share_one_commit_and_their_acks_wait_for_it(db_url: str) -> None:
    store = Store(db_url, commit_window=0.15)
    hands = {code: _room(store, code) for code in ("AAAAA", "BBBBB")}
    commits: list[int] = []
    store.writer.on_commit = lambda _s, units: commits.append(units)
    conn = Conn(0, gate=store.writer)
    seen: dict[str, Any] = {}

    async def body() -> None:
        t0 = time.monotonic()
        _act(store, "AAAAA", hands["AAAAA"], 1)
        conn.push("ack A")
        await asyncio.sleep(0.05)  # later in the window: the same commit
        _act(store, "BBBBB", hands["BBBBB"], 1)
        conn.push("ack B")
        seen["early"] = (_frames(conn), _stored(store, "AAAAA")[0])
        await store.writer.synced()
        seen["waited"] = time.monotonic() - t0
        seen["late"] = _frames(conn)

    _in_loop(store, body)
    assert seen["early"] == ([], 1)  # nothing told, nothing committed within the window
    assert seen["late"] == ["ack A", "ack B"]
    assert commits == [2] and seen["waited"] >= 0.14
    assert _stored(store, "AAAAA")[:2] == (2, [1]) and _stored(store, "BBBBB")[:2] == (2, [1])
    store.close()


def test_a_commit_window_of_zero_commits_at_the_next_tick(db_url: str) -> None:
    store = Store(db_url, commit_window=0)
    hand = _room(store, "AAAAA")
    seen: list[int] = []

    async def body() -> None:
        _act(store, "AAAAA", hand, 1)
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        seen.append(0 if store.writer.holding else 1)

    _in_loop(store, body)
    assert seen == [1] and _stored(store, "AAAAA")[0] == 2
    store.close()


@pytest.fixture
def pg_store(pg_cluster: Any) -> Any:
    store = Store(pg_cluster.database(), commit_window=0)
    yield store
    store.close()


def test_postgresql_sends_a_groups_fences_actions_and_answers_as_one_statement_each(pg_store: Store) -> None:
    codes = [f"R{i:04d}" for i in range(MIN_BATCH + 2)]
    hands = {c: _room(pg_store, c) for c in codes}
    seen = _spy(pg_store.writer)

    async def body() -> None:
        for v in (1, 2, 3):  # three actions a room in one group: one fence a room, from version 1 to 4
            for c in codes:
                _act(pg_store, c, hands[c], v, reply=v == 2)

    _in_loop(pg_store, body)
    assert seen == [(0, 3)]  # nothing one by one: fences, actions and answers batched
    for c in codes:
        assert _stored(pg_store, c) == (4, [1, 2, 3], 1)


def test_a_lost_fence_in_a_batch_fails_only_its_own_room(pg_store: Store) -> None:
    codes = [f"L{i:04d}" for i in range(MIN_BATCH + 1)]
    hands = {c: _room(pg_store, c) for c in codes}
    failed: list[str] = []
    pg_store.writer.on_fail = lambda key, _exc: failed.append(key)
    with pg_store.engine.begin() as db:  # another worker took the lease of the first room
        db.execute(text("UPDATE rooms SET owner = 'u', lease_epoch = 2 WHERE code = :c"), {"c": codes[0]})
    seen = _spy(pg_store.writer)

    async def body() -> None:
        for v in (1, 2):
            for c in codes:
                _act(pg_store, c, hands[c], v)

    _in_loop(pg_store, body)
    assert seen[0] == (0, 2)  # the group went as batches; its retry one unit at a time found the loser
    assert failed == [codes[0]]
    assert _stored(pg_store, codes[0])[:2] == (1, [])  # nothing of the lost room written
    for c in codes[1:]:
        assert _stored(pg_store, c)[:2] == (3, [1, 2])


def test_a_room_whose_writes_do_not_form_one_chain_fails_alone(pg_store: Store) -> None:
    codes = [f"C{i:04d}" for i in range(MIN_BATCH + 1)]
    hands = {c: _room(pg_store, c) for c in codes}
    failed: list[str] = []
    pg_store.writer.on_fail = lambda key, _exc: failed.append(key)
    seen = _spy(pg_store.writer)

    async def body() -> None:
        for c in codes:
            _act(pg_store, c, hands[c], 1)
        _act(pg_store, codes[0], hands[codes[0]], 5)  # a fence on a version the room never had

    _in_loop(pg_store, body)
    assert seen[0] == (2, 2)  # that room's two units one by one, the others' fences and actions batched
    assert failed == [codes[0]]
    assert _stored(pg_store, codes[0])[:2] == (2, [1])  # its first write stands, the broken one does not
    for c in codes[1:]:
        assert _stored(pg_store, c)[:2] == (2, [1])


def test_a_room_with_a_write_that_may_not_be_batched_keeps_its_order(pg_store: Store) -> None:
    codes = [f"H{i:04d}" for i in range(MIN_BATCH + 1)]
    hands = {c: _room(pg_store, c) for c in codes}
    seen = _spy(pg_store.writer)
    new: dict[str, int] = {}

    async def body() -> None:
        for c in codes:
            _act(pg_store, c, hands[c], 1)
        # the first room finishes its hand's row and deals the next in the same group: its hand row must be
        # stored before its first action (a foreign key), so its units go one statement at a time, in order
        new["hand"] = pg_store.start_hand(code=codes[0], number=2, rules="luzhou", overrides="{}", dealer=0,
                                          deck="[]", version=3, fence=Fence("t", 1, 2))
        pg_store.append_action(code=codes[0], hand_id=new["hand"], row=ActionRow(0, 4, 0, None, "{}"),
                               fence=Fence("t", 1, 3))

    _in_loop(pg_store, body)
    assert seen[0] == (3, 2)
    assert _stored(pg_store, codes[0])[0] == 4
    with pg_store.engine.connect() as db:
        assert db.execute(text("SELECT count(*) FROM actions WHERE hand_id = :h"), {"h": new["hand"]}).scalar() == 1
