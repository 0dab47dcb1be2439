"""Rooms of the online table: seats with secret tokens, hands of a match, bots, timers and 托管.

A room never decides a rule: it asks the engine (``verify`` / ``apply`` / ``view``) and stores every
accepted action before anyone hears of it.  Versions: ``room.version`` is the *public* version: it
grows by one on every change the whole table sees (a seat, a deal, a discard, the close of a claim
window), never on a seat's private step (its claim choice, which only that seat is told of, at the
same version).  So neither the frames nor the versions another seat or a spectator receives depend on
who had an option or what they chose.  Each seat also has a *legal epoch*, the version at which its
options last changed, so an action made against any version since then is still good (another seat's
过 does not make yours stale).  The hand is a held-window ``GameState`` (``hold=True``): every card
on offer opens a claim window, closed by the room at least ``claim_window`` seconds after it opened.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import msgspec

from daer.bots.base import Bot
from daer.cards import N_KINDS, kind_of
from daer.engine import Action, GameState, IllegalActionError, new_hand
from daer.engine.events import seen_by
from daer.engine.fairness import Fairness
from daer.engine.match import DealerRule, next_dealer
from daer.engine.views import View
from daer.hands import Meld, MeldKind, waits
from daer.rules.model import Ruleset
from daer.server import clock
from daer.server import protocol as p
from daer.server.answering import Answering
from daer.server.audience import Audience
from daer.server.bounds import RoomConfig, RoomError, bot_for
from daer.server.dealing import PendingDeal
from daer.server.logs import ctx
from daer.server.metrics import ACTIONS
from daer.server.port import LeaseLost, RoomPort
from daer.server.replies import ReplyBook
from daer.server.seating import Conn, Seat, token_hash
from daer.server.settling import work_of
from daer.store import ActionRow, Store

log = logging.getLogger("daer.server")

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
LIVE = ("waiting", "playing", "between")
"""Statuses of a room that is still in play."""
EXPIRED = "expired"
"""Status of a room closed by the expiry sweep (never restored; its hands' records stay downloadable)."""
CODE_LENGTH = 12
"""Characters of a new room code: 32**12 = 1.2e18 codes (docs/protocol.md, "Limits"); old 5-character
codes keep working."""
action_codec = msgspec.json.Decoder(Action)


def moved() -> RoomError:
    """The error for a room this process does not serve (its lease is elsewhere): reconnect."""
    return RoomError("moved", "房间已转到另一台服务器，请重新连接", "this server no longer serves the room; reconnect")


@dataclass
class Room(Answering):
    """A private room and its match.

    Its parts, each its own module: the writes go through :attr:`port` (:mod:`daer.server.port`: leases and
    fencing), the connections are :attr:`audience` (:mod:`daer.server.audience`), the server's own moves
    come from :mod:`daer.server.clock`; the room itself holds the match and decides what each seat sees.
    """

    code: str
    config: RoomConfig
    rules: Ruleset
    store: Store
    """For reads (answers, hands); every write goes through :attr:`port`."""
    port: RoomPort
    bot_delay: float
    seats: list[Seat]
    scores: list[int]
    dealer: int = 0
    hands_played: int = 0
    status: str = "waiting"
    version: int = 0
    state: GameState | None = None
    hand_id: int | None = None
    hand_start: int = 0
    marks: list[tuple[int, int, int | None]] = field(default_factory=list)
    """(version, length of the log, seat) after each step: public (seat None) or a seat's private one."""
    epoch: dict[int, int] = field(default_factory=dict)
    legal: dict[int, list[Action]] = field(default_factory=dict)
    deadlines: dict[int, float] = field(default_factory=dict)
    ready: set[int] = field(default_factory=set)
    replies: ReplyBook = field(init=False)
    answering: tuple[int, str] | None = None
    """The command being answered: its ack is stored with the change it makes (:meth:`_answer_row`)."""
    pending: PendingDeal | None = None
    """The next hand's secret seed (its commitment is public) and the seats' entropy."""
    fair: Fairness | None = None
    """The current (or last) hand's commit–reveal data; revealed once the hand is over."""
    audience: Audience = field(default_factory=Audience)
    serving: bool = True
    """False once this process stopped serving the room (lease lost, handed over, drained)."""
    bots: dict[int, Bot] = field(default_factory=dict)
    auto_bots: dict[int, Bot] = field(default_factory=dict)
    handle: asyncio.TimerHandle | None = None
    thinking: bool = False
    """A bot is choosing in a worker thread (the search bot thinks up to a second; the loop must not wait)."""
    busy: bool = False
    standin: set[int] = field(default_factory=set)
    """Seats whose claim-window timer ran out: the 托管 bot answers for them, without the public 托管 badge."""
    claim_window: float = 0.0
    """Seconds a claim window stays open at least (``daer serve --claim-window``): it must not close at
    once just because nobody may claim (docs/protocol.md, "Timing")."""
    opened: float = 0.0
    """When the last public step (which may open a window) went out."""
    think: int = 0
    """Number of the bot decision under way: a late answer of an earlier one is ignored."""
    watchdog: asyncio.TimerHandle | None = None
    future: asyncio.Future[Action] | None = None
    touched: float = field(default_factory=time.monotonic)
    """When anything last changed (the expiry sweep's clock)."""
    creator: str = ""
    """Address that created the room (in memory only: for the per-address cap of live rooms)."""

    def __post_init__(self) -> None:
        self.replies = ReplyBook(self.store, self.code, self.port)

    @property
    def conns(self) -> set[Conn]:
        """The room's live connections (:attr:`audience`)."""
        return self.audience.conns

    @conns.setter
    def conns(self, value: set[Conn]) -> None:
        self.audience.conns = value

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

    # -- seats ---------------------------------------------------------------------------------
    @property
    def host(self) -> int:
        """The host: the lowest seat held by a person (the creator while present)."""
        return min((s.seat for s in self.seats if s.kind == "human"), default=0)

    def seat_of(self, token: str) -> int | None:
        """The seat whose token this is."""
        h = token_hash(token)
        for s in self.seats:
            if s.token_hash is not None and hmac.compare_digest(s.token_hash, h):
                return s.seat
        return None

    def join(self, name: str, seat: int | None = None) -> tuple[int, str]:
        """Take an empty seat (any, or the one asked for); returns (seat, secret token)."""
        if self.status not in LIVE:
            raise RoomError("closed", "房间已关闭", "the room is closed")
        free = [s for s in self.seats if s.kind == "empty" and (seat is None or s.seat == seat)]
        if not free:
            raise RoomError("full", "没有空座位", "no free seat")
        token = secrets.token_urlsafe(18)
        s = free[0]
        s.kind, s.name, s.token_hash, s.auto = "human", name[:24] or f"玩家{s.seat + 1}", token_hash(token), False
        self.version += 1
        self.port.update_room(version=self.version, seats=[s.row()])
        self.broadcast(None)
        return s.seat, token

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

    # -- messages ------------------------------------------------------------------------------
    def info(self, seat: int | None) -> p.RoomInfo:
        """The room as ``seat`` sees it."""
        now = time.monotonic()
        dl = self.deadlines.get(seat) if seat is not None else None
        pays: tuple[p.Payment, ...] = ()
        st = self.state.settlement if self.state is not None and self.state.over else None
        if st is not None:
            pays = tuple(p.Payment(payer=x.payer, payee=x.payee, amount=x.amount, zh=x.zh, en=x.en)
                         for x in st.payments)
        return p.RoomInfo(
            code=self.code, status=self.status, rules=self.config.rules, overrides=self.config.overrides,
            hands=self.config.hands, hand_no=self.hands_played + (1 if self.status == "playing" else 0),
            timer=self.config.timer, bot=self.config.bot, host=self.host, pace=self.config.pace,
            seats=tuple(p.SeatInfo(seat=s.seat, kind=s.kind, name=s.name, online=s.online > 0, auto=s.auto,
                                   score=self.scores[s.seat]) for s in self.seats),
            deadline=None if dl is None else max(0.0, round(dl - now, 1)),
            ready=tuple(sorted(self.ready)), payments=pays, money=self.rules.scoring.mode == "money",
            hand_id=self.hand_id if self.status == "playing" else None,
            last_hand_id=self.hand_id,
            commit=(self.fair.commitment if self.status == "playing" and self.fair is not None
                    else self.pending.commitment if self.pending is not None else None),
            reveal=self.fair if self.state is not None and self.state.over else None,
            work=work_of(self.rules, self.state),
        )

    def update_for(self, seat: int | None, since: int | None, seen: int | None = None) -> p.Update:
        """What a connection of ``seat`` needs to catch up from version ``since``.

        ``seen``: how many of the seat's own private steps at version ``since`` it has (None: all of them).
        """
        st = self.state
        if st is None:
            return p.Update(v=self.version, since=since, full=True, events=(), view=None, room=self.info(seat))
        full = since is None or not self.hand_start <= since <= self.version
        start = 0
        if since is not None and not full:
            start = max((n for v, n, who in self.marks if v <= since and who is None), default=0)
            mine = [n for v, n, who in self.marks if v == since and who == seat and n >= start]
            if mine and (seen is None or seen > 0):
                start = mine[-1] if seen is None else mine[min(seen, len(mine)) - 1]
        view = st.view(seat, log=False)
        own = sum(1 for v, _, who in self.marks if v == self.version and who == seat) if seat is not None else 0
        return p.Update(v=self.version, since=None if full else since, full=full, events=seen_by(st.log[start:], seat),
                        view=view, room=self.info(seat), waits=self.waits_of(view), p=own)

    def waits_of(self, view: View) -> tuple[tuple[int, int], ...]:
        """叫牌 hint for a seat holding one card short of a complete hand (not while it must discard)."""
        if view.seat is None or view.phase == "over" or not view.hand or view.actor == view.seat:
            return ()
        counts = [0] * N_KINDS
        for cid in view.hand:
            counts[kind_of(cid)] += 1
        melds = tuple(Meld(MeldKind(m.kind), m.kinds) for m in view.melds[view.seat])
        try:
            found = waits(self.rules, tuple(counts), melds)
        except ValueError:
            return ()
        return tuple((w.kind, w.hu) for w in found if w.hu >= self.rules.win.min_hu)

    def broadcast(self, since: int | None, *, only: int | None = None, seen: int | None = None) -> None:
        """Send every connection its own update (one view per seat).

        ``only``: a private step of that seat, which had ``seen`` private steps at this version before it.
        """
        self.touched = time.monotonic()
        self.evict_stale()
        self.audience.send(lambda seat: p.encode(self.update_for(seat, since, seen if seat == only else None)), only)

    # -- actions -------------------------------------------------------------------------------
    def act(self, seat: int, msg: p.Act) -> p.ServerMessage:
        """A player's action: ack, or an error that changes nothing (a repeated id gets the same answer)."""
        known = self.replies.get(seat, msg.id)
        if known is not None:
            return known
        if self.status != "playing" or self.state is None:
            return p.error("no_hand", "现在没有在打的牌", "no hand is being played", id=msg.id, v=self.version)
        if msg.action.seat != seat:
            return p.error("not_your_seat", "不能替别人出牌", "you may act only for your own seat",
                           id=msg.id, v=self.version)
        if msg.v > self.version or msg.v < self.epoch.get(seat, 0):
            return p.error("stale", "局面已经变了，请按新局面再选", "stale version: the state has changed, resync",
                           id=msg.id, v=self.version)
        try:
            self.state.verify(msg.action)
        except IllegalActionError as exc:
            refused = p.error("illegal", exc.zh, exc.en, id=msg.id, v=self.version)
            self.replies.refuse(seat, msg.id, refused)
            return refused
        self.commit_action(msg.action, seat, msg.id, resume=True)
        return p.Ack(id=msg.id, v=self.version)

    def commit_action(self, action: Action, seat: int, client_id: str | None, *, resume: bool = False) -> None:
        """Apply a verified action, store it with the new version, then broadcast and reschedule."""
        st = self.state
        assert st is not None and self.hand_id is not None
        since = self.version
        private = st.phase == "claim"  # a claim choice: only its seat hears of it (held windows never resolve here)
        st.apply(action)
        self.standin.discard(seat)
        if not private:
            self.version += 1
        changed = []
        if resume and not private and self.seats[seat].auto:  # a private choice changes no public badge
            self.seats[seat].auto = False
            changed.append(self.seats[seat].row())
        room: dict[str, Any] = {}
        points = None
        if st.over:
            points, room = self._book(st)
        ack = p.Ack(id=client_id, v=self.version) if client_id is not None else None
        try:
            self.port.append_action(
                hand_id=self.hand_id,
                row=ActionRow(len(st.actions) - 1, self.version, seat, client_id, msgspec.json.encode(action).decode()),
                room=room, points=points, seats=changed,
                reply=None if ack is None else self.replies.row(seat, ack.id, ack),
            )
        except LeaseLost as exc:  # another worker serves the room now: this copy is stopped (port.lost)
            raise moved() from exc
        except Exception as exc:
            log.exception("store failed; reloading room %s", self.code)
            self._reload()
            raise RoomError("store", "服务器保存失败，动作未生效，请重试",
                            "the server could not store the action; nothing changed, try again") from exc
        ACTIONS.labels(by="server" if client_id is None else "player").inc()
        if log.isEnabledFor(logging.DEBUG):  # the action's type only: its cards may be a private choice's
            log.debug("action", extra=ctx("action", room=self.code, seat=seat, kind=type(action).__name__.lower(),
                                          v=self.version, by="server" if client_id is None else "player"))
        if ack is not None:
            self.replies.remember(seat, ack.id, ack)
        if private:
            before = sum(1 for v, _, who in self.marks if v == self.version and who == seat)
            self.marks.append((self.version, len(st.log), seat))
            self._refresh_legal()
            self.broadcast(since, only=seat, seen=before)
            self.schedule()
            return
        self.opened = time.monotonic()
        self.marks.append((self.version, len(st.log), None))
        self._refresh_legal()
        self.broadcast(since)
        self.schedule()

    def close_window(self) -> None:
        """Close a complete claim window: a public step (the claim, or the card to the discards, and what follows)."""
        st = self.state
        assert st is not None and st.window_complete()
        since = self.version
        st.close_window()
        self.version += 1
        # the version is stored (the close itself is not: replaying the stored actions closes it again)
        if st.over:  # a 胡 on the card: book the hand (the 胡 itself is stored already)
            points, room = self._book(st)
            self.port.update_room(version=self.version, **room)
            self._finish_hand_row(points)
        else:
            self.port.update_room(version=self.version)
        self.opened = time.monotonic()
        self.marks.append((self.version, len(st.log), None))
        self._refresh_legal()
        self.broadcast(since)
        self.schedule()

    def _reload(self) -> None:
        """Forget the in-memory state and take the stored one (after a failed write)."""
        row = self.store.load_room(self.code)
        if row is None:
            return
        from daer.server.manager import room_from_row  # noqa: PLC0415 (the manager builds rooms: it imports this module)

        self.port.version = row.version
        fresh = room_from_row(row, self.store, self.bot_delay, self.port)
        for name in ("seats", "scores", "dealer", "hands_played", "status", "version", "state", "hand_id",
                     "hand_start", "marks", "epoch", "legal", "deadlines", "replies", "bots", "auto_bots",
                     "ready", "pending", "fair"):
            setattr(self, name, getattr(fresh, name))

    def _book(self, st: GameState) -> tuple[str, dict[str, Any]]:
        """Book a finished hand into the match: scores, next dealer, status."""
        assert st.result is not None
        log.info("hand ended", extra=ctx("hand_ended", room=self.code, hand=self.hands_played + 1,
                                         winner=st.result.winner, how=st.result.how, hu=st.result.hu,
                                         points=msgspec.json.encode(st.result.points).decode()))
        for s, pts in enumerate(st.result.points):
            self.scores[s] += pts
        self.hands_played += 1
        self.dealer = next_dealer(DealerRule(self.config.dealer_rule), self.dealer, st.result.winner,
                                  self.rules.table.seats)
        self.status = "finished" if self.hands_played >= self.config.hands else "between"
        self.ready = set()
        self.deadlines = {}
        self.pending = PendingDeal.fresh(len(self.seats)) if self.status == "between" else None
        return msgspec.json.encode(st.result.points).decode(), {
            "scores": msgspec.json.encode(self.scores).decode(), "dealer": self.dealer,
            "hands_played": self.hands_played, "status": self.status, "ready": "[]",
            "deal_seed": self.pending.seed if self.pending is not None else None, "deal_entropy": None,
        }

    def _refresh_legal(self) -> None:
        """Legal epochs and turn deadlines after a change."""
        st = self.state
        now = time.monotonic()
        for s in range(len(self.seats)):
            legal = st.legal_actions(s) if st is not None else []
            if legal != self.legal.get(s, []):
                self.epoch[s] = self.version
                self.legal[s] = legal
                self.deadlines.pop(s, None)
                if legal and self.config.timer > 0 and self.seats[s].kind == "human":
                    self.deadlines[s] = now + self.config.timer

    # -- commands ------------------------------------------------------------------------------
    def _command(self, seat: int, msg: p.Command) -> p.ServerMessage:
        name = msg.name
        if name == "entropy":
            if fields := self._entropy(seat, msg):
                self._bump_room(**fields)
        elif name == "start":
            if self.status == "playing" and self.hands_played == 0:
                return p.Ack(id=msg.id, v=self.version)
            if seat != self.host:
                return p.error("not_host", "只有房主可以开始", "only the host can start", id=msg.id, v=self.version)
            if self.status != "waiting":
                return p.error("started", "已经开始了", "already started", id=msg.id, v=self.version)
            for s in self.seats:
                if s.kind == "empty":
                    s.kind, s.name = "bot", f"机器人{s.seat + 1}"
            self._entropy(seat, msg)
            self.deal()
        elif name == "next":
            fields = self._entropy(seat, msg)
            if self.status == "between" and seat not in self.ready:
                self.ready.add(seat)
                fields["ready"] = msgspec.json.encode(sorted(self.ready)).decode()
            if fields:
                self._bump_room(**fields)
                self.schedule()
        elif name == "resume":
            if self.seats[seat].auto:
                self.seats[seat].auto = False
                self._bump_seats([seat])
        elif name == "leave":
            s = self.seats[seat]
            s.token_hash = None
            if self.status == "waiting":
                s.kind, s.name = "empty", ""
            else:
                s.kind, s.auto = "bot", False
                s.name = f"机器人{seat + 1}"
            self._bump_seats([seat])
            self.schedule()
        elif name == "dissolve":
            if seat != self.host:
                return p.error("not_host", "只有房主可以解散房间", "only the host can dissolve the room",
                               id=msg.id, v=self.version)
            self.status = "dissolved"
            self.version += 1
            self.port.update_room(status=self.status, version=self.version, reply=self._answer_row())
            if self.handle is not None:
                self.handle.cancel()
            self.close_all("房主解散了房间", "the host dissolved the room")
        return p.Ack(id=msg.id, v=self.version)

    def _bump_seats(self, seats: list[int]) -> None:
        since = self.version
        self.version += 1
        self.port.update_room(version=self.version, seats=[self.seats[s].row() for s in seats],
                              reply=self._answer_row())
        self._refresh_legal()
        self.broadcast(since)

    def deal(self) -> None:
        """Deal the next hand (its deck follows from the committed ``secrets`` seed and the seats' entropy,
        ``daer.engine.fairness``) and store it before anyone sees it."""
        pending = self.pending or PendingDeal.fresh(len(self.seats))  # a room from before verifiable deals
        st = new_hand(self.rules, deck=pending.deck(), dealer=self.dealer, hold=True)
        self.version += 1
        self.hand_id = self.port.start_hand(
            number=self.hands_played + 1, rules=self.config.rules,
            overrides=msgspec.json.encode(self.config.overrides).decode(), dealer=self.dealer,
            deck=msgspec.json.encode(st.deck).decode(), version=self.version,
            seats=[s.row() for s in self.seats],
            fairness=(pending.commitment, pending.seed, pending.entropy_json()), reply=self._answer_row(),
        )
        self.fair, self.pending, self.ready = pending.fairness(), None, set()
        log.info("hand started", extra=ctx("hand_started", room=self.code, hand=self.hands_played + 1,
                                           dealer=self.dealer, v=self.version))
        self._install(st, self.version)
        self.status = "playing"
        if st.over:  # an instant win (3垅 / 5坎) at the deal
            points, room = self._book(st)
            self.port.update_room(**room)
            self._finish_hand_row(points)
        self._refresh_legal()
        self.broadcast(None)
        self.schedule()

    def _finish_hand_row(self, points: str) -> None:
        assert self.hand_id is not None
        self.port.finish_hand(self.hand_id, points)

    def _install(self, st: GameState, start_version: int) -> None:
        self.state = st
        self.hand_start = start_version
        self.marks = [(start_version, len(st.log), None)]
        self.legal, self.epoch, self.deadlines = {}, {}, {}
        self.standin = set()
        self.bots = {s.seat: bot_for(self.config.bot, self.rules, f"{self.code}:{s.seat}") for s in self.seats}
        self.auto_bots = {s.seat: bot_for("heuristic", self.rules, f"{self.code}:auto{s.seat}") for s in self.seats}

    # -- the clock: bots, 托管, next hand (daer.server.clock) --------------------------------------
    def schedule(self) -> None:
        """Arrange the next thing the server itself does for this room."""
        clock.schedule(self)

    def _step(self) -> None:
        clock.step(self)
