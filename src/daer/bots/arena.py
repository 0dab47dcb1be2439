"""Duplicate matches between bots (复式比赛): the same deals, the bots rotated through the seats.

Deal ``i`` is shuffled from ``random.Random(f"{seed}:{i}")`` with the dealer at seat
``i % seats`` (as in ``daer sim``).  The bots given fill the playing positions
(庄, 下家, 尾家, counted from the dealer); with fewer bots than positions the last
one fills the rest (``search,heuristic`` → search against two heuristics).  Every
deal is replayed once in each *distinct arrangement* of that line-up, so each
bot plays each position of each deal equally often and the luck of the cards
cancels.

A bot's score on a deal is its mean points over the hands it played in that deal;
the table reports the mean over deals with a 95% confidence interval (normal
approximation, 1.96 standard errors over deals, which are independent), and for
each pair of bots the mean per-deal difference with its own interval (a paired
comparison: far tighter than the two intervals apart).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from daer.bots import make_bot
from daer.bots.base import Bot
from daer.engine.record import new_hand
from daer.rules.model import Ruleset
from daer.scoring import seats_of


def lineups(bots: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """Every distinct arrangement of the bots over the playing positions (the last bot fills up).

    >>> lineups(["search", "heuristic"], 3)
    [('search', 'heuristic', 'heuristic'), ('heuristic', 'search', 'heuristic'), ('heuristic', 'heuristic', 'search')]
    >>> len(lineups(["a", "b", "c"], 3))
    6
    """
    if not 1 <= len(bots) <= players:
        raise ValueError(f"需要 1 到 {players} 个机器人 (give 1 to {players} bots), got {len(bots)}")
    pattern = [*bots, *[bots[-1]] * (players - len(bots))]
    out: list[tuple[str, ...]] = []
    for perm in itertools.permutations(pattern):
        if perm not in out:
            out.append(perm)
    return out


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
class BotStats:
    """One bot's totals over an arena."""

    bot: str
    score: Series = field(default_factory=Series)
    hands: int = 0
    wins: int = 0
    points: int = 0
    decisions: int = 0
    think: float = 0.0
    think_max: float = 0.0

    @property
    def win_rate(self) -> float:
        """Wins per hand played."""
        return self.wins / self.hands if self.hands else 0.0

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


def arena(
    rules: Ruleset,
    bot_names: Sequence[str],
    deals: int,
    seed: int | str = 0,
    progress: Callable[[int, ArenaStats], None] | None = None,
) -> ArenaStats:
    """Play ``deals`` deals, each in every arrangement of the bots, and collect the duplicate statistics."""
    names = list(dict.fromkeys(bot_names))
    if len(names) != len(bot_names):
        raise ValueError("机器人不能重复 (name each bot once)")
    players = rules.table.players
    lus = lineups(names, players)
    stats = ArenaStats(rules=rules.name, seed=seed, lineups=lus, bots=[BotStats(b) for b in names])
    stats.diffs = {(i, j): Series() for i in range(len(names)) for j in range(i + 1, len(names))}
    index = {b: i for i, b in enumerate(names)}
    cache: dict[tuple[str, int], Bot] = {}

    def bot(name: str, pos: int) -> Bot:
        key = (name, pos)
        if key not in cache:
            cache[key] = make_bot(name, f"{seed}:{name}:{pos}", rules=rules)
        return cache[key]

    start = time.perf_counter()
    for d in range(deals):
        dealer = d % rules.table.seats
        order, _ = seats_of(rules, dealer)
        sums = [0.0] * len(names)
        counts = [0] * len(names)
        for lu in lus:
            seat_bot = {seat: lu[pos] for pos, seat in enumerate(order)}
            seat_obj = {seat: bot(lu[pos], pos) for pos, seat in enumerate(order)}
            state = new_hand(rules, seed=f"{seed}:{d}", dealer=dealer)
            while not state.over:
                seat = state.to_act()[0]
                view = state.view(seat, log=False)
                t = time.perf_counter()
                action = seat_obj[seat].choose(view)
                dt = time.perf_counter() - t
                if len(view.legal) > 1:
                    bs = stats.bots[index[seat_bot[seat]]]
                    bs.decisions += 1
                    bs.think += dt
                    bs.think_max = max(bs.think_max, dt)
                state.apply(action)
            assert state.result is not None
            for seat, name in seat_bot.items():
                i = index[name]
                p = state.result.points[seat]
                sums[i] += p
                counts[i] += 1
                bs = stats.bots[i]
                bs.hands += 1
                bs.points += p
                bs.wins += state.result.winner == seat
        per = [sums[i] / counts[i] for i in range(len(names))]
        for i, b in enumerate(stats.bots):
            b.score.add(per[i])
        for (i, j), s in stats.diffs.items():
            s.add(per[i] - per[j])
        stats.deals += 1
        stats.seconds = time.perf_counter() - start
        if progress is not None:
            progress(d + 1, stats)
    return stats
