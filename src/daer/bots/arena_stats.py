"""The arena's numbers: running means over deals, each bot's totals, and one deal's result.

Split from :mod:`daer.bots.arena` so that its log (:mod:`daer.bots.arena_log`) can read
and write a deal's result without the bots.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass
class Series:
    """Running mean and variance (Welford) of one number per deal."""

    n: int = 0
    mean: float = 0.0
    m2: float = 0.0

    def add(self, x: float) -> None:
        """Add one deal's value."""
        self.n += 1
        d = x - self.mean
        self.mean += d / self.n
        self.m2 += d * (x - self.mean)

    @property
    def ci95(self) -> float:
        """Half-width of the 95% confidence interval of the mean (normal approximation)."""
        if self.n < 2:
            return math.inf
        return 1.96 * math.sqrt(self.m2 / (self.n - 1) / self.n)


@dataclass
class HandTotals:
    """A player's hands, wins and points over a run (a bot of the arena, a row of ``daer sim``)."""

    bot: str
    hands: int = 0
    wins: int = 0
    points: int = 0

    @property
    def win_rate(self) -> float:
        """Wins per hand played."""
        return self.wins / self.hands if self.hands else 0.0


@dataclass
class BotStats(HandTotals):
    """One bot's totals over an arena."""

    score: Series = field(default_factory=Series)
    decisions: int = 0
    think: float = 0.0
    think_max: float = 0.0

    @property
    def sec_per_decision(self) -> float:
        """Mean seconds per decision with more than one legal action."""
        return self.think / self.decisions if self.decisions else 0.0


@dataclass
class ArenaStats:
    """Results of :func:`arena`."""

    rules: str
    seed: int | str
    lineups: list[tuple[str, ...]]
    deals: int = 0
    seconds: float = 0.0
    """Wall-clock seconds, over every sitting of a run resumed from its log."""
    resumed: int = 0
    """Deals read back from the log (:mod:`daer.bots.arena_log`) instead of played."""
    bots: list[BotStats] = field(default_factory=list)
    diffs: dict[tuple[int, int], Series] = field(default_factory=dict)
    """(i, j) → per-deal difference of bot i minus bot j."""

    @property
    def hands(self) -> int:
        """Hands played (deals × arrangements)."""
        return self.deals * len(self.lineups)

    def to_json(self) -> dict[str, object]:
        """The ``--json`` summary of ``daer arena``."""
        return {
            "rules": self.rules,
            "seed": self.seed,
            "deals": self.deals,
            "hands": self.hands,
            "lineups": [list(lu) for lu in self.lineups],
            "seconds": round(self.seconds, 1),
            "resumed": self.resumed,
            "bots": [
                {
                    "bot": b.bot,
                    "hands": b.hands,
                    "points_per_hand": round(b.score.mean, 4),
                    "ci95": _num(b.score.ci95),
                    "win_rate": round(b.win_rate, 4),
                    "decisions": b.decisions,
                    "sec_per_decision": round(b.sec_per_decision, 5),
                    "sec_per_decision_max": round(b.think_max, 5),
                }
                for b in self.bots
            ],
            "diffs": [
                {"bot": self.bots[i].bot, "vs": self.bots[j].bot, "points_per_hand": round(s.mean, 4),
                 "ci95": _num(s.ci95)}
                for (i, j), s in self.diffs.items()
            ],
        }


def _num(x: float) -> float | None:
    return None if math.isinf(x) else round(x, 4)


@dataclass(frozen=True)
class DealResult:
    """What one deal (in every arrangement) gave each bot: the unit of work of the arena.

    Lists are indexed like the bot names given to :func:`play_deal`.
    """

    deal: int
    per_hand: tuple[float, ...]
    """Each bot's mean points over the hands it played in this deal."""
    hands: tuple[int, ...]
    wins: tuple[int, ...]
    points: tuple[int, ...]
    decisions: tuple[int, ...]
    think: tuple[float, ...]
    think_max: tuple[float, ...]


def add_deal(stats: ArenaStats, r: DealResult) -> None:
    """Fold one deal's result into the totals (call in deal order: the means and CIs are then exact)."""
    for i, b in enumerate(stats.bots):
        b.score.add(r.per_hand[i])
        b.hands += r.hands[i]
        b.wins += r.wins[i]
        b.points += r.points[i]
        b.decisions += r.decisions[i]
        b.think += r.think[i]
        b.think_max = max(b.think_max, r.think_max[i])
    for (i, j), s in stats.diffs.items():
        s.add(r.per_hand[i] - r.per_hand[j])
    stats.deals += 1
