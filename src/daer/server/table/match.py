"""A room's match (一场) as a plain state machine: seats, hands, scores, versions and who may do what.

:class:`Match` does no I/O — no sockets, no store, no event loop, no clock of its own (the time is an argument):
each command checks the sender's authority, asks the engine (``verify`` / ``apply`` / ``view``) and returns an
:class:`~daer.server.table.outcome.Outcome` — the answer, the rows to store, the updates to send, whether the clock
must look again.  :class:`daer.server.table.rooms.Room` performs it.  A refused command returns an error and changes
nothing; a malformed one (a seat out of range) raises :class:`~daer.server.safety.bounds.RoomError` or the engine's
:class:`~daer.engine.IllegalActionError`, also changing nothing.

Versions: ``version`` is the *public* version: it grows by one on every change the whole table sees (a seat, a
deal, a discard, the close of a claim window), never on a seat's private step (its claim choice, which only that
seat is told of, at the same version).  So neither the frames nor the versions another seat or a spectator
receives depend on who had an option or what they chose.  Each seat also has a *legal epoch*, the version at
which its options last changed, so an action made against any version since then is still good (another seat's
过 does not make yours stale).  The hand is a held-window ``GameState`` (``hold=True``): every card on offer
opens a claim window, closed by :meth:`Match.close_window` (the room's clock calls it once the window is due).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field
from typing import Any

import msgspec

from daer.engine import Action, GameState, IllegalActionError, new_hand
from daer.engine.events import seen_by
from daer.engine.fairness import Fairness, is_entropy
from daer.engine.match import DealerRule, next_dealer
from daer.engine.views import View
from daer.rules.model import Ruleset
from daer.server import protocol as p
from daer.server.safety.bounds import RoomConfig, RoomError, pace_factor
from daer.server.social import votes
from daer.server.social.networks import shared
from daer.server.social.votes import Vote
from daer.server.social.watching import WATCH_DELAY, Delayed
from daer.server.table.dealing import PendingDeal
from daer.server.table.hinting import Suggestions
from daer.server.table.hints import waits_hint
from daer.server.table.marks import own_steps, steps_since
from daer.server.table.outcome import ActionWrite, FinishWrite, HandWrite, Outcome, RoomWrite, Send
from daer.server.table.schedule import GATE_POLL, REFUSED, Schedule
from daer.server.table.seating import Seat
from daer.server.table.settling import work_of
from daer.server.table.together import Together
from daer.store import ActionRow

LIVE = ("waiting", "playing", "between")
"""Statuses of a room that is still in play."""
EXPIRED = "expired"
"""Status of a room closed by the expiry sweep (never restored; its hands' records stay downloadable)."""


@dataclass(slots=True)
class Match(Together):
    """The match of one room: everything the table decides, nothing it does."""

    code: str
    config: RoomConfig
    rules: Ruleset
    seats: list[Seat]
    scores: list[int]
    dealer: int = 0
    hands_played: int = 0
    status: str = "waiting"
    version: int = 0
    state: GameState | None = None
    hand_id: int | None = None
    """The store's id of the current (or last) hand: set by whoever performs its :class:`HandWrite`."""
    hand_start: int = 0
    derived: int = -1
    """The version a replay of the stored actions reaches (the last stored action's, or the deal's, and the claim
    windows closed since): while ``version`` is that, a window's close needs no write (:meth:`close_window`)."""
    marks: list[tuple[int, int, int | None]] = field(default_factory=list)
    """(version, length of the log, seat) after each step: public (seat None) or a seat's private one."""
    epoch: dict[int, int] = field(default_factory=dict)
    legal: dict[int, list[Action]] = field(default_factory=dict)
    deadlines: dict[int, float] = field(default_factory=dict)
    """Seat → when its turn timer runs out (the caller's clock)."""
    ready: set[int] = field(default_factory=set)
    pending: PendingDeal | None = None
    """The next hand's secret seed (its commitment is public) and the seats' entropy."""
    fair: Fairness | None = None
    """The current (or last) hand's commit–reveal data; revealed once the hand is over."""
    standin: set[int] = field(default_factory=set)
    """Seats whose claim-window timer ran out: the 托管 bot answers for them, without the public 托管 badge."""
    opened: float = 0.0
    """When the last public step (which may open a claim window) was made."""
    vote: Vote | None = None
    """The last vote to dissolve the room (open, refused or passed); stored as ``rooms.vote``."""
    proposed: dict[int, float] = field(default_factory=dict)
    """Seat → when it last proposed a vote (at most once every :data:`~daer.server.social.votes.PROPOSE_EVERY`)."""
    vote_seconds: float = votes.VOTE_SECONDS
    """The vote's countdown (a server option)."""
    watch_delay: int = WATCH_DELAY
    """Public steps spectators are shown behind the table (a server option; :mod:`daer.server.social.watching`)."""
    watch: Delayed = field(default_factory=Delayed, compare=False, repr=False)
    shown: int | None = None
    """The version of the last frame built for spectators (the next broadcast's ``since`` for them)."""
    networks: dict[int, str] = field(default_factory=dict, compare=False, repr=False)
    """Seat → the network its person last connected from (memory only; :mod:`daer.server.social.networks`)."""
    watchers: list[str] = field(default_factory=list)
    """The spectators connected now, by the names they gave ("" for none): the room keeps it up to date."""
    schedule: Schedule | None = field(default=None, compare=False, repr=False)
    """A tournament table's decks and gate (:mod:`daer.server.table.schedule`); None at any other table."""
    hints: dict[int, tuple[tuple[int, ...], object, tuple[tuple[int, int], ...]]] = field(
        default_factory=dict, compare=False, repr=False)
    """Each seat's last 叫牌 hint with the hand and melds it was found for (:meth:`waits_of`)."""
    suggest: Suggestions = field(default_factory=Suggestions, compare=False, repr=False)
    """提示 in a room with ``config.hint``: each seat's last suggestion (:mod:`daer.server.table.hinting`)."""

    # -- reading -------------------------------------------------------------------------------
    @property
    def host(self) -> int:
        """The host: the lowest seat held by a person (the creator while present)."""
        for s in self.seats:  # in seat order
            if s.kind == "human":
                return s.seat
        return 0

    def seat_of(self, holder: str) -> int | None:
        """The seat whose token hashes to ``holder``."""
        for s in self.seats:
            if s.token_hash is not None and hmac.compare_digest(s.token_hash, holder):
                return s.seat
        return None

    def info(self, seat: int | None, now: float) -> p.RoomInfo:
        """The room as ``seat`` sees it."""
        # a seat in 托管 has no clock to show (its bot plays), though its deadline is kept for when it is back
        dl = self.deadlines.get(seat) if seat is not None and not self.seats[seat].auto else None
        scores = self.scores
        status = self.status
        playing = status == "playing"
        state = self.state
        over = state is not None and state.over  # one look: a property of the engine's state
        pays: tuple[p.Payment, ...] = ()
        work = None
        if over:
            assert state is not None
            st = state.settlement
            if st is not None:
                pays = tuple(p.Payment(payer=x.payer, payee=x.payee, amount=x.amount, zh=x.zh, en=x.en)
                             for x in st.payments)
            work = work_of(self.rules, state)
        config = self.config
        return p.RoomInfo(
            code=self.code, status=status, rules=config.rules, overrides=config.overrides,
            hands=config.hands, hand_no=self.hands_played + (1 if playing else 0),
            timer=config.timer, bot=config.bot, host=self.host, pace=config.pace, hint=config.hint,
            seats=tuple([p.SeatInfo(seat=s.seat, kind=s.kind, name=s.name, online=s.online > 0, auto=s.auto,
                                    score=scores[s.seat]) for s in self.seats]),
            deadline=None if dl is None else max(0.0, round(dl - now, 1)),
            ready=tuple(sorted(self.ready)) if self.ready else (), payments=pays,
            money=self.rules.scoring.mode == "money",
            hand_id=self.hand_id if playing else None,
            last_hand_id=self.hand_id,
            commit=(self.fair.commitment if playing and self.fair is not None
                    else self.pending.commitment if self.pending is not None else None),
            reveal=self.fair if over and not self.sealed else None,
            work=work, vote=self.vote_info(now) if self.vote is not None else None, watchers=len(self.watchers),
            watching=tuple(sorted(n for n in self.watchers if n)) if self.watchers else (), watch=config.watch,
            near=shared({s: n for s, n in self.networks.items() if self.seats[s].kind == "human"})
            if status == "waiting" else (),
        )

    @property
    def sealed(self) -> bool:
        """A tournament table whose round runs: its seeds are not revealed yet."""
        return self.schedule is not None and self.schedule.private

    def may_deal(self) -> bool:
        """The next hand may be dealt (always, but at a tournament table waiting for the other tables)."""
        return self.schedule is None or self.schedule.gate(self.hands_played + 1)

    def update_for(self, seat: int | None, since: int | None, now: float, seen: int | None = None) -> p.Update:
        """What a connection of ``seat`` needs to catch up from version ``since`` (only that seat's view).

        ``seen``: how many of the seat's own private steps at version ``since`` it has (None: all of them).
        """
        st = self.state
        if st is None:
            return p.Update(v=self.version, since=since, full=True, events=(), view=None, room=self.info(seat, now))
        if seat is None:
            return self._watch_update(st, since, now)
        full = since is None or not self.hand_start <= since <= self.version
        start = 0
        if since is not None and not full:
            start, mine = steps_since(self.marks, since, seat)
            if mine and (seen is None or seen > 0):
                start = mine[-1] if seen is None else mine[min(seen, len(mine)) - 1]
        view = st.view(seat, log=False)
        own = own_steps(self.marks, self.version, seat) if seat is not None else 0
        tip = self.suggest.of(self.rules, view, (self.hand_start, len(st.log))) if self.config.hint else None
        return p.Update(v=self.version, since=None if full else since, full=full, events=seen_by(st.log[start:], seat),
                        view=view, room=self.info(seat, now), waits=self.waits_of(view), p=own,
                        hint=msgspec.UNSET if tip is None else tip)

    def waits_of(self, view: View) -> tuple[tuple[int, int], ...]:
        """叫牌 hint for a seat holding one card short of a complete hand (not while it must discard): remembered
        between updates (:mod:`daer.server.table.hints`), and the seat's last one kept here while its hand and melds
        stay the same (most updates report other seats' steps)."""
        seat = view.seat
        if seat is None:
            return waits_hint(self.rules, view)
        if view.phase == "over" or view.actor == seat:  # no hint (waits_hint says why): nothing to keep
            return waits_hint(self.rules, view)
        last = self.hints.get(seat)
        melds = view.melds[seat]
        if last is not None and last[0] == view.hand and last[1] == melds:
            return last[2]
        hint = waits_hint(self.rules, view)
        self.hints[seat] = (view.hand, melds, hint)
        return hint

    def movers(self) -> list[int]:
        """Seats the server plays for now: bots, seats in 托管, and seats whose claim timer ran out."""
        if self.status != "playing" or self.state is None:
            return []
        return [s for s in self.state.to_act()
                if self.seats[s].kind == "bot" or self.seats[s].auto or s in self.standin]

    def wake(self, now: float, bot_delay: float, claim_window: float) -> float | None:
        """Seconds until the server must act for this match (:meth:`due`, :meth:`run_out`, a bot's move), or
        None when it waits for the people: the timers to set, as data."""
        wait = self._wake(now, bot_delay, claim_window)
        v = self.vote
        if v is None or not v.open or self.status not in LIVE:
            return wait
        left = 0.0 if not v.asked(self.people()) else max(0.0, v.ends - now)
        return left if wait is None else min(wait, left)

    def _wake(self, now: float, bot_delay: float, claim_window: float) -> float | None:
        pace = pace_factor(self.config)  # the room's 节奏 stretches the bot delay and the claim window alike
        if self.status == "playing" and self.state is not None:
            if self.state.window_complete():  # held at least claim_window after it opened
                return max(0.0, claim_window * pace - (now - self.opened))
            acting = self.state.to_act()
            if any(self.seats[s].kind == "bot" or self.seats[s].auto or s in self.standin for s in acting):
                return bot_delay * pace
            dls = [self.deadlines[s] for s in acting if s in self.deadlines]
            return max(0.0, min(dls) - now) if dls else None
        if self.status == "between":
            if not self.may_deal():
                return GATE_POLL
            humans = {s.seat for s in self.seats if s.kind == "human" and not s.auto}
            if humans <= self.ready:
                return bot_delay * pace
            if self.config.timer > 0:
                return self.config.timer
        return None

    # -- seats ---------------------------------------------------------------------------------
    def join(self, name: str, holder: str, seat: int | None = None) -> tuple[int, Outcome]:
        """Seat a person (any empty seat, or the one asked for) holding the token that hashes to ``holder``."""
        if self.status not in LIVE:
            raise RoomError("closed", "房间已关闭", "the room is closed")
        free = [s for s in self.seats if s.kind == "empty" and (seat is None or s.seat == seat)]
        if not free:
            raise RoomError("full", "没有空座位", "no free seat")
        s = free[0]
        s.kind, s.name, s.token_hash, s.auto = "human", name[:24] or f"玩家{s.seat + 1}", holder, False
        self.version += 1
        return s.seat, Outcome(writes=[RoomWrite({"version": self.version}, [s.row()])], sends=[Send(None)])

    def retoken(self, seat: int, holder: str, new: str) -> Outcome:
        """Give a person's seat a new token (hash ``new``) — only while the token hashing to ``holder`` still
        holds it (a join repeated after its answer was lost: the first token stops working)."""
        if not 0 <= seat < len(self.seats) or self.status not in LIVE:
            raise RoomError("closed", "房间已关闭", "the room is closed")
        s = self.seats[seat]
        if s.kind != "human" or s.token_hash is None or not hmac.compare_digest(s.token_hash, holder):
            raise RoomError("rid_used", "这个请求编号已用过，座位已不在你手里，请用新的编号重新加入",
                            "this request id was used and its seat changed hands since; join with a new id")
        s.token_hash = new
        since = self.version
        self.version += 1
        return Outcome(writes=[RoomWrite({"version": self.version}, [s.row()])], sends=[Send(since)])

    # -- actions -------------------------------------------------------------------------------
    def act(self, seat: int, msg: p.Act, now: float) -> Outcome:
        """A player's action made against version ``msg.v``: accepted, or an error that changes nothing."""
        if self.status != "playing" or self.state is None:
            return _no(p.error("no_hand", "现在没有在打的牌", "no hand is being played", id=msg.id, v=self.version))
        if msg.action.seat != seat:
            return _no(p.error("not_your_seat", "不能替别人出牌", "you may act only for your own seat",
                               id=msg.id, v=self.version))
        if msg.v > self.version or msg.v < self.epoch.get(seat, 0):
            return _no(p.error("stale", "局面已经变了，请按新局面再选", "stale version: the state has changed, resync",
                               id=msg.id, v=self.version))
        try:
            self.state.verify(msg.action)
        except IllegalActionError as exc:
            return Outcome(reply=p.error("illegal", exc.zh, exc.en, id=msg.id, v=self.version))
        return self._commit(msg.action, seat, msg.id, now, resume=True)

    def play(self, seat: int, action: Action, now: float) -> Outcome:
        """The server's move for a seat (its bot, 托管 or stand-in); raises ``IllegalActionError`` (nothing
        changed) unless it is legal now."""
        if self.status != "playing" or self.state is None:
            raise RoomError("no_hand", "现在没有在打的牌", "no hand is being played")
        if action.seat != seat:
            raise RoomError("not_your_seat", "不能替别人出牌", "a move only for its own seat")
        return self._commit(action, seat, None, now)  # the engine's apply checks it before changing anything

    def _commit(self, action: Action, seat: int, client_id: str | None, now: float, *, resume: bool = False) -> Outcome:
        st = self.state
        assert st is not None
        since = self.version
        private = st.phase == "claim"  # a claim choice: only its seat hears of it (held windows never resolve here)
        st.apply(action)
        self.standin.discard(seat)
        if not private:
            self.version += 1
        self.watch.record(self.version, action)
        self.derived = self.version
        changed = []
        if resume and not private and self.seats[seat].auto:  # a private choice changes no public badge
            self.seats[seat].auto = False
            changed.append(self.seats[seat].row())
        room: dict[str, Any] = {}
        points = None
        out = Outcome(reply=None if client_id is None else p.Ack(id=client_id, v=self.version), action=seat)
        if st.over:
            points, room = self._book(st)
            out.ended = True
        out.writes.append(ActionWrite(ActionRow(len(st.actions) - 1, self.version, seat, client_id,
                                                msgspec.json.encode(action).decode()), room, points, changed))
        if private:
            before = own_steps(self.marks, self.version, seat)
            self.marks.append((self.version, len(st.log), seat))
            self._refresh_legal(now)
            out.sends.append(Send(since, only=seat, seen=before))
        else:
            self.opened = now
            self.marks.append((self.version, len(st.log), None))
            self._refresh_legal(now)
            out.sends.append(Send(since))
        out.timers = True
        return out

    def close_window(self, now: float) -> Outcome:
        """Close a complete claim window: a public step (the claim, or the card to the discards, and what follows).
        Nothing is stored unless it ended the hand, or another public step (a seat's change) came since the last
        stored action: replaying the stored actions closes the window again at the same version (:meth:`replay`),
        so the room's stored version may lag the public one by such closes, and the next stored write moves it on
        from where it was stored (its fence compares the stored one).  After a seat's change the replay could not
        tell which closes came before it, so they are stored as before."""
        st = self.state
        if st is None or not st.window_complete():
            raise RoomError("no_window", "没有可以结束的叫牌窗口", "no complete claim window to close")
        since = self.version
        st.close_window()
        derived = self.version == self.derived
        self.version += 1
        self.watch.record(self.version, None)
        out = Outcome(timers=True)
        if st.over:  # a 胡 on the card: book the hand (the 胡 itself is stored already)
            points, room = self._book(st)
            out.writes += [RoomWrite({"version": self.version, **room}), FinishWrite(points)]
            out.ended = True
        elif derived:
            self.derived = self.version
        else:
            out.writes.append(RoomWrite({"version": self.version}))
        self.opened = now
        self.marks.append((self.version, len(st.log), None))
        self._refresh_legal(now)
        out.sends.append(Send(since))
        return out

    def _book(self, st: GameState) -> tuple[str, dict[str, Any]]:
        """Book a finished hand into the match: scores, next dealer, status; (its points, the room fields)."""
        assert st.result is not None
        for s, pts in enumerate(st.result.points):
            self.scores[s] += pts
        self.hands_played += 1
        self.dealer = next_dealer(DealerRule(self.config.dealer_rule), self.dealer, st.result.winner,
                                  self.rules.table.seats)
        self.status = "finished" if self.hands_played >= self.config.hands else "between"
        self.ready = set()
        self.deadlines = {}
        fresh = PendingDeal.fresh(len(self.seats)) if self.schedule is None else self.schedule.pending(
            self.hands_played + 1, len(self.seats))
        self.pending = fresh if self.status == "between" else None
        return msgspec.json.encode(st.result.points).decode(), {
            "scores": msgspec.json.encode(self.scores).decode(), "dealer": self.dealer,
            "hands_played": self.hands_played, "status": self.status, "ready": "[]",
            "deal_seed": self.pending.seed if self.pending is not None else None, "deal_entropy": None,
        }

    def _refresh_legal(self, now: float) -> None:
        """Legal epochs and turn deadlines after a change."""
        st = self.state
        for s in range(len(self.seats)):
            legal = st.legal_actions(s) if st is not None else []
            if legal != self.legal.get(s, []):
                self.epoch[s] = self.version
                self.legal[s] = legal
                self.deadlines.pop(s, None)
                if legal and self.config.timer > 0 and self.seats[s].kind == "human":
                    self.deadlines[s] = now + self.config.timer

    # -- commands ------------------------------------------------------------------------------
    def command(self, seat: int, msg: p.Command, now: float) -> Outcome:
        """start / next / resume / leave / dissolve / entropy from ``seat``: the outcome's reply is the answer."""
        if not 0 <= seat < len(self.seats):
            raise RoomError("not_seated", "没有这个座位", "no such seat")
        if msg.entropy is not None and not is_entropy(msg.entropy):
            return Outcome(reply=p.error("bad_entropy", "随机数须是 1 到 64 位小写十六进制",
                                         "entropy must be 1-64 lowercase hex digits", id=msg.id, v=self.version))
        if self.status not in LIVE:  # finished, dissolved or expired: nothing changes, nothing is stored
            return Outcome(reply=p.Ack(id=msg.id, v=self.version), keep="memory")
        out = self._command(seat, msg, now)
        if out.reply is None:
            out.reply = p.Ack(id=msg.id, v=self.version)
        return out

    def _command(self, seat: int, msg: p.Command, now: float) -> Outcome:
        name = msg.name
        if self.schedule is not None and name in REFUSED:
            return Outcome(reply=p.error("tourney_table", "比赛桌不能这样做", "not at a tournament table",
                                         id=msg.id, v=self.version))
        if name == "entropy":
            fields = self._entropy(seat, msg)
            return self._bump_room(**fields) if fields else Outcome()
        if name == "start":
            if self.status == "playing" and self.hands_played == 0:
                return Outcome()
            if seat != self.host:
                return Outcome(reply=p.error("not_host", "只有房主可以开始", "only the host can start",
                                             id=msg.id, v=self.version))
            if self.status != "waiting":
                return Outcome(reply=p.error("started", "已经开始了", "already started", id=msg.id, v=self.version))
            if not self.config.fill and any(s.kind == "empty" for s in self.seats):
                return Outcome(reply=p.error("not_full", "这桌不用机器人补位：等人坐满再开始",
                                             "this table has no bots: start once every seat is taken",
                                             id=msg.id, v=self.version))
            for s in self.seats:
                if s.kind == "empty":
                    s.kind, s.name = "bot", f"机器人{s.seat + 1}"
            self._entropy(seat, msg)
            return self.deal(now)
        if name == "next":
            fields = self._entropy(seat, msg)
            if self.status == "between" and seat not in self.ready:
                self.ready.add(seat)
                fields["ready"] = msgspec.json.encode(sorted(self.ready)).decode()
            if not fields:
                return Outcome()
            out = self._bump_room(**fields)
            out.timers = True
            return out
        if name == "resume":
            if not self.seats[seat].auto:
                return Outcome()
            self.seats[seat].auto = False
            return self._bump_seats([seat], now)
        if name == "leave":
            s = self.seats[seat]
            s.token_hash = None
            self.networks.pop(seat, None)
            if self.status == "waiting":
                s.kind, s.name = "empty", ""
            else:
                s.kind, s.auto = "bot", False
                s.name = f"机器人{seat + 1}"
            out = self._bump_seats([seat], now)
            out.timers = True
            return out
        if name == "dissolve":
            if self.status != "waiting":  # the match has started: the table votes
                return self._propose(seat, msg, now)
            if seat != self.host:
                return Outcome(reply=p.error("not_host", "开局前只有房主可以解散房间",
                                             "before the first deal only the host can dissolve the room",
                                             id=msg.id, v=self.version))
            self.status = "dissolved"
            self.version += 1
            return Outcome(writes=[RoomWrite({"status": self.status, "version": self.version})],
                           closed=("房主解散了房间", "the host dissolved the room"))
        if name in ("agree", "refuse"):
            return self._answer(seat, msg, now, agree=name == "agree")
        if name in ("watch", "nowatch"):
            return self._set_watch(seat, msg, allow=name == "watch")
        raise RoomError("bad_command", "没有这个命令", f"unknown command; one of {p.COMMANDS}")

    def _entropy(self, seat: int, msg: p.Command) -> dict[str, Any]:
        """Add a seat's entropy to the next deal; the room fields to store (none if nothing changed)."""
        if msg.entropy is None or self.pending is None or self.status not in ("waiting", "between") or self.schedule:
            return {}
        return {"deal_entropy": self.pending.entropy_json()} if self.pending.add(seat, msg.entropy) else {}

    def _bump_room(self, **fields: Any) -> Outcome:
        """A change of room fields at a new version."""
        since = self.version
        self.version += 1
        return Outcome(writes=[RoomWrite({"version": self.version, **fields})], sends=[Send(since)])

    def _bump_seats(self, seats: list[int], now: float) -> Outcome:
        since = self.version
        self.version += 1
        self._refresh_legal(now)
        return Outcome(writes=[RoomWrite({"version": self.version}, [self.seats[s].row() for s in seats])],
                       sends=[Send(since)])

    # -- the server's own steps (the room's clock asks for them when :meth:`wake` says) ---------
    def deal(self, now: float) -> Outcome:
        """Deal the next hand (its deck follows from the committed ``secrets`` seed and the seats' entropy,
        ``daer.engine.fairness``); stored before anyone sees it."""
        if self.status not in ("waiting", "between"):
            raise RoomError("started", "现在不能发牌", "no hand to deal now")
        pending = self.pending or PendingDeal.fresh(len(self.seats))  # a room from before verifiable deals
        st = new_hand(self.rules, deck=pending.deck(), dealer=self.dealer, hold=True)
        self.version += 1
        out = Outcome(dealt=True, timers=True, writes=[HandWrite(
            number=self.hands_played + 1, rules=self.config.rules,
            overrides=msgspec.json.encode(self.config.overrides).decode(), dealer=self.dealer,
            deck=msgspec.json.encode(st.deck).decode(), version=self.version, seats=[s.row() for s in self.seats],
            fairness=(pending.commitment, pending.seed, pending.entropy_json()))])
        self.fair, self.pending, self.ready = pending.fairness(), None, set()
        self.install(st, self.version)
        self.status = "playing"
        if st.over:  # an instant win (3垅 / 5坎) at the deal
            points, room = self._book(st)
            out.writes += [RoomWrite(room), FinishWrite(points)]
            out.ended = True
        self._refresh_legal(now)
        out.sends.append(Send(None))
        return out

    def install(self, st: GameState, start_version: int) -> None:
        """Make ``st`` the current hand, dealt at ``start_version``."""
        self.state = st
        self.hand_start = start_version
        self.derived = start_version
        self.marks = [(start_version, len(st.log), None)]
        self.watch.reset(st)
        self.legal, self.epoch, self.deadlines = {}, {}, {}
        self.standin = set()

    def due(self, now: float) -> Outcome | None:
        """The step the server owes the match now, if any: the next deal (between hands) or the close of a
        complete claim window; a vote whose countdown ran out (silence agrees) or that has nobody left to ask."""
        v = self.vote
        if v is not None and v.open and self.status in LIVE and (now >= v.ends or not v.asked(self.people())):
            return self._dissolved()
        if self.status == "between" and self.may_deal():
            return self.deal(now)
        if self.status == "playing" and self.state is not None and self.state.window_complete():
            return self.close_window(now)
        return None

    def run_out(self, now: float) -> Outcome:
        """Turn timers that ran out: in a claim window the 托管 bot answers for the seat this once, quietly (the
        托管 badge is public: showing it now would tell the table that this seat had an option); otherwise the
        seat goes into 托管."""
        st = self.state
        if self.status != "playing" or st is None or not self.deadlines:
            return Outcome()
        expired = [s for s in st.to_act() if s in self.deadlines and self.deadlines[s] <= now]
        if not expired:
            return Outcome()
        for s in expired:
            del self.deadlines[s]
        if st.phase == "claim":
            self.standin.update(expired)
            return Outcome()
        for s in expired:
            self.seats[s].auto = True
        return self._bump_seats(expired, now)

    def expire(self) -> Outcome:
        """The expiry sweep closes the room (never restored)."""
        self.status = EXPIRED
        self.version += 1
        return Outcome(writes=[RoomWrite({"status": EXPIRED, "version": self.version})],
                       closed=("房间太久没有动静，已关闭", "the room was idle too long and has closed"))

    # -- restore -------------------------------------------------------------------------------
    def replay(self, st: GameState, start_version: int, actions: list[tuple[int, int, Action]], *,
               finished: bool, now: float) -> Outcome:
        """Rebuild the current hand from its record: ``st`` as dealt, then the stored (version, seat, action)s,
        with the claim windows closed between them; what must be stored before anyone sees the room (a hand
        over but not booked, windows closed here)."""
        self.install(st, start_version)
        for version, seat, action in actions:
            # the windows closed before this action (not stored: each was a public step just before it)
            closed = []
            while st.window_complete():
                st.close_window()
                closed.append(len(st.log))
            public = st.phase != "claim"
            top = version - 1 if public else version
            self.marks += [(top - len(closed) + 1 + i, n, None) for i, n in enumerate(closed)]
            for i in range(len(closed)):
                self.watch.record(top - len(closed) + 1 + i, None)
            st.apply(action)
            self.watch.record(version, action)
            self.marks.append((version, len(st.log), None if public else seat))
        last = max((v for v, _, _ in self.marks), default=start_version)
        # a dissolved or expired room's hand stays as it was stopped; a hand that ended (between hands, or the
        # match finished) had its windows closed up to its end, as one still playing has them closed now
        live = self.status not in ("dissolved", EXPIRED)
        while live and st.window_complete():  # closed before the restart, or due: a restart does not wait for it
            st.close_window()
            last += 1
            self.watch.record(last, None)
            self.marks.append((last, len(st.log), None))
        stored = self.version
        self.version = max(self.version, last)
        self.derived = last  # a seat's change since the last action (stored version past it): closes are stored
        out = Outcome()
        if live and st.over and not finished:  # stopped between storing the last action and booking it
            points, fields = self._book(st)
            out.writes += [RoomWrite({"version": self.version, **fields}), FinishWrite(points)]
            out.ended = True
        elif self.version > stored:  # windows closed here: store the version before anyone sees it
            out.writes.append(RoomWrite({"version": self.version}))
        self._refresh_legal(now)
        return out


def _no(reply: p.Error) -> Outcome:
    """A refusal the client may retry with the same id (not kept)."""
    return Outcome(reply=reply, keep="none")

__all__ = ["EXPIRED", "LIVE", "Match"]
