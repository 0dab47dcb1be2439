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
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from daer.bots import make_bot
from daer.bots.arena_log import ArenaLog, ArenaLogError
from daer.bots.arena_stats import ArenaStats, BotStats, DealResult, Series, add_deal
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


def arena(
    rules: Ruleset,
    bot_names: Sequence[str],
    deals: int,
    seed: int | str = 0,
    progress: Callable[[int, ArenaStats], None] | None = None,
    *,
    workers: int = 1,
    ray: str | None = None,
    log: Path | None = None,
) -> ArenaStats:
    """Play ``deals`` deals, each in every arrangement of the bots, and collect the duplicate statistics.

    ``workers`` > 1 spreads the deals over that many processes; ``ray`` (an address,
    or ``"local"`` to start a local instance) runs them as Ray tasks instead.  Either
    way the results are folded in deal order, so everything but the timings is
    identical to one process for the same seed.  ``log`` names a file that keeps every
    finished deal (:mod:`daer.bots.arena_log`): the deals already in it are read back,
    not played, so a stopped run goes on where it was (``ArenaLogError`` if the file
    belongs to another ruleset, line-up or seed).
    """
    names = list(dict.fromkeys(bot_names))
    if len(names) != len(bot_names):
        raise ValueError("机器人不能重复 (name each bot once)")
    players = rules.table.players
    lus = lineups(names, players)
    stats = ArenaStats(rules=rules.name, seed=seed, lineups=lus, bots=[BotStats(b) for b in names])
    stats.diffs = {(i, j): Series() for i in range(len(names)) for j in range(i + 1, len(names))}
    book = ArenaLog(log, rules.name, names, seed) if log is not None else None
    done = {d: r for d, r in book.done.items() if d < deals} if book is not None else {}
    stats.resumed = len(done)
    before = book.seconds_before if book is not None else 0.0
    start = time.perf_counter()
    work = functools.partial(play_deals, rules, tuple(names), tuple(lus), seed)
    todo = [d for d in range(deals) if d not in done]
    # With a log, one deal a task: a stopped run loses only the deals in flight.
    fresh = spread(work, todo, workers=workers, ray=ray, chunk_size=1 if book is not None else None)
    try:
        for d in range(deals):
            r = done.get(d)
            if r is None:
                r = next(fresh)
                assert r.deal == d, (r.deal, d)
                if book is not None:
                    book.write(r, time.perf_counter() - start)
            add_deal(stats, r)
            stats.seconds = before + time.perf_counter() - start
            if progress is not None:
                progress(stats.deals, stats)
    finally:
        fresh.close()
        if book is not None:
            book.close()
    return stats


__all__ = ["ArenaLogError", "ArenaStats", "BotStats", "DealResult", "Series", "add_deal", "arena", "lineups",
           "play_deal", "play_deals"]
