"""Claim options on a card on offer (吃/碰/招/胡) and their resolution by priority.

Pure functions over count vectors; :mod:`daer.engine.state` asks them both for
the legal actions and to check an action, so one place holds each rule.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from daer.cards import N_KINDS, is_big, number_of, other_size
from daer.engine.actions import PRIORITY, Action, Chi, Pass

Triple = tuple[int, int, int]


def _same_size(a: int, b: int) -> bool:
    return is_big(a) == is_big(b)


def chi_pairs(k: int) -> list[tuple[tuple[int, int], bool]]:
    """Every pair of hand kinds that makes a 列 with kind ``k``: ((a, b), is_jiao)."""
    return list(CHI_PAIRS[k])


def _chi_pairs(k: int) -> tuple[tuple[tuple[int, int], bool], ...]:
    out: list[tuple[tuple[int, int], bool]] = []
    n = number_of(k)
    for lo in (k - 2, k - 1, k):
        hi = lo + 2
        if lo < 0 or hi >= N_KINDS or not _same_size(lo, k) or not _same_size(hi, k):
            continue
        if number_of(lo) > 8:
            continue
        others = tuple(x for x in (lo, lo + 1, lo + 2) if x != k)
        out.append(((others[0], others[1]), False))
    if n in (2, 7, 10):
        base = k - (n - 1)
        others = tuple(base + m - 1 for m in (2, 7, 10) if m != n)
        out.append(((others[0], others[1]), False))
    o = other_size(k)
    out.append(((min(k, o), max(k, o)), True))  # k k K (two of k, one of the other size)
    out.append(((o, o), True))  # k K K
    return tuple(out)


CHI_PAIRS = tuple(_chi_pairs(k) for k in range(N_KINDS))
"""For each kind, the pairs of kinds that make a 列 with it."""


PARTNERS = tuple(frozenset(x for pair, _ in CHI_PAIRS[k] for x in pair) | {k} for k in range(N_KINDS))
"""For each kind, every kind that can share a 列 with it."""


def orphans(hand: Sequence[int]) -> list[int]:
    """Free hand cards (not in a 坎/垅) that can share no 列 with the other free cards.

    A complete hand has none, so a winning card must be a partner of every orphan:
    a cheap necessary condition checked before the full 胡 search.
    """
    out: list[int] = []
    for x in range(N_KINDS):
        if hand[x] != 1:
            continue  # 0, a pair, or a fixed 坎/垅
        for (a, b), _ in CHI_PAIRS[x]:  # _free_pair, written out: this runs for every card offered to every seat
            if a == b:
                if hand[a] == 2:
                    break
            elif x not in (a, b) and 0 < hand[a] < 3 and 0 < hand[b] < 3:
                break
        else:
            out.append(x)
    return out


def _free_pair(hand: Sequence[int], x: int, a: int, b: int) -> bool:
    """True when free cards other than the single ``x`` supply kinds ``a`` and ``b``."""
    if a == b:
        return hand[a] == 2
    return x not in (a, b) and 0 < hand[a] < 3 and 0 < hand[b] < 3


def may_fit(hand: Sequence[int], k: int) -> bool:
    """Cheap necessary condition for winning on ``k``: it pairs with, or makes a 列 with, free hand cards."""
    if hand[k]:
        return True
    for (a, b), _ in CHI_PAIRS[k]:
        if a == b:
            if 0 < hand[a] < 3 and hand[a] >= 2:
                return True
        elif 0 < hand[a] < 3 and 0 < hand[b] < 3:
            return True
    return False


def _take(counts: list[int], kinds: Sequence[int]) -> bool:
    """Remove ``kinds`` from ``counts`` if all present (free cards only); False and unchanged otherwise."""
    done: list[int] = []
    for x in kinds:
        if counts[x] <= 0:
            for y in done:
                counts[y] += 1
            return False
        counts[x] -= 1
        done.append(x)
    return True


def bi_groups(free: list[int], k: int) -> Iterator[tuple[Triple, ...]]:
    """Every way to lay all copies of ``k`` left in ``free`` into 列 of free cards (比牌)."""
    if free[k] == 0:
        yield ()
        return
    seen: set[tuple[Triple, ...]] = set()
    for (a, b), _ in CHI_PAIRS[k]:
        group = (k, a, b)
        if not _take(free, group):
            continue
        triple: Triple = tuple(sorted(group))  # type: ignore[assignment]
        for rest in bi_groups(free, k):
            combo = tuple(sorted((triple, *rest)))
            if combo not in seen:
                seen.add(combo)
                yield combo
        for x in group:
            free[x] += 1


def chi_options(seat: int, hand: Sequence[int], k: int, *, bi_pai: bool, need_left: int,
                bi_jiao: bool = False) -> list[Chi]:
    """Legal 吃 of kind ``k`` for a hand (count vector): with their 比 groups, leaving ``need_left`` cards.

    With ``bi_pai`` every copy of ``k`` left in the hand must be laid down (比) with the 吃, except after a
    绞 unless ``bi_jiao`` (跑胡子: no copy of the eaten kind stays in the hand).

    A dealt 坎 or 垅 (three or four of a kind in the hand) is never split, and a
    kind held as a 坎 cannot be eaten (its copies could never be 比'd).
    """
    if hand[k] >= 3:
        return []
    free = [c if c < 3 else 0 for c in hand]
    out: list[Chi] = []
    seen: set[tuple[tuple[int, ...], tuple[Triple, ...]]] = set()
    for (a, b), jiao in CHI_PAIRS[k]:
        if not _take(free, (a, b)):
            continue
        plain = not bi_pai or (jiao and not bi_jiao)
        combos: list[tuple[Triple, ...]] = [()] if plain else list(bi_groups(free, k))
        for combo in combos:
            used = 2 + 3 * len(combo)
            if sum(hand) - used < need_left:
                continue
            key = ((a, b), combo)
            if key not in seen:
                seen.add(key)
                out.append(Chi(seat=seat, hand=(a, b), bi=combo))
        free[a] += 1
        free[b] += 1
    return out


def resolve(order: Sequence[int], choices: dict[int, Action]) -> Action | None:
    """The winning claim: lowest priority rank, ties to the earliest seat in ``order`` (自摸优先, 上家优先).

    None when every choice is 过.
    """
    best: Action | None = None
    best_key = (PRIORITY[Pass], 0)
    for pos, seat in enumerate(order):
        act = choices.get(seat)
        if act is None:
            continue
        key = (PRIORITY[type(act)], pos)
        if key < best_key:
            best, best_key = act, key
    return best
