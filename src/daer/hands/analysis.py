"""The public face of hand analysis: evaluate a winning hand, explain a failed one, list waits (叫牌)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from daer.cards import COPIES, N_KINDS, Counts, TooManyCopiesError, format_kinds, kind_ascii, kind_char
from daer.hands.arrange import iter_arrangements, leftover
from daer.hands.evaluate import RawGroup, evaluator_for, to_groups
from daer.hands.groups import QUAD_KINDS, Group, GroupKind, Meld, hu_column, run_hu
from daer.rules.model import HuTable, Ruleset


class Evaluation:
    """The verdict on a hand: complete or not, the best arrangement and its 胡, or why not.

    Immutable.  :func:`evaluate` builds the :class:`Group` objects of ``groups`` only
    when they are first asked for (most callers want the 胡 alone).
    """

    __slots__ = ("_complete", "_groups", "_hu", "_melds", "_raw", "_reason_en", "_reason_zh", "_table")

    def __init__(
        self, complete: bool, hu: int, groups: tuple[Group, ...] | None = (), reason_zh: str = "",
        reason_en: str = "", *, raw: tuple[RawGroup, ...] = (), melds: tuple[Meld, ...] = (),
        table: HuTable | None = None,
    ) -> None:
        self._complete = complete
        self._hu = hu
        self._groups = groups
        self._reason_zh = reason_zh
        self._reason_en = reason_en
        self._raw = raw
        self._melds = melds
        self._table = table

    @property
    def complete(self) -> bool:
        """The cards form 7 列 under the ruleset's shape rules."""
        return self._complete

    @property
    def hu(self) -> int:
        """胡 of the best arrangement (0 when not complete)."""
        return self._hu

    @property
    def reason_zh(self) -> str:
        """Why the hand is not complete, in Chinese ("" when it is)."""
        return self._reason_zh

    @property
    def reason_en(self) -> str:
        """... and in English."""
        return self._reason_en

    @property
    def groups(self) -> tuple[Group, ...]:
        """The best arrangement: table melds first, then the hand's 列."""
        groups = self._groups
        if groups is None:
            table = self._table
            assert table is not None
            groups = tuple(m.to_group(table) for m in self._melds) + to_groups(self._raw)
            self._groups = groups
        return groups

    @property
    def raw_groups(self) -> tuple[RawGroup, ...]:
        """The hand's own 列 as the fast path found them, ``(kind code, cards, 胡)`` (see KIND_CODES).

        Empty when the evaluation was built from :class:`Group` objects.
        """
        return self._raw

    def _key(self) -> tuple[object, ...]:
        return (self.complete, self.hu, self.groups, self.reason_zh, self.reason_en)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Evaluation) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"Evaluation(complete={self.complete!r}, hu={self.hu!r}, groups={self.groups!r}, "
                f"reason_zh={self.reason_zh!r}, reason_en={self.reason_en!r})")

    @property
    def reason(self) -> str:
        """Why the hand is not complete, Chinese then English."""
        return f"{self.reason_zh} ({self.reason_en})" if self.reason_zh else ""

    @property
    def red(self) -> int:
        """Red cards among all the winner's cards."""
        return sum(g.red() for g in self.groups)


@dataclass(frozen=True, slots=True)
class Wait:
    """One card kind that completes a one-short position (叫牌), and the 胡 it would make."""

    kind: int
    hu: int

    def __str__(self) -> str:
        return f"{kind_char(self.kind)}({self.hu}胡)"


def all_kinds(hand: Counts, melds: Sequence[Meld], win: int | None) -> list[int]:
    """Counts of every card involved (hand, melds, winning card)."""
    c = list(hand)
    for m in melds:
        for k in m.cards:
            c[k] += 1
    if win is not None:
        c[win] += 1
    return c


def check_cards(hand: Counts, melds: Sequence[Meld], win: int | None) -> None:
    """Refuse a fifth copy of any kind across hand, melds and winning card."""
    c = all_kinds(hand, melds, win) if melds or win is not None else hand
    if max(c, default=0) <= COPIES:
        return
    for k, n in enumerate(c):
        if n > COPIES:
            raise TooManyCopiesError(
                f"{kind_char(k)} 有 {n} 张，每种牌只有 4 张 ({kind_ascii(k)} appears {n} times; only 4 exist)",
                kind_char(k),
            )


def evaluate(rules: Ruleset, hand: Counts, melds: Sequence[Meld] = (), win: int | None = None) -> Evaluation:
    """The most-胡 arrangement of ``hand`` (concealed cards) + ``melds`` + ``win`` (the winning card).

    ``win`` is None for a dealt hand judged as it is (天胡).  Raises
    :class:`~daer.cards.TooManyCopiesError` for a fifth copy of a kind.

    >>> from daer.rules import find_rules
    >>> from daer.cards import parse_counts, parse_kinds
    >>> ev = evaluate(find_rules(), parse_counts("一二三四五六七八九壹贰叁肆伍陆柒捌玖二七"), win=parse_kinds("十")[0])
    >>> ev.complete, ev.hu
    (True, 15)
    """
    mt = melds if type(melds) is tuple else tuple(melds)
    check_cards(hand, mt, win)
    best = evaluator_for(rules).best(hand, mt, win)
    if best is None:
        zh, en = explain(rules, hand, mt, win)
        return Evaluation(False, 0, (), zh, en)
    return Evaluation(True, best[0], None, raw=best[1], melds=mt, table=rules.hu)


def explain(rules: Ruleset, hand: Counts, melds: tuple[Meld, ...], win: int | None) -> tuple[str, str]:
    """Why these cards are not a complete hand: (Chinese, English)."""
    ev = evaluator_for(rules)
    quads = ev.melds_info(melds)[1]
    total = sum(hand) + sum(len(m.cards) for m in melds) + (win is not None)
    expected = ev.expected_cards(hand, melds)
    # the winning card may turn a dealt 坎 into a 招, which asks for one card more (or, first quad, the same)
    allowed = {expected}
    if win is not None and hand[win] == 3:
        allowed.add(expected + 1 if quads or any(n == 4 for n in hand) or not rules.win.pair_with_quad else expected)
    if total not in allowed:
        return (
            f"牌数不对：共 {total} 张，这手牌胡牌要 {expected} 张（{'多' if total > expected else '少'}牌）",
            f"wrong number of cards: {total}, a complete hand here has {expected}",
        )
    if any(True for _ in iter_arrangements(rules, hand, melds, win, split_kan=True)):
        kans = format_kinds(k for k in range(N_KINDS) if hand[k] >= 3)
        return (f"坎/垅不能拆开：{kans}", f"a dealt 坎/垅 cannot be split: {kans}")
    relaxed = next(iter_arrangements(rules, hand, melds, win, pair_rule=False), None)
    if relaxed is not None:
        has_quad = any(g.kind in QUAD_KINDS for g in relaxed)
        if not rules.win.pair_with_quad:
            return ("这套规则不能留对", "this ruleset allows no pair in a winning hand")
        if has_quad:
            return ("有招或垅时要有一对将", "a hand with a 招 or 垅 needs exactly one pair")
        return ("没有招或垅时不能留对", "a hand without 招 or 垅 may not hold a pair")
    rest = leftover(hand, win, pair_allowed=quads > 0 or any(n == 4 for n in hand))
    text = format_kinds(rest)
    return (f"不成列：{text}", f"these cards form no 列: {format_kinds(rest, ascii=True)}")


def waits(rules: Ruleset, hand: Counts, melds: Sequence[Meld] = ()) -> list[Wait]:
    """叫牌: every kind that would complete the hand, with the best 胡 it makes (any 胡, even < minimum).

    >>> from daer.rules import find_rules
    >>> from daer.cards import parse_counts
    >>> [str(w) for w in waits(find_rules(), parse_counts("一二三四五六七八九壹贰叁肆伍陆柒捌玖二七"))]
    ['三(9胡)', '十(15胡)']
    """
    mt = tuple(melds)
    available = [COPIES - n for n in all_kinds(hand, mt, None)]
    return [Wait(k, hu) for k, hu in evaluator_for(rules).waits(hand, mt, available)]


def instant_win(rules: Ruleset, hand: Counts) -> tuple[str, int, tuple[Group, ...]] | None:
    """3垅 / 5坎 in a dealt hand (砌牌后有3垅或者5坎): (name, 胡, scored 列) or None.

    The 胡 is that of the 垅 and 坎 plus the best 列 the other cards can make; cards
    that make no 列 count nothing.
    """
    longs = [k for k in range(N_KINDS) if hand[k] == 4]
    kans = [k for k in range(N_KINDS) if hand[k] == 3]
    n_long, n_kan = rules.win.instant_longs, rules.win.instant_kans
    if n_long and len(longs) >= n_long:
        name = f"{len(longs)}垅"
    elif n_kan and len(kans) >= n_kan:
        name = f"{len(kans)}坎"
    else:
        return None
    table = rules.hu
    fixed = [Group(GroupKind.LONG, (k,) * 4, table.long[hu_column(k)]) for k in longs]
    fixed += [Group(GroupKind.KAN, (k,) * 3, table.kan[hu_column(k)]) for k in kans]
    rest = list(hand)
    for k in longs + kans:
        rest[k] = 0
    groups = (*fixed, *_scoring_runs(rules, rest))
    return name, sum(g.hu for g in groups), groups


_SCORING_RUNS = tuple([(b, b + 1, b + 2) for b in (0, 10)] + [(b + 1, b + 6, b + 9) for b in (0, 10)])
"""The runs that score among loose cards: 一二三 and 二七十 of each size."""


def _scoring_runs(rules: Ruleset, rest: list[int]) -> tuple[Group, ...]:
    """Most-胡 set of disjoint 一二三 / 二七十 runs among loose cards (no other 列 scores there)."""
    best: list[tuple[int, tuple[Group, ...]]] = [(0, ())]
    _runs_from(rules, list(rest), 0, (), best)
    return best[0][1]


def _runs_from(rules: Ruleset, c: list[int], i: int, acc: tuple[Group, ...],
               best: list[tuple[int, tuple[Group, ...]]]) -> None:
    """:func:`_scoring_runs`' search from run ``i`` on, the best so far in ``best[0]``.  A module function, not a
    closure that calls itself: that would be a reference cycle left for the collector at every call."""
    total = sum(g.hu for g in acc)
    if total > best[0][0]:
        best[0] = (total, acc)
    for j in range(i, len(_SCORING_RUNS)):
        cards = _SCORING_RUNS[j]
        if all(c[k] for k in cards):
            for k in cards:
                c[k] -= 1
            _runs_from(rules, c, j, (*acc, Group(GroupKind.RUN, cards, run_hu(rules.hu, cards[0], cards[1]))), best)
            for k in cards:
                c[k] += 1
