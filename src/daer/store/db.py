"""The store: one SQLAlchemy engine, migrated at start, and one short transaction per change.

SQLite (WAL, ``synchronous=NORMAL``, or ``FULL``) by default: a committed transaction survives the process
being killed (``kill -9``); PostgreSQL by URL (``postgresql+psycopg://...``, the ``postgres`` extra).
Writes are plain SQL executed by :class:`daer.store.writer.Writer` on the driver: each method's statements
are one unit, committed before it returns — or, once the server has started the writer's group commit,
with every other unit of the same event-loop tick, and the server sends nothing until that commit (so it
still broadcasts only what is on disk).  Reads go through SQLAlchemy Core.

Every write of a room is fenced (:mod:`daer.store.leases`): its unit starts with the room's row updated only
where the lease's owner and epoch and the room's stored version are what the writer holds (a compare-and-set
expecting one row); otherwise the whole unit fails with :class:`~daer.store.leases.LeaseLost`.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from importlib import resources
from typing import Any, cast

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Table, create_engine, event, func, literal_column, select, text
from sqlalchemy.engine import Engine

from daer.store.leases import Fence, now
from daer.store.models import CREATE_KEYS, ActionTable, HandTable, ReplyTable, RoomTable, SeatTable
from daer.store.records import HandRecord, record_stmts
from daer.store.writer import Batch, Stmt, Writer

MIGRATION_LOCK = 0x64616572
"""Key of the PostgreSQL advisory lock that one starting worker at a time holds while it migrates."""
DEFAULT_URL = "sqlite:///daer.db"
"""Database used when neither ``--db`` nor ``DAER_DATABASE_URL`` is given."""

_ROOMS = cast(Table, RoomTable.__table__)
_SEATS = cast(Table, SeatTable.__table__)
_HANDS = cast(Table, HandTable.__table__)
_ACTIONS = cast(Table, ActionTable.__table__)
_REPLIES = cast(Table, ReplyTable.__table__)


def database_url(url: str | None = None) -> str:
    """``url``, else ``$DAER_DATABASE_URL``, else :data:`DEFAULT_URL`."""
    return url or os.environ.get("DAER_DATABASE_URL") or DEFAULT_URL


@dataclass(frozen=True, slots=True)
class SeatRow:
    """A stored seat."""

    seat: int
    kind: str
    name: str
    token_hash: str | None
    auto: bool


@dataclass(frozen=True, slots=True)
class ActionRow:
    """A stored action (``payload`` is the engine action as JSON)."""

    idx: int
    version: int
    seat: int
    client_id: str | None
    payload: str


@dataclass(frozen=True, slots=True)
class ReplyRow:
    """The answer (server message as JSON) to a seat's action or command id; ``refused`` for an error."""

    seat: int
    client_id: str
    reply: str
    refused: bool = False


@dataclass(frozen=True, slots=True)
class HandRow:
    """A stored hand with its actions."""

    id: int
    room_code: str
    number: int
    rules: str
    overrides: str
    dealer: int
    deck: str
    start_version: int
    finished: bool
    points: str | None
    actions: tuple[ActionRow, ...]
    commitment: str | None = None
    seed: str | None = None
    entropy: str | None = None


@dataclass(frozen=True, slots=True)
class RoomRow:
    """A stored room with its seats and its latest hand."""

    code: str
    created_at: float
    config: str
    status: str
    version: int
    scores: str
    dealer: int
    hands_played: int
    seats: tuple[SeatRow, ...]
    hand: HandRow | None
    ready: str | None = None
    deal_seed: str | None = None
    deal_entropy: str | None = None
    vote: str | None = None


SYNC = ("normal", "full")
"""SQLite's ``synchronous`` setting (``daer serve --sqlite-sync``): ``normal`` survives the process being
killed, ``full`` also a power cut (an fsync at every commit: one per loop tick, :mod:`daer.store.writer`)."""


def _sqlite_pragmas(synchronous: str, dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute(f"PRAGMA synchronous={'FULL' if synchronous == 'full' else 'NORMAL'}")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=5000")
    cur.close()


OWNER_BY_CODE = "owner || ''"
"""A room's ``owner`` as a statement that finds the room by code compares it: ``owner || '' = …`` means ``owner =
…`` (NULL stays NULL) but is no index condition.  A worker owns every room it serves, so ``owner = 'w1'`` is true
of a thousand rows; where the table's statistics did not say so yet (a young database, the whole of a benchmark),
PostgreSQL and SQLite both found the room through ``ix_rooms_owner`` and filtered every room of the worker for the
code — at each fenced write, 49 µs a row at 400 rooms on PostgreSQL and growing with them, where the primary key
takes 8 (``tests/server/test_store_plans.py``)."""

BATCHES = {
    "fence": Batch(
        "UPDATE rooms AS r SET version = v.version FROM unnest(%(w_code)s::text[], %(w_owner)s::text[], "
        "%(w_lease_epoch)s::int[], %(w_version)s::int[], %(version)s::int[]) AS v(code, owner, epoch, old, version) "
        f"WHERE r.code = v.code AND r.{OWNER_BY_CODE} = v.owner AND r.lease_epoch = v.epoch AND r.version = v.old",
        ("w_code", "w_owner", "w_lease_epoch", "w_version", "version"), chain=("w_version", "version")),
    "action": Batch(
        "INSERT INTO actions (hand_id, idx, version, seat, client_id, payload) SELECT * FROM unnest("
        "%(hand_id)s::int[], %(idx)s::int[], %(version)s::int[], %(seat)s::int[], %(client_id)s::text[], "
        "%(payload)s::text[])", ("hand_id", "idx", "version", "seat", "client_id", "payload")),
    "reply": Batch(
        "INSERT INTO replies (room_code, seat, client_id, reply, refused) SELECT * FROM unnest("
        "%(room_code)s::text[], %(seat)s::int[], %(client_id)s::text[], %(reply)s::text[], %(refused)s::bool[])",
        ("room_code", "seat", "client_id", "reply", "refused")),
}
"""PostgreSQL: a group's fences (a room's version moved on by an action or an answer), actions and answers each
sent as one statement (:class:`daer.store.writer.Batch`)."""

COMMIT_WINDOW = {"sqlite": 0.005, "postgresql": 0.025}
"""Seconds a started writer gathers writes before it commits them (``daer serve --commit-window``), by database:
see :attr:`daer.store.writer.Writer.window`."""


def default_commit_window(url: str) -> float:
    """The commit window for a database URL (:data:`COMMIT_WINDOW`)."""
    return COMMIT_WINDOW["sqlite" if url.startswith("sqlite") else "postgresql"]


class Store:
    """Rooms, seats, hands and actions in a SQL database."""

    def __init__(self, url: str | None = None, *, synchronous: str = "normal",
                 commit_window: float | None = None) -> None:
        if synchronous not in SYNC:
            raise ValueError(f"synchronous must be one of {SYNC}")
        self.url = database_url(url)
        if self.url.startswith("sqlite"):
            self.engine: Engine = create_engine(self.url, connect_args={"check_same_thread": False})
            event.listen(self.engine, "connect", functools.partial(_sqlite_pragmas, synchronous))
        else:
            self.engine = create_engine(self.url, pool_pre_ping=True)
        window = commit_window if commit_window is not None else default_commit_window(self.url)
        self.writer = Writer(self.engine, window=window)
        if not self.writer.named:
            self.writer.batches = dict(BATCHES)
        """Executes every write (:mod:`daer.store.writer`): the server starts its group commit per tick."""
        self._sql: dict[tuple[Any, ...], str] = {}
        self.migrate()

    def migrate(self) -> None:
        """Bring the schema up to date (Alembic ``upgrade head``)."""
        cfg = Config()
        cfg.set_main_option("script_location", str(resources.files("daer.store") / "migrations"))
        with self.engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                # workers starting together: one migrates, the others wait here, then find nothing to do
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")

    def close(self) -> None:
        """Commit what is queued and release the connections."""
        self.writer.close()
        self.engine.dispose()

    # -- writes (each a unit of daer.store.writer: committed at once, or with the loop tick's group) ---
    def _insert(self, table: Table, values: dict[str, Any], *, returns_id: bool = False,
                batch: str | None = None) -> Stmt:
        key = ("insert", table.name, tuple(values), returns_id)
        sql = self._sql.get(key)
        if sql is None:
            cols = [table.c[c].name for c in values]  # a KeyError for a column the table does not have
            sql = (f"INSERT INTO {table.name} ({', '.join(cols)}) "
                   f"VALUES ({', '.join(self.writer.param(c) for c in cols)})"
                   + (" RETURNING id" if returns_id and not self.writer.named else ""))
            self._sql[key] = sql
        return Stmt(sql, values, returns_id=returns_id, batch=batch if batch in self.writer.batches else None)

    def _update(self, table: Table, values: dict[str, Any], **where: Any) -> Stmt:
        key = ("update", table.name, tuple(values), tuple(where))
        sql = self._sql.get(key)
        if sql is None:
            sets = ", ".join(f"{table.c[c].name} = {self.writer.param(c)}" for c in values)
            cond = " AND ".join(f"{table.c[c].name} = {self.writer.param('w_' + c)}" for c in where)
            sql = self._sql[key] = f"UPDATE {table.name} SET {sets} WHERE {cond}"
        params = dict(values)
        for c, v in where.items():
            params["w_" + c] = v
        return Stmt(sql, params)

    def _fenced(self, code: str, fence: Fence, values: dict[str, Any] | None = None) -> Stmt:
        """The room's row updated (``values``; at least its version) only under ``fence``: one row or the unit
        fails (:class:`~daer.store.writer.WriteConflict`, raised to callers as :class:`LeaseLost`).  Epoch 0
        (a room whose lease was never taken, ``Leases.unserved``) has no owner to compare: the epoch and the
        version alone.  (Written out, not through :meth:`_update`: one for every stored change.)"""
        params: dict[str, Any] = {"version": fence.version, **values} if values else {"version": fence.version}
        key = ("fenced", tuple(params), fence.epoch != 0)
        sql = self._sql.get(key)
        if sql is None:
            where = ("code", "owner", "lease_epoch", "version") if fence.epoch else ("code", "lease_epoch", "version")
            sql = self._update(_ROOMS, params, **dict.fromkeys(where)).sql
            # the room by its primary key, never among the worker's rooms in the owner's index (OWNER_BY_CODE)
            owner = self.writer.param("w_owner")
            sql = sql.replace(f"owner = {owner}", f"{OWNER_BY_CODE} = {owner}")
            self._sql[key] = sql
        batch = "fence" if len(params) == 1 and fence.epoch and not self.writer.named else None
        params["w_code"] = code
        if fence.epoch:
            params["w_owner"] = fence.owner
        params["w_lease_epoch"] = fence.epoch
        params["w_version"] = fence.version
        return Stmt(sql, params, 1, batch=batch)

    def flush(self) -> None:
        """Commit the writes queued in this tick now (see :class:`daer.store.writer.Writer`)."""
        self.writer.flush()

    def create_room(self, *, code: str, created_at: float, config: str, scores: str, dealer: int,
                    seats: list[SeatRow], deal_seed: str | None = None, owner: str | None = None,
                    ttl: float = 0.0, creator: str | None = None, reply: ReplyRow | None = None,
                    at_most: int | None = None) -> None:
        """A new room and its seats (and the secret seed of its first hand), committed before it returns;
        ``owner``: the worker that takes its lease at once (epoch 1, for ``ttl`` seconds), else nobody yet;
        ``creator``: a hash of the address that made it (:meth:`live_rooms_of`); ``reply``: what the create's
        request id took (:meth:`room_of_request`).  ``at_most`` (PostgreSQL, with ``creator``): refused whole
        (:class:`~daer.store.writer.WriteConflict`) when the creator already has that many live rooms —
        counted in the same transaction, after a transaction-level advisory lock on the creator, so creates of
        one address on several workers at the same instant are counted one after the other."""
        lease: dict[str, Any] = {}
        if owner is not None:
            with self.engine.connect() as conn:
                t = conn.execute(select(now(conn))).scalar()
            lease = {"owner": owner, "lease_epoch": 1, "lease_until": float(t or 0.0) + ttl}
        stmts = [] if at_most is None or creator is None or self.writer.named else self._at_most(creator, at_most)
        stmts += [self._insert(_ROOMS, {"code": code, "created_at": created_at, "config": config,
                                       "status": "waiting", "version": 0, "scores": scores, "dealer": dealer,
                                       "hands_played": 0, "ready": "[]", "deal_seed": deal_seed,
                                       "deal_entropy": None, "creator": creator, **lease})]
        stmts += [self._insert(_SEATS, {"room_code": code, "seat": s.seat, "kind": s.kind, "name": s.name,
                                        "token_hash": s.token_hash, "auto": s.auto}) for s in seats]
        self.writer.run_now(code, stmts + self._reply(code, reply))

    def _at_most(self, creator: str, at_most: int) -> list[Stmt]:
        """PostgreSQL: lock the creator (until the transaction ends), then one row only while it has fewer than
        ``at_most`` live rooms."""
        return [Stmt("SELECT pg_advisory_xact_lock(%(lock)s)", {"lock": int(creator[:15], 16)}),
                Stmt("SELECT 1 WHERE (SELECT count(*) FROM rooms WHERE creator = %(creator)s "
                     "AND status IN ('waiting', 'playing', 'between')) < %(at_most)s",
                     {"creator": creator, "at_most": at_most}, expect=1)]

    def duplicate(self, exc: BaseException) -> bool:
        """True when ``exc`` is the driver refusing a row that breaks a unique constraint (a write raced
        another worker's and lost: e.g. two creates with one request id, migration 0005)."""
        return isinstance(exc, self.engine.dialect.loaded_dbapi.IntegrityError)

    def live_rooms_of(self, creator: str) -> int:
        """How many rooms made by ``creator`` (an address's hash) are waiting, playing or between hands."""
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(_ROOMS).where(
                _ROOMS.c.creator == creator, _ROOMS.c.status.in_(("waiting", "playing", "between")))).scalar() or 0)

    def room_of_request(self, creator: str, client_id: str) -> str | None:
        """The room that ``creator`` (an address's hash) made with a request stored as ``client_id`` (one
        ``replies`` row of the room, :meth:`create_room`), if any.  Found through the unique index of the create
        keys (migration 0005): the query names that index's condition as written, so that the planner may use
        it — without it PostgreSQL read the whole ``replies`` table (every stored answer of every room) at each
        create from an address that made many rooms."""
        with self.engine.connect() as conn:
            return conn.execute(select(_ROOMS.c.code).join(_REPLIES, _REPLIES.c.room_code == _ROOMS.c.code).where(
                _REPLIES.c.client_id == client_id, _REPLIES.c.client_id.like(literal_column(CREATE_KEYS)),
                _ROOMS.c.creator == creator).limit(1)).scalar()

    def update_room(self, code: str, *, fence: Fence, seats: list[SeatRow] | None = None,
                    reply: ReplyRow | None = None, **fields: Any) -> None:
        """Change room fields (status, version, scores, dealer, hands_played, ready, deal_*, vote) and optionally
        seats, with the answer to the command that made the change."""
        stmts = [self._fenced(code, fence, fields)]
        if seats:
            stmts += self._seats(code, seats)
        if reply is not None:
            stmts += self._reply(code, reply)
        self.writer.submit(code, stmts)

    def _reply(self, code: str, reply: ReplyRow | None) -> list[Stmt]:
        if reply is None:
            return []
        return [self._insert(_REPLIES, {"room_code": code, "seat": reply.seat, "client_id": reply.client_id,
                                        "reply": reply.reply, "refused": reply.refused}, batch="reply")]

    def save_reply(self, code: str, reply: ReplyRow, *, fence: Fence) -> None:
        """The answer to an id whose command changed nothing else (or was refused)."""
        self.writer.submit(code, [self._fenced(code, fence), *self._reply(code, reply)])

    def _seats(self, code: str, seats: list[SeatRow] | None) -> list[Stmt]:
        return [self._update(_SEATS, {"kind": s.kind, "name": s.name, "token_hash": s.token_hash, "auto": s.auto},
                             room_code=code, seat=s.seat) for s in seats or []]

    def start_hand(self, *, code: str, number: int, rules: str, overrides: str, dealer: int, deck: str,
                   version: int, fence: Fence, seats: list[SeatRow] | None = None,
                   fairness: tuple[str, str, str] | None = None, reply: ReplyRow | None = None) -> int:
        """A new hand (``fairness``: its commitment, seed and entropy JSON); the room moves to ``playing``
        at ``version`` and its next-hand seed and ready marks are cleared.  Returns the hand's id, taken at
        once (:meth:`Writer.next_id`); the rows are a unit of the tick's group commit like any other write
        (committed at once before the writer is started)."""
        commit, seed, entropy = fairness or (None, None, None)
        hand_id = self.writer.next_id(_HANDS.name)
        stmts = [
            self._fenced(code, fence, {"status": "playing", "version": version, "ready": "[]", "deal_seed": None,
                                       "deal_entropy": None}),
            self._insert(_HANDS, {"id": hand_id, "room_code": code, "number": number, "rules": rules,
                                  "overrides": overrides, "dealer": dealer, "deck": deck, "start_version": version,
                                  "finished": False, "points": None, "commitment": commit, "seed": seed,
                                  "entropy": entropy}),
            *self._seats(code, seats), *self._reply(code, reply),
        ]
        self.writer.submit(code, stmts)
        return hand_id

    def append_action(self, *, code: str, hand_id: int, row: ActionRow, fence: Fence,
                      room: dict[str, Any] | None = None, points: str | None = None,
                      seats: list[SeatRow] | None = None, reply: ReplyRow | None = None,
                      record: HandRecord | None = None) -> None:
        """An accepted action, the room's new version (and scores etc. in ``room``), the hand's end (with its
        战绩 rows, ``record``), and the ack to the client's id."""
        stmts = [
            self._fenced(code, fence, {"version": row.version, **room} if room else {"version": row.version}),
            self._insert(_ACTIONS, {"hand_id": hand_id, "idx": row.idx, "version": row.version, "seat": row.seat,
                                    "client_id": row.client_id, "payload": row.payload}, batch="action"),
        ]
        if points is not None:
            stmts.append(self._update(_HANDS, {"finished": True, "points": points}, id=hand_id))
            if record is not None:
                stmts += record_stmts(self.writer, hand_id, record)
        if seats:
            stmts += self._seats(code, seats)
        if reply is not None:
            stmts += self._reply(code, reply)
        self.writer.submit(code, stmts)

    def finish_hand(self, hand_id: int, points: str, *, code: str, fence: Fence,
                    record: HandRecord | None = None) -> None:
        """Mark a hand finished (a hand that ended at the deal, or one booked after a restart) of room ``code``,
        with its 战绩 rows (``record``; a row already stored is kept, not doubled)."""
        self.writer.submit(code, [self._fenced(code, fence),
                                  self._update(_HANDS, {"finished": True, "points": points}, id=hand_id),
                                  *(record_stmts(self.writer, hand_id, record) if record is not None else ())])

    # -- reads ---------------------------------------------------------------------------------
    def _hand(self, conn: Connection, row: Any) -> HandRow:
        acts = conn.execute(select(_ACTIONS).where(_ACTIONS.c.hand_id == row.id).order_by(_ACTIONS.c.idx)).all()
        return HandRow(
            id=row.id, room_code=row.room_code, number=row.number, rules=row.rules, overrides=row.overrides,
            dealer=row.dealer, deck=row.deck, start_version=row.start_version, finished=bool(row.finished),
            points=row.points, commitment=row.commitment, seed=row.seed, entropy=row.entropy,
            actions=tuple(ActionRow(a.idx, a.version, a.seat, a.client_id, a.payload) for a in acts),
        )

    def load_room(self, code: str) -> RoomRow | None:
        """A room with its seats and latest hand."""
        with self.engine.connect() as conn:
            r = conn.execute(select(_ROOMS).where(_ROOMS.c.code == code)).first()
            if r is None:
                return None
            seats = conn.execute(select(_SEATS).where(_SEATS.c.room_code == code).order_by(_SEATS.c.seat)).all()
            h = conn.execute(select(_HANDS).where(_HANDS.c.room_code == code)
                             .order_by(_HANDS.c.number.desc()).limit(1)).first()
            return RoomRow(
                code=r.code, created_at=r.created_at, config=r.config, status=r.status, version=r.version,
                scores=r.scores, dealer=r.dealer, hands_played=r.hands_played,
                seats=tuple(SeatRow(s.seat, s.kind, s.name, s.token_hash, bool(s.auto)) for s in seats),
                hand=self._hand(conn, h) if h is not None else None,
                ready=r.ready, deal_seed=r.deal_seed, deal_entropy=r.deal_entropy, vote=r.vote,
            )

    def room_codes(self, statuses: tuple[str, ...] = ("waiting", "playing", "between")) -> list[str]:
        """Codes of the rooms in the given states."""
        with self.engine.connect() as conn:
            return [r.code for r in conn.execute(select(_ROOMS.c.code).where(_ROOMS.c.status.in_(statuses)))]

    def hand(self, hand_id: int) -> HandRow | None:
        """One hand with its actions."""
        with self.engine.connect() as conn:
            h = conn.execute(select(_HANDS).where(_HANDS.c.id == hand_id)).first()
            return self._hand(conn, h) if h is not None else None

    def hands_of(self, code: str) -> list[tuple[int, int, bool, str | None]]:
        """(id, number, finished, points JSON) of a room's hands."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(_HANDS.c.id, _HANDS.c.number, _HANDS.c.finished, _HANDS.c.points)
                                .where(_HANDS.c.room_code == code).order_by(_HANDS.c.number)).all()
            return [(r.id, r.number, bool(r.finished), r.points) for r in rows]

    def reply(self, code: str, seat: int, client_id: str) -> str | None:
        """The stored answer to a seat's id, if any."""
        with self.engine.connect() as conn:
            return conn.execute(select(_REPLIES.c.reply).where(
                _REPLIES.c.room_code == code, _REPLIES.c.seat == seat, _REPLIES.c.client_id == client_id,
            )).scalar()

    def reply_index(self, code: str) -> tuple[list[tuple[int, str]], dict[int, int]]:
        """(seat, id) of every stored answer of a room, and how many refused ids are stored for each seat: one
        read as a room loads (:class:`daer.server.table.replies.ReplyBook`), not one for each."""
        keys: list[tuple[int, str]] = []
        refused: dict[int, int] = {}
        with self.engine.connect() as conn:
            for seat, cid, no in conn.execute(select(_REPLIES.c.seat, _REPLIES.c.client_id, _REPLIES.c.refused)
                                              .where(_REPLIES.c.room_code == code)):
                keys.append((int(seat), str(cid)))
                if no:
                    refused[int(seat)] = refused.get(int(seat), 0) + 1
        return keys, refused
