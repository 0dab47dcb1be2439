"""Per-candidate 听 and feeding numbers for the learned bot (学习机器人的候选特征), from a seat's view only.

What a candidate leaves the hand is hard for the network to compute from the observation's counts: whether
the hand is then 听 (叫牌: one card from 胡), on how many kinds, how many of those cards are still live
(not in the seat's hand, a meld or a discard), and the most 胡 it can win with.  After a 吃, 碰 or 招 the
seat must discard next, so those numbers are the best over the discards that follow.  A discard also gets
numbers of what it offers the others: how many of its kind are seen, whether the next two seats discarded it
before, and how well it fits the hand (the heuristic bot's ``connections``).

:data:`MORE` numbers a candidate (:func:`candidate_more`).  The waits come from the heuristic bot's cached
search (:meth:`HeuristicBot._winning_kinds`, the hands layer's evaluator), so the numbers are those the
heuristic bot weighs, for every candidate rather than its top two discards.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from daer.bots.heuristic import HeuristicBot, connections, loose
from daer.cards import N_KINDS, is_big, number_of
from daer.engine.actions import Action, Bao, Chi, Discard, Peng, Zhao
from daer.engine.claims import may_fit, orphans
from daer.engine.views import View
from daer.hands import Meld, MeldKind

MORE = 18
"""Numbers a candidate adds in the "more" form (see :func:`candidate_more`)."""

Array = npt.NDArray[np.float32]

_WAIT = 6
"""Numbers of one waiting hand (:func:`_wait_numbers`)."""


def _wait_numbers(policy: HeuristicBot, c: list[int], melds: tuple[Meld, ...], seen: list[int]) -> list[float]:
    """听 (0/1), winning kinds / 5, live winning cards / 8, live cards weighted by their 胡 / 8, the most 胡
    among them / 20, loose cards / 5 — for the concealed hand ``c`` waiting with ``melds``.  A winning kind
    counts only if a copy of it is outside the seat's hand and melds (as ``daer.hands.waits`` has it)."""
    live = wlive = 0.0
    top = 0.0
    kinds = 0
    wins = policy._winning_kinds(c, melds)
    if wins:
        own = list(c)
        for m in melds:
            for k in m.cards:
                own[k] += 1
        for k, w in wins:
            if own[k] >= 4:
                continue
            kinds += 1
            left = max(0, 4 - c[k] - seen[k])
            live += left
            wlive += left * w
            top = max(top, (w - 1.0) * 20.0)
    return [float(kinds > 0), kinds / 5.0, live / 8.0, wlive / 8.0, top / 20.0, loose(c) / 5.0]


def _improvers(policy: HeuristicBot, c: list[int], melds: tuple[Meld, ...], seen: list[int]) -> tuple[float, float]:
    """For a hand not yet 听: the kinds that, taken into the hand (one that fits it: ``may_fit``), leave it 听
    after discarding one of its 3 least connected cards, / 10, and their live cards / 20 — how close the hand
    is to 听 (一向听), a cheap approximation."""
    kinds = live = 0
    for x in _improving_kinds(policy, c, melds):
        left = 4 - c[x] - seen[x]
        if left > 0:
            kinds += 1
            live += left
    return kinds / 10.0, live / 20.0


def _improving_kinds(policy: HeuristicBot, c: list[int], melds: tuple[Meld, ...]) -> tuple[int, ...]:
    """The kinds of :func:`_improvers`, whatever is seen, cached by hand and melds beside the policy's waits."""
    key = (tuple(c), melds)
    cache = policy.improving
    hit = cache.get(key)
    if hit is not None:
        return hit
    out = []
    for x in range(N_KINDS):
        if c[x] >= 3 or not may_fit(c, x):
            continue
        c[x] += 1
        drops = sorted((connections(c, d), d) for d in range(N_KINDS) if 0 < c[d] < 3 and d != x)[:3]
        hit_x = False
        for _, d in drops:
            c[d] -= 1
            hit_x = len(orphans(c)) <= 2 and bool(policy._winning_kinds(c, melds))
            c[d] += 1
            if hit_x:
                break
        c[x] -= 1
        if hit_x:
            out.append(x)
    if len(cache) > 20_000:
        cache.clear()
    cache[key] = found = tuple(out)
    return found


def _best_after_discard(policy: HeuristicBot, c: list[int], melds: tuple[Meld, ...], seen: list[int]) -> list[float]:
    """The :func:`_wait_numbers` of the best discard from ``c`` (most weighted live cards, then most kinds)."""
    best: list[float] | None = None
    for k in range(N_KINDS):
        if c[k] == 0 or c[k] >= 3:
            continue  # a 坎 is never discarded
        c[k] -= 1
        got = _wait_numbers(policy, c, melds, seen)
        c[k] += 1
        if best is None or (got[3], got[1], -got[5]) > (best[3], best[1], -best[5]):
            best = got
    return best if best is not None else [0.0] * _WAIT


def candidate_more(view: View, cands: list[Action], policy: HeuristicBot, n: int = MORE) -> Array:
    """:data:`MORE` numbers for each candidate of ``view`` (rows in the order of ``cands``); with ``n`` below
    :data:`MORE`, the numbers past the first ``n`` are left 0 (not computed).

    0-5: the waiting hand after the candidate (after a discard or 过: the hand as it is then; after a 吃 / 碰
    / 招: the best of the discards that follow) — 听, kinds, live cards, weighted live cards, most 胡,
    loose cards; 6: 听 before the candidate (the hand as dealt to this decision, for a claim);
    7: the 胡 of the 列 the claim lays down / 6; 8-13: a discard's kind: seen copies / 4, copies still unseen
    / 4, discarded before by the next seat, by the one after (0/1), its ``connections`` / 10, big (1) + 二七十 (0.5);
    14: a claim (吃 / 碰 / 招); 15: 过; 16-17 (a discard or 过 that leaves the hand not 听): the kinds that
    would make it 听 (taken in, then the best discard) / 10 and their live cards / 20.
    """
    assert view.seat is not None
    c = [0] * N_KINDS
    for cid in view.hand:
        c[cid // 4] += 1
    melds = policy._melds(view)
    seen = policy._seen(view)
    if view.offer is not None:
        seen[view.offer.kind] += 1
    seats = len(view.melds)
    nxt = [{k for s, k in view.discards if s == (view.seat + d) % seats} for d in (1, 2)]
    ting_now = 0.0
    if not isinstance(cands[0], Discard | Bao):
        ting_now = _wait_numbers(policy, c, melds, seen)[0]
    out = np.zeros((len(cands), MORE), dtype=np.float32)
    for r, a in enumerate(cands):
        row = out[r]
        row[6] = ting_now
        if isinstance(a, Discard | Bao):
            k = a.kind
            c[k] -= 1
            row[:_WAIT] = _wait_numbers(policy, c, melds, seen)
            if not row[0] and n > 16:
                row[16:18] = _improvers(policy, c, melds, seen)
            c[k] += 1
            row[8] = seen[k] / 4.0
            row[9] = max(0, 4 - c[k] - seen[k]) / 4.0
            row[10] = k in nxt[0]
            row[11] = k in nxt[1]
            row[12] = min(connections(c, k), 20) / 10.0
            row[13] = is_big(k) + 0.5 * (number_of(k) in (2, 7, 10))
        elif isinstance(a, Chi | Peng | Zhao) and view.offer is not None:
            k = view.offer.kind
            after = list(c)
            new: list[Meld] = []
            if isinstance(a, Peng):
                after[k] -= 2
                new.append(Meld(MeldKind.PENG, (k, k, k)))
            elif isinstance(a, Zhao):
                after[k] -= 3
                new.append(Meld(MeldKind.ZHAO, (k, k, k, k)))
            else:
                for h in a.hand:
                    after[h] -= 1
                new.append(Meld(MeldKind.CHI, (*a.hand, k)))
                for g in a.bi:
                    for h in g:
                        after[h] -= 1
                    new.append(Meld(MeldKind.CHI, g))
            if min(after) >= 0:
                row[:_WAIT] = _best_after_discard(policy, after, (*melds, *new), seen)
            row[7] = sum(m.to_group(policy.rules.hu).hu for m in new) / 6.0
            row[14] = 1.0
        else:  # 过 (or anything else that leaves the hand as it is)
            row[:_WAIT] = _wait_numbers(policy, c, melds, seen)
            if not row[0] and n > 16:
                row[16:18] = _improvers(policy, c, melds, seen)
            row[15] = 1.0
    return out


__all__ = ["MORE", "candidate_more"]
