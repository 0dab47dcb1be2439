"""Best-胡 evaluation of a hand: the fast path.

A complete hand is 7 列 made of the concealed cards, the table melds and the
winning card.  Among every valid arrangement the one with the most 胡 counts.

How it is fast: a dealt 坎 (or undeclared 垅) is never split, so it is fixed
first.  What remains has at most three of a kind (a concealed pair plus the
winning card).  The only 列 that mixes sizes is the 绞, so after choosing the
绞 (rarely more than two candidates) the small and the big cards decompose
independently; each size's best result is cached on its count tuple, with and
without the pair (将).

Ties between arrangements of equal 胡 are broken by a fixed search order
(three of a kind, pair, run, 二七十 for the lowest card first; a dealt 坎 kept
whole before it becomes a 招; fewer 绞 first), so the result depends only on the
cards, never on their order or notation.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import product

from daer.cards import N_KINDS, Counts
from daer.hands.groups import Group, GroupKind, Meld, group_hu, hu_column, run_hu
from daer.rules.model import Ruleset

# One 列 inside the fast path: (kind, cards, hu).
_G = tuple[GroupKind, tuple[int, ...], int]
# Best result of one size: (hu, groups) or None when impossible.
_Best = tuple[int, tuple[_G, ...]] | None
_NONE: tuple[_Best, _Best] = (None, None)


def _better(a: _Best, hu: int) -> bool:
    return a is None or hu > a[0]


class Evaluator:
    """Best-胡 search for one ruleset, with its caches.  Use :func:`evaluator_for`."""

    def __init__(self, rules: Ruleset) -> None:
        t = rules.hu
        self.rules = rules
        self.groups = rules.win.groups
        self.pair_with_quad = rules.win.pair_with_quad
        self._peng = [t.peng[hu_column(k)] for k in range(N_KINDS)]
        self._kan = [t.kan[hu_column(k)] for k in range(N_KINDS)]
        self._zhao = [t.zhao[hu_column(k)] for k in range(N_KINDS)]
        self._long = [t.long[hu_column(k)] for k in range(N_KINDS)]
        self._run = [run_hu(t, k, k + 1) if k % 10 <= 7 else 0 for k in range(N_KINDS)]
        self._w2710 = (t.small_2710, t.big_2710)
        self._cache: tuple[dict[tuple[int, ...], tuple[_Best, _Best]], ...] = ({}, {})
        self._meld_cache: dict[tuple[Meld, ...], tuple[tuple[Group, ...], int, int]] = {}

    # -- one size ---------------------------------------------------------------------------
    def _suit(self, c: tuple[int, ...], size: int) -> tuple[_Best, _Best]:
        """Best (no pair, one pair) decomposition of one size's counts (size 0 small, 1 big)."""
        cache = self._cache[size]
        hit = cache.get(c)
        if hit is not None:
            return hit
        i = 0
        while i < 10 and c[i] == 0:
            i += 1
        if i == 10:
            res: tuple[_Best, _Best] = ((0, ()), None)
            cache[c] = res
            return res
        base = size * 10
        b0: _Best = None
        b1: _Best = None
        lst = list(c)
        k = base + i
        if c[i] >= 3:
            lst[i] -= 3
            s0, s1 = self._suit(tuple(lst), size)
            lst[i] += 3
            h = self._peng[k]
            g: _G = (GroupKind.PENG, (k, k, k), h)
            if s0 is not None and _better(b0, s0[0] + h):
                b0 = (s0[0] + h, (g, *s0[1]))
            if s1 is not None and _better(b1, s1[0] + h):
                b1 = (s1[0] + h, (g, *s1[1]))
        if c[i] >= 2:
            lst[i] -= 2
            s0, _ = self._suit(tuple(lst), size)
            lst[i] += 2
            if s0 is not None and _better(b1, s0[0]):
                b1 = (s0[0], ((GroupKind.PAIR, (k, k), 0), *s0[1]))
        if i <= 7 and c[i + 1] and c[i + 2]:
            lst[i] -= 1
            lst[i + 1] -= 1
            lst[i + 2] -= 1
            s0, s1 = self._suit(tuple(lst), size)
            lst[i] += 1
            lst[i + 1] += 1
            lst[i + 2] += 1
            h = self._run[k]
            g = (GroupKind.RUN, (k, k + 1, k + 2), h)
            if s0 is not None and _better(b0, s0[0] + h):
                b0 = (s0[0] + h, (g, *s0[1]))
            if s1 is not None and _better(b1, s1[0] + h):
                b1 = (s1[0] + h, (g, *s1[1]))
        if i == 1 and c[6] and c[9]:
            lst[1] -= 1
            lst[6] -= 1
            lst[9] -= 1
            s0, s1 = self._suit(tuple(lst), size)
            h = self._w2710[size]
            g = (GroupKind.RUN, (base + 1, base + 6, base + 9), h)
            if s0 is not None and _better(b0, s0[0] + h):
                b0 = (s0[0] + h, (g, *s0[1]))
            if s1 is not None and _better(b1, s1[0] + h):
                b1 = (s1[0] + h, (g, *s1[1]))
        res = (b0, b1)
        cache[c] = res
        return res

    # -- the free cards, 绞 included -----------------------------------------------------------
    def _free(self, r: list[int], pairs: int) -> _Best:
        """Best decomposition of the free cards ``r`` (20 counts) with exactly ``pairs`` pairs."""
        cands = [n for n in range(10) if r[n] and r[n + 10] and (r[n] >= 2 or r[n + 10] >= 2)]
        if not cands:
            return self._combine(r, pairs, ())
        best: _Best = None
        choices = []
        for n in cands:
            opts: list[tuple[int, int] | None] = [None]
            if r[n] >= 2:
                opts.append((n, n + 10))  # two small + one big
            if r[n + 10] >= 2:
                opts.append((n + 10, n))  # two big + one small
            choices.append(opts)
        for combo in product(*choices):
            jiao: list[_G] = []
            rr = r
            for opt in combo:
                if opt is None:
                    continue
                if rr is r:
                    rr = list(r)
                two, one = opt
                rr[two] -= 2
                rr[one] -= 1
                jiao.append((GroupKind.JIAO, tuple(sorted((two, two, one))), 0))
            res = self._combine(rr, pairs, tuple(jiao))
            if res is not None and _better(best, res[0]):
                best = res
        return best

    def _combine(self, r: list[int], pairs: int, extra: tuple[_G, ...]) -> _Best:
        s0, s1 = self._suit(tuple(r[:10]), 0)
        b0, b1 = self._suit(tuple(r[10:]), 1)
        best: _Best = None
        if pairs == 0:
            if s0 is not None and b0 is not None:
                best = (s0[0] + b0[0], extra + s0[1] + b0[1])
            return best
        if s1 is not None and b0 is not None:
            best = (s1[0] + b0[0], extra + s1[1] + b0[1])
        if s0 is not None and b1 is not None and _better(best, s0[0] + b1[0]):
            best = (s0[0] + b1[0], extra + s0[1] + b1[1])
        return best

    # -- whole hand ----------------------------------------------------------------------------
    def melds_info(self, melds: tuple[Meld, ...]) -> tuple[tuple[Group, ...], int, int]:
        """(scored meld groups, their 胡, how many are quads), cached."""
        hit = self._meld_cache.get(melds)
        if hit is None:
            groups = tuple(m.to_group(self.rules.hu) for m in melds)
            quads = sum(1 for g in groups if len(g.cards) == 4)
            hit = (groups, sum(g.hu for g in groups), quads)
            if len(self._meld_cache) < 4096:
                self._meld_cache[melds] = hit
        return hit

    def branches(
        self, hand: Counts, n_melds: int, quads: int, win: int | None
    ) -> Iterator[tuple[list[int], list[_G], int, int]]:
        """Each way to fix the dealt 坎/垅: (free counts, fixed groups, pairs needed, cards needed)."""
        fixed: list[_G] = []
        r = list(hand)
        for k in range(N_KINDS):
            n = r[k]
            if n >= 3 and k != win:
                if n == 4:
                    fixed.append((GroupKind.LONG, (k,) * 4, self._long[k]))
                    quads += 1
                else:
                    fixed.append((GroupKind.KAN, (k,) * 3, self._kan[k]))
                r[k] = 0
        options: list[tuple[list[int], list[_G], int]] = []
        if win is None:
            options.append((r, fixed, quads))
        elif r[win] == 3:
            # the 坎 stays whole and the winning card goes elsewhere, or it becomes a 招
            kept = list(r)
            kept[win] = 1
            options.append((kept, [*fixed, (GroupKind.KAN, (win,) * 3, self._kan[win])], quads))
            zr = list(r)
            zr[win] = 0
            options.append((zr, [*fixed, (GroupKind.ZHAO, (win,) * 4, self._zhao[win])], quads + 1))
        else:
            r[win] += 1
            options.append((r, fixed, quads))
        for free, fx, q in options:
            pairs = 1 if q and self.pair_with_quad else 0
            left = self.groups - n_melds - len(fx)
            yield free, fx, pairs, 3 * (left - pairs) + 2 * pairs

    def best(self, hand: Counts, melds: tuple[Meld, ...] = (), win: int | None = None) -> _Best:
        """Most-胡 arrangement of the hand's own cards (melds excluded from the groups), or None."""
        _, meld_hu, quads = self.melds_info(melds)
        best: _Best = None
        for free, fixed, pairs, need in self.branches(hand, len(melds), quads, win):
            if sum(free) != need or need < 0:
                continue
            res = self._free(free, pairs)
            if res is None:
                continue
            hu = res[0] + meld_hu + sum(g[2] for g in fixed)
            if _better(best, hu):
                best = (hu, (*fixed, *res[1]))
        return best


_EVALUATORS: dict[tuple[object, ...], Evaluator] = {}


def evaluator_for(rules: Ruleset) -> Evaluator:
    """The (cached) evaluator of a ruleset's 胡 table and win shape."""
    key = (rules.hu, rules.win.groups, rules.win.pair_with_quad)
    ev = _EVALUATORS.get(key)
    if ev is None:
        ev = _EVALUATORS[key] = Evaluator(rules)
    return ev


def to_groups(rules: Ruleset, raw: Sequence[_G]) -> tuple[Group, ...]:
    """Fast-path groups as :class:`Group` objects, checking each 胡 against the table."""
    out = []
    for kind, cards, hu in raw:
        assert hu == group_hu(rules.hu, kind, cards), (kind, cards, hu)
        out.append(Group(kind, cards, hu))
    return tuple(out)
