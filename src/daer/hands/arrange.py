"""Every arrangement of a hand, by plain enumeration: the slow, obviously correct path.

This is the reference the fast path is tested against, the source of
explanations when a hand is not complete, and what scoring modes that value an
arrangement by more than its 胡 (名堂) iterate over.
"""

from __future__ import annotations

from collections.abc import Iterator

from daer.cards import N_KINDS, Counts, is_big, number_of
from daer.hands.groups import QUAD_KINDS, Group, GroupKind, Meld, group_hu
from daer.rules.model import Ruleset

# A candidate 列 of the hand's own cards: (shape, sorted kinds).
_Cand = tuple[GroupKind, tuple[int, ...]]


def _candidates(c: list[int], k: int) -> Iterator[_Cand]:
    """Every 列 containing kind ``k`` whose other cards are kinds after ``k`` (or ``k`` itself)."""
    if c[k] >= 4:
        yield GroupKind.LONG, (k,) * 4
    if c[k] >= 3:
        yield GroupKind.KAN, (k,) * 3
    if c[k] >= 2:
        yield GroupKind.PAIR, (k, k)
    n = number_of(k)
    if n <= 8 and c[k + 1] and c[k + 2]:
        yield GroupKind.RUN, (k, k + 1, k + 2)
    if n == 2 and c[k + 5] and c[k + 8]:
        yield GroupKind.RUN, (k, k + 5, k + 8)
    if not is_big(k) and c[k + 10]:
        if c[k] >= 2:
            yield GroupKind.JIAO, (k, k, k + 10)
        if c[k + 10] >= 2:
            yield GroupKind.JIAO, (k, k + 10, k + 10)


def _partitions(c: list[int]) -> Iterator[list[_Cand]]:
    k = 0
    while k < N_KINDS and c[k] == 0:
        k += 1
    if k == N_KINDS:
        yield []
        return
    for cand in list(_candidates(c, k)):
        for card in cand[1]:
            c[card] -= 1
        for rest in _partitions(c):
            yield [cand, *rest]
        for card in cand[1]:
            c[card] += 1


def _label(shape: GroupKind, cards: tuple[int, ...], hand: Counts) -> GroupKind:
    """Name a three or four of a kind by where its cards came from."""
    k = cards[0]
    if shape is GroupKind.LONG:
        return GroupKind.LONG if hand[k] == 4 else GroupKind.ZHAO
    if shape is GroupKind.KAN:
        return GroupKind.KAN if hand[k] >= 3 else GroupKind.PENG
    return shape


def iter_arrangements(
    rules: Ruleset,
    hand: Counts,
    melds: tuple[Meld, ...] = (),
    win: int | None = None,
    *,
    split_kan: bool = False,
    pair_rule: bool = True,
) -> Iterator[tuple[Group, ...]]:
    """Every valid arrangement (melds first, then the hand's 列), unordered and possibly repeated.

    ``split_kan`` and ``pair_rule=False`` relax a rule, to explain why a hand is not complete.
    """
    table = rules.hu
    meld_groups = tuple(m.to_group(table) for m in melds)
    meld_quads = sum(1 for g in meld_groups if g.kind in QUAD_KINDS)
    c = list(hand)
    if win is not None:
        c[win] += 1
    for parts in _partitions(c):
        if len(parts) + len(meld_groups) != rules.win.groups:
            continue
        if not split_kan and not _kan_whole(parts, hand):
            continue
        groups = tuple(Group(kind, cards, group_hu(table, kind, cards)) for kind, cards in
                       ((_label(s, cs, hand), cs) for s, cs in parts))
        quads = meld_quads + sum(1 for g in groups if g.kind in QUAD_KINDS)
        pairs = sum(1 for g in groups if g.kind is GroupKind.PAIR)
        if pair_rule and pairs != (1 if quads and rules.win.pair_with_quad else 0):
            continue
        yield meld_groups + groups


def _kan_whole(parts: list[_Cand], hand: Counts) -> bool:
    """Every dealt 坎 lies whole in one three/four of a kind; every dealt 垅 is one four."""
    for k in range(N_KINDS):
        if hand[k] == 4 and (GroupKind.LONG, (k,) * 4) not in parts:
            return False
        if hand[k] == 3 and not any(c[0] == k and s in (GroupKind.KAN, GroupKind.LONG) for s, c in parts):
            return False
    return True


def leftover(hand: Counts, win: int | None, *, pair_allowed: bool) -> list[int]:
    """The fewest cards that cannot be put into 列 (dealt 坎/垅 kept whole), sorted kinds."""
    c = list(hand)
    for k in range(N_KINDS):
        if c[k] >= 3:
            c[k] = 0
    if win is not None:
        c[win] += 1
    return _fewest_left(tuple(c), pair_allowed, {})


def _fewest_left(key: tuple[int, ...], pair: bool, memo: dict[tuple[tuple[int, ...], bool], list[int]]) -> list[int]:
    """:func:`leftover`'s search over the counts ``key`` (``pair``: a 对 may still be used).  A module function,
    not a closure that calls itself: that would be a reference cycle left for the collector at every call."""
    hit = memo.get((key, pair))
    if hit is not None:
        return hit
    k = 0
    while k < N_KINDS and key[k] == 0:
        k += 1
    if k == N_KINDS:
        return []
    cur = list(key)
    cur[k] -= 1
    best = [k, *_fewest_left(tuple(cur), pair, memo)]
    cur[k] += 1
    for shape, cards in _candidates(cur, k):
        if shape is GroupKind.LONG or (shape is GroupKind.PAIR and not pair):
            continue
        for card in cards:
            cur[card] -= 1
        rest = _fewest_left(tuple(cur), pair and shape is not GroupKind.PAIR, memo)
        for card in cards:
            cur[card] += 1
        if len(rest) < len(best):
            best = rest
    memo[(key, pair)] = best
    return best
