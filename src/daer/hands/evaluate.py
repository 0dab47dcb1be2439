"""Best-胡 evaluation of a hand and its waits: the fast path.

A complete hand is 7 列 made of the concealed cards, the table melds and the
winning card.  Among every valid arrangement the one with the most 胡 counts.

How it is fast.  A dealt 坎 or 垅 is never split, so it is fixed first (with the
winning card of its kind it may also become a 招); what is left of each size
(small 一…十, big 壹…拾) are its *free* cards, at most three of a kind.  The only
列 that mixes sizes is the 绞 (九九玖), so it is split into a *pair part* (九九)
in one size and a *single part* (玖) in the other: each size is decomposed on
its own, its results keyed by the pair (将) and by which 绞 parts it gives, and
two sizes join only where those parts match.  Each size's search is cached on
its free counts (at most 3^10 patterns a size), so a long run soon answers from
memory; the cached values hold only ints and tuples, which the garbage
collector soon stops tracking.

Ties between arrangements of equal 胡 are broken by the fixed search order
(for the lowest card: three of a kind, pair, run, 二七十, 绞 parts; a dealt 坎
kept whole before it becomes a 招; small size before big), so the result
depends only on the cards, never on their order or notation.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from types import ModuleType

from daer.cards import N_KINDS, Counts
from daer.hands.groups import Group, GroupKind, Meld, hu_column, run_hu
from daer.rules.model import Ruleset

KIND_CODES = (
    GroupKind.LONG,
    GroupKind.ZHAO,
    GroupKind.KAN,
    GroupKind.PENG,
    GroupKind.RUN,
    GroupKind.JIAO,
    GroupKind.PAIR,
)
_LONG, _ZHAO, _KAN, _PENG, _RUN, _JIAO, _PAIR = range(7)

# One 列 inside the fast path: (kind code, cards, hu).
_G = tuple[int, tuple[int, ...], int]
RawGroup = _G
"""One 列 as the fast path gives it: (index in :data:`KIND_CODES`, sorted kinds, 胡)."""
# A free-card result: (pairs, 绞 pair-part mask, 绞 single-part mask, 列 count, hu, 列).
_E = tuple[int, int, int, int, int, tuple[_G, ...]]
# A way to fix one size's dealt 坎/垅: (free counts, quads, fixed hu, fixed 列).
# A joker search result: (joker index, pairs, pair mask, single mask, 列 count, hu, 列).
_J = tuple[int, int, int, int, int, int, tuple[_G, ...]]
_Branch = tuple[tuple[int, ...], int, int, tuple[_G, ...]]
_Best = tuple[int, tuple[_G, ...]] | None


def _load_native() -> ModuleType | None:
    if os.environ.get("DAER_PURE_PYTHON"):
        return None
    try:
        from daer.hands import _fasthand  # type: ignore[attr-defined]  # noqa: PLC0415 — optional
    except ImportError:
        return None
    return _fasthand  # type: ignore[no-any-return]


_NATIVE = _load_native()
_native_slots = 0


class Evaluator:
    """Best-胡 search for one ruleset.  Use :func:`evaluator_for`.

    With the native accelerator built (``daer.hands._fasthand``) :meth:`best` and
    :meth:`waits` run there; ``native=False`` (or ``DAER_PURE_PYTHON=1``) keeps the
    cached pure-Python search, which gives the same 胡.
    """

    def __init__(self, rules: Ruleset, *, native: bool = True) -> None:
        global _native_slots  # noqa: PLW0603 — slots of the accelerator's table array
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
        # Every cached value holds only ints and tuples, which the garbage collector stops tracking.
        self._masks: tuple[dict[tuple[int, ...], tuple[int, int]], ...] = ({}, {})
        self._search_cache: tuple[dict[tuple[tuple[int, ...], int, int], tuple[_E, ...]], ...] = ({}, {})
        self._joker_cache: tuple[dict[tuple[tuple[int, ...], int, int], tuple[_J, ...]], ...] = ({}, {})
        self._fixed: tuple[dict[tuple[tuple[int, ...], int], tuple[_Branch, ...]], ...] = ({}, {})
        self._meld_hu: dict[Meld, tuple[int, int]] = {}
        self._native: ModuleType | None = None
        self._slot = -1
        if native and _NATIVE is not None and _native_slots < 32:
            self._slot = _native_slots
            _native_slots += 1
            runs = [self._run[k] for k in range(N_KINDS)]
            _NATIVE.set_table(self._slot, self._peng, self._kan, self._zhao, self._long, runs, self._w2710)
            self._native = _NATIVE

    @property
    def native(self) -> bool:
        """True when the native accelerator answers."""
        return self._native is not None

    # -- one size -------------------------------------------------------------------------------
    def _branches(self, c: tuple[int, ...], w: int, size: int) -> tuple[_Branch, ...]:
        """Ways to fix one size's dealt 坎/垅 (``w``: the winning card's index in it, or -1)."""
        if w < 0:
            if 3 not in c and 4 not in c:
                return ((c, 0, 0, ()),)
        elif c[w] < 2 and 3 not in c and 4 not in c:
            return (((*c[:w], c[w] + 1, *c[w + 1 :]), 0, 0, ()),)
        cache = self._fixed[size]
        hit = cache.get((c, w))
        if hit is not None:
            return hit
        base = size * 10
        fixed: list[_G] = []
        quads = 0
        free = list(c)
        for i, n in enumerate(c):
            if n >= 3 and i != w:
                k = base + i
                if n == 4:
                    fixed.append((_LONG, (k,) * 4, self._long[k]))
                    quads += 1
                else:
                    fixed.append((_KAN, (k,) * 3, self._kan[k]))
                free[i] = 0
        fixed_hu = sum(g[2] for g in fixed)
        out: list[_Branch] = []
        if w < 0:
            out.append((tuple(free), quads, fixed_hu, tuple(fixed)))
        elif c[w] == 3:
            k = base + w
            kept = list(free)
            kept[w] = 1
            kan: _G = (_KAN, (k,) * 3, self._kan[k])
            out.append((tuple(kept), quads, fixed_hu + kan[2], (*fixed, kan)))
            free[w] = 0
            zhao: _G = (_ZHAO, (k,) * 4, self._zhao[k])
            out.append((tuple(free), quads + 1, fixed_hu + zhao[2], (*fixed, zhao)))
        else:
            free[w] += 1
            out.append((tuple(free), quads, fixed_hu, tuple(fixed)))
        res = cache[(c, w)] = tuple(out)
        return res

    def _ge(self, free: tuple[int, ...], size: int) -> tuple[int, int]:
        """Bit masks of the numbers holding at least one / two free cards."""
        cache = self._masks[size]
        hit = cache.get(free)
        if hit is None:
            ge1 = ge2 = 0
            for i, n in enumerate(free):
                if n:
                    ge1 |= 1 << i
                    if n >= 2:
                        ge2 |= 1 << i
            hit = cache[free] = (ge1, ge2)
        return hit

    def _search(self, c: tuple[int, ...], jpa: int, jsa: int, size: int) -> tuple[_E, ...]:
        """Best decomposition of free counts for each (pairs, 绞 parts) combination."""
        cache = self._search_cache[size]
        key = (c, jpa, jsa)
        hit = cache.get(key)
        if hit is not None:
            return hit
        i = 0
        while i < 10 and c[i] == 0:
            i += 1
        if i == 10:
            res: tuple[_E, ...] = ((0, 0, 0, 0, 0, ()),)
            cache[key] = res
            return res
        base = size * 10
        k = base + i
        bit = 1 << i
        lst = list(c)
        best: dict[tuple[int, int, int], _E] = {}

        def take(cards: tuple[int, ...], group: _G | None, dp: int, djp: int, djs: int) -> None:
            for x in cards:
                lst[x] -= 1
            sub_c = tuple(lst)
            for x in cards:
                lst[x] += 1
            sub_jpa, sub_jsa = jpa, jsa
            if djp or djs:
                sub_jpa &= ~djp
                sub_jsa &= ~djs
            for p, jp, js, g, hu, groups in self._search(sub_c, sub_jpa, sub_jsa, size):
                np_ = p + dp
                if np_ > 1:
                    continue
                if group is not None:
                    e: _E = (np_, jp, js, g + 1, hu + group[2], (group, *groups))
                else:
                    e = (np_, jp | djp, js | djs, g, hu, groups)
                bk = (np_, e[1], e[2])
                old = best.get(bk)
                if old is None or e[4] > old[4]:
                    best[bk] = e

        if c[i] >= 3:
            take((i, i, i), (_PENG, (k, k, k), self._peng[k]), 0, 0, 0)
        if c[i] >= 2:
            take((i, i), (_PAIR, (k, k), 0), 1, 0, 0)
        if i <= 7 and c[i + 1] and c[i + 2]:
            take((i, i + 1, i + 2), (_RUN, (k, k + 1, k + 2), self._run[k]), 0, 0, 0)
        if i == 1 and c[6] and c[9]:
            take((1, 6, 9), (_RUN, (base + 1, base + 6, base + 9), self._w2710[size]), 0, 0, 0)
        if c[i] >= 2 and jpa & bit:
            take((i, i), None, 0, bit, 0)
        if jsa & bit:
            take((i,), None, 0, 0, bit)
        res = cache[key] = tuple(best.values())
        return res

    # -- joining the sizes ----------------------------------------------------------------------
    def _join(
        self,
        small: tuple[_Branch, ...],
        big: tuple[_Branch, ...],
        need: int,
        mq: int,
    ) -> tuple[int, tuple[_G, ...]] | None:
        """Best full arrangement from each size's branches: (hu, 列) or None."""
        pwq = self.pair_with_quad
        best_hu = -1
        pick: tuple[_Branch, _E, _Branch, _E] | None = None
        search = self._search
        for bs in small:
            s1, s2 = self._ge(bs[0], 0)
            for bb in big:
                b1, b2 = self._ge(bb[0], 1)
                a = s2 & b1  # numbers where a 绞 may take two small and one big
                b = b2 & s1  # … two big and one small
                es = search(bs[0], a, b & s1, 0)
                if not es:
                    continue
                eb = search(bb[0], b, a & b1, 1)
                q = mq + bs[1] + bb[1]
                pairs = 1 if q and pwq else 0
                g_need = need - len(bs[3]) - len(bb[3])
                base_hu = bs[2] + bb[2]
                for e in es:
                    for f in eb:
                        if f[1] != e[2] or f[2] != e[1] or e[0] + f[0] != pairs:
                            continue
                        if e[3] + f[3] + e[1].bit_count() + e[2].bit_count() != g_need:
                            continue
                        hu = base_hu + e[4] + f[4]
                        if hu > best_hu:
                            best_hu = hu
                            pick = (bs, e, bb, f)
        if pick is None:
            return None
        bs, e, bb, f = pick
        jiao: list[_G] = []
        for n in range(10):
            if e[1] >> n & 1:
                jiao.append((_JIAO, (n, n, n + 10), 0))
            if e[2] >> n & 1:
                jiao.append((_JIAO, (n, n + 10, n + 10), 0))
        return best_hu, (*bs[3], *e[5], *bb[3], *f[5], *jiao)

    # -- whole hand -----------------------------------------------------------------------------
    def melds_info(self, melds: tuple[Meld, ...]) -> tuple[int, int]:
        """(胡 of the table melds, how many are quads)."""
        hu = quads = 0
        cache = self._meld_hu
        for m in melds:
            hit = cache.get(m)
            if hit is None:
                g = m.to_group(self.rules.hu)
                hit = cache[m] = (g.hu, 1 if len(g.cards) == 4 else 0)
            hu += hit[0]
            quads += hit[1]
        return hu, quads

    def best(self, hand: Counts, melds: tuple[Meld, ...] = (), win: int | None = None) -> _Best:
        """Most-胡 arrangement of the hand's own cards (melds not among the 列), or None."""
        meld_hu, mq = self.melds_info(melds) if melds else (0, 0)
        return self.best_given(hand, win, len(melds), meld_hu, mq)

    def best_given(self, hand: Counts, win: int | None, melds: int, meld_hu: int, meld_quads: int) -> _Best:
        """:meth:`best` for a caller that already knows the table melds' number, 胡 and quads
        (:meth:`melds_info`), e.g. remembered per meld by the calculator's batch path."""
        if self._native is not None:
            got = self._native.best(self._slot, hand, -1 if win is None else win, meld_quads, self.groups - melds,
                                    self.pair_with_quad)
            return None if got is None else (got[0] + meld_hu, got[1])
        ws = wb = -1
        if win is not None:
            if win < 10:
                ws = win
            else:
                wb = win - 10
        res = self._join(
            self._branches(hand[:10], ws, 0), self._branches(hand[10:], wb, 1), self.groups - melds, meld_quads
        )
        if res is None:
            return None
        return res[0] + meld_hu, res[1]

    def _jsearch(self, c: tuple[int, ...], jpa: int, jsa: int, size: int) -> tuple[_J, ...]:
        """Like :meth:`_search` with one joker card — the card waited for — used exactly once.

        Entries are (joker index, pairs, 绞 pair mask, 绞 single mask, 列 count, hu, 列).
        """
        cache = self._joker_cache[size]
        key = (c, jpa, jsa)
        hit = cache.get(key)
        if hit is not None:
            return hit
        base = size * 10
        best: dict[tuple[int, int, int, int], _J] = {}

        def keep(e: _J) -> None:
            bk = (e[0], e[1], e[2], e[3])
            old = best.get(bk)
            if old is None or e[5] > old[5]:
                best[bk] = e

        i = 0
        while i < 10 and c[i] == 0:
            i += 1
        if i == 10:
            # the joker alone is the single card of a 绞 whose pair lies in the other size
            for n in range(10):
                if jsa >> n & 1:
                    keep((n, 0, 0, 1 << n, 0, 0, ()))
            res = cache[key] = tuple(best.values())
            return res
        k = base + i
        bit = 1 << i
        lst = list(c)

        def rest(cards: tuple[int, ...]) -> tuple[int, ...]:
            for x in cards:
                lst[x] -= 1
            out = tuple(lst)
            for x in cards:
                lst[x] += 1
            return out

        def with_joker(cards: tuple[int, ...], w: int, group: _G | None, dp: int, djp: int) -> None:
            # the joker completes this group; the rest is searched without it
            for p, jp, js, g, hu, groups in self._search(rest(cards), jpa & ~djp, jsa, size):
                if p + dp > 1:
                    continue
                if group is None:
                    keep((w, p + dp, jp | djp, js, g, hu, groups))
                else:
                    keep((w, p + dp, jp, js, g + 1, hu + group[2], (group, *groups)))

        def without_joker(cards: tuple[int, ...], group: _G | None, dp: int, djp: int, djs: int) -> None:
            for w, p, jp, js, g, hu, groups in self._jsearch(rest(cards), jpa & ~djp, jsa & ~djs, size):
                if p + dp > 1 or jp & djp or js & djs:
                    continue
                if group is None:
                    keep((w, p + dp, jp | djp, js | djs, g, hu, groups))
                else:
                    keep((w, p + dp, jp, js, g + 1, hu + group[2], (group, *groups)))

        n_i = c[i]
        # groups of the lowest card without the joker
        if n_i >= 3:
            without_joker((i, i, i), (_PENG, (k, k, k), self._peng[k]), 0, 0, 0)
        if n_i >= 2:
            without_joker((i, i), (_PAIR, (k, k), 0), 1, 0, 0)
        if i <= 7 and c[i + 1] and c[i + 2]:
            without_joker((i, i + 1, i + 2), (_RUN, (k, k + 1, k + 2), self._run[k]), 0, 0, 0)
        if i == 1 and c[6] and c[9]:
            without_joker((1, 6, 9), (_RUN, (base + 1, base + 6, base + 9), self._w2710[size]), 0, 0, 0)
        if n_i >= 2 and jpa & bit:
            without_joker((i, i), None, 0, bit, 0)
        if jsa & bit:
            without_joker((i,), None, 0, 0, bit)
        # groups of the lowest card completed by the joker
        if n_i == 2:
            with_joker((i, i), i, (_PENG, (k, k, k), self._peng[k]), 0, 0)
        if n_i == 1:
            with_joker((i,), i, (_PAIR, (k, k), 0), 1, 0)
            if jpa & bit:
                with_joker((i,), i, None, 0, bit)
        if i <= 7:
            if c[i + 2]:
                with_joker((i, i + 2), i + 1, (_RUN, (k, k + 1, k + 2), self._run[k]), 0, 0)
            if c[i + 1]:
                with_joker((i, i + 1), i + 2, (_RUN, (k, k + 1, k + 2), self._run[k]), 0, 0)
        if 1 <= i <= 8 and c[i + 1]:
            with_joker((i, i + 1), i - 1, (_RUN, (k - 1, k, k + 1), self._run[k - 1]), 0, 0)
        run2710 = (_RUN, (base + 1, base + 6, base + 9), self._w2710[size])
        if i == 1:
            if c[9]:
                with_joker((1, 9), 6, run2710, 0, 0)
            if c[6]:
                with_joker((1, 6), 9, run2710, 0, 0)
        if i == 6 and c[9]:
            with_joker((6, 9), 1, run2710, 0, 0)
        res = cache[key] = tuple(best.values())
        return res

    def waits(self, hand: Counts, melds: tuple[Meld, ...], available: Sequence[int]) -> list[tuple[int, int]]:
        """(kind, best 胡) for every kind with ``available[kind] > 0`` that completes the hand.

        In pure Python: one search with a joker per size instead of one evaluation per kind.
        """
        meld_hu, mq = self.melds_info(melds) if melds else (0, 0)
        if self._native is not None:
            native = self._native.waits(
                self._slot, hand, mq, self.groups - len(melds), self.pair_with_quad, available
            )
            return [(w, hu + meld_hu) for w, hu in native]
        need = self.groups - len(melds)
        (fs, qs, hs, xs), = self._branches(hand[:10], -1, 0)
        (fb, qb, hb, xb), = self._branches(hand[10:], -1, 1)
        s1, s2 = self._ge(fs, 0)
        b1, b2 = self._ge(fb, 1)
        q = mq + qs + qb
        pairs = 1 if q and self.pair_with_quad else 0
        g_need = need - len(xs) - len(xb)
        found: dict[int, int] = {}
        # the waited card is small: small gets the joker; 绞 masks are permissive, matching is exact
        sides = (
            (0, self._jsearch(fs, s1 & b1, b2, 0), self._search(fb, b2, b1 & s1, 1)),
            (10, self._jsearch(fb, b1 & s1, s2, 1), self._search(fs, s2, s1 & b1, 0)),
        )
        for base, jokers, others in sides:
            for e in jokers:
                w = base + e[0]
                if not available[w]:
                    continue
                for f in others:
                    if f[1] != e[3] or f[2] != e[2] or e[1] + f[0] != pairs:
                        continue
                    if e[4] + f[3] + e[2].bit_count() + e[3].bit_count() != g_need:
                        continue
                    hu = e[5] + f[4]
                    if hu > found.get(w, -1):
                        found[w] = hu
        fixed_hu = hs + hb + meld_hu
        out = {w: hu + fixed_hu for w, hu in found.items()}
        # a dealt 坎 may take the waited card as a 招 (which also changes the pair rule)
        for k in range(N_KINDS):
            if hand[k] == 3 and available[k]:
                res = self.best(hand, melds, k)
                if res is not None and res[0] > out.get(k, -1):
                    out[k] = res[0]
        return sorted(out.items())

    def expected_cards(self, hand: Counts, melds: tuple[Meld, ...]) -> int:
        """How many cards (hand, melds, winning card) a complete hand with these 垅/招 has."""
        quads = self.melds_info(melds)[1] + sum(1 for n in hand if n == 4)
        if quads and self.pair_with_quad:
            return 3 * self.groups - 1 + quads
        return 3 * self.groups + quads


_EVALUATORS: dict[tuple[object, ...], Evaluator] = {}
_BY_ID: dict[int, tuple[Ruleset, Evaluator]] = {}


def evaluator_for(rules: Ruleset) -> Evaluator:
    """The (cached) evaluator of a ruleset's 胡 table and win shape."""
    hit = _BY_ID.get(id(rules))
    if hit is not None and hit[0] is rules:  # the same object: skip hashing the whole 胡 table
        return hit[1]
    key = (rules.hu, rules.win.groups, rules.win.pair_with_quad)
    ev = _EVALUATORS.get(key)
    if ev is None:
        ev = _EVALUATORS[key] = Evaluator(rules)
    if len(_BY_ID) > 256:
        _BY_ID.clear()
    _BY_ID[id(rules)] = (rules, ev)  # holding the ruleset keeps its id from being reused
    return ev


def to_groups(raw: Sequence[_G]) -> tuple[Group, ...]:
    """Fast-path 列 as :class:`Group` objects."""
    return tuple(Group(KIND_CODES[code], cards, hu) for code, cards, hu in raw)
