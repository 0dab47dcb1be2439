"""The store's queries of a few rows stay a few rows' work on a database that holds many: on SQLite and on
PostgreSQL, with thousands of finished rooms and their stored answers (what a server has after months), the
planner reads the rows a query wants through an index, never the whole ``rooms`` or ``replies`` table.

Each query is run as the store runs it (its statement and parameters caught on the way to the driver), then
explained: PostgreSQL's ``EXPLAIN``, SQLite's ``EXPLAIN QUERY PLAN``."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pgcluster import Cluster
from sqlalchemy import event, text

from daer.store import Store
from daer.store import leases as sql
from daer.store.db import BATCHES
from daer.store.leases import Fence

ROOMS = 4000
"""Finished rooms in the database (a server's history); a handful of live ones beside them."""
ANSWERS = 4
"""Stored answers of each finished room."""


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    """:func:`_filled` on each database."""
    yield from _filled(db_url)


@pytest.fixture
def pg_store(pg_cluster: Cluster) -> Iterator[Store]:
    """:func:`_filled` on PostgreSQL: the cluster's database (a SQLite store is one process's, which keeps every
    room it makes and never searches for rooms to take over)."""
    yield from _filled(pg_cluster.database())


def _filled(db_url: str) -> Iterator[Store]:
    """A database with :data:`ROOMS` finished rooms from one address (a club's host, or many people behind one
    NAT), :data:`ANSWERS` answers each, and five live rooms: ``live0`` an orphan (served once, its lease free),
    the others waiting; statistics gathered."""
    st = Store(db_url)
    room = ("INSERT INTO rooms (code, created_at, config, status, version, scores, dealer, hands_played, creator, "
            "lease_epoch) VALUES (:code, :at, '{}', :status, 3, '[0,0,0,0]', 0, 1, :creator, :epoch)")
    answer = ("INSERT INTO replies (room_code, seat, client_id, reply, refused) "
              "VALUES (:code, :seat, :cid, '{}', :refused)")
    old = time.time() - 86_400
    with st.engine.begin() as conn:
        conn.execute(text(room), [{"code": f"old{i}", "at": old, "status": "finished", "creator": "c" * 64,
                                   "epoch": 1} for i in range(ROOMS)])
        conn.execute(text(room), [{"code": f"live{i}", "at": time.time(), "status": "waiting",
                                   "creator": "c" * 64, "epoch": int(i == 0)} for i in range(5)])
        conn.execute(text(answer), [{"code": f"old{i}", "seat": s, "cid": f"create:{i}" if s == 0 else f"a{i}.{s}",
                                     "refused": False} for i in range(ROOMS) for s in range(ANSWERS)])
        conn.execute(text("ANALYZE"))
    yield st
    st.close()


def _caught(st: Store, run: Callable[[], Any]) -> tuple[Any, list[tuple[str, Any]]]:
    """What ``run`` returned, and each statement it sent with its parameters."""
    sent: list[tuple[str, Any]] = []

    def catch(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, _many: bool) -> None:
        sent.append((statement, parameters))

    event.listen(st.engine, "before_cursor_execute", catch)
    try:
        result = run()
    finally:
        event.remove(st.engine, "before_cursor_execute", catch)
    return result, sent


def _full_scans(st: Store, sent: list[tuple[str, Any]]) -> list[str]:
    """The plan lines of ``sent`` that read all of ``rooms`` or ``replies``."""
    scans: list[str] = []
    with st.engine.connect() as conn:
        for statement, parameters in sent:
            if st.engine.dialect.name == "postgresql":
                lines = [r[0] for r in conn.exec_driver_sql("EXPLAIN " + statement, parameters)]
                scans += [ln for ln in lines if re.search(r"Seq Scan on (rooms|replies)\b", ln)]
            else:
                lines = [r[3] for r in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)]
                scans += [ln for ln in lines if re.match(r"SCAN (rooms|replies)\b", ln)]
    return scans


def test_a_repeated_create_finds_its_room_by_the_create_keys_index_not_by_reading_every_answer(
        store: Store) -> None:
    """开房 repeated with its request id: the room is found through the unique index of the create keys (before,
    PostgreSQL read every stored answer of every room at each create from such an address)."""
    found, sent = _caught(store, lambda: store.room_of_request("c" * 64, "create:17"))
    assert found == "old17"
    assert store.room_of_request("c" * 64, "create:nothing") is None
    assert store.room_of_request("d" * 64, "create:17") is None  # another address's key
    assert sent
    assert _full_scans(store, sent) == []


def test_the_take_over_search_and_the_expiry_read_the_live_rooms_only(pg_store: Store) -> None:
    """A cluster worker's search for rooms to take over (every few seconds) and the expiry of rooms nobody joined
    read the live rooms through the status index (migration 0011), not every room ever made."""
    store = pg_store
    found, sent = _caught(store, lambda: sql.orphans(store.engine, "w1"))
    assert found == ["live0"]
    expired, sent_expiry = _caught(store, lambda: sql.expire_unclaimed(store.engine, time.time() + 60))
    assert expired == 4  # live1 … live4: waiting, never served
    assert sent and sent_expiry
    assert _full_scans(store, sent + sent_expiry) == []


OWNED = 400
"""Live rooms of one worker (a benchmark's; a worker at its load serves more)."""


@pytest.fixture(params=["young", "analyzed"])
def owned_store(db_url: str, request: pytest.FixtureRequest) -> Iterator[Store]:
    """:data:`OWNED` playing rooms served by worker ``w1`` (epoch 1, version 3): ``young`` without the table's
    statistics (a database days old, a benchmark's), ``analyzed`` with them."""
    st = Store(db_url)
    room = ("INSERT INTO rooms (code, created_at, config, status, version, scores, dealer, hands_played, creator, "
            "owner, lease_epoch, lease_until) VALUES (:code, :at, '{}', 'playing', 3, '[0,0,0,0]', 0, 1, :creator, "
            "'w1', 1, :until)")
    with st.engine.begin() as conn:
        conn.execute(text(room), [{"code": f"own{i}", "at": time.time(), "creator": f"{i % 50:064d}",
                                   "until": time.time() + 600} for i in range(OWNED)])
        if request.param == "analyzed":
            conn.execute(text("ANALYZE"))
    yield st
    st.close()


def _plan(st: Store, statement: str, parameters: Any) -> list[str]:
    with st.engine.connect() as conn:
        if st.engine.dialect.name == "postgresql":
            return [r[0] for r in conn.exec_driver_sql("EXPLAIN " + statement, parameters)]
        return [r[3] for r in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)]


def _writer_plan(st: Store, statement: str, parameters: Any) -> list[str]:
    """The plan of a write as the writer runs it: on its own connection, with its settings."""
    conn = st.writer._dbapi()
    cur = conn.cursor()
    try:
        if st.engine.dialect.name == "postgresql":
            cur.execute("EXPLAIN " + statement, parameters)
            return [r[0] for r in cur.fetchall()]
        cur.execute("EXPLAIN QUERY PLAN " + statement, parameters)
        return [r[3] for r in cur.fetchall()]
    finally:
        cur.close()
        conn.rollback()


def _by_code(lines: list[str]) -> bool:
    """Whether a plan finds its rooms by the primary key and never through the owner's index."""
    text_ = "\n".join(lines)
    return "ix_rooms_owner" not in text_ and bool(re.search(r"rooms_pkey|sqlite_autoindex_rooms_1", text_))


def test_a_fenced_write_finds_its_room_by_code_not_among_every_room_of_its_worker(owned_store: Store) -> None:
    """Every stored action updates its room under the fence (code, owner, epoch, version).  The owner is the same
    for every room of a worker; before, PostgreSQL went through ``ix_rooms_owner`` and filtered the worker's
    thousand rooms for the code, for each action (49 µs a row at 400 rooms, 8 through the primary key)."""
    store = owned_store
    stmt = store._fenced("own17", Fence("w1", 1, 3), {"status": "between"})
    assert _by_code(_writer_plan(store, stmt.sql, dict(stmt.params)))
    if store.engine.dialect.name == "postgresql":  # a group's fences as one statement (three rooms or more)
        batch = BATCHES["fence"]
        rows = [store._fenced(f"own{i}", Fence("w1", 1, 3)).params | {"version": 4} for i in (3, 200, 399)]
        assert _by_code(_writer_plan(store, batch.sql, {c: [r[c] for r in rows] for c in batch.columns}))


def test_renewing_and_releasing_leases_find_the_rooms_by_code(owned_store: Store) -> None:
    """A worker renews its leases a hundred rooms a statement, every few seconds, and releases them one by one
    at a drain: each finds its rooms by code (the owner's index holds all of them)."""
    store = owned_store
    codes = [f"own{i}" for i in range(0, OWNED, OWNED // 100)]
    mine, sent = _caught(store, lambda: sql.renew(store.engine, "w1", 30.0, codes))
    assert len(mine) == 100
    released, sent_release = _caught(store, lambda: sql.release(store.engine, "own1", "w1", 1))
    assert released
    updates = [(s, p) for s, p in sent + sent_release if s.lstrip().upper().startswith("UPDATE")]
    assert len(updates) == 2
    for statement, parameters in updates:
        assert _by_code(_plan(store, statement, parameters)), statement
