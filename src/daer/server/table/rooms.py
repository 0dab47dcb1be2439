"""Rooms of the online table: a match (:mod:`daer.server.table.match`) and the world around it.

A room performs what its :class:`~daer.server.table.match.Match` decides (the match itself does no I/O): it
stores every change through its :attr:`Room.port` (:mod:`daer.server.table.port`: leases and fencing) before
anyone hears of it, sends each seat its own update through its :attr:`Room.audience`
(:mod:`daer.server.table.audience`), keeps the answers to the clients' ids (:mod:`daer.server.table.replies`), and runs
its clock and bots (:mod:`daer.server.table.clock`).  It never decides a rule.
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
import time
from collections.abc import Callable
from typing import Any

import msgspec

from daer.bots.base import Bot
from daer.engine import Action, GameState
from daer.rules.model import Ruleset
from daer.server import protocol as p
from daer.server.ops.logs import ctx
from daer.server.ops.metrics import ACTIONS_BY
from daer.server.safety.bounds import RoomConfig, RoomError, bot_for, check_config
from daer.server.safety.limits import Buckets, Rate, address_key
from daer.server.social import votes
from daer.server.social.phrases import SAY_BURST, SAY_PER_MINUTE, SAYABLE
from daer.server.table import clock
from daer.server.table.audience import Audience
from daer.server.table.dealing import PendingDeal, fairness_of
from daer.server.table.match import EXPIRED, LIVE, Match
from daer.server.table.outcome import ActionWrite, FinishWrite, HandWrite, Outcome, RoomWrite
from daer.server.table.port import LeaseLost, RoomPort
from daer.server.table.replies import ReplyBook
from daer.server.table.seating import Conn, Seat, token_hash
from daer.server.table.settling import record_of
from daer.store import ReplyRow, RoomRow, Store
from daer.store.outage import log_failure
from daer.store.records import HandRecord

__all__ = ["CODE_ALPHABET", "CODE_LENGTH", "EXPIRED", "LIVE", "Room", "action_codec", "moved", "request_key",
           "taken_mark"]

log = logging.getLogger("daer.server")

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
JOINS = -1
"""The ``replies.seat`` under which a room keeps what each create or join with a request id took (seat, token
hash), by :func:`request_key`."""
CODE_LENGTH = 12
"""Characters of a new room code: 32**12 = 1.2e18 codes (docs/protocol.md, "Limits"); old 5-character
codes keep working."""
action_codec = msgspec.json.Decoder(Action)


def request_key(kind: str, address: str, rid: str) -> str:
    """The stored key of a create's or join's request id (请求编号) from ``address``: ``kind:`` and a hash of
    both (the address is never stored in the clear)."""
    both = f"{address}\n{rid}"
    return f"{kind}:{address_key(both)[:40]}"


def taken_mark(key: str, seat: int, holder: str) -> ReplyRow:
    """The row that keeps what a request took: the seat and its token's hash, never the token."""
    return ReplyRow(JOINS, key, msgspec.json.encode({"seat": seat, "holder": holder}).decode(), False)


def moved() -> RoomError:
    """The error for a room this process does not serve (its lease is elsewhere): reconnect."""
    return RoomError("moved", "房间已转到另一台服务器，请重新连接", "this server no longer serves the room; reconnect")


class Room:
    """A private room: its match, its writes, its connections, its clock and bots."""

    # slots: a thousand rooms step in turn, each one's fields in one block (fewer cache lines than a dict's)
    __slots__ = ("audience", "auto_bots", "bot_delay", "bots", "chatter", "claim_window", "creator", "future",
                 "handle", "match", "on_change", "on_status", "on_stopped", "port", "replies", "runner", "serving",
                 "store", "think", "thinking", "told", "touched", "watchdog")

    def __init__(self, match: Match, store: Store, port: RoomPort, *, bot_delay: float, claim_window: float = 0.0,
                 creator: str = "") -> None:
        self.match = match
        self.store = store
        """For reads (answers, hands); every write goes through :attr:`port`."""
        self.port = port
        self.bot_delay = bot_delay
        self.claim_window = claim_window
        """Seconds a claim window stays open at least (``daer serve --claim-window``): it must not close at
        once just because nobody may claim (docs/protocol.md, "Timing")."""
        self.creator = creator
        """Address that created the room (in memory only: for the per-address cap of live rooms)."""
        self.replies = ReplyBook(store, match.code, port)
        self.audience = Audience()
        self.chatter = Buckets(Rate(SAY_PER_MINUTE, SAY_BURST))
        """Each seat's quick phrases (a token bucket by seat, in memory)."""
        self.serving = True
        """False once this process stopped serving the room (lease lost, handed over, drained)."""
        self.bots: dict[int, Bot] = {}
        """Each bot seat's bot, made when it first moves and kept for the rest of the match."""
        self.auto_bots: dict[int, Bot] = {}
        """Each seat's 托管 (heuristic) bot, made when first needed and kept."""
        self.handle: asyncio.Handle | clock.Queued | None = None
        self.runner: clock.Runner | None = None
        """The runner of the loop that steps this room (found at its first timer: see ``clock.loop_runner``)."""
        """The room's next step: a timer, or its place in the loop's runner (daer.server.table.clock)."""
        self.thinking = False
        """A bot is choosing in a process of the pool (the loop must not wait)."""
        self.think = 0
        """Number of the bot decision under way: a late answer of an earlier one is ignored."""
        self.watchdog: asyncio.TimerHandle | None = None
        self.future: asyncio.Future[Action] | None = None
        self.touched = time.monotonic()
        """When anything last changed (the expiry sweep's clock)."""
        self.on_status: Callable[[Room], None] | None = None
        """Told after anything that may have changed the match's status (the manager's count of live rooms)."""
        self.told: str | None = None
        """The status :attr:`on_status` was last told of by :meth:`perform` (told again only once it changed)."""
        self.on_change: Callable[[Room], None] | None = None
        """Told after a step that changed who sits where, the status, or ended a hand (a club page shows it)."""
        self.on_stopped: Callable[[Room], None] | None = None
        """Told when the room stopped itself because it could not go back to what is stored (the manager
        forgets it; the next request for it loads it again)."""

    # -- the match's state, read (and, for scripts and tests, set) through the room ---------------------
    @property
    def code(self) -> str:
        return self.match.code

    @property
    def config(self) -> RoomConfig:
        return self.match.config

    @property
    def rules(self) -> Ruleset:
        return self.match.rules

    @property
    def seats(self) -> list[Seat]:
        return self.match.seats

    @property
    def version(self) -> int:
        return self.match.version

    @property
    def status(self) -> str:
        return self.match.status

    @status.setter
    def status(self, value: str) -> None:
        self.match.status = value
        if self.on_status is not None:
            self.told = value
            self.on_status(self)

    @property
    def state(self) -> GameState | None:
        return self.match.state

    @property
    def pending(self) -> PendingDeal | None:
        return self.match.pending

    @pending.setter
    def pending(self, value: PendingDeal | None) -> None:
        self.match.pending = value

    @property
    def deadlines(self) -> dict[int, float]:
        return self.match.deadlines

    @property
    def ready(self) -> set[int]:
        return self.match.ready

    @property
    def host(self) -> int:
        return self.match.host

    @property
    def conns(self) -> set[Conn]:
        """The room's live connections (:attr:`audience`)."""
        return self.audience.conns

    @conns.setter
    def conns(self, value: set[Conn]) -> None:
        self.audience.conns = value

    # -- performing what the match decided ---------------------------------------------------------------
    def perform(self, out: Outcome, reply: ReplyRow | None = None) -> None:
        """Store the outcome's rows in order (``reply``, the answer to the command, with the first that can
        carry it), then send the updates, close the room if it closed, and re-arm the clock."""
        m = self.match
        for w in out.writes:
            try:
                if isinstance(w, ActionWrite):  # the most frequent first
                    assert m.hand_id is not None
                    self.port.append_action(hand_id=m.hand_id, row=w.row, room=w.room, points=w.points,
                                            seats=w.seats, reply=reply,
                                            record=None if w.points is None else _record(m))
                    reply = None
                elif isinstance(w, HandWrite):
                    m.hand_id = self.port.start_hand(
                        number=w.number, rules=w.rules, overrides=w.overrides, dealer=w.dealer, deck=w.deck,
                        version=w.version, seats=w.seats, fairness=w.fairness, reply=reply)
                    reply = None
                elif isinstance(w, RoomWrite):
                    self.port.update_room(seats=w.seats, reply=reply, **w.fields)
                    reply = None
                elif isinstance(w, FinishWrite):
                    assert m.hand_id is not None
                    self.port.finish_hand(m.hand_id, w.points, _record(m))
            except LeaseLost as exc:  # another worker serves the room now: this copy is stopped (port.lost)
                if isinstance(w, ActionWrite):
                    raise moved() from exc
                raise
            except Exception as exc:  # memory must not stay ahead of the store: back to what is stored
                log_failure(log, "store failed; reloading room %s", self.code)
                if self.restore_or_stop():
                    self.schedule()  # the step that failed is due again: its clock was not re-armed
                if not isinstance(w, ActionWrite):
                    raise
                raise RoomError("store", "服务器保存失败，动作未生效，请重试",
                                "the server could not store the action; nothing changed, try again") from exc
        status_changed = m.status != self.told
        if self.on_status is not None and status_changed:  # the manager's count changes only with it
            self.told = m.status
            self.on_status(self)
        if self.on_change is not None and (out.ended or status_changed or any(
                getattr(w, "seats", None) for w in out.writes)):
            self.on_change(self)
        self._log(out)
        for s in out.sends:
            self.broadcast(s.since, only=s.only, seen=s.seen)
        if out.unwatch:
            self.audience.close_watchers("房主不允许观战", "the host does not allow watching")
            self.watchers_changed(send=True)
        if out.closed is not None:
            if self.handle is not None:
                self.handle.cancel()
                self.handle = None
            self.close_all(*out.closed)
        elif out.timers:
            self.schedule()

    def _log(self, out: Outcome) -> None:
        m = self.match
        if out.action is not None:
            by = "server" if out.reply is None else "player"
            ACTIONS_BY[by].inc()
            if log.isEnabledFor(logging.DEBUG) and m.state is not None and m.state.actions:
                # the action's type only: its cards may be a private choice's
                log.debug("action", extra=ctx("action", room=self.code, seat=out.action, v=m.version, by=by,
                                              kind=type(m.state.actions[-1]).__name__.lower()))
        if not log.isEnabledFor(logging.INFO):  # the hands' lines below are built only to be written
            return
        if out.dealt:
            log.info("hand started", extra=ctx("hand_started", room=self.code, hand=m.hands_played + 1 - out.ended,
                                               dealer=m.state.dealer if m.state else m.dealer, v=m.version))
        if out.ended and m.state is not None and m.state.result is not None:
            r = m.state.result
            log.info("hand ended", extra=ctx("hand_ended", room=self.code, hand=m.hands_played, winner=r.winner,
                                             how=r.how, hu=r.hu, points=msgspec.json.encode(r.points).decode()))

    def answer(self, seat: int, msg_id: str, out: Outcome) -> p.ServerMessage:
        """Perform a client's command or action and keep its answer as the outcome says (stored with the change
        it made, or alone, or in memory): a repeated id gets the same answer."""
        reply = out.reply
        assert reply is not None
        if out.writes:
            self.perform(out, self.replies.row(seat, msg_id, reply) if isinstance(reply, p.Ack) else None)
            self.replies.remember(seat, msg_id, reply)
            return reply
        self.perform(out)
        if out.keep == "store":
            self.replies.save(seat, msg_id, reply)
        elif out.keep == "memory":
            self.replies.remember(seat, msg_id, reply)
        return reply

    def restore_or_stop(self) -> bool:
        """After a failed write, back to what is stored: the room reloaded (True), or — the store away too, a
        database restarting — this copy stopped (timers off, sockets told to reconnect) and :attr:`on_stopped`
        told (False).  A copy that ran on would store its next moves on top of the change that was lost: the
        fence compares the version, and a claim window's private step (a pass) does not change it."""
        try:
            self._reload()
        except Exception:
            log_failure(log, "room %s: reload failed; dropping it from memory", self.code)
            self.stop()
            if self.on_stopped is not None:
                self.on_stopped(self)
            return False
        return True

    def _reload(self) -> None:
        """Forget the in-memory match and take the stored one (after a failed write)."""
        row = self.store.load_room(self.code)
        if row is None:
            return
        self.port.version = row.version
        fresh = room_from_row(row, self.store, self.bot_delay, self.port)
        fresh.match.vote_seconds = self.match.vote_seconds
        fresh.match.watch_delay = self.match.watch_delay
        fresh.match.watchers = self.match.watchers
        fresh.match.networks = self.match.networks
        self.match, self.replies = fresh.match, fresh.replies
        if self.on_status is not None:
            self.told = self.match.status
            self.on_status(self)

    def stop(self, *, lost: bool = False) -> None:
        """Stop serving the room here: timers off, every connection told to reconnect (through the balancer);
        ``lost``: its lease was lost, so frames still waiting for a write's commit are dropped."""
        self.serving = False
        for handle in (self.handle, self.watchdog):
            if handle is not None:
                handle.cancel()
        self.handle = self.watchdog = None
        self.think += 1  # a bot's late answer is ignored
        why = moved()
        self.audience.reconnect_all(p.encode(p.error(why.code, why.zh, why.en)) if lost else None)

    # -- seats and connections ---------------------------------------------------------------------------
    def seat_of(self, token: str) -> int | None:
        """The seat whose token this is."""
        return self.match.seat_of(token_hash(token))

    def join(self, name: str, seat: int | None = None, *, rid: str | None = None) -> tuple[int, str]:
        """Take an empty seat (any, or the one asked for); returns (seat, secret token).  ``rid``: the request's
        key (:func:`request_key`): stored with the seat, so a repeat reaching any worker later gets the seat
        again (:meth:`rejoin`) instead of a second one."""
        token = secrets.token_urlsafe(18)
        holder = token_hash(token)
        taken, out = self.match.join(name, holder, seat)
        self.perform(out, None if rid is None else taken_mark(rid, taken, holder))
        return taken, token

    def rejoin(self, rid: str) -> tuple[int, str] | None:
        """A join (or create) repeated with the key of an earlier one whose answer this process does not hold
        (another worker gave it, or this one restarted): the same seat with a new token, the first one no
        longer valid; None when no request had this key.  Raises ``RoomError("rid_used")`` once the seat
        changed hands."""
        text = self.store.reply(self.code, JOINS, rid)
        if text is None:
            return None
        first = msgspec.json.decode(text, type=dict[str, Any])
        token = secrets.token_urlsafe(18)
        self.perform(self.match.retoken(int(first["seat"]), str(first["holder"]), token_hash(token)))
        return int(first["seat"]), token

    def holds(self, conn: Conn) -> bool:
        """True while ``conn``'s seat is still held by the token it proved (always for a spectator)."""
        return self.audience.holds(conn, self.seats)

    def evict(self, conn: Conn, zh: str = "你已不在这个座位上（离开了，或座位已交给别人或机器人）",
              en: str = "this connection no longer holds its seat (left, taken over or given to a bot)") -> None:
        """Tell a connection it lost its seat, then close it (after the answer to the message being handled)."""
        self.audience.remove(conn, self.seats)
        self.audience.tell_and_close([conn], zh, en)

    def evict_stale(self) -> None:
        """Close every connection whose seat changed hands since it proved its token."""
        for c in self.audience.stale(self.seats):
            self.evict(c)

    def close_all(self, zh: str, en: str) -> None:
        """Tell every connection the room closed, then close them."""
        self.audience.close_all(zh, en)

    # -- messages ----------------------------------------------------------------------------------------
    def info(self, seat: int | None) -> p.RoomInfo:
        """The room as ``seat`` sees it."""
        return self.match.info(seat, time.monotonic())

    def update_for(self, seat: int | None, since: int | None, seen: int | None = None) -> p.Update:
        """What a connection of ``seat`` needs to catch up from version ``since`` (:meth:`Match.update_for`)."""
        return self.match.update_for(seat, since, time.monotonic(), seen)

    def broadcast(self, since: int | None, *, only: int | None = None, seen: int | None = None) -> None:
        """Send every connection its own update (one view per seat).

        ``only``: a private step of that seat, which had ``seen`` private steps at this version before it.
        """
        self.touched = now = time.monotonic()
        self.evict_stale()
        m = self.match
        self.audience.send(lambda seat: p.encode_frame(m.update_for(seat, since if seat is not None else m.shown, now,
                                                                    seen if seat == only else None)), only)

    def watchers_changed(self, *, send: bool) -> None:
        """A spectator came or went: the table is told how many watch, and their names (no new version)."""
        self.match.watchers = self.audience.watcher_names()
        if send:
            self.broadcast(self.version)

    def act(self, seat: int, msg: p.Act) -> p.ServerMessage:
        """A player's action: ack, or an error that changes nothing (a repeated id gets the same answer)."""
        known = self.replies.get(seat, msg.id)
        if known is not None:
            return known
        return self.answer(seat, msg.id, self.match.act(seat, msg, time.monotonic()))

    def command(self, seat: int | None, msg: p.Command) -> p.ServerMessage:
        """start / next / resume / leave / dissolve / entropy; the answer is stored before it is sent, and a
        repeated id gets it again (across restarts and hands)."""
        if seat is None:
            return p.error("not_seated", "观众不能操作", "spectators cannot do this", id=msg.id, v=self.version)
        known = self.replies.get(seat, msg.id)
        if known is not None:
            return known
        return self.answer(seat, msg.id, self.match.command(seat, msg, time.monotonic()))

    def say(self, seat: int | None, msg: p.Say) -> p.ServerMessage:
        """A quick phrase or emote from ``seat`` to everyone in the room (a seat's, at most
        :data:`~daer.server.social.phrases.SAY_PER_MINUTE` a minute); spectators cannot send them."""
        if seat is None:
            return p.error("not_seated", "观众不能发快捷语", "spectators cannot send phrases", id=msg.id,
                           v=self.version)
        if msg.what not in SAYABLE:
            return p.error("bad_phrase", "没有这句快捷语", "no such phrase or emote", id=msg.id, v=self.version)
        wait = self.chatter.take(str(seat))
        if wait > 0:
            secs = max(1, math.ceil(wait))
            return p.error("too_fast", f"快捷语发得太快了，请 {secs} 秒后再试", f"too many phrases; wait {secs} s",
                           id=msg.id, v=self.version)
        frame = p.encode(p.Said(seat=seat, what=msg.what))
        self.audience.send(lambda _seat: frame)
        return p.Ack(id=msg.id, v=self.version)

    # -- the server's own moves (daer.server.table.clock) ------------------------------------------------------
    def bot(self, seat: int) -> Bot:
        """The bot that moves for ``seat``: its own for a bot seat, else its 托管 (heuristic) bot — each made
        once and kept across hands."""
        if self.seats[seat].kind == "bot":
            if seat not in self.bots:
                self.bots[seat] = bot_for(self.config.bot, self.rules, f"{self.code}:{seat}")
            return self.bots[seat]
        return self.auto_bot(seat)

    def auto_bot(self, seat: int) -> Bot:
        """The seat's 托管 (heuristic) bot."""
        if seat not in self.auto_bots:
            self.auto_bots[seat] = bot_for("heuristic", self.rules, f"{self.code}:auto{seat}")
        return self.auto_bots[seat]

    def commit_action(self, action: Action, seat: int) -> None:
        """The server's move for a seat (a bot, 托管 or a stand-in), stored and sent."""
        self.perform(self.match.play(seat, action, time.monotonic()))

    def close_window(self) -> None:
        """Close the complete claim window."""
        self.perform(self.match.close_window(time.monotonic()))

    def deal(self) -> None:
        """Deal the next hand."""
        self.perform(self.match.deal(time.monotonic()))

    def schedule(self) -> None:
        """Arrange the next thing the server itself does for this room."""
        clock.schedule(self)

    def _step(self) -> None:
        clock.step(self)


def _record(m: Match) -> HandRecord | None:
    """The 战绩 of the match's hand that just ended (booked: ``hands_played`` counts it)."""
    return record_of(m.code, m.config.rules, m.hands_played, m.seats, m.state)


def match_from_row(row: RoomRow) -> Match:
    """A stored room's match as a restart rebuilds it, its current hand not replayed yet (:func:`replay_hand`)."""
    cfg = msgspec.json.decode(row.config, type=RoomConfig)
    rules = check_config(cfg)
    match = Match(code=row.code, config=cfg, rules=rules,
                  seats=[Seat(s.seat, s.kind, s.name, s.token_hash, s.auto) for s in row.seats],
                  scores=msgspec.json.decode(row.scores, type=list[int]), dealer=row.dealer,
                  hands_played=row.hands_played, status=row.status, version=row.version,
                  ready=set(msgspec.json.decode(row.ready or "[]", type=list[int])),
                  pending=PendingDeal.stored(row.deal_seed, row.deal_entropy, len(row.seats)))
    match.vote, match.proposed = votes.load(row.vote)
    return match


def replay_hand(match: Match, row: RoomRow) -> Outcome | None:
    """Replay the stored room's current hand into ``match``, action by action, and close the claim windows that
    follow from them (a close is not stored on its own: the actions decide it); what the replay must store
    before anyone sees the room (a hand over but not booked, windows closed here), None without a hand.  Writes
    nothing itself, so a check may ask which version a restart would serve."""
    h = row.hand
    if h is None:
        return None
    if [a.idx for a in h.actions] != list(range(len(h.actions))):
        # a hole (or a repeat) in the record: the actions after it may still be legal and replay into a hand that
        # was never played, so the room is refused here rather than served from a wrong state
        raise ValueError(f"hand {h.id} of room {row.code}: its stored actions are not numbered 0..{len(h.actions) - 1}")
    st = GameState(match.rules, msgspec.json.decode(h.deck, type=list[int]), dealer=h.dealer, hold=True)
    match.hand_id = h.id
    match.fair = fairness_of(h)
    return match.replay(st, h.start_version, [(a.version, a.seat, action_codec.decode(a.payload))
                                              for a in h.actions], finished=h.finished, now=time.monotonic())


def room_from_row(row: RoomRow, store: Store, bot_delay: float, port: RoomPort) -> Room:
    """A room rebuilt from the store: the current hand replayed action by action (what the replay must store
    first — a hand over but not booked, windows closed here — is stored before anyone sees the room)."""
    match = match_from_row(row)
    room = Room(match, store, port, bot_delay=bot_delay)
    if match.pending is None and match.status in ("waiting", "between"):  # stored before verifiable deals
        match.pending = PendingDeal.fresh(len(match.seats))
        port.update_room(deal_seed=match.pending.seed)
    out = replay_hand(match, row)
    if out is not None:
        room.perform(out)
    return room
