"""The heuristic bot (规则机器人): keeps 坎 and connected cards, claims well, and aims at 胡.

It sees only its view.  Claims: always 胡; 招 always; 碰 always; 吃 when the
eaten 列 scores 胡 or uses only loose cards.  Discards: the least connected card,
checking the waits (叫牌, via :func:`daer.hands.waits`) once the hand is close,
and preferring cards already seen (less likely to feed the next player).
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

from daer.bots.base import obvious
from daer.cards import N_KINDS, is_big, number_of, other_size
from daer.engine.actions import Action, Chi, Discard, Pass, Peng, Zhao
from daer.engine.claims import orphans
from daer.engine.views import View
from daer.hands import Meld, MeldKind
from daer.hands.evaluate import evaluator_for
from daer.hands.groups import run_hu
from daer.rules import find_rules
from daer.rules.model import HuTable, Ruleset

_RED_PARTNERS = {2: (7, 10), 7: (2, 10), 10: (2, 7)}


def _neighbours(k: int) -> tuple[tuple[int, int], ...]:
    """(kind, weight) of the same-size kinds that help ``k`` toward a 列: ±1 and ±2, 二七十 partners."""
    n = number_of(k)
    base = k - n + 1
    out = [(base + n + d - 1, w) for d, w in ((-1, 3), (1, 3), (-2, 2), (2, 2)) if 1 <= n + d <= 10]
    out += [(base + m - 1, 2) for m in _RED_PARTNERS.get(n, ())]
    return tuple(out)


_NEIGHBOURS = tuple(_neighbours(k) for k in range(N_KINDS))
_ALL_PARTNERS = tuple((*(p for p, _ in _NEIGHBOURS[k]), other_size(k)) for k in range(N_KINDS))


def connections(c: Sequence[int], k: int) -> int:
    """How well kind ``k`` fits the hand ``c`` (count vector, ``k`` itself included once)."""
    ck = c[k]
    if ck >= 3:
        return 100
    score = 6 * (ck - 1)
    for p, w in _NEIGHBOURS[k]:
        if 0 < c[p] < 3:
            score += w
    o = c[other_size(k)]
    if 0 < o < 3:
        score += 3 if ck >= 2 or o >= 2 else 2
    return score


_PARTNERS_OF = tuple(itemgetter(*ps, ps[0]) for ps in _ALL_PARTNERS)
"""Each kind's partners' entries of a list (the first twice: a tuple even for a kind with one partner)."""


def loose(c: Sequence[int]) -> int:
    """Cards with no partner at all (no pair, neighbour, 二七十 or other-size partner)."""
    mid = [0 < x < 3 for x in c]  # a partner: one or two cards of its kind (not a 坎)
    return sum([1 for k, x in enumerate(c) if x == 1 and not any(_PARTNERS_OF[k](mid))])


class HeuristicBot:
    """A fast rule-of-thumb player."""

    name = "heuristic"

    def __init__(self, rules: Ruleset | None = None, seed: int | str | None = None) -> None:
        self.rules = rules or find_rules()
        self._ev = evaluator_for(self.rules)
        self._wait_cache: dict[tuple[tuple[int, ...], tuple[Meld, ...]], tuple[tuple[int, float], ...]] = {}
        self.improving: dict[tuple[tuple[int, ...], tuple[Meld, ...]], tuple[int, ...]] = {}
        """The kinds that bring a hand nearer to 听, by hand and melds (filled by :mod:`daer.bots.features`,
        bounded there): kept on the bot, whose rules they depend on."""

    def choose(self, view: View) -> Action:
        """Pick an action for this view."""
        if (sure := obvious(view)) is not None:
            return sure
        legal = view.legal
        for a in legal:
            if isinstance(a, Zhao | Peng):
                return a
        if isinstance(legal[0], Discard):
            return self._discard(view)
        chis = [a for a in legal if isinstance(a, Chi)]
        if chis:
            best = self._chi(view, chis)
            if best is not None:
                return best
        for a in legal:
            if isinstance(a, Pass):
                return a
        return legal[0]

    # -- helpers --------------------------------------------------------------------------------
    @staticmethod
    def _counts(view: View) -> list[int]:
        c = [0] * N_KINDS
        for cid in view.hand:
            c[cid // 4] += 1
        return c

    @staticmethod
    def _melds(view: View) -> tuple[Meld, ...]:
        assert view.seat is not None
        return tuple(Meld(MeldKind(m.kind), m.kinds) for m in view.melds[view.seat])

    @staticmethod
    def _seen(view: View) -> list[int]:
        seen = [0] * N_KINDS
        for ms in view.melds:
            for m in ms:
                for k in m.kinds:
                    seen[k] += 1
        for _, k in view.discards:
            seen[k] += 1
        return seen

    def _wait_value(self, c: list[int], melds: tuple[Meld, ...], seen: list[int]) -> float:
        """Live winning cards weighted by their 胡 (0 when the hand waits for nothing that wins)."""
        total = 0.0
        for k, weight in self._find_winning_kinds(c, melds):  # not cached: a bot's own hands almost never repeat
            left = 4 - c[k] - seen[k]
            if left > 0:
                total += left * weight
        return total

    def _winning_kinds(self, c: list[int], melds: tuple[Meld, ...]) -> tuple[tuple[int, float], ...]:
        """:meth:`_find_winning_kinds`, cached by hand and melds (for callers that ask about the same hands again,
        like the learned bot's features): what depends on the cards seen (how many of each are left) is counted
        by the caller, so a cached entry never goes stale as more cards are seen."""
        key = (tuple(c), melds)
        hit = self._wait_cache.get(key)
        if hit is not None:
            return hit
        if len(self._wait_cache) > 50_000:
            self._wait_cache.clear()
        self._wait_cache[key] = found = self._find_winning_kinds(c, melds)
        return found

    def _find_winning_kinds(self, c: list[int], melds: tuple[Meld, ...]) -> tuple[tuple[int, float], ...]:
        """The kinds that would win this hand (胡 at least the minimum) with their weights (1 + 胡 / 20)."""
        wins: list[tuple[int, float]] = []
        min_hu = self.rules.win.min_hu
        if len(orphans(c)) <= 2:  # else no card completes the hand (orphans' docstring)
            # every kind the hand does not hold four of, in one search (the evaluator's waits: the same 胡 as one
            # evaluation per kind, tests/test_hands_native.py)
            for k, hu in self._ev.waits(tuple(c), melds, [int(n < 4) for n in c]):
                if hu >= min_hu:
                    wins.append((k, 1.0 + hu / 20.0))
        return tuple(wins)

    def _discard(self, view: View) -> Action:
        c = self._counts(view)
        seen = self._seen(view)
        scored: list[tuple[float, int, Action]] = []
        for a in view.legal:
            if not isinstance(a, Discard):
                continue
            k = a.kind
            keep: float = float(connections(c, k)) + is_big(k) + (number_of(k) in _RED_PARTNERS)
            keep -= 0.5 * seen[k]
            scored.append((keep, k, a))
        scored.sort(key=lambda t: (t[0], t[1]))
        if loose(c) == 0:
            melds = self._melds(view)
            best_a, best_v = scored[0][2], -1.0
            for kp, k, a in scored[:2]:
                if kp > scored[0][0] + 4:
                    break  # clearly worth keeping: not worth a wait search
                c[k] -= 1
                v = self._wait_value(c, melds, seen) - kp / 100.0
                c[k] += 1
                if v > best_v:
                    best_a, best_v = a, v
            return best_a
        return scored[0][2]

    def _chi(self, view: View, chis: list[Chi]) -> Chi | None:
        assert view.offer is not None
        c = self._counts(view)
        before = loose(c)
        t = self.rules.hu
        best: tuple[float, Chi] | None = None
        for a in chis:
            after = list(c)
            for k in a.hand:
                after[k] -= 1
            for g in a.bi:
                for k in g:
                    after[k] -= 1
            broke_pair = any(c[k] >= 2 for k in a.hand if k != view.offer.kind)
            meld_hu = _run_hu(t, (*a.hand, view.offer.kind))
            value = meld_hu / 3.0 + (before - loose(after)) - (2 if broke_pair else 0) - len(a.bi) * 0.5
            if value >= 0 and (best is None or value > best[0]):
                best = (value, a)
        return best[1] if best else None


def _run_hu(table: HuTable, kinds: tuple[int, ...]) -> int:
    s = sorted(kinds)
    if s[0] == s[1] or s[1] == s[2]:
        return 0
    return run_hu(table, s[0], s[1])
