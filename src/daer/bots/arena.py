"""Duplicate matches between bots (复式比赛): the same deals, the bots rotated through the seats.

Deal ``i`` is shuffled from ``random.Random(f"{seed}:{i}")`` with the dealer at seat
``i % seats`` (as in ``daer sim``).  The bots given fill the playing positions
(庄, 下家, 尾家, counted from the dealer); with fewer bots than positions the last
one fills the rest (``search,heuristic`` → search against two heuristics).  Every
deal is replayed once in each *distinct arrangement* of that line-up, so each
bot plays each position of each deal equally often and the luck of the cards
cancels.  Each bot is seeded from ``(seed, deal, bot, position)`` and made afresh for
each deal, so a deal is an independent unit of work: ``--workers N`` and ``--ray``
play the deals elsewhere (:mod:`daer.bots.spread`) and fold them in deal order, with
the same results as one process (only the timings differ).

A bot's score on a deal is its mean points over the hands it played in that deal;
the table reports the mean over deals with a 95% confidence interval (normal
approximation, 1.96 standard errors over deals, which are independent), and for
each pair of bots the mean per-deal difference with its own interval (a paired
comparison: far tighter than the two intervals apart).
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from daer.bots import make_bot
from daer.bots.base import Bot, Omniscient
from daer.bots.spread import spread
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


def play_deal(rules: Ruleset, names: Sequence[str], lus: Sequence[tuple[str, ...]], seed: int | str,
              deal: int) -> DealResult:
    """Play deal ``deal`` once in each arrangement ``lus`` of the bots ``names``.

    Everything random comes from ``(seed, deal)``: the shuffle from ``f"{seed}:{deal}"``
    and each bot from ``f"{seed}:{deal}:{name}:{position}"`` (one bot a position, kept
    over the arrangements of this deal), so a deal gives the same result in any
    process, in any order — what lets ``daer arena --workers``/``--ray`` split the deals.
    """
    index = {b: i for i, b in enumerate(names)}
    n = len(names)
    sums, counts = [0.0] * n, [0] * n
    hands, wins, points, decisions = [0] * n, [0] * n, [0] * n, [0] * n
    think, think_max = [0.0] * n, [0.0] * n
    cache: dict[tuple[str, int], Bot | Omniscient] = {}

    def bot(name: str, pos: int) -> Bot | Omniscient:
        key = (name, pos)
        if key not in cache:  # measurement: the oracle may play here (and is handed the state, below)
            cache[key] = make_bot(name, f"{seed}:{deal}:{name}:{pos}", rules=rules, allow_oracle=True)
        return cache[key]

    dealer = deal % rules.table.seats
    order, _ = seats_of(rules, dealer)
    for lu in lus:
        seat_bot = {seat: lu[pos] for pos, seat in enumerate(order)}
        seat_obj = {seat: bot(lu[pos], pos) for pos, seat in enumerate(order)}
        full = {seat: b for seat, b in seat_obj.items() if isinstance(b, Omniscient)}
        state = new_hand(rules, seed=f"{seed}:{deal}", dealer=dealer)
        while not state.over:
            seat = state.to_act()[0]
            view = state.view(seat, log=False)
            t = time.perf_counter()
            oracle = full.get(seat)
            if oracle is not None:
                action = oracle.choose_full(state, seat)
            else:
                player = seat_obj[seat]
                assert not isinstance(player, Omniscient)
                action = player.choose(view)
            dt = time.perf_counter() - t
            if len(view.legal) > 1:
                i = index[seat_bot[seat]]
                decisions[i] += 1
                think[i] += dt
                think_max[i] = max(think_max[i], dt)
            state.apply(action)
        assert state.result is not None
        for seat, name in seat_bot.items():
            i = index[name]
            p = state.result.points[seat]
            sums[i] += p
            counts[i] += 1
            hands[i] += 1
            points[i] += p
            wins[i] += state.result.winner == seat
    return DealResult(
        deal=deal,
        per_hand=tuple(sums[i] / counts[i] for i in range(n)),
        hands=tuple(hands), wins=tuple(wins), points=tuple(points), decisions=tuple(decisions),
        think=tuple(think), think_max=tuple(think_max),
    )


def play_deals(rules: Ruleset, names: Sequence[str], lus: Sequence[tuple[str, ...]], seed: int | str,
               deals: Sequence[int]) -> list[DealResult]:
    """:func:`play_deal` for several deals, in order (one task of a pool or of Ray)."""
    return [play_deal(rules, names, lus, seed, d) for d in deals]


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


def arena(
    rules: Ruleset,
    bot_names: Sequence[str],
    deals: int,
    seed: int | str = 0,
    progress: Callable[[int, ArenaStats], None] | None = None,
    *,
    workers: int = 1,
    ray: str | None = None,
) -> ArenaStats:
    """Play ``deals`` deals, each in every arrangement of the bots, and collect the duplicate statistics.

    ``workers`` > 1 spreads the deals over that many processes; ``ray`` (an address,
    or ``"local"`` to start a local instance) runs them as Ray tasks instead.  Either
    way the results are folded in deal order, so everything but the timings is
    identical to one process for the same seed.
    """
    names = list(dict.fromkeys(bot_names))
    if len(names) != len(bot_names):
        raise ValueError("机器人不能重复 (name each bot once)")
    players = rules.table.players
    lus = lineups(names, players)
    stats = ArenaStats(rules=rules.name, seed=seed, lineups=lus, bots=[BotStats(b) for b in names])
    stats.diffs = {(i, j): Series() for i in range(len(names)) for j in range(i + 1, len(names))}
    start = time.perf_counter()
    work = functools.partial(play_deals, rules, tuple(names), tuple(lus), seed)
    for r in spread(work, deals, workers=workers, ray=ray):
        add_deal(stats, r)
        stats.seconds = time.perf_counter() - start
        if progress is not None:
            progress(stats.deals, stats)
    return stats
