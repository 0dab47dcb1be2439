"""Swiss pairing for tables of four (or of any size ``n``): pure, no I/O (docs/tournaments.md, "Pairing").

The Swiss libraries that are maintained (FIDE's Dutch system and its kin) pair *two* players a board; a 大贰
table seats four, so the pairing is our own, small enough to test against its rules:

1. Players are ranked by the standings so far (the first round: by registration order, or as given).
2. Tables are filled from the top: each table holds the best-ranked player not yet seated and the three others
   that are closest below them in the ranking, unless that would repeat a pair of table-mates of an earlier
   round; then the next-closest choice is tried (a depth-first search over the ranking, closest first).
3. A repeat is allowed only when no pairing without one exists (the search is exhaustive for small fields; past
   :data:`BUDGET` steps it allows one more repeated pair and searches again, closest first, so it always ends).

So in round one (no history) the tables are simply the ranking cut into fours; later rounds keep similar
standings together and never seat two players together again when it can be avoided.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations

BUDGET = 20_000
"""Search steps tried for one number of allowed repeats before allowing one more."""

Met = Mapping[tuple[int, int], int]
"""How many times each pair (``a < b``) sat at one table."""


def met_pairs(tables: Iterable[Sequence[int]]) -> Counter[tuple[int, int]]:
    """How many times each pair of players (``(a, b)`` with ``a < b``) sat at one table."""
    out: Counter[tuple[int, int]] = Counter()
    for t in tables:
        out.update((min(a, b), max(a, b)) for a, b in combinations(t, 2))
    return out


def repeats(table: Sequence[int], met: Met) -> int:
    """Earlier meetings of the pairs of ``table`` (a pair that met twice counts twice)."""
    return sum(met.get((min(a, b), max(a, b)), 0) for a, b in combinations(table, 2))


def pair(ranked: Sequence[int], met: Met, size: int = 4) -> list[list[int]]:
    """Tables of ``size`` for the players ``ranked`` (best first; ``len(ranked)`` a multiple of ``size``), with
    as few earlier meetings repeated as the search finds (none when none is needed, for any field the search
    exhausts)."""
    if len(ranked) % size:
        raise ValueError(f"{len(ranked)} players do not make tables of {size}")
    if len(set(ranked)) != len(ranked):
        raise ValueError("a player is ranked twice")
    seen = dict(met)
    allowed = 0
    while True:
        found = _search(list(ranked), seen, size, allowed)
        if found is not None:
            return found
        allowed += 1


def _search(ranked: list[int], met: Met, size: int, allowed: int) -> list[list[int]] | None:
    """Depth-first, closest standings first, one seat at a time: a pairing with at most ``allowed`` repeated
    pairs, or None (none exists, or none was found within :data:`BUDGET` steps)."""
    steps = 0
    tables: list[list[int]] = []

    def fill(table: list[int], rest: list[int], start: int, budget: int) -> bool:
        """Seat the table's next player from ``rest[start:]`` (closest first), then the next tables."""
        nonlocal steps
        if len(table) == size:
            tables.append(list(table))
            if go([p for p in rest if p not in table], budget):
                return True
            tables.pop()
            return False
        need = size - len(table)
        for i in range(start, len(rest) - need + 1):
            steps += 1
            if steps > BUDGET:
                return False
            p = rest[i]
            cost = sum(met.get((min(p, q), max(p, q)), 0) for q in table)
            if cost > budget:
                continue
            table.append(p)
            if fill(table, rest, i + 1, budget - cost):
                return True
            table.pop()
            if steps > BUDGET:
                return False
        return False

    def go(left: list[int], budget: int) -> bool:
        if not left:
            return True
        return fill([left[0]], left[1:], 0, budget)

    return tables if go(ranked, allowed) else None


def byes(ranked: Sequence[int], size: int, had: set[int]) -> list[int]:
    """Who sits a round out when the field does not fill tables (no bots allowed): the lowest ranked who have not
    sat out before (else the lowest ranked)."""
    k = len(ranked) % size
    if not k:
        return []
    fresh = [p for p in reversed(ranked) if p not in had]
    out = fresh[:k]
    out += [p for p in reversed(ranked) if p not in out][: k - len(out)]
    return out


__all__ = ["BUDGET", "byes", "met_pairs", "pair", "repeats"]
