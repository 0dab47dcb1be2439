"""Possible worlds (可能的牌局): a playable :class:`GameState` rebuilt from one seat's view.

A search bot sees only its :class:`~daer.engine.views.View`.  To look ahead it
*determinizes*: it deals the cards it has not seen (the other seats' concealed
hands and the unrevealed stock) at random, consistently with what the view
shows — its own hand, every meld, the discards, the card on offer, the shown
bottom card (kept at the bottom of the stock), the hand sizes and the stock
count — and plays on from there.

:func:`unseen_cards` lists the card ids the seat cannot locate, :func:`sample_hidden`
deals them, and :func:`world_from_view` builds the state.  What a view without its
log does not tell is approximated: other seats' 过张 kinds are empty, 八块 skips are
taken as soon as they are due, claims already answered by other seats are asked
again, and 回龙 (a dealer's win on the first non-dealer discard) is not offered.  The
round wind is taken from the view when it has one.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from daer.cards import COPIES, N_CARDS, N_KINDS, kind_of
from daer.engine import wei
from daer.engine.actions import Action, Pass
from daer.engine.instant import instant_seats
from daer.engine.state import GameState
from daer.engine.views import Offer, ShownMeld, TableMeld, View
from daer.hands import Meld, MeldKind
from daer.rules.model import Ruleset

_NEUTRAL_DECK = [k * COPIES + c for c in range(COPIES) for k in range(N_KINDS)]
"""A deck whose deal holds no 垅 or 坎 (no instant win): the base that :func:`world_from_view` overwrites."""


def _public_kinds(view: View) -> list[int]:
    """Kinds of every card the view shows outside its own hand: melds, discards, offer, face-up bottom cards."""
    kinds = [k for ms in view.melds for m in ms for k in m.kinds]
    kinds += [k for _, k in view.discards]
    if view.offer is not None:
        kinds.append(view.offer.kind)
    if view.dead:
        kinds += view.bottoms
    elif view.bottom is not None and view.stock > 0:
        kinds.append(view.bottom)
    return kinds


def _ids_by_kind(exclude: set[int]) -> list[list[int]]:
    free: list[list[int]] = [[] for _ in range(N_KINDS)]
    for c in range(N_CARDS):
        if c not in exclude:
            free[kind_of(c)].append(c)
    return free


def unseen_cards(view: View) -> list[int]:
    """Card ids the seat of ``view`` cannot locate: other concealed hands and the unrevealed stock.

    A view shows public cards as kinds: each is given an id of its kind (the lowest left after the
    seat's own hand), and the ids left over are the unseen ones.  The shown bottom card is not among
    them while it is still in the stock.
    """
    free = _ids_by_kind(set(view.hand))
    for k in _public_kinds(view):
        free[k].pop(0)
    return sorted(c for ids in free for c in ids)


def _deal_covered(view: View, pool: list[int], rng: random.Random) -> dict[int, list[int]]:
    """Ids for the other seats' face-down 偎 (kinds not shown: three of one kind each), taken out of ``pool``."""
    out: dict[int, list[int]] = {}
    for s, ms in enumerate(view.melds):
        for m in ms:
            if m.down and not m.kinds:
                by_kind: dict[int, list[int]] = {}
                for c in pool:
                    by_kind.setdefault(kind_of(c), []).append(c)
                kinds = [k for k, ids in by_kind.items() if len(ids) >= m.down]
                if not kinds:
                    raise ValueError("视图的牌数不一致 (no kind left for a face-down 偎)")
                ids = by_kind[rng.choice(sorted(kinds))][: m.down]
                for c in ids:
                    pool.remove(c)
                out.setdefault(s, []).extend(ids)
    return out


def sample_hidden(view: View, rng: random.Random, *, tries: int = 20) -> tuple[dict[int, list[int]], list[int]]:
    """A random deal of the unseen cards: ({other seat: concealed ids}, stock ids in reveal order).

    The ids of another seat's face-down 偎 (跑胡子) follow its concealed ones, three per 偎 in table order
    (:func:`world_from_view` reads them so).

    Hand sizes and the stock count match the view; the shown bottom card stays last.
    No other seat gets four of a kind (a dealt 垅 is on the table by the time anyone
    else decides, except in rare openings), retried up to ``tries`` times.
    """
    me = view.seat
    pool = unseen_cards(view)
    others = [s for s in view.players if s != me]
    for attempt in range(tries):
        rng.shuffle(pool)
        deal = list(pool)
        covered = _deal_covered(view, deal, rng)  # another seat's face-down 偎 first (three of one kind)
        hands: dict[int, list[int]] = {}
        pos = 0
        ok = True
        for s in others:
            n = view.hand_sizes[s]
            hands[s] = deal[pos : pos + n] + covered.get(s, [])
            pos += n
            if attempt + 1 < tries:
                counts = [0] * N_KINDS
                for cid in hands[s]:
                    counts[kind_of(cid)] += 1
                if max(counts, default=0) >= COPIES:
                    ok = False
                    break
        if ok:
            break
    stock = deal[pos:]
    if view.bottom is not None and view.stock > 0 and not view.dead:
        stock.append(_ids_by_kind(set(view.hand) | set(pool))[view.bottom][0])
    if len(stock) != view.stock:
        raise ValueError("视图的牌数不一致 (the view's card counts do not add up)")
    return hands, stock


def _table_meld(m: ShownMeld, covered: list[int], free: list[list[int]]) -> TableMeld:
    """A meld of the view with ids: public kinds get free ids of their kinds, a face-down 偎 the next covered ids."""
    if m.down and not m.kinds:
        if len(covered) < m.down:
            raise ValueError("暗偎缺牌 (the ids of a face-down 偎 must follow the seat's concealed ones)")
        ids = tuple(sorted(covered.pop(0) for _ in range(m.down)))
        return TableMeld(kind=m.kind, kinds=tuple(sorted(kind_of(c) for c in ids)), ids=ids, down=True)
    return TableMeld(kind=m.kind, kinds=m.kinds, ids=tuple(sorted(free[k].pop(0) for k in m.kinds)),
                     down=m.down > 0)


def world_from_view(
    view: View, rules: Ruleset, hidden: Mapping[int, Sequence[int]], stock: Sequence[int]
) -> GameState:
    """A state that agrees with ``view`` and deals ``hidden`` to the other seats and ``stock`` to the stock.

    The seat of the view has exactly ``view.legal`` as its options.  The state is new:
    changing it changes nothing the view came from.  Public cards (kinds in the view) get the ids of
    their kinds not used by the seat's hand, ``hidden`` or ``stock``.
    """
    me = view.seat
    if me is None:
        raise ValueError("需要一个座位的视图 (needs a seat's view, not a spectator's)")
    st = GameState(rules, _NEUTRAL_DECK, dealer=view.dealer, wind=getattr(view, "wind", None))
    n = rules.table.seats
    st.hands = [[] for _ in range(n)]
    st.counts = [[0] * N_KINDS for _ in range(n)]
    st.hands[me] = list(view.hand)
    covered: dict[int, list[int]] = {}
    for s, ids in hidden.items():
        st.hands[s] = list(ids[: view.hand_sizes[s]])
        covered[s] = list(ids[view.hand_sizes[s] :])  # another seat's face-down 偎, three ids each
    for s in range(n):
        for cid in st.hands[s]:
            st.counts[s][kind_of(cid)] += 1
    free = _ids_by_kind({*view.hand, *(c for ids in hidden.values() for c in ids), *stock})
    st.melds = [[_table_meld(m, covered.get(s, []), free) for m in ms] for s, ms in enumerate(view.melds)]
    st._meld_objs = [tuple(Meld(MeldKind(m.kind), m.kinds) for m in ms) for ms in st.melds]
    st.quads = [sum(1 for m in ms if m.kind in (MeldKind.ZHAO.value, MeldKind.LONG.value)) for ms in view.melds]
    st.skips = [max(0, q - 1) if rules.play.ba_kuai else 0 for q in st.quads]
    st.guo = [set() for _ in range(n)]
    st.unmade = [set() for _ in range(n)]  # passes the view does not show: assumed none
    st.guo[me] = set(view.guo)
    st.long_due = [False] * n
    st.long_due[me] = any(c >= COPIES for c in st.counts[me])
    st.discards = [(s, free[k].pop(0)) for s, k in view.discards]
    st.log = []
    st.actions = []
    st.stock = list(stock)
    st.dead = tuple(free[k].pop(0) for k in view.bottoms) if view.dead else ()
    # once the stock is empty the bottom card is among the public ones; any id of its kind stands for it
    st.bottom = st.dead[-1] if st.dead else stock[-1] if view.bottom is not None and view.stock > 0 else (
        None if view.bottom is None else _ids_by_kind(set())[view.bottom][0])
    st.result = None
    st.settlement = None
    st._hu_memo = [{} for _ in range(n)]
    st._orphans = [None] * n
    initial_stock = N_CARDS - rules.table.dealer_cards - rules.table.other_cards * (len(view.players) - 1)
    initial_stock -= rules.table.dead_cards
    untouched = view.stock == initial_stock and not view.discards and not any(
        m.kind not in (MeldKind.LONG.value,) for ms in view.melds for m in ms
    )
    st.phase = view.phase
    st.actor = view.actor
    st.offer = None if view.offer is None else Offer(card=free[view.offer.kind].pop(0), kind=view.offer.kind,
                                                     source=view.offer.source, owner=view.offer.owner)
    st.first_discard = untouched and view.phase == "discard" and view.actor == view.dealer
    st._dihu_offer = (
        untouched and view.offer is not None and view.offer.source == "discard" and view.offer.owner == view.dealer
    )
    # 回龙 needs "has a non-dealer discarded yet": known when nothing has happened, else assumed yes.
    st._other_discarded = not untouched
    st._huilong_offer = False
    st.choices = {}
    st.options = {}
    own_reveal = st.offer is not None and st.offer.source == "reveal" and st.offer.owner == me
    if view.phase == "claim" and view.offer is None and view.legal:  # an instant win at the deal (3垅/5坎)
        st.instants = instant_seats(st)
        st.options = {me: list(view.legal)}
    forced = None
    if view.phase == "claim" and st.offer is not None and own_reveal:
        forced = wei.forced_how(st, me, st.offer.kind)
    if forced is not None:
        st.forced = forced  # 偎胡 / 提胡: the revealer alone decides
        st.options = {me: list(view.legal)}
    elif view.phase == "claim" and st.offer is not None:
        for s in st._order(st.offer):
            if s == me:
                opts: list[Action] = list(view.legal)
            else:
                opts = st._claim_options(s, st.offer)
                if opts and st._may_pass(opts):
                    opts = [*opts, Pass(seat=s)]
            if opts:
                st.options[s] = opts
    return st


__all__ = ["sample_hidden", "unseen_cards", "world_from_view"]
