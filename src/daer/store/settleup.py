"""The settle-up sheet's transfers (结算): the fewest payments that bring every net to zero.

Nets that add up to zero can always be settled in *n − 1* transfers (the largest debtor pays the largest
creditor, again and again: each payment clears at least one of the two).  Fewer are possible when the nets split
into groups that each add up to zero: a group of *k* settles within itself in *k − 1*, so the fewest transfers
are *n − g* for the most such groups *g*.  Found exactly for up to :data:`EXACT_UP_TO` non-zero nets (a
subset dynamic programme over orderings, 2^n · n steps: 49,152 for 12); past that the greedy answer is given.

>>> fewest_transfers({"a": -5, "b": 5, "c": -3, "d": 3})
[('c', 'd', 3), ('a', 'b', 5)]
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

EXACT_UP_TO = 12
"""Non-zero nets up to which the fewest transfers are found exactly."""


def _greedy(nets: list[tuple[K, int]]) -> list[tuple[K, K, int]]:
    """Largest debtor pays largest creditor until all are zero (``nets`` add up to zero)."""
    debt = sorted(((-v, k) for k, v in nets if v < 0), key=lambda x: -x[0])
    cred = sorted(((v, k) for k, v in nets if v > 0), key=lambda x: -x[0])
    out: list[tuple[K, K, int]] = []
    i = j = 0
    di, cj = (debt[0][0] if debt else 0), (cred[0][0] if cred else 0)
    while i < len(debt) and j < len(cred):
        pay = min(di, cj)
        out.append((debt[i][1], cred[j][1], pay))
        di, cj = di - pay, cj - pay
        if di == 0:
            i += 1
            di = debt[i][0] if i < len(debt) else 0
        if cj == 0:
            j += 1
            cj = cred[j][0] if j < len(cred) else 0
    return out


def _zero_groups(values: list[int]) -> list[list[int]]:
    """A partition of the indices of ``values`` (adding up to zero) into the most groups that each add up to
    zero.  ``best[mask]``: the most zero-sum prefixes of an ordering of ``mask``."""
    n = len(values)
    full = (1 << n) - 1
    total = [0] * (1 << n)
    for mask in range(1, 1 << n):
        low = mask & -mask
        total[mask] = total[mask ^ low] + values[low.bit_length() - 1]
    best = [0] * (1 << n)
    for mask in range(1, 1 << n):
        top, m = 0, mask
        while m:
            low = m & -m
            m ^= low
            top = max(top, best[mask ^ low])
        best[mask] = top + (total[mask] == 0)
    order: list[int] = []  # the ordering, last element first
    mask = full
    while mask:
        want = best[mask] - (total[mask] == 0)
        m = mask
        while m:
            low = m & -m
            m ^= low
            if best[mask ^ low] == want:
                order.append(low.bit_length() - 1)
                mask ^= low
                break
    order.reverse()
    groups: list[list[int]] = [[]]
    running = 0
    for i in order:
        groups[-1].append(i)
        running += values[i]
        if running == 0:
            groups.append([])
    return [g for g in groups if g]


def fewest_transfers(nets: Mapping[K, int]) -> list[tuple[K, K, int]]:
    """(payer, payee, amount) transfers that settle ``nets`` exactly (each payer's net rises by what they pay,
    each payee's falls by what they receive); the fewest possible for up to :data:`EXACT_UP_TO` non-zero nets.
    Raises ``ValueError`` when the nets do not add up to zero."""
    if sum(nets.values()) != 0:
        raise ValueError("nets must add up to zero")
    live = [(k, v) for k, v in nets.items() if v != 0]
    if len(live) > EXACT_UP_TO:
        return _greedy(live)
    out: list[tuple[K, K, int]] = []
    for group in _zero_groups([v for _, v in live]):
        out += _greedy([live[i] for i in group])
    return out


__all__ = ["EXACT_UP_TO", "fewest_transfers"]
