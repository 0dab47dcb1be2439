"""Room leases in the database: which worker serves a room, and the fence every write of the room carries.

A worker serves a room only while it holds the room's lease: ``rooms.owner`` names it, ``rooms.lease_until``
says until when (renewed periodically, by the database's clock so the workers' clocks do not matter), and
``rooms.lease_epoch`` grows by one at every acquisition.  Every write of a room is *fenced* (``Store._fenced``):
in the same transaction it updates the room's row only where ``owner``, ``lease_epoch`` and ``version`` are
still what the writer holds (a compare-and-set expecting one row), and fails whole otherwise.  So a worker whose lease
was taken over can never write the room again, whatever it still believes.

These are the statements; when to acquire, renew, release or hand a room over is decided in one place,
:mod:`daer.server.table.port`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    Connection,
    Executable,
    Table,
    and_,
    bindparam,
    func,
    or_,
    select,
    update,
)
from sqlalchemy.engine import Engine

from daer.store.models import RoomTable
from daer.store.writer import WriteConflict

_ROOMS = cast(Table, RoomTable.__table__)
LIVE = ("waiting", "playing", "between")


class LeaseLost(WriteConflict):
    """The room's lease is no longer this worker's (taken over, or released): nothing was written."""

    def __init__(self, code: str) -> None:
        super().__init__(f"lease of room {code} lost: the write was refused")
        self.code = code


@dataclass(frozen=True, slots=True)
class Fence:
    """What a write of a room compares and sets: the lease's owner and epoch, and the room's stored version."""

    owner: str
    epoch: int
    version: int


_NOW: dict[str, ColumnElement[Any]] = {}


def now(engine: Engine | Connection) -> ColumnElement[Any]:
    """The database's clock in seconds since the Unix epoch (one clock for every worker).  Built once per database:
    a SQL function object is a reference cycle, and one made at every renewal was garbage that only a collection
    frees — under ``--gc tuned``, never (``tests/server/test_cycles.py``)."""
    name = engine.dialect.name
    clock = _NOW.get(name)
    if clock is None:
        clock = _NOW[name] = ((func.julianday("now") - 2440587.5) * 86400.0 if name == "sqlite"
                              else func.extract("epoch", func.clock_timestamp()))
    return clock


def _held_by(owner: BindParameter[str]) -> ColumnElement[bool]:
    """``rooms.owner = owner`` for a statement that finds its rooms by code, written so that it is no index
    condition: the rooms are found by their primary key, not among every room of the worker in ``ix_rooms_owner``
    (:data:`daer.store.db.OWNER_BY_CODE`)."""
    return _ROOMS.c.owner.concat("") == owner


@dataclass(frozen=True, slots=True)
class _Sql:
    """The lease statements of one database, built once: their values are bound parameters.  An expression
    built at every call (a comparison, ``now + ttl``) is a reference cycle of SQLAlchemy's objects, garbage only a
    collection frees — under ``--gc tuned`` never: every renewal, take-over search and hand-over of a cluster
    worker left some (the soak's garbage probe, docs/benchmarks.md; ``tests/server/test_cycles.py``)."""

    acquire: Executable
    steal: Executable
    epoch: Executable
    renew: Executable
    read_skipped: Executable
    release: Executable
    want: Executable
    orphans: Executable
    expire: Executable
    owned: Executable
    holder: Executable


_SQL: dict[str, _Sql] = {}


def _sql(engine: Engine | Connection) -> _Sql:
    name = engine.dialect.name
    made = _SQL.get(name)
    if made is not None:
        return made
    t, rooms = now(engine), _ROOMS.c
    code: BindParameter[str] = bindparam("b_code")
    owner: BindParameter[str] = bindparam("b_owner")
    ttl: BindParameter[float] = bindparam("b_ttl")
    codes: BindParameter[list[str]] = bindparam("b_codes", expanding=True)
    take = {"owner": owner, "lease_epoch": rooms.lease_epoch + 1, "lease_until": t + ttl, "wanted_by": None}
    free = (select(rooms.code).where(_held_by(owner), rooms.code.in_(codes)).with_for_update(skip_locked=True))
    made = _SQL[name] = _Sql(
        acquire=update(_ROOMS).where(rooms.code == code, or_(rooms.owner.is_(None), rooms.owner == owner,
                                                             rooms.lease_until < t)).values(**take),
        steal=update(_ROOMS).where(rooms.code == code).values(**take),
        epoch=select(rooms.lease_epoch).where(rooms.code == code),
        renew=(update(_ROOMS).where(rooms.code.in_(free.scalar_subquery())).values(lease_until=t + ttl)
               .returning(rooms.code, rooms.lease_epoch, rooms.wanted_by)),
        read_skipped=select(rooms.code, rooms.lease_epoch, rooms.wanted_by).where(_held_by(owner),
                                                                                   rooms.code.in_(codes)),
        release=update(_ROOMS).where(rooms.code == code, _held_by(owner),
                                     rooms.lease_epoch == bindparam("b_epoch")).values(owner=None, lease_until=None),
        want=update(_ROOMS).where(rooms.code == code, rooms.owner != owner).values(wanted_by=owner),
        orphans=select(rooms.code).where(
            rooms.status.in_(LIVE), rooms.lease_epoch > 0,
            or_(rooms.owner.is_(None), and_(rooms.owner != owner, rooms.lease_until < t)),
            or_(rooms.wanted_by.is_(None), rooms.wanted_by == owner),
        ).limit(bindparam("b_limit")),
        expire=update(_ROOMS).where(
            rooms.status == "waiting", rooms.lease_epoch == 0, rooms.owner.is_(None),
            rooms.created_at < bindparam("b_before")).values(status="expired", version=rooms.version + 1),
        owned=select(rooms.code).where(rooms.owner == owner,
                                       rooms.status.in_(bindparam("b_statuses", expanding=True))),
        holder=select(rooms.owner, rooms.lease_epoch, (rooms.lease_until < t).label("expired"))
        .where(rooms.code == code),
    )
    return made


def acquire(engine: Engine, code: str, owner: str, ttl: float, *, steal: bool = False) -> int | None:
    """Take the room's lease if it is free, expired or already ``owner``'s (``steal``: in any case, for the
    single process of a SQLite store); the new epoch, or None when another worker holds it."""
    sql = _sql(engine)
    with engine.begin() as conn:
        res = conn.execute(sql.steal if steal else sql.acquire, {"b_code": code, "b_owner": owner, "b_ttl": ttl})
        if res.rowcount != 1:
            return None
        epoch = conn.execute(sql.epoch, {"b_code": code}).scalar()
        return int(epoch) if epoch is not None else None


RENEW_CHUNK = 100
"""Rooms one renewal transaction covers (each commits at once: it holds its rows' locks only that long)."""


def renew(engine: Engine, owner: str, ttl: float, codes: list[str]) -> dict[str, tuple[int, str | None]]:
    """Extend ``owner``'s leases of these rooms; {code: (epoch, wanted_by)} of those it still holds.

    A renewal never waits for a row lock: it runs in a worker thread while the worker's own writer commits
    the rooms' writes on the event loop, and the two lock the same rows in different orders.  When the
    renewal's ``UPDATE … WHERE code IN (…)`` waited for a row the writer held while the writer waited for one
    the renewal held, PostgreSQL broke the deadlock only after ``deadlock_timeout`` (1 s): the loop stood
    still that long and the renewal failed (the one-worker cluster's ~1 s tail, docs/benchmarks.md).  So each
    chunk locks only the rows nobody holds (``FOR UPDATE SKIP LOCKED``) and commits at once; the rooms
    skipped — a write of theirs was committing that instant — are tried once more after the others, and
    those still locked are read without a lock: still held (their lease is extended at the next renewal,
    ``ttl / 3`` later), or lost when the row names another owner or epoch."""
    mine: dict[str, tuple[int, str | None]] = {}
    skipped: list[str] = []
    for i in range(0, len(codes), RENEW_CHUNK):
        skipped += _renew_chunk(engine, owner, ttl, codes[i:i + RENEW_CHUNK], mine)
    if skipped:
        skipped = _renew_chunk(engine, owner, ttl, skipped, mine)
    if skipped:
        with engine.connect() as conn:
            rows = conn.execute(_sql(engine).read_skipped, {"b_owner": owner, "b_codes": skipped}).all()
        mine.update({r.code: (int(r.lease_epoch), r.wanted_by) for r in rows})
    return mine


def _renew_chunk(engine: Engine, owner: str, ttl: float, chunk: list[str],
                 mine: dict[str, tuple[int, str | None]]) -> list[str]:
    """Extend the leases of ``chunk`` that ``owner`` holds and nobody has locked (into ``mine``), in one
    transaction; the codes not renewed (locked by a write in flight, or not ``owner``'s)."""
    with engine.begin() as conn:
        rows = conn.execute(_sql(engine).renew, {"b_owner": owner, "b_codes": chunk, "b_ttl": ttl}).all()
    mine.update({r.code: (int(r.lease_epoch), r.wanted_by) for r in rows})
    return [c for c in chunk if c not in mine]


def release(engine: Engine, code: str, owner: str, epoch: int) -> bool:
    """Give the lease up (the epoch stays: the next holder raises it); False if it was not ours any more."""
    with engine.begin() as conn:
        res = conn.execute(_sql(engine).release, {"b_code": code, "b_owner": owner, "b_epoch": epoch})
        return res.rowcount == 1


def want(engine: Engine, code: str, owner: str) -> None:
    """Ask the room's holder to hand it over to ``owner`` (read by the holder when it renews)."""
    with engine.begin() as conn:
        conn.execute(_sql(engine).want, {"b_code": code, "b_owner": owner})


def orphans(engine: Engine, owner: str, limit: int = 100) -> list[str]:
    """Live rooms that were served once and whose lease is free or expired (their worker died, was drained
    or handed them over), not wanted by another worker: candidates for ``owner`` to take over."""
    with engine.connect() as conn:
        rows = conn.execute(_sql(engine).orphans, {"b_owner": owner, "b_limit": limit}).all()
        return [r.code for r in rows]


def expire_unclaimed(engine: Engine, created_before: float) -> int:
    """Close rooms made through some worker but never served (no lease ever taken: nobody connected) that were
    created before ``created_before`` (wall clock, as ``rooms.created_at``); the condition is the compare-and-set
    (a worker taking one meanwhile keeps it).  How many."""
    with engine.begin() as conn:
        res = conn.execute(_sql(engine).expire, {"b_before": created_before})
        return int(res.rowcount or 0)


def owned(engine: Engine, owner: str, statuses: tuple[str, ...] = LIVE) -> list[str]:
    """Codes of the rooms in ``statuses`` whose lease names ``owner`` (expired or not)."""
    with engine.connect() as conn:
        return [r.code for r in conn.execute(_sql(engine).owned, {"b_owner": owner, "b_statuses": list(statuses)})]


def holder(engine: Engine, code: str) -> tuple[str | None, int, bool] | None:
    """(owner, epoch, expired) of a room's lease, None for no such room (for tests and ``/readyz``-like views)."""
    with engine.connect() as conn:
        r = conn.execute(_sql(engine).holder, {"b_code": code}).first()
        return None if r is None else (r.owner, int(r.lease_epoch), bool(r.expired))


__all__ = ["LIVE", "Fence", "LeaseLost", "acquire", "expire_unclaimed", "holder", "now", "orphans", "owned",
           "release", "renew", "want"]
