"""One hand of 大贰, step by step (一局): deal, discards, reveals, claims, win or 黄牌.

:class:`GameState` owns the mutable state.  :meth:`GameState.legal_actions`
and :meth:`GameState.apply` share one checker (:meth:`GameState.verify`): an
action is legal exactly when it is among the generated options, and an illegal
one raises a subclass of :class:`~daer.engine.errors.IllegalActionError`
without changing anything.

Choices made where the rule texts are silent are listed in ``docs/engine.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

from daer.cards import COPIES, N_CARDS, N_KINDS, is_red, kind_of
from daer.engine import wei
from daer.engine.actions import Action, Bao, Chi, Discard, Hu, Pass, Peng, Zhao
from daer.engine.claims import PARTNERS, chi_options, may_fit, orphans, resolve
from daer.engine.errors import AlreadyChoseError, HandOverError, NotAllowedError, NotYourTurnError
from daer.engine.events import (
    ChoiceMade,
    Claimed,
    Dealt,
    Declared,
    Discarded,
    Event,
    HandEnded,
    LongDeclared,
    NotTaken,
    Revealed,
    seen_by,
)
from daer.engine.handstate import Instant
from daer.engine.instant import instant_seats, offer_instant, resolve_instant
from daer.engine.penalty import huang_penalties, note_unmade
from daer.engine.views import Offer, Phase, Result, ShownOffer, TableMeld, TableSeen, View
from daer.hands import Arrival, Meld, MeldKind, WinShape, iter_arrangements, waits, win_shapes
from daer.hands.evaluate import evaluator_for
from daer.mingtang import best_win
from daer.rules.model import Ruleset
from daer.scoring import Settlement, WinFlags, seats_of, settle_draw


def _kinds(ids: Sequence[int], *, order: bool = False) -> tuple[int, ...]:
    """Kinds of card ids, sorted (``order``: in the given order)."""
    kinds = [kind_of(c) for c in ids]
    return tuple(kinds if order else sorted(kinds))


class GameState:
    """A hand in play.  Build it with :func:`new_hand` (seeded) or directly from a deck."""

    def __init__(self, rules: Ruleset, deck: Sequence[int], *, dealer: int = 0, wind: int | None = None,
                 hold: bool = False) -> None:
        if sorted(deck) != list(range(N_CARDS)):
            raise ValueError("牌堆必须是 0-79 各一张 (the deck must hold each card id 0-79 once)")
        self.rules = rules
        self.deck = tuple(deck)
        self.dealer = dealer
        self.wind = wind
        """圈风 card of this hand (隆昌/古蔺), or None."""
        self.hold = hold
        """Hold every claim window open until :meth:`close_window` (the online table): a window opens on
        every card on offer, even when nobody may claim it, so no step shows who had an option."""
        players, dijia = seats_of(rules, dealer)
        self.players: tuple[int, ...] = tuple(players)
        self.dijia = dijia
        n = rules.table.seats
        self._next = {s: self.players[(i + 1) % len(self.players)] for i, s in enumerate(self.players)}
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.counts: list[list[int]] = [[0] * N_KINDS for _ in range(n)]
        self.melds: list[list[TableMeld]] = [[] for _ in range(n)]
        self._meld_objs: list[tuple[Meld, ...]] = [() for _ in range(n)]
        self.quads = [0] * n
        self.skips = [0] * n
        """八块 discards already skipped."""
        self.guo: list[set[int]] = [set() for _ in range(n)]
        self.unmade: list[set[str]] = [set() for _ in range(n)]
        """Claims each seat passed up (peng / zhao), paid as 包牌 on 黄 (see :mod:`daer.engine.penalty`)."""
        self.passed_peng: list[set[int]] = [set() for _ in range(n)]
        """Kinds each seat passed up for 碰 (臭偎, ``play.chou_wei``)."""
        self.forced: str | None = None
        """A forced 偎/提 (``engine.wei``) waiting on the revealer's 胡 or 过."""
        self.bao = [False] * n
        """Seats that declared ready (报牌, ``play.bao``)."""
        self.long_due = [False] * n
        """Seats whose dealt 垅 are still to be declared (after their first card comes in)."""
        self.discards: list[tuple[int, int]] = []
        self.log: list[Event] = []
        self.actions: list[Action] = []
        self.phase: Phase = "discard"
        self.actor: int | None = dealer
        self.offer: Offer | None = None
        self.options: dict[int, list[Action]] = {}
        self.choices: dict[int, Action] = {}
        self.result: Result | None = None
        self.settlement: Settlement | None = None
        self.first_discard = True
        """The dealer's first discard is still to come (天胡 / 地胡)."""
        self._dihu_offer = False
        """The card on offer is the dealer's first discard (地胡)."""
        self._other_discarded = False
        self._huilong_offer = False
        """The card on offer is the first discard of a player other than the dealer (回龙地胡)."""
        self.instants: dict[int, Instant] = {}
        """Instant wins (3垅/5坎) still to be taken or declined at the deal (see :mod:`daer.engine.instant`)."""
        self._ev = evaluator_for(rules)
        self._hu_memo: list[dict[tuple[int | None, Arrival | None], int | None]] = [{} for _ in range(n)]
        self._orphans: list[list[int] | None] = [None] * n
        """Cards of each seat's hand that fit no 列 (see :func:`~daer.engine.claims.orphans`), when known."""
        """胡 per winning kind of each seat's current hand; cleared whenever that hand or its melds change."""
        self._seen = TableSeen()
        """The table's public parts as the last views showed them (:class:`~daer.engine.views.TableSeen`)."""
        self._deal()

    # -- the deal ---------------------------------------------------------------------------
    def _deal(self) -> None:
        t = self.rules.table
        pos = 0
        for seat in self.players:
            take = t.dealer_cards if seat == self.dealer else t.other_cards
            for cid in self.deck[pos : pos + take]:
                self._give(seat, cid)
            pos += take
        self.stock = list(self.deck[pos:])
        self.bottom: int | None = None
        dead = min(t.dead_cards, len(self.stock))
        self.dead: tuple[int, ...] = tuple(self.stock[len(self.stock) - dead:])
        """Face-up bottom cards out of play (``table.dead_cards``, 隆昌); the stock ends above them."""
        del self.stock[len(self.stock) - dead:]
        moved = 0
        if self.dead:
            self.bottom = self.dead[-1]
        elif t.show_bottom_card and self.stock:
            if t.swap_red_bottom:
                while moved < len(self.stock) - 1 and is_red(kind_of(self.stock[-1])):
                    self.stock.insert(0, self.stock.pop())
                    moved += 1
            self.bottom = self.stock[-1]
        self.log.append(Dealt(dealer=self.dealer, dijia=self.dijia,
                              bottom=None if self.bottom is None else kind_of(self.bottom), red_moved=moved,
                              bottoms=_kinds(self.bottoms, order=True)))
        for seat in self.players:
            self.long_due[seat] = any(c == COPIES for c in self.counts[seat])
        wins = instant_seats(self)
        if wins or (self.hold and self.rules.win.instant_optional):  # held: a window whether or not anyone has one
            offer_instant(self, wins)
            return
        self.start_play()

    def start_play(self) -> None:
        """After the deal (and any declined instant win): the dealer's 垅, then his discard."""
        self._declare_longs(self.dealer)
        self._after_claim_or_deal(self.dealer)

    def _give(self, seat: int, cid: int) -> None:
        self.hands[seat].append(cid)
        self.counts[seat][kind_of(cid)] += 1
        self._hu_memo[seat].clear()
        self._orphans[seat] = None

    def _take_kind(self, seat: int, kind: int) -> int:
        """Remove and return the lowest card id of ``kind`` from a concealed hand."""
        hand = self.hands[seat]
        lo = kind * COPIES  # the ids of a kind: kind_of(c) == c // COPIES
        cid = min([c for c in hand if lo <= c < lo + COPIES])
        hand.remove(cid)
        self.counts[seat][kind] -= 1
        self._hu_memo[seat].clear()
        self._orphans[seat] = None
        return cid

    def _add_meld(self, seat: int, kind: MeldKind, ids: tuple[int, ...]) -> None:
        kinds = tuple(sorted(kind_of(c) for c in ids))
        self.melds[seat].append(TableMeld(kind=kind.value, kinds=kinds, ids=tuple(sorted(ids))))
        self._meld_objs[seat] = (*self._meld_objs[seat], Meld(kind, kinds))
        if kind in (MeldKind.ZHAO, MeldKind.LONG):
            self.quads[seat] += 1

    def _declare_longs(self, seat: int) -> None:
        """垅: lay every dealt four of a kind on the table (forced)."""
        for k in range(N_KINDS):
            if self.counts[seat][k] == COPIES:
                ids = tuple(self._take_kind(seat, k) for _ in range(COPIES))
                self._add_meld(seat, MeldKind.LONG, ids)
                self.log.append(LongDeclared(seat=seat, kind=k))
        self.long_due[seat] = False

    # -- flow ---------------------------------------------------------------------------------
    def _skip_due(self, seat: int) -> bool:
        """八块: the seat has more quads than discards skipped so far (beyond the first quad)."""
        return self.rules.play.ba_kuai and self.skips[seat] < self.quads[seat] - 1

    def _after_claim_or_deal(self, seat: int) -> None:
        """A card came in for ``seat`` (or the dealer starts): discard, or under 八块 pass the turn on."""
        if self._skip_due(seat) or not self.hands[seat]:
            if self._skip_due(seat):
                self.skips[seat] += 1
            if seat == self.dealer and self.first_discard:
                self.first_discard = False
            self._reveal(self._next[seat])
            return
        self.phase = "discard"
        self.actor = seat
        self.offer = None

    def _reveal(self, seat: int) -> None:
        if not self.stock:
            pen = huang_penalties(self)
            self.finish(Result(winner=None, how="huang", hu=0, penalties=pen),
                        settle_draw(self.rules, dealer=self.dealer, penalties=pen))
            return
        cid = self.stock.pop(0)
        down = wei.face_down(self, seat, cid)
        self.log.append(Revealed(seat=seat, kind=kind_of(cid), left=len(self.stock), down=down))
        if self.long_due[seat]:
            self._declare_longs(seat)
        if not wei.on_reveal(self, seat, cid):
            self._offer(Offer(card=cid, kind=kind_of(cid), source="reveal", owner=seat))

    def _offer(self, offer: Offer) -> None:
        self.offer = offer
        self.actor = None
        self.choices = {}
        self.options = {}
        for seat in self._order(offer):
            opts = self._claim_options(seat, offer)
            if opts:
                self.options[seat] = [*opts, Pass(seat=seat)] if self._may_pass(opts) else opts
        if self.options or self.hold:
            self.phase = "claim"
        else:
            self._not_taken(offer, ())

    def _may_pass(self, opts: list[Action]) -> bool:
        p = self.rules.play
        if p.zhao_mandatory and any(isinstance(a, Zhao) for a in opts):
            return False  # 有招必招 (a 胡 is still offered)
        return not (p.peng_mandatory and any(isinstance(a, Peng) for a in opts))

    def _order(self, offer: Offer) -> list[int]:
        """Seats in claim-priority order: the revealer first (自摸优先), then downstream (上家优先)."""
        out = [offer.owner] if offer.source == "reveal" else []
        s = self._next[offer.owner]
        while s != offer.owner:
            out.append(s)
            s = self._next[s]
        return out

    def _not_taken(self, offer: Offer, guo: tuple[tuple[int, int], ...]) -> None:
        self.discards.append((offer.owner, offer.card))
        self.log.append(NotTaken(kind=offer.kind, guo=guo))
        self.offer = None
        self._reveal(self._next[offer.owner])

    # -- options ------------------------------------------------------------------------------
    def can_hu(self, seat: int, kind: int | None, arrival: Arrival | None = None) -> int | None:
        """胡 of ``seat`` winning on ``kind`` (None: the dealt hand as it is), or None if it cannot win.

        ``arrival`` (``self``, ``other``, ``discard``): how the card comes, so that it is scored as what
        the rules force it to become (偎胡, 提胡, 跑胡: :func:`~daer.hands.forced.win_shapes`).
        """
        memo = self._hu_memo[seat]
        key = (kind, arrival)
        if key in memo:
            return memo[key]
        lone = self._orphans[seat]
        if lone is None:
            lone = self._orphans[seat] = orphans(self.counts[seat])
        result: int | None = None
        for shape in win_shapes(self.rules, tuple(self.counts[seat]), self._meld_objs[seat], kind, arrival):
            hu = self._shape_hu(shape, lone)
            if hu is not None and (result is None or hu > result):
                result = hu
        memo[key] = result
        return result

    def _shape_hu(self, shape: WinShape, lone: list[int]) -> int | None:
        """胡 of one shape of a win (see :meth:`can_hu`), or None if it cannot win."""
        k = shape.win
        if shape.how:  # the card lies in a meld: the hand must be complete by itself
            fits = not lone
        else:
            fits = k is None or (len(lone) <= 2 and all(o in PARTNERS[k] for o in lone) and may_fit(shape.hand, k))
        if not fits:
            return None
        best = self._ev.best(shape.hand, shape.melds, k)
        if best is None:
            return None
        hu = best[0]
        lan = self.rules.win.lan_hu
        if lan and hu < self.rules.win.min_hu and (hu == 0 or self._lan_possible(shape)):
            hu = lan
        return hu if hu >= self.rules.win.min_hu else None

    def _lan_possible(self, shape: WinShape) -> bool:
        """烂和: some arrangement of the hand has no 列 with 胡 (the best one has a few)."""
        arrs = iter_arrangements(self.rules, shape.hand, shape.melds, shape.win)
        return any(not sum(g.hu for g in a) for a in arrs)

    @staticmethod
    def arrival_of(seat: int, offer: Offer) -> Arrival:
        """How the card on offer comes to ``seat``: its own reveal, another's reveal, or a discard."""
        if offer.source == "reveal":
            return "self" if seat == offer.owner else "other"
        return "discard"

    def _claim_options(self, seat: int, offer: Offer) -> list[Action]:
        k = offer.kind
        c = self.counts[seat]
        own = offer.source == "reveal" and seat == offer.owner
        p = self.rules.play
        out: list[Action] = []
        if (offer.source == "reveal" or self.rules.win.on_discard) and \
                self.can_hu(seat, k, self.arrival_of(seat, offer)) is not None:
            out.append(Hu(seat=seat))
        if self.bao[seat]:
            return out  # 报牌: the hand is locked, only 胡 (or 过)
        size = len(self.hands[seat])
        quads_after = self.quads[seat] + 1
        skip_after = p.ba_kuai and self.skips[seat] < quads_after - 1
        if c[k] == 3 and (not own or p.zhao_on_own_draw) and (skip_after or size - 3 >= 1):
            out.append(Zhao(seat=seat))
        elif c[k] < 3 and (skip_after or size >= 1) and wei.pao_meld(self, seat, offer) is not None:
            out.append(Zhao(seat=seat))  # 跑 onto a 偎 or 碰
        need = 0 if self._skip_due(seat) else 1
        blocked = p.guo_zhang and k in self.guo[seat]
        if c[k] == 2 and not blocked and size - 2 >= need:
            out.append(Peng(seat=seat))
        may_chi = own or (seat == self._next[offer.owner] and (offer.source == "discard" or p.chi_next_reveal))
        forced = (p.peng_mandatory and any(isinstance(a, Peng) for a in out)) or (
            p.zhao_mandatory and any(isinstance(a, Zhao) for a in out))
        if p.chi and may_chi and not blocked and not forced:  # 有碰必碰/有招必招: no 吃 instead
            out.extend(chi_options(seat, c, k, bi_pai=p.bi_pai, need_left=need, bi_jiao=p.bi_jiao))
        return out

    def _discard_options(self, seat: int) -> list[Action]:
        c = self.counts[seat]
        kinds = [k for k in range(N_KINDS) if 0 < c[k] < 3]
        if not kinds:  # only 坎 left: a 坎 must then be broken
            kinds = [k for k in range(N_KINDS) if c[k]]
        out: list[Action] = []
        if seat == self.dealer and self.first_discard and self.can_hu(seat, None) is not None:
            out.append(Hu(seat=seat))
        out.extend(Discard(seat=seat, kind=k) for k in kinds)
        if self.rules.play.bao and not self.bao[seat]:
            out.extend(Bao(seat=seat, kind=k) for k in kinds if self._ready_after(seat, k))
        return out

    def _ready_after(self, seat: int, kind: int) -> bool:
        """The hand would wait (叫牌) for a card that wins after discarding ``kind`` (报牌 allowed)."""
        c = list(self.counts[seat])
        c[kind] -= 1
        lan = self.rules.win.lan_hu
        return any(w.hu >= self.rules.win.min_hu or (lan and w.hu == 0)
                   for w in waits(self.rules, tuple(c), self._meld_objs[seat]))

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now (empty when it has nothing to decide)."""
        if self.phase == "discard":
            return self._discard_options(seat) if seat == self.actor else []
        if self.phase == "claim" and seat not in self.choices:
            return list(self.options.get(seat, ()))
        return []

    def to_act(self) -> list[int]:
        """Seats that have something to decide now."""
        if self.phase == "discard" and self.actor is not None:
            return [self.actor]
        if self.phase == "claim":
            return [s for s in self.options if s not in self.choices]
        return []

    # -- verify / apply ---------------------------------------------------------------------
    def verify(self, action: Action) -> None:
        """Raise an :class:`~daer.engine.errors.IllegalActionError` unless ``action`` is legal now."""
        seat = action.seat
        if self.phase == "over":
            raise HandOverError("这一局已经结束", "the hand is over")
        if self.phase == "claim" and seat in self.choices:
            raise AlreadyChoseError(f"{seat}号位已经选择过了", f"seat {seat} has already chosen")
        legal = self.legal_actions(seat) if 0 <= seat < len(self.hands) else []
        if not legal:
            raise NotYourTurnError(f"现在不该{seat}号位行动", f"seat {seat} may not act now")
        if action not in legal:
            raise NotAllowedError(f"不能这样做：{action!r}", f"not a legal action now: {action!r}")

    def apply(self, action: Action) -> Event:
        """Check and apply ``action``; returns its event (the log holds every event that followed)."""
        self.verify(action)
        self.actions.append(action)
        if self.phase == "discard":
            return self._apply_discard(action)
        self.choices[action.seat] = action
        event = ChoiceMade(seat=action.seat)
        self.log.append(event)
        if len(self.choices) == len(self.options) and not self.hold:
            self._resolve()
        return event

    def window_complete(self) -> bool:
        """A held claim window (``hold``) that every asked seat has answered: :meth:`close_window` may run."""
        return self.hold and self.phase == "claim" and len(self.choices) == len(self.options)

    def close_window(self) -> None:
        """Resolve a complete held claim window (the claims, or the card goes to the discards)."""
        if not self.window_complete():
            raise NotAllowedError("还有人没有选择", "the claim window is not complete")
        self._resolve()

    def _apply_discard(self, action: Action) -> Event:
        seat = action.seat
        if isinstance(action, Hu):
            self._win(seat, None, WinFlags(tianhu=True, self_drawn=self.rules.win.tianhu_self_drawn))
            assert isinstance(self.log[-1], HandEnded)
            return self.log[-1]
        assert isinstance(action, Discard | Bao)
        if isinstance(action, Bao):
            self.bao[seat] = True
            self.log.append(Declared(seat=seat))
        cid = self._take_kind(seat, action.kind)
        event = Discarded(seat=seat, kind=action.kind)
        self.log.append(event)
        dealer_first = seat == self.dealer and self.first_discard
        self.first_discard = False
        self._dihu_offer = dealer_first
        self._huilong_offer = seat != self.dealer and not self._other_discarded
        if seat != self.dealer:
            self._other_discarded = True
        self._offer(Offer(card=cid, kind=action.kind, source="discard", owner=seat))
        return event

    def _resolve(self) -> None:
        offer = self.offer
        if offer is None:  # the answers to instant wins at the deal
            resolve_instant(self)
            return
        win = resolve(self._order(offer), self.choices)
        note_unmade(self)
        guo: list[tuple[int, int]] = []
        if self.rules.play.guo_zhang:
            for seat, act in self.choices.items():
                if not isinstance(act, Pass):
                    continue
                opts = self.options[seat]
                peng = any(isinstance(a, Peng) for a in opts)
                chi = any(isinstance(a, Chi) for a in opts)
                if peng or (chi and win is None):
                    self.guo[seat].add(offer.kind)
                    guo.append((seat, offer.kind))
        for seat, act in self.choices.items():
            if isinstance(act, Pass) and any(isinstance(a, Peng) for a in self.options[seat]):
                self.passed_peng[seat].add(offer.kind)
        self.options = {}
        self.choices = {}
        if win is None and self.forced is not None:
            wei.take(self, offer.owner, offer.card, self.forced)
            return
        if win is None:
            self._not_taken(offer, tuple(guo))
            return
        seat = win.seat
        if isinstance(win, Hu):
            dihu = self._dihu_offer and offer.source == "discard" and seat != self.dealer
            huilong = self._huilong_offer and offer.source == "discard" and seat == self.dealer
            flags = WinFlags(
                dihu=dihu,
                huilong=huilong,
                bao=self.bao[seat],
                haidi=offer.source == "reveal" and not self.stock,
                self_drawn=offer.source == "reveal" and seat == offer.owner,
            )
            self._win(seat, offer.kind, flags, self.arrival_of(seat, offer))
            return
        melds: list[tuple[int, ...]] = []
        pao = wei.pao_meld(self, seat, offer) if isinstance(win, Zhao) and self.counts[seat][offer.kind] < 3 else None
        if pao is not None:
            melds.append(wei.upgrade(self, seat, pao, MeldKind.ZHAO, offer.card))
        elif isinstance(win, Zhao):
            ids = (*(self._take_kind(seat, offer.kind) for _ in range(3)), offer.card)
            self._add_meld(seat, MeldKind.ZHAO, ids)
            melds.append(ids)
        elif isinstance(win, Peng):
            ids = (*(self._take_kind(seat, offer.kind) for _ in range(2)), offer.card)
            self._add_meld(seat, MeldKind.PENG, ids)
            melds.append(ids)
        else:
            assert isinstance(win, Chi)
            ids = (*(self._take_kind(seat, k) for k in win.hand), offer.card)
            self._add_meld(seat, MeldKind.CHI, ids)
            melds.append(ids)
            for group in win.bi:
                bids = tuple(self._take_kind(seat, k) for k in group)
                self._add_meld(seat, MeldKind.CHI, bids)
                melds.append(bids)
        self.log.append(Claimed(seat=seat, how=type(win).__name__.lower(), kind=offer.kind,
                                melds=tuple(_kinds(m) for m in melds), guo=tuple(guo)))
        self.offer = None
        if self.long_due[seat]:
            self._declare_longs(seat)
        self._after_claim_or_deal(seat)

    def _win(self, seat: int, kind: int | None, flags: WinFlags, arrival: Arrival | None = None) -> None:
        won = best_win(self.rules, tuple(self.counts[seat]), self._meld_objs[seat], kind, winner=seat,
                       dealer=self.dealer, flags=flags, wind=self.wind, arrival=arrival)
        assert won is not None, "a 胡 was offered for a hand that cannot win"
        st = won.settlement
        names = [n for n, on in (("tianhu", flags.tianhu), ("dihu", flags.dihu), ("haidi", flags.haidi),
                                 ("self_drawn", flags.self_drawn), ("huilong", flags.huilong),
                                 ("bao", flags.bao), ("lan", won.lan)) if on]
        self.finish(
            Result(winner=seat, how="hu", hu=won.hu, win_kind=kind, red=st.red, flags=tuple(names),
                   groups=tuple((g.kind.zh, g.cards, g.hu) for g in won.groups)),
            st,
        )

    def finish(self, result: Result, st: Settlement) -> None:
        self.settlement = st
        self.result = Result(
            winner=result.winner, how=result.how, hu=result.hu, name=result.name, win_kind=result.win_kind,
            groups=result.groups, red=result.red, flags=result.flags,
            multipliers=tuple(m.zh for m in st.multipliers), factor=st.factor, deng=st.deng, points=st.points,
            fan=st.fan, final=st.final, penalties=result.penalties, money=st.money,
            hands=tuple(_kinds(h) for h in self.hands),  # 亮牌: the hand is over, every hand is shown
        )
        self.phase = "over"
        self.actor = None
        self.options = {}
        self.choices = {}
        self.log.append(HandEnded(winner=result.winner, how=result.how, hu=result.hu, points=st.points,
                                  penalties=result.penalties))

    # -- reading ------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        """True once the hand has ended (won or 黄牌)."""
        return self.phase == "over"

    @property
    def bottoms(self) -> tuple[int, ...]:
        """Every face-up bottom card: the dead ones, else the shown bottom card (if any)."""
        return self.dead or ((self.bottom,) if self.bottom is not None else ())

    def view(self, seat: int | None, *, log: bool = True) -> View:
        """What ``seat`` may see (None: a spectator).  ``log=False`` leaves the event log out (faster).

        Cards outside the seat's own concealed hand are kinds; the log is the seat's audience of the events.
        """
        legal = tuple(self.legal_actions(seat)) if seat is not None else ()
        offer = self.offer
        seen = self._seen
        # list comprehensions, not generators: a view is built for every update and every bot's move
        return View(
            seat=seat,
            rules=self.rules.name,
            dealer=self.dealer,
            dijia=self.dijia,
            players=self.players,
            phase=self.phase,
            actor=self.actor,
            to_act=bool(legal),
            hand=tuple(sorted(self.hands[seat])) if seat is not None else (),
            hand_sizes=tuple(map(len, self.hands)),
            melds=seen.melds(self.melds, lambda owner: wei.meld_viewer(self, owner, seat)),
            discards=seen.discards(self.discards),
            bottom=None if self.bottom is None else kind_of(self.bottom),
            bottoms=_kinds(self.bottoms, order=True),
            dead=bool(self.dead),
            stock=len(self.stock),
            offer=None if offer is None or wei.offer_hidden(self, seat) else ShownOffer(
                kind=offer.kind, source=offer.source, owner=offer.owner),
            guo=tuple(sorted(self.guo[seat])) if seat is not None else (),
            legal=legal,
            result=self.result,
            log=seen_by(self.log, seat) if log else (),
        )

    def card_locations(self) -> list[int]:
        """Every card id exactly once: hands, melds, discards, stock and the offer (an invariant check)."""
        ids = [c for h in self.hands for c in h]
        ids += [c for ms in self.melds for m in ms for c in m.ids]
        ids += [c for _, c in self.discards]
        ids += self.stock
        ids += self.dead
        if self.offer is not None and self.phase == "claim":
            ids.append(self.offer.card)
        if self.offer is not None and self.phase == "over":
            ids.append(self.offer.card)
        return ids
