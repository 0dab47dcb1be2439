"""The rooms one server process serves: new codes, creating, finding, restoring and handing rooms over.

A process (a *worker*) serves exactly the rooms whose lease it holds (:mod:`daer.server.table.port`): it takes a
room's lease when a request for the room reaches it (the balancer routes every request of a room by its
code) or when the room's worker died or was drained, loads the room from the store only then, and stops
serving it — sockets closed with the reconnect code — when the lease is lost, handed over or released.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
import time
from collections import Counter
from collections.abc import Callable

import msgspec

from daer.server import protocol as p
from daer.server.ops.logs import ctx
from daer.server.ops.metrics import LEASE_RENEWALS, LEASE_SECONDS, LEASES_LOST
from daer.server.safety.bounds import RoomConfig, RoomError, check_config
from daer.server.safety.limits import address_key
from daer.server.social.votes import VOTE_SECONDS
from daer.server.social.watching import WATCH_DELAY
from daer.server.table.dealing import PendingDeal
from daer.server.table.match import EXPIRED, LIVE, Match
from daer.server.table.port import DEFAULT_TTL, Elsewhere, LeaseLost, Leases, refused
from daer.server.table.rooms import CODE_ALPHABET, CODE_LENGTH, Room, moved, room_from_row, taken_mark
from daer.server.table.seating import Seat, token_hash
from daer.store import Store
from daer.store.outage import log_failure
from daer.store.writer import WriteConflict

log = logging.getLogger("daer.server")
ADOPT_PER_TICK = 100
"""Rooms of dead or drained workers one worker takes over per renewal (the rest at the next ones)."""


def too_many_rooms(at_most: int) -> RoomError:
    """The refusal of a create past the cap of live rooms per address."""
    return RoomError("too_many_rooms", f"同一地址最多开 {at_most} 个房间", f"at most {at_most} live rooms per address")


class RoomManager:
    """The rooms this process serves (those whose lease it holds)."""

    def __init__(self, store: Store, *, bot_delay: float = 0.6, claim_window: float = 0.0,
                 worker: str | None = None, lease_ttl: float = DEFAULT_TTL, sole: bool | None = None,
                 vote_seconds: float = VOTE_SECONDS, watch_delay: int = WATCH_DELAY) -> None:
        self.store = store
        self.watch_delay = watch_delay
        """Public steps spectators are shown behind (``daer serve --watch-delay``)."""
        self.vote_seconds = vote_seconds
        """The dissolve vote's countdown (``daer serve --vote-seconds``)."""
        self.bot_delay = bot_delay
        self.claim_window = claim_window
        self.rooms: dict[str, Room] = {}
        """The rooms in memory by code: changed only through :meth:`_keep` and :meth:`_pop` (they keep the count)."""
        self._live: dict[str, str] = {}
        """The live rooms of :attr:`rooms` (waiting, playing or between hands), code → creator: the cap's count."""
        self._made: Counter[str] = Counter()
        """How many of the live rooms each creator's address made (the per-address cap)."""
        self.leases = Leases(store, worker, ttl=lease_ttl, sole=sole)
        self.draining = False
        """Set by :meth:`drain`: no room is taken any more."""
        self.renewed = time.monotonic()
        """When the leases were last renewed (past ``ttl`` without a renewal this process serves nothing)."""
        self.listeners: list[Callable[[Room], None]] = []
        """Told when a served room's seats or status changed or a hand ended (the clubs' live pages)."""
        self.restorers: list[Callable[[Room], None]] = []
        """Told of a room loaded from the store, before its clock starts (a tournament table gets its schedule)."""
        self.leavers: list[Callable[[str], None]] = []
        """Told of the code of a room that left this process's memory (expired, handed over, dropped): what is
        remembered per room served here is forgotten with it, so memory follows the rooms held, not the rooms
        ever served."""

    @property
    def worker(self) -> str:
        """This process's name in the lease table."""
        return self.leases.owner

    def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self.rooms and self.store.load_room(code) is None:
                return code

    def live_rooms(self) -> list[Room]:
        """Rooms in memory that are waiting, playing or between hands (a scan: :meth:`live_count` is O(1))."""
        return [r for r in self.rooms.values() if r.status in LIVE]

    def live_count(self) -> int:
        """How many rooms in memory are waiting, playing or between hands (kept, not counted: a create checks
        the cap without a scan of every room)."""
        return len(self._live)

    def _keep(self, code: str, room: Room) -> None:
        """Serve ``room`` under ``code``: in :attr:`rooms`, counted while live, told to recount when its status
        may have changed."""
        self._pop(code)
        self.rooms[code] = room
        room.on_status = self._recount
        room.on_change = self._changed
        room.on_stopped = self._forget
        self._recount(room)

    def _forget(self, room: Room) -> None:
        """A room that stopped itself (its reload failed): out of memory, unless another copy serves it now."""
        if self.rooms.get(room.code) is room:
            self._pop(room.code)

    def _pop(self, code: str) -> Room | None:
        """Take the room ``code`` out of memory (and out of the count); it, or None."""
        room = self.rooms.pop(code, None)
        if room is not None:
            room.on_status = None
            room.on_change = None
            room.on_stopped = None
            self._recount(room)
            for leaver in self.leavers:
                try:
                    leaver(code)
                except Exception:
                    log.exception("room leaver failed for %s", code)
        return room

    def _changed(self, room: Room) -> None:
        for listener in self.listeners:
            try:
                listener(room)
            except Exception:
                log.exception("room listener failed for %s", room.code)

    def _recount(self, room: Room) -> None:
        """Count ``room`` as live if it is in memory and waiting, playing or between hands, else not."""
        code = room.code
        live = room.status in LIVE and self.rooms.get(code) is room
        if live and code not in self._live:
            self._live[code] = room.creator
            self._made[room.creator] += 1
        elif not live and code in self._live:
            creator = self._live.pop(code)
            self._made[creator] -= 1
            if not self._made[creator]:
                del self._made[creator]

    def create(self, cfg: RoomConfig, name: str, *, creator: str = "", rid: str | None = None,
               at_most: int | None = None, seated: bool = True) -> tuple[Room, int, str]:
        """A new room with its creator at seat 0 (the host); returns (room, seat, token).  ``seated=False``: every
        seat empty (a club's standing table waiting for its players; the token given is no seat's).  ``rid``: the
        request's key (:func:`~daer.server.table.rooms.request_key`), stored with the room (:meth:`recreate`).

        Everything is checked before anything is stored: a refused room leaves no row behind.
        The sole process of a SQLite store keeps the room (its lease taken at once); a worker of a cluster
        leaves it unleased, to be taken by the worker the balancer sends the room's requests to.  When another
        worker stored a room for the same ``rid`` at the same instant (the request's key is unique over all
        rooms, migration 0005), nothing is stored here and the answer is that room (:meth:`recreate`).
        ``at_most``: a cluster's cap of live rooms per creator, checked again as the room is stored (the
        caller's count and another worker's create can race): ``RoomError("too_many_rooms")``.
        """
        rules = check_config(cfg)
        code = self._new_code()
        n = rules.table.seats
        first = PendingDeal.fresh(n)
        owner, epoch = self.leases.at_creation(draining=self.draining)
        keep = owner is not None
        port = self.leases.port(code, epoch, 0, functools.partial(self.drop, code))
        match = Match(code=code, config=cfg, rules=rules, seats=[Seat(i) for i in range(n)], scores=[0] * n,
                      pending=first, vote_seconds=self.vote_seconds, watch_delay=self.watch_delay)
        room = Room(match, self.store, port, bot_delay=self.bot_delay, claim_window=self.claim_window,
                    creator=creator)
        token = secrets.token_urlsafe(18)
        holder = token_hash(token)
        if seated:
            host = room.seats[0]
            host.kind, host.name, host.token_hash = "human", name[:24] or "玩家1", holder
        try:
            self.store.create_room(code=code, created_at=time.time(), config=msgspec.json.encode(cfg).decode(),
                                   scores=msgspec.json.encode(match.scores).decode(), dealer=0,
                                   seats=[s.row() for s in room.seats], deal_seed=first.seed,
                                   owner=owner, ttl=self.leases.ttl,
                                   creator=address_key(creator) if creator else None,
                                   reply=None if rid is None or not seated else taken_mark(rid, 0, holder),
                                   at_most=None if self.leases.sole or not creator else at_most)
        except Exception as exc:
            # the same request reached another worker at the same instant and its room was stored first (the
            # create key is unique over all rooms; that room also counts in the cap): nothing of ours was
            # stored; the answer is that room
            over = isinstance(exc, WriteConflict)  # only the cap's check expects rows in a create
            again = self.recreate(creator, rid) if rid is not None and (over or self.store.duplicate(exc)) else None
            if again is not None:
                return again
            if over:
                raise too_many_rooms(at_most or 0) from exc
            raise
        room.replies.none_stored()
        if keep:
            self._keep(code, room)
        return room, 0, token

    def recreate(self, creator: str, rid: str) -> tuple[Room, int, str] | None:
        """A create (开房) repeated from ``creator`` with the key ``rid`` of an earlier one whose answer this
        process does not hold (another worker gave it, or this one restarted): that room, its host seat with a
        new token (the first one stops working); None when no room was made with this key.  Raises
        ``RoomError``: ``moved`` while another worker holds the room, ``closed`` when it is over,
        ``rid_used`` once the host seat changed hands, ``store`` when the new token could not be stored."""
        code = self.store.room_of_request(address_key(creator), rid)
        if code is None:
            return None
        room = self.rooms.get(code) or self._unserved(code) or self.get(code)
        if room is None:
            raise RoomError("closed", "房间已关闭", "the room is closed")
        again = room.rejoin(rid)
        if again is None:  # the room was made with this key: its row is there
            raise RoomError("closed", "房间已关闭", "the room is closed")
        self.store.flush()  # the new token is stored before it is handed out
        seat, token = again
        stored = self.store.load_room(code)
        if stored is None or stored.seats[seat].token_hash != token_hash(token):  # its write failed or was fenced
            raise RoomError("store", "服务器保存失败，请重试", "the server could not store the seat; try again")
        return room, seat, token

    def _unserved(self, code: str) -> Room | None:
        """A room of a cluster that no worker ever served, loaded to be written without taking its lease (it stays
        for the worker the balancer sends its code to, :meth:`Leases.unserved`); None otherwise."""
        row = self.store.load_room(code)
        port = None if row is None else self.leases.unserved(code, row.version)
        return None if row is None or port is None else room_from_row(row, self.store, self.bot_delay, port)

    def rooms_made_by(self, address: str) -> int:
        """Live rooms ``address`` made: those in memory for the sole process of a SQLite store, else those in
        the store, whichever worker made them (so the per-address cap holds for the whole cluster)."""
        if self.leases.sole:
            return self._made[address]
        return self.store.live_rooms_of(address_key(address))

    def rename_seats(self, seats: list[tuple[str, int]], name: str) -> None:
        """Seats ``(code, seat)`` of rooms in this process's memory, still held by a person, take ``name`` (a
        deleted player's, whose stored seats the store renamed: the next write of the room keeps it)."""
        for code, seat in seats:
            room = self.rooms.get(code)
            if room is not None and 0 <= seat < len(room.seats) and room.seats[seat].kind == "human":
                room.seats[seat].name = name

    def get(self, code: str) -> Room | None:
        """A room this process serves, by code: in memory, or loaded from the store once its lease is taken
        (and its clock started); None for no such room or an expired one.  Raises ``RoomError("moved")``
        while another live worker holds the room (it is asked to hand it over) or while draining."""
        code = code.strip().upper()
        if code in self.rooms:
            return self.rooms[code]
        if not 3 <= len(code) <= 16:
            return None
        self.store.flush()  # a room the expiry sweep just closed is read as closed
        try:
            epoch = self.leases.claim(code, draining=self.draining)
        except Elsewhere:
            raise moved() from None
        if epoch is None:
            return None
        row = self.store.load_room(code)  # read after taking the lease: everything the last holder wrote
        if row is None:
            return None
        port = self.leases.port(code, epoch, row.version, functools.partial(self.drop, code))
        if row.status == EXPIRED:
            self.leases.give_up(port)
            return None
        try:
            room = room_from_row(row, self.store, self.bot_delay, port)
            room.claim_window = self.claim_window
            room.match.vote_seconds = self.vote_seconds
            room.match.watch_delay = self.watch_delay
            for restorer in self.restorers:
                restorer(room)
        except (RoomError, msgspec.ValidationError, msgspec.DecodeError) as exc:
            # stored before today's bounds (e.g. a bot with no time cap): closed, never resumed
            log.warning("room %s no longer valid (%s); closing it", code, exc)
            port.update_room(status=EXPIRED)
            self.leases.give_up(port)
            return None
        self._keep(code, room)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return room  # no loop (a script or a test drives it): the clock starts with the first change
        room.schedule()
        return room

    def store_failed(self, code: str, exc: BaseException) -> None:
        """A write of this room could not be committed (the store's writer says so): the room goes back to
        what is stored, and its sockets are closed (the messages waiting for that write are dropped); the
        clients reconnect and resume at the stored version."""
        room = self.rooms.get(code)
        if room is None:
            return
        if refused(exc):  # the fence refused it: another worker holds the lease now
            log.warning("room %s: lease lost (epoch %d); no longer serving it", code, room.port.epoch,
                        extra=ctx("lease_lost", room=code))
            self.drop(code)
            return
        log.error("room %s: write failed (%s); reloading it from the store", code, exc)
        conns = list(room.conns)
        room.conns.clear()
        for c in conns:
            c.abort(p.encode(p.Closed(zh="服务器保存失败，请重新连接",
                                      en="the server could not store a change; reconnect")))
        if not room.restore_or_stop():  # the database is still away (a restart): stopped and forgotten here
            return
        for s in room.seats:
            s.online = 0
        room.schedule()

    def restore_all(self) -> int:
        """Serve the rooms this process restores at start (re-validated, clocks started): every live room for
        the sole process of a SQLite store, else those whose lease names this worker; returns how many."""
        for code in self.leases.restorable():
            try:
                self.get(code)
            except (RoomError, LeaseLost) as exc:
                log.info("room %s not restored here: %s", code, exc)
            except Exception:  # a record that does not replay: this room is not served, the others are
                log.exception("room %s could not be restored; not serving it", code)
        return len(self.rooms)

    def drop(self, code: str) -> None:
        """Stop serving a room whose lease was lost (sockets told to reconnect); nothing is written."""
        room = self._pop(code)
        if room is not None:
            LEASES_LOST.inc()
            room.stop(lost=True)

    def release(self, code: str) -> None:
        """Stop serving a room and give its lease up (handed over, drained, or gone from memory)."""
        self.store.flush()  # its queued writes commit (and their frames go out) under the lease first
        room = self._pop(code)
        if room is not None:
            room.stop()
            self.leases.give_up(room.port)

    def keep_leases(self) -> None:
        """Renew this worker's leases; stop serving rooms whose lease was lost, hand over rooms another worker
        asked for, and take over rooms whose worker died or was drained (nothing to do for the sole process
        of a SQLite store)."""
        if self.leases.sole:
            return
        held = dict(self.rooms)
        self.kept(held, self.leases.extend(list(held)))

    def kept(self, held: dict[str, Room], mine: dict[str, tuple[int, str | None]], *, adopt: bool = True) -> None:
        """Act on a renewal of the leases of ``held`` (the rooms in memory when it started): ``mine`` is what
        :meth:`daer.server.table.port.Leases.extend` found still ours; with ``adopt``, then take over the rooms of
        dead or drained workers here at once (:func:`adopt_orphans` does it one room per loop turn)."""
        self.renewed = time.monotonic()
        lost, handover = self.leases.judge({c: r.port for c, r in held.items()}, mine)
        for code in lost:
            if self.rooms.get(code) is held[code]:  # not dropped or taken again meanwhile
                log.warning("room %s: lease lost; no longer serving it", code, extra=ctx("lease_lost", room=code))
                self.drop(code)
        for code in handover:
            if self.rooms.get(code) is held[code]:
                log.info("room %s: handed over to the worker the balancer sends it to", code,
                         extra=ctx("handed_over", room=code))
                self.release(code)
        if adopt and not self.draining:
            for code in self.leases.orphans(ADOPT_PER_TICK):
                self.adopt(code)

    def adopt(self, code: str) -> None:
        """Take over a room whose worker died or was drained (its lease taken, loaded, its clock started)."""
        if code in self.rooms or self.draining:
            return
        try:
            if self.get(code) is not None:
                log.info("room %s: taken over", code, extra=ctx("taken_over", room=code))
        except (RoomError, LeaseLost):
            pass  # another worker was quicker

    def stale(self) -> bool:
        """True when the leases were not renewed for ``ttl`` seconds (they may have ended)."""
        return time.monotonic() - self.renewed > self.leases.ttl

    def drain(self) -> int:
        """Stop taking rooms and hand every room over (leases released, sockets told to reconnect); how many."""
        self.draining = True
        codes = list(self.rooms)
        for code in codes:
            try:
                self.release(code)
            except Exception:
                log.exception("room %s: release failed (its lease will expire)", code)
        return len(codes)


async def keep_leases_forever(manager: RoomManager) -> None:
    """Renew the leases every ``ttl / 3`` seconds until cancelled: the statements in a worker thread (the loop
    keeps serving), the decisions on the loop.  Past ``ttl`` without a renewal every room is dropped."""
    while not manager.leases.sole:
        await asyncio.sleep(manager.leases.renew_every)
        if manager.stale():  # the store did not answer for a whole lease: another worker may serve them now
            for code in list(manager.rooms):
                manager.drop(code)
        t0 = time.perf_counter()
        try:
            held = dict(manager.rooms)
            mine = await asyncio.to_thread(manager.leases.extend, list(held))
            manager.kept(held, mine, adopt=False)
        except Exception:
            LEASE_RENEWALS.labels(result="failed").inc()
            log_failure(log, "lease renewal failed")
            continue
        LEASE_RENEWALS.labels(result="ok").inc()
        LEASE_SECONDS.observe(time.perf_counter() - t0)
        try:
            await adopt_orphans(manager)
        except Exception:
            log_failure(log, "taking rooms over failed")


async def adopt_orphans(manager: RoomManager) -> int:
    """Take over the rooms of dead or drained workers (up to :data:`ADOPT_PER_TICK`), one room per turn of the
    loop: each is a lease, a load and a replay of its hand on the loop (milliseconds), and the rooms already
    here must not wait for a hundred of them in a row (a survivor taking over a killed worker's rooms); how
    many were taken."""
    if manager.draining:
        return 0
    before = len(manager.rooms)
    for code in await asyncio.to_thread(manager.leases.orphans, ADOPT_PER_TICK):
        manager.adopt(code)
        await asyncio.sleep(0)  # the loop's other callbacks (sockets, timers, bots) run in between
    return len(manager.rooms) - before
