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
