"""Duplicate scoring (复式计分) of a club tournament: pure arithmetic, no I/O (docs/tournaments.md).

Every table of a round plays the same decks in the same order.  Hand ``h`` (1-based) of table ``t`` (0-based) is
dealt by seat ``dealer_of(t, h, n)``: the deal passes one seat every hand (轮庄), and each table starts one seat
further on, so a deck's *positions* — counted from the dealer: 庄 0, 下家 1, … — are held by different seats at
different tables, and over ``n`` hands every seat of a table holds every position once.

A hand's duplicate score of a seat is its points minus the mean points of every seat that held the same deck in
the same position at the tables of the round (itself included).  Exact fractions throughout: the scores of one
deck position sum to zero over the tables that played it, which the tests check as a property.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction


def dealer_of(table: int, hand: int, seats: int) -> int:
    """The dealer of hand ``hand`` (1-based) at table ``table`` (0-based) of a round.

    >>> [dealer_of(0, h, 4) for h in range(1, 6)]
    [0, 1, 2, 3, 0]
    >>> [dealer_of(t, 1, 4) for t in range(5)]
    [0, 1, 2, 3, 0]
    """
    return (table + hand - 1) % seats


def position_of(seat: int, dealer: int, seats: int) -> int:
    """A seat's position counted from the dealer (庄 0, 下家 1, …)."""
    return (seat - dealer) % seats


@dataclass(frozen=True, slots=True)
class Played:
    """One seat's result of one hand of a round."""

    round: int
    table: int
    hand: int
    seat: int
    player: int | None
    """The player who held the seat (None: a bot)."""
    points: int
    dealer: int
    seats: int = 4
    auto: bool = False
    """The seat was played by 托管 at the hand's end."""

    @property
    def position(self) -> int:
        return position_of(self.seat, self.dealer, self.seats)


def duplicate(results: Iterable[Played], *, bots_count: bool = True) -> dict[tuple[int, int, int, int], Fraction]:
    """(round, table, hand, seat) → duplicate score: the points minus the mean of the same deck position.

    ``bots_count=False``: bots' seats are left out of the means (and get no score), so people are compared only
    with people; with True a bot's seat is a yardstick like any other.
    """
    groups: dict[tuple[int, int, int], list[Played]] = defaultdict(list)
    for r in results:
        if bots_count or r.player is not None:
            groups[(r.round, r.hand, r.position)].append(r)
    out: dict[tuple[int, int, int, int], Fraction] = {}
    for rows in groups.values():
        mean = Fraction(sum(r.points for r in rows), len(rows))
        for r in rows:
            out[(r.round, r.table, r.hand, r.seat)] = r.points - mean
    return out


@dataclass
class Standing:
    """One player's line of the standings."""

    player: int
    score: Fraction = Fraction(0)
    """The sum of their duplicate scores."""
    rounds: dict[int, Fraction] = field(default_factory=dict)
    """Duplicate score per round."""
    points: int = 0
    """Raw points (what the tables said)."""
    hands: int = 0
    beat: int = 0
    """Hands whose duplicate score was above zero (the first tie-break)."""
    auto: int = 0
    """Hands ended in 托管."""
    forfeits: list[int] = field(default_factory=list)
    """Rounds forfeited: every hand of theirs in it ended in 托管 (they never played it themselves)."""
    order: int = 0
    """Registration order (the last tie-break: earlier first)."""

    def key(self) -> tuple[Fraction, int, int, int]:
        """Sort key, best first: duplicate score, hands beaten, raw points, then who registered first."""
        return (-self.score, -self.beat, -self.points, self.order)

    def to_json(self) -> dict[str, object]:
        return {"player": self.player, "score": round(float(self.score), 2),
                "rounds": {str(k): round(float(v), 2) for k, v in sorted(self.rounds.items())},
                "points": self.points, "hands": self.hands, "beat": self.beat, "auto": self.auto,
                "forfeits": list(self.forfeits)}


def standings(players: Sequence[int], results: Iterable[Played], *, bots_count: bool = True) -> list[Standing]:
    """The standings of ``players`` (in registration order) over the results, best first (:meth:`Standing.key`).
    A player with no hand in a round scores 0 there: the mean, neither gained nor lost."""
    rows = list(results)
    scores = duplicate(rows, bots_count=bots_count)
    lines = {pid: Standing(pid, order=i) for i, pid in enumerate(players)}
    present: dict[tuple[int, int], bool] = {}
    """(player, round) → whether they played a hand of the round themselves (not all in 托管)."""
    for r in rows:
        line = lines.get(r.player) if r.player is not None else None
        if line is None:
            continue
        d = scores.get((r.round, r.table, r.hand, r.seat), Fraction(0))
        line.rounds[r.round] = line.rounds.get(r.round, Fraction(0)) + d
        line.points += r.points
        line.hands += 1
        line.beat += d > 0
        line.auto += r.auto
        present[(line.player, r.round)] = present.get((line.player, r.round), False) or not r.auto
    _forfeit(lines, present)
    for line in lines.values():
        line.score = sum(line.rounds.values(), Fraction(0))
    return sorted(lines.values(), key=Standing.key)


def _forfeit(lines: dict[int, Standing], present: dict[tuple[int, int], bool]) -> None:
    """A late player forfeits the round they never played (every hand of theirs in 托管): it scores the lowest of
    the round's scores of those who played it, or 0 if that is higher — never better than anyone who came, nor
    better than their bot did (their raw points stand: the table's settlement was real)."""
    for rnd in sorted({r for (_p, r) in present}):
        came = [lines[p].rounds[rnd] for (p, r), here in present.items() if r == rnd and here]
        floor = min([Fraction(0), *came])
        for (p, r), here in present.items():
            if r == rnd and not here:
                line = lines[p]
                line.rounds[rnd] = min(line.rounds[rnd], floor)
                line.forfeits.append(rnd)


def comparison(results: Iterable[Played], *, bots_count: bool = True) -> list[dict[str, object]]:
    """Every hand's comparison across the tables: per (round, hand, position) the points of each table's seat
    and its duplicate score ("the same cards at table 2 won 12 more"), in order."""
    rows = list(results)
    scores = duplicate(rows, bots_count=bots_count)
    groups: dict[tuple[int, int, int], list[Played]] = defaultdict(list)
    for r in rows:
        groups[(r.round, r.hand, r.position)].append(r)
    out: list[dict[str, object]] = []
    for (rnd, hand, pos), group in sorted(groups.items()):
        out.append({"round": rnd, "hand": hand, "position": pos, "tables": [
            {"table": r.table, "seat": r.seat, "player": r.player, "points": r.points, "auto": r.auto,
             "dup": None if (d := scores.get((rnd, r.table, hand, r.seat))) is None else round(float(d), 2)}
            for r in sorted(group, key=lambda r: r.table)]})
    return out


__all__ = ["Played", "Standing", "comparison", "dealer_of", "duplicate", "position_of", "standings"]
