"""Seconds per decision of the search bot at its default budget (not a test).

Run: ``nice .venv/bin/python benchmarks/bench_search.py [--hands N] [--bot search]``.  The
bot plays one playing position of each seeded hand (rotating) against heuristic bots;
every decision with more than one legal action is timed.
"""

from __future__ import annotations

import argparse
import statistics
import time

from daer.bots import HeuristicBot, make_bot
from daer.engine import new_hand
from daer.rules import find_rules
from daer.scoring import seats_of


def main() -> None:
    """Play, time and print."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--bot", default="search")
    parser.add_argument("--rules", default="luzhou")
    args = parser.parse_args()
    rules = find_rules(args.rules)
    bot = make_bot(args.bot, 0, rules=rules)
    other = HeuristicBot(rules)
    times: list[float] = []
    worlds: list[int] = []
    for i in range(args.hands):
        dealer = i % rules.table.seats
        players, _ = seats_of(rules, dealer)
        me = players[i % len(players)]
        state = new_hand(rules, seed=f"bench-search:{i}", dealer=dealer)
        while not state.over:
            seat = state.to_act()[0]
            view = state.view(seat, log=False)
            if seat != me:
                state.apply(other.choose(view))
                continue
            t = time.perf_counter()
            action = bot.choose(view)
            if len(view.legal) > 1:
                times.append(time.perf_counter() - t)
                worlds.append(getattr(bot, "last_worlds", 0))
            state.apply(action)
    times.sort()
    print(f"{args.bot}: {len(times)} decisions in {args.hands} hands; seconds per decision: "
          f"mean {statistics.mean(times):.3f}, p95 {times[int(0.95 * (len(times) - 1))]:.3f}, max {times[-1]:.3f}; "
          f"worlds per searched decision: mean {statistics.mean([w for w in worlds if w] or [0]):.0f}")


if __name__ == "__main__":
    main()
