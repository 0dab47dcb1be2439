"""What the winning card must (or may) become when it joins cards of its own kind: 偎胡, 提胡, 跑胡.

Under 跑胡子 (``play.wei`` / ``play.ti`` / ``play.pao``) a card that meets cards of its own kind is not
free: the rules force it into a 偎, a 提 or a 跑 before anyone looks at the rest of the hand, and a win
on it is scored that way (「偎小牌3胡息…跑…6胡息…提…9胡息」, 「跑牌或提牌时，必须有一对将」):

- one's own revealed card onto a concealed pair is a 偎 (``play.wei``), scored as a 坎;
- one's own revealed card onto a concealed 坎 or onto one's 偎 is a 提 (``play.ti``), scored as a 垅;
- a card onto one's 偎 (from another seat), onto a concealed 坎 (from another seat) or onto one's 碰 (a
  card revealed from the stock by anyone) is a 跑 (``play.pao``), scored as a 招 — forced when
  ``play.zhao_mandatory``, else the card may also be used freely.

Each of these is a four (but the 偎), so the hand then needs its 将 (``win.pair_with_quad``).  Where none
applies (every 大贰 preset: a 胡 is claimed instead of the 碰 or 招, and no text lets a fourth card join a
碰) the card is free, and a concealed 坎 may keep it out or take it as a 招 (the evaluator tries both).

A :class:`WinShape` is one way to score: the concealed cards, the table melds and the winning card still
free (``None`` once it lies in a meld).  :func:`win_shapes` lists them; a win is the best of its shapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from daer.cards import Counts
from daer.hands.analysis import Evaluation, evaluate
from daer.hands.groups import Meld, MeldKind
from daer.rules.model import Ruleset

Arrival = Literal["self", "other", "discard"]
"""How the winning card came: revealed by the winner himself, revealed by another seat, discarded by one."""

ARRIVALS: tuple[Arrival, ...] = ("self", "other", "discard")

HOW_ZH = {"wei": "偎胡", "ti": "提胡", "pao": "跑胡"}
"""Chinese names of the forced shapes (``WinShape.how``)."""


@dataclass(frozen=True, slots=True)
class WinShape:
    """One way to score a win: the cards as they lie once the winning card has gone where it must."""

    hand: Counts
    melds: tuple[Meld, ...]
    win: int | None
    """The winning card while it is free; None once it lies in a meld."""
    how: str = ""
    """``wei`` (偎胡), ``ti`` (提胡), ``pao`` (跑胡), or "" when the card is free."""


def win_shapes(rules: Ruleset, hand: Counts, melds: Sequence[Meld], win: int | None,
               arrival: Arrival | None) -> tuple[WinShape, ...]:
    """Every shape the winning card may take; a single forced one where the rules force it.

    ``arrival`` None (or ``win`` None, a dealt hand) leaves the card free.
    """
    mt = tuple(melds)
    free = WinShape(hand, mt, win)
    p = rules.play
    if win is None or arrival is None or not (p.ti or p.wei or p.pao):  # every 大贰 preset: the card is free
        return (free,)
    k = win
    own = arrival == "self"

    def meld_of(kind: MeldKind) -> int | None:
        return next((i for i, m in enumerate(mt) if m.kind is kind and m.cards[0] == k), None)

    def from_hand(n: int, kind: MeldKind, how: str) -> WinShape:
        rest = list(hand)
        rest[k] -= n
        return WinShape(tuple(rest), (*mt, Meld(kind, (k,) * (n + 1))), None, how)

    def grow(i: int, kind: MeldKind, how: str) -> WinShape:
        return WinShape(hand, (*mt[:i], Meld(kind, (k,) * 4), *mt[i + 1:]), None, how)

    wei = meld_of(MeldKind.WEI)
    if own and p.ti and hand[k] == 3:
        return (from_hand(3, MeldKind.LONG, "ti"),)
    if own and p.ti and wei is not None:
        return (grow(wei, MeldKind.LONG, "ti"),)
    if own and p.wei and hand[k] == 2:
        return (from_hand(2, MeldKind.WEI, "wei"),)
    if p.pao:
        pao: WinShape | None = None
        peng = meld_of(MeldKind.PENG)
        if not own and wei is not None:
            pao = grow(wei, MeldKind.ZHAO, "pao")
        elif arrival != "discard" and peng is not None:  # 当别人从墩上摸的牌，是自己已经碰牌的牌
            pao = grow(peng, MeldKind.ZHAO, "pao")
        elif not own and hand[k] == 3:
            pao = from_hand(3, MeldKind.ZHAO, "pao")
        if pao is not None:
            return (pao,) if p.zhao_mandatory else (free, pao)
    return (free,)


def evaluate_win(rules: Ruleset, hand: Counts, melds: Sequence[Meld] = (), win: int | None = None,
                 arrival: Arrival | None = None) -> tuple[Evaluation, WinShape]:
    """The most-胡 evaluation over the winning card's shapes, and the shape it came from.

    When no shape is complete, the first one's evaluation (the forced one, if any) says why.
    """
    best: tuple[Evaluation, WinShape] | None = None
    for shape in win_shapes(rules, hand, melds, win, arrival):
        ev = evaluate(rules, shape.hand, shape.melds, shape.win)
        if best is None or (ev.complete and (not best[0].complete or ev.hu > best[0].hu)):
            best = (ev, shape)
    assert best is not None
    return best
