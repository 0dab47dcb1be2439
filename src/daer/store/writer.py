"""How the store's writes are executed: plain SQL on the DB-API driver, and one commit per event-loop tick.

The API (used by :class:`daer.store.Store`; a lease/fencing layer adds conditions to the statements, not
another way to execute them):

- :class:`Stmt` — one statement: SQL text written once per shape (cached), its parameters by name, and
  optionally ``expect``, the number of rows it must touch (a compare-and-set: when it touches another
  number the whole unit fails with :class:`WriteConflict`).
- :meth:`Writer.submit` ``(key, stmts)`` — a *unit*: statements that commit together or not at all,
  ``key`` naming what they belong to (a room code).  Before :meth:`Writer.start` (scripts, tests, the
  restore at start-up) a unit commits at once.  After it, units are queued and the whole queue commits as
  **one transaction at the next loop tick** (group commit: one ``COMMIT`` — one fsync with
  ``synchronous=FULL`` — for every write a tick made).
- :meth:`Writer.after_commit` ``(fn)`` — run ``fn`` once everything submitted so far is committed (at once
  when nothing is queued).  The server's sockets send through it, so **no ack or update leaves the process
  before the write it reports is committed**.
- :meth:`Writer.run_now` ``(key, stmts)`` — the queue and this unit committed now (creating a room: the
  caller must know it is stored); raises if its unit fails.
- :meth:`Writer.next_id` ``(table)`` — an id for a row the caller inserts with it (a new hand: the room needs
  its id at once), so the insert can wait for the tick's group commit like any other write instead of
  committing the queue on its own (measured: one SQLite commit less per deal).
- :attr:`Writer.on_fail` ``(key, error)`` — called for every key whose unit could not be committed (after
  a failed group the units are retried one by one, so one bad unit fails only its own key; a key's later
  units in the same group are dropped with it).  The server reloads that room from the store and closes
  its sockets; the messages held for them are dropped.

Statements run on the event loop's thread (no worker thread: the GIL would make a thread wait up to a
switch interval after every statement), on one raw DB-API connection kept for the writer; parameters go
to the driver as they are (``sqlite3`` ``:name``, psycopg ``%(name)s``), so no SQLAlchemy statement is
built per call.

SQLite's WAL checkpoint (copying the log back into the database file, with an ``fdatasync``) is not left to
the commit that happens to pass 1,000 pages, on the loop: once the writer is started, its connection does not
checkpoint (``wal_autocheckpoint=0``) and a worker thread runs ``PRAGMA wal_checkpoint(PASSIVE)`` every
:data:`CHECKPOINT_EVERY` seconds (``sqlite3`` releases the GIL while SQLite works, so the loop goes on; a
passive checkpoint never blocks a writer).  Measured at 1,000 tables: the checkpoints' writes and syncs were
~5% of the loop's time.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from sqlalchemy.engine import Engine

log = logging.getLogger("daer.store")

CHECKPOINT_EVERY = 1.0
"""Seconds between two WAL checkpoints of a started writer on SQLite (in a worker thread)."""


class WriteConflict(Exception):
    """A statement touched another number of rows than it expected (a compare-and-set that lost)."""


class Stmt(NamedTuple):
    """One statement of a unit; ``returns_id``: an ``INSERT`` whose new row id the caller wants; ``batch``: the
    name of a :class:`Batch` that may send it together with its like from other units.  (A named tuple: several
    are made for every stored action, and a tuple is built at C speed.)"""

    sql: str
    params: Mapping[str, Any]
    expect: int | None = None
    returns_id: bool = False
    batch: str | None = None


@dataclass(frozen=True, slots=True)
class Batch:
    """One statement for the like statements of many units (PostgreSQL): ``sql`` takes one array for each name
    of ``columns`` (``unnest``), the parameters of every statement it stands for.

    ``chain`` = (old, new) makes it a compare-and-set of one row a key (the fence of :mod:`daer.store.leases`):
    a key's statements of a group merge into one — the first's ``old`` and the last's ``new``, each one's
    ``old`` the previous one's ``new`` (the versions in between are never seen outside the transaction) — and
    the statement must touch one row a key.  So a group checks each room's fence once, not once a write."""

    sql: str
    columns: tuple[str, ...]
    chain: tuple[str, str] | None = None


IDS_AHEAD = 16
"""Ids :meth:`Writer.next_id` takes from a PostgreSQL sequence at a time."""

MIN_BATCH = 3
"""Keys a group needs before its batchable statements are sent as :class:`Batch` es (with fewer, arrays and
``unnest`` cost more than they save)."""


@dataclass(slots=True)
class _Unit:
    key: str
    stmts: Sequence[Stmt]


@dataclass(slots=True)
class _Group:
    """What one tick queued: its units and what waits for their commit."""

    units: list[_Unit] = field(default_factory=list)
    waiting: list[Callable[[], None]] = field(default_factory=list)


class Writer:
    """Executes the store's writes (see the module's docstring for the API)."""

    def __init__(self, engine: Engine, *, window: float = 0.0) -> None:
        self.engine = engine
        self.window = window
        """Seconds a started writer waits after a group's first unit before committing it (0: the next loop
        tick).  Every transaction has a fixed cost (on PostgreSQL: round trips, the backend woken, the commit
        record); units that arrive within the window share it.  What waits for the commit (acks, updates)
        waits that much longer."""
        self.named = engine.dialect.name == "sqlite"
        """sqlite3 takes ``:name`` parameters, psycopg ``%(name)s``."""
        self.on_fail: Callable[[str, BaseException], None] | None = None
        self.on_commit: Callable[[float, int], None] | None = None
        """Called after each commit with its seconds and number of units (metrics)."""
        self._conn: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._group: _Group | None = None
        self.checkpoint_every = CHECKPOINT_EVERY
        self.checkpoints = 0
        """WAL checkpoints run by the worker thread (SQLite, while started)."""
        self._checkpointing: asyncio.TimerHandle | None = None
        self.batches: dict[str, Batch] = {}
        """The batch shapes that :attr:`Stmt.batch` names (set by the store, on PostgreSQL only)."""
        self._due: asyncio.Handle | None = None
        """The flush the current group waits for."""
        self._ids: dict[str, int] = {}
        """The last id handed out by :meth:`next_id`, by table (SQLite)."""
        self._ahead: dict[str, list[int]] = {}
        """Ids taken from the sequence and not handed out yet, by table, the next one last (PostgreSQL)."""
        self._sequences: dict[str, str] = {}
        """Each table's id sequence (PostgreSQL)."""

    # -- SQL text ---------------------------------------------------------------------------------
    def param(self, name: str) -> str:
        """A named parameter in this driver's style."""
        return f":{name}" if self.named else f"%({name})s"

    # -- the API ----------------------------------------------------------------------------------
    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """From now on units are queued and committed once per tick of ``loop`` (the running one); on SQLite
        the WAL is checkpointed in a worker thread, not by a commit on the loop."""
        self._loop = loop or asyncio.get_running_loop()
        if self.named:
            self._autocheckpoint(0)
            self._checkpointing = self._loop.call_later(self.checkpoint_every, self._checkpoint_soon)

    def stop(self) -> None:
        """Commit what is queued and go back to committing each unit at once (SQLite checkpointing itself)."""
        self.flush()
        started, self._loop = self._loop is not None, None
        if self._checkpointing is not None:
            self._checkpointing.cancel()
            self._checkpointing = None
        if started and self.named and self._conn is not None:
            self._autocheckpoint(1000)

    def _autocheckpoint(self, pages: int) -> None:
        cur = self._dbapi().cursor()
        cur.execute(f"PRAGMA wal_autocheckpoint={int(pages)}")
        cur.close()

    def _checkpoint_soon(self) -> None:
        """Run a checkpoint in a worker thread, then arm the next one (while the writer runs)."""
        self._checkpointing = None
        if self._loop is None:
            return
        done = self._loop.run_in_executor(None, self.checkpoint)

        def again(_: asyncio.Future[None]) -> None:
            if self._loop is not None:
                self._checkpointing = self._loop.call_later(self.checkpoint_every, self._checkpoint_soon)

        done.add_done_callback(again)

    def checkpoint(self) -> None:
        """``PRAGMA wal_checkpoint(PASSIVE)`` on a connection of its own (safe in a worker thread)."""
        try:
            conn = self.engine.raw_connection()
            try:
                cur = conn.cursor()
                cur.execute("PRAGMA wal_checkpoint(PASSIVE)")
                cur.fetchall()
                cur.close()
            finally:
                conn.close()
            self.checkpoints += 1
        except Exception:
            log.exception("WAL checkpoint failed")

    @property
    def holding(self) -> bool:
        """Whether writes are queued (what is sent now must wait for their commit)."""
        return self._group is not None

    def submit(self, key: str, stmts: Sequence[Stmt]) -> None:
        """A unit: committed at the next tick (at once before :meth:`start`; raises then if it fails)."""
        if self._loop is None:
            self.run_now(key, stmts)
            return
        if self._group is None:
            self._group = _Group()
            self._due = (self._loop.call_later(self.window, self.flush) if self.window > 0
                         else self._loop.call_soon(self.flush))
        self._group.units.append(_Unit(key, stmts))

    def after_commit(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` once everything submitted so far is committed (now, if nothing is queued)."""
        if self._group is None:
            fn()
        else:
            self._group.waiting.append(fn)

    async def synced(self) -> None:
        """Wait until everything submitted so far is committed (or failed: see :attr:`on_fail`)."""
        if self._group is None:
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def release() -> None:
            if not done.done():
                done.set_result(None)

        self._group.waiting.append(release)
        await done

    def next_id(self, table: str) -> int:
        """A new id for a row of ``table`` (an integer ``id`` primary key) that the caller inserts explicitly.

        PostgreSQL: ``nextval`` of the column's sequence (never handed out twice, even if the insert fails), taken
        :data:`IDS_AHEAD` at a time: one round trip (on the loop) for that many hands, not one each.  So ids are
        unique but not in the order of the rows' making across workers; nothing orders hands by id (a room's
        hands are ordered by ``number``), and an unused id is a gap, as after a failed insert.
        SQLite: one more than the largest id stored or handed out before (the store's one process is its only
        writer; an id whose insert failed may be handed out again, which is harmless)."""
        cur = self._dbapi().cursor()
        try:
            if self.named:
                cur.execute(f"SELECT max(id) FROM {table}")  # a table name of the schema, no input
                stored = cur.fetchone()[0] or 0
                new = max(int(stored), self._ids.get(table, 0)) + 1
                self._ids[table] = new
                return new
            ahead = self._ahead.setdefault(table, [])
            if not ahead:
                seq = self._sequences.get(table)
                if seq is None:  # looked up once: pg_get_serial_sequence reads the catalog (~50 µs a call)
                    cur.execute("SELECT pg_get_serial_sequence(%(t)s, 'id')", {"t": table})
                    seq = self._sequences[table] = str(cur.fetchone()[0])
                cur.execute("SELECT nextval(%(s)s) FROM generate_series(1, %(n)s)", {"s": seq, "n": IDS_AHEAD})
                ahead.extend(sorted((int(r[0]) for r in cur.fetchall()), reverse=True))
            return ahead.pop()
        finally:
            cur.close()

    def run_now(self, key: str, stmts: Sequence[Stmt]) -> list[int]:
        """Commit the queue and this unit now; the ids of its ``returns_id`` statements.  Raises if it fails."""
        group, self._group = self._group or _Group(), None
        if self._due is not None:
            self._due.cancel()
            self._due = None
        mine = _Unit(key, stmts)
        group.units.append(mine)
        failed, ids = self._commit_group(group.units)
        self._report(failed, skip=mine)
        for fn in group.waiting:
            fn()
        if mine.key in failed:  # this unit, or one of its key's before it (then this one was not tried)
            raise failed[mine.key][1]
        return ids.get(id(mine), [])

    def flush(self) -> None:
        """Commit the queue as one transaction (the tick's group commit), then release what waited for it."""
        group, self._group = self._group, None
        if self._due is not None:  # committed before its time (run_now, stop): the timer has nothing to do
            self._due.cancel()
            self._due = None
        if group is None:
            return
        failed, _ids = self._commit_group(group.units)
        self._report(failed)
        for fn in group.waiting:
            try:
                fn()
            except Exception:
                log.exception("after-commit callback failed")

    def close(self) -> None:
        """Commit what is queued and give the connection back."""
        try:
            self.stop()
        finally:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # -- execution --------------------------------------------------------------------------------
    def _dbapi(self) -> Any:
        if self._conn is None:
            self._conn = self.engine.raw_connection()
            if not self.named:
                # Every statement of the writer finds its rows by primary key; a batch joins its arrays to the
                # rooms by code.  On a small or young rooms table (no statistics yet: it looks a few pages big)
                # the planner would hash-join or loop over a sequential scan of it (the whole table read for each
                # group); the primary key's nested loop is what every size needs.
                cur = self._conn.cursor()
                cur.execute("SET enable_hashjoin = off")
                cur.execute("SET enable_mergejoin = off")
                cur.execute("SET enable_seqscan = off")
                # With those paths off each statement has one sensible plan whatever its parameters, so it is
                # planned once (psycopg prepares it) instead of at every execution: the default, a custom plan
                # for each set of parameters, was a quarter of a group's cost (benchmarks.md, "the fence").
                cur.execute("SET plan_cache_mode = force_generic_plan")
                cur.close()
                self._conn.commit()
        return self._conn

    def _drop_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.invalidate()
            except Exception:
                log.exception("could not invalidate the writer's connection")

    def _execute(self, units: Sequence[_Unit]) -> dict[int, list[int]]:
        """``units`` in one transaction; the new ids by unit.  Rolls back and raises on any error."""
        conn = self._dbapi()
        ids: dict[int, list[int]] = {}
        t0 = time.perf_counter()
        if not self.named:
            try:
                self._pipelined(conn, units, ids)
            except BaseException:
                try:
                    conn.rollback()
                except Exception:
                    self._drop_connection()
                raise
            if self.on_commit is not None:
                self.on_commit(time.perf_counter() - t0, len(units))
            return ids
        try:
            cur = conn.cursor()
            for unit in units:
                for s in unit.stmts:
                    cur.execute(s.sql, s.params)
                    if s.expect is not None and cur.rowcount != s.expect:
                        raise WriteConflict(f"{unit.key}: {cur.rowcount} rows, expected {s.expect}: {s.sql}")
                    if s.returns_id:
                        ids.setdefault(id(unit), []).append(
                            int(cur.lastrowid) if self.named else int(cur.fetchone()[0]))
            cur.close()
            conn.commit()
        except BaseException:
            try:
                conn.rollback()
            except Exception:  # the connection is gone (a database restart): take a fresh one next time
                self._drop_connection()
            raise
        if self.on_commit is not None:
            self.on_commit(time.perf_counter() - t0, len(units))
        return ids

    def _pipelined(self, conn: Any, units: Sequence[_Unit], ids: dict[int, list[int]]) -> None:
        """PostgreSQL: ``units`` sent in psycopg's pipeline mode — every statement of the group in one round
        trip (not one each, with the backend woken for each), then the compare-and-sets checked, then
        ``COMMIT``: two round trips a group.  Raises (the caller rolls back) on any error."""
        raw = conn.driver_connection
        checks: list[tuple[_Unit, Stmt, Any]] = []
        one_by_one, batched = self._batched(units)
        merged: list[tuple[str, int, Any]] = []
        with raw.pipeline():
            shared = raw.cursor()
            for name, rows in batched.items():
                shape = self.batches[name]
                cur = raw.cursor() if shape.chain else shared
                cur.execute(shape.sql, {c: [r[c] for r in rows] for c in shape.columns}, prepare=True)
                if shape.chain:
                    merged.append((name, len(rows), cur))
            for unit in one_by_one:
                for s in unit.stmts:
                    if s.expect is None and not s.returns_id:
                        shared.execute(s.sql, s.params, prepare=True)
                        continue
                    cur = raw.cursor()
                    cur.execute(s.sql, s.params, prepare=True)
                    if s.expect is not None:
                        checks.append((unit, s, cur))
                    if s.returns_id:  # fetching syncs the pipeline up to here
                        ids.setdefault(id(unit), []).append(int(cur.fetchone()[0]))
        for unit, s, cur in checks:  # the pipeline is synced: every result is in
            if cur.rowcount != s.expect:
                raise WriteConflict(f"{unit.key}: {cur.rowcount} rows, expected {s.expect}: {s.sql}")
        for name, n, cur in merged:  # which key lost is found when the group is retried unit by unit
            if cur.rowcount != n:
                raise WriteConflict(f"batch {name}: {cur.rowcount} rows, expected {n}")
        raw.commit()

    def _batched(self, units: Sequence[_Unit]) -> tuple[Sequence[_Unit], dict[str, list[Mapping[str, Any]]]]:
        """The units to send one statement at a time (in their order), and the parameters of the rest by batch.

        A key's units are batched only when every statement of every one of them may be (else they all keep
        their order, one statement at a time: e.g. a hand inserted before its first action), and a chained
        batch only when the key's statements form one chain.  Keys are independent rows, so sending one key's
        statements before another's changes nothing."""
        if not self.batches or len(units) < MIN_BATCH:
            return units, {}
        by_key: dict[str, list[_Unit]] = {}
        for unit in units:
            by_key.setdefault(unit.key, []).append(unit)
        if len(by_key) < MIN_BATCH:
            return units, {}
        rows: dict[str, list[Mapping[str, Any]]] = {}
        alone: set[str] = set()
        for key, mine in by_key.items():
            found = self._rows_of(mine)
            if found is None:
                alone.add(key)
                continue
            for name, got in found.items():
                rows.setdefault(name, []).extend(got)
        if len(by_key) - len(alone) < MIN_BATCH:
            return units, {}
        return [u for u in units if u.key in alone], rows

    def _rows_of(self, mine: list[_Unit]) -> dict[str, list[Mapping[str, Any]]] | None:
        """One key's statements as batch rows (its chains merged), or None when they must go one by one."""
        rows: dict[str, list[Mapping[str, Any]]] = {}
        chained: dict[str, dict[str, Any]] = {}
        for unit in mine:
            for s in unit.stmts:
                name = s.batch
                shape = self.batches.get(name) if name is not None else None
                if name is None or shape is None:
                    return None
                if shape.chain is None:
                    rows.setdefault(name, []).append(s.params)
                    continue
                old, new = shape.chain
                last = chained.get(name)
                if last is None:
                    chained[name] = dict(s.params)
                elif last[new] != s.params[old] or any(last[c] != s.params[c] for c in shape.columns
                                                        if c not in shape.chain):
                    return None  # not one chain: the statements themselves will fail as they should
                else:
                    last[new] = s.params[new]
        for name, merged in chained.items():
            rows.setdefault(name, []).append(merged)
        return rows

    def _commit_group(self, units: list[_Unit]) -> tuple[dict[str, tuple[_Unit, BaseException]],
                                                         dict[int, list[int]]]:
        """Commit every unit, all in one transaction if possible, else one by one; the failed keys (with
        their first failed unit and its error) and the new ids."""
        if not units:
            return {}, {}
        try:
            return {}, self._execute(units)
        except Exception as exc:
            if len(units) == 1:
                return {units[0].key: (units[0], exc)}, {}
            log.warning("group commit of %d units failed (%s); committing them one by one", len(units), exc)
        failed: dict[str, tuple[_Unit, BaseException]] = {}
        ids: dict[int, list[int]] = {}
        for unit in units:
            if unit.key in failed:  # it builds on a write that was not stored
                continue
            try:
                ids.update(self._execute([unit]))
            except Exception as exc:
                failed[unit.key] = (unit, exc)
        return failed, ids

    def _report(self, failed: dict[str, tuple[_Unit, BaseException]], skip: _Unit | None = None) -> None:
        for key, (unit, exc) in failed.items():
            if unit is skip:
                continue
            log.error("write of %s failed: %s", key, exc)
            if self.on_fail is not None:
                try:
                    self.on_fail(key, exc)
                except Exception:
                    log.exception("on_fail of %s failed", key)
