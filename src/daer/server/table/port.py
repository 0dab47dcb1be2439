"""The store port of the rooms: leases and fenced writes — every rule about who may serve and write a room.

- :class:`RoomPort` is the only way a room writes: each write carries the room's
  :class:`~daer.store.leases.Fence` (this worker, the lease's epoch, the version the room has in the store)
  and the store refuses it whole when the room's row says otherwise.  A refused write means the lease was
  taken over (or given up): the port calls its ``lost`` hook (the manager stops serving the room and closes
  its sockets with the reconnect code) and raises :class:`~daer.store.leases.LeaseLost`.
- :class:`Leases` is this worker's side of the lease table: take a room's lease (free, expired or already
  ours; a SQLite store's one process always takes it), renew them all, give one up, ask another worker for
  one, find rooms whose worker died or was drained.

Rules (``docs/deploy.md``, "Cluster"): a worker serves a room only while it holds its lease; the lease is
renewed every ``ttl / 3`` seconds and ends ``ttl`` seconds after the last renewal; every acquisition raises
the epoch, so the previous holder's writes are refused from that moment; a room is loaded from the store
only after its lease is taken, so the new holder reads everything the old one wrote.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from daer.server.ops.logs import ctx
from daer.store import ActionRow, ReplyRow, SeatRow, Store
from daer.store import leases as sql
from daer.store.leases import Fence, LeaseLost
from daer.store.records import HandRecord
from daer.store.writer import WriteConflict

log = logging.getLogger("daer.server")
T = TypeVar("T")

DEFAULT_TTL = 10.0
"""Seconds a lease lasts after its last renewal (``daer serve --lease-ttl``)."""


def default_worker() -> str:
    """A name for this process when none is given: host and process id."""
    return f"{socket.gethostname()}:{os.getpid()}"


@dataclass(slots=True)
class RoomPort:
    """One room's writes, each fenced by the room's lease (owner, epoch) and its stored version."""

    store: Store
    code: str
    owner: str
    epoch: int
    version: int
    """The room's version as stored: every write compares it and sets the new one."""
    lost: Callable[[], None] = field(default=lambda: None)
    """Called when a write is refused (the lease is not ours any more), before :class:`LeaseLost` is raised."""
    since: float = field(default_factory=time.monotonic)
    """When the lease was taken (a room is handed over only after it was held ``ttl`` seconds)."""

    def _fence(self) -> Fence:
        return Fence(self.owner, self.epoch, self.version)

    def _write(self, write: Callable[[Fence], T], version: int | None) -> T:
        try:
            result = write(self._fence())
        except WriteConflict as exc:  # committed at once and refused (a unit queued for the tick fails later:
            # the writer's on_fail, RoomManager.store_failed)
            log.warning("room %s: lease lost (epoch %d); no longer serving it", self.code, self.epoch,
                        extra=ctx("lease_lost", room=self.code))
            self.lost()
            raise LeaseLost(self.code) from exc
        if version is not None:
            self.version = version
        return result

    def update_room(self, *, seats: list[SeatRow] | None = None, reply: ReplyRow | None = None,
                    **fields: Any) -> None:
        """Room fields (with its new ``version``, if it changes), seats, and the answer to the command."""
        self._write(lambda f: self.store.update_room(self.code, fence=f, seats=seats, reply=reply, **fields),
                    fields.get("version"))

    def append_action(self, *, hand_id: int, row: ActionRow, room: dict[str, Any] | None = None,
                      points: str | None = None, seats: list[SeatRow] | None = None,
                      reply: ReplyRow | None = None, record: HandRecord | None = None) -> None:
        """An accepted action at its version, with what it changed (the hand's 战绩 when it ended it) and the ack
        to its id."""
        self._write(lambda f: self.store.append_action(code=self.code, hand_id=hand_id, row=row, fence=f, room=room,
                                                       points=points, seats=seats, reply=reply, record=record),
                    row.version)

    def start_hand(self, *, number: int, rules: str, overrides: str, dealer: int, deck: str, version: int,
                   seats: list[SeatRow] | None = None, fairness: tuple[str, str, str] | None = None,
                   reply: ReplyRow | None = None) -> int:
        """A new hand (the room playing at ``version``); its id."""
        return self._write(lambda f: self.store.start_hand(
            code=self.code, number=number, rules=rules, overrides=overrides, dealer=dealer, deck=deck,
            version=version, fence=f, seats=seats, fairness=fairness, reply=reply), version)

    def finish_hand(self, hand_id: int, points: str, record: HandRecord | None = None) -> None:
        """A hand's result, with its 战绩 rows."""
        self._write(lambda f: self.store.finish_hand(hand_id, points, code=self.code, fence=f, record=record), None)

    def save_reply(self, reply: ReplyRow) -> None:
        """An answer stored alone (a refusal, or an ack of a command that changed nothing)."""
        self._write(lambda f: self.store.save_reply(self.code, reply, fence=f), None)


class Elsewhere(Exception):
    """This worker may not serve the room now: another live worker holds it (and was asked for it), or this
    worker drains."""


def refused(exc: BaseException) -> bool:
    """True when a failed write was refused by its fence (the lease is another worker's now)."""
    return isinstance(exc, WriteConflict)


class Leases:
    """This worker's leases on rooms (the decisions; the statements are :mod:`daer.store.leases`)."""

    def __init__(self, store: Store, owner: str | None = None, *, ttl: float = DEFAULT_TTL,
                 sole: bool | None = None) -> None:
        self.store = store
        self.owner = owner or default_worker()
        self.ttl = ttl
        self.sole = store.url.startswith("sqlite") if sole is None else sole
        """The only process of its store (SQLite): it takes every lease, whoever held it before."""

    @property
    def renew_every(self) -> float:
        """Seconds between renewals: three chances before a lease ends."""
        return self.ttl / 3

    def at_creation(self, *, draining: bool = False) -> tuple[str | None, int]:
        """(owner, epoch) of a room this worker makes: the sole process of a SQLite store holds it at once
        (epoch 1); a worker of a cluster leaves it unleased (epoch 0), for the worker the balancer sends the
        room's code to."""
        return (self.owner, 1) if self.sole and not draining else (None, 0)

    def claim(self, code: str, *, draining: bool = False) -> int | None:
        """The epoch at which this worker serves ``code`` from now on (its lease taken); None for no such room.
        Raises :class:`Elsewhere` while draining, or while another live worker holds the lease (that worker is
        asked to hand it over: the balancer sends the room's players here)."""
        if sql.holder(self.store.engine, code) is None:
            return None
        if draining:
            raise Elsewhere(code)
        epoch = self.take(code)
        if epoch is None:
            self.ask(code)
            raise Elsewhere(code)
        return epoch

    def expire_unclaimed(self, created_before: float) -> int:
        """Close rooms made through some worker that no worker ever served, created before ``created_before``
        (nothing to do for the sole process, which keeps what it makes); how many."""
        return 0 if self.sole else sql.expire_unclaimed(self.store.engine, created_before)

    def take(self, code: str) -> int | None:
        """Acquire a room's lease; its epoch, or None while another live worker holds it."""
        return sql.acquire(self.store.engine, code, self.owner, self.ttl, steal=self.sole)

    def port(self, code: str, epoch: int, version: int, lost: Callable[[], None]) -> RoomPort:
        """The write port of a room whose lease this worker took at ``epoch``."""
        return RoomPort(self.store, code, self.owner, epoch, version, lost)

    def unserved(self, code: str, version: int) -> RoomPort | None:
        """The write port of a cluster's room that no worker ever served (made through some worker, nobody
        connected yet: its lease never taken, epoch 0), for a write without taking its lease — it stays for the
        worker the balancer sends its code to.  Its writes are fenced by epoch 0 and ``version``: a worker
        that takes the lease meanwhile (epoch 1) makes them fail.  None for the sole process or a room served
        before (take its lease instead)."""
        lease = None if self.sole else sql.holder(self.store.engine, code)
        if lease is None or lease[1] != 0:
            return None
        return RoomPort(self.store, code, self.owner, 0, version)

    def ask(self, code: str) -> None:
        """Ask the room's holder to hand it over (the balancer sends its players here)."""
        sql.want(self.store.engine, code, self.owner)

    def give_up(self, port: RoomPort) -> None:
        """Release a room's lease (drained, handed over, or the room left memory)."""
        sql.release(self.store.engine, port.code, port.owner, port.epoch)

    def extend(self, codes: list[str]) -> dict[str, tuple[int, str | None]]:
        """Renew this worker's leases of these rooms (SQL only: safe in a worker thread); {code: (epoch,
        wanted_by)} of those it still holds.  A lease of a room no longer in memory is not renewed: it ends."""
        return sql.renew(self.store.engine, self.owner, self.ttl, codes)

    def judge(self, held: dict[str, RoomPort], mine: dict[str, tuple[int, str | None]]) -> tuple[list[str], list[str]]:
        """After :meth:`extend`: (rooms lost — held here but no longer ours at our epoch, rooms to hand over —
        wanted by another worker and held at least ``ttl`` seconds)."""
        now = time.monotonic()
        lost = [c for c, port in held.items() if mine.get(c, (None, None))[0] != port.epoch]
        handover = [c for c, port in held.items() if c not in lost and mine[c][1] not in (None, self.owner)
                    and now - port.since >= self.ttl]
        return lost, handover

    def orphans(self, limit: int = 100) -> list[str]:
        """Live rooms whose worker died or was drained (lease expired or free), for this worker to take over."""
        return [] if self.sole else sql.orphans(self.store.engine, self.owner, limit)

    def restorable(self) -> list[str]:
        """Rooms to restore at start: every live room for the sole process, else those whose lease names this
        worker (it restarted before the lease ran out)."""
        return self.store.room_codes() if self.sole else sql.owned(self.store.engine, self.owner)


__all__ = ["DEFAULT_TTL", "Elsewhere", "LeaseLost", "Leases", "RoomPort", "default_worker", "refused"]
