"""Milliseconds per 提示 (hint) over random views of every preset (not a test).

Run: ``nice .venv/bin/python benchmarks/bench_hint.py [--views 300] [--seed 1]``.  Hands are played as ``daer sim``
plays them with random bots (seeded per hand: ``bench-hint:{seed}:{preset}:{hand}``), every view of a seat that
has something to decide is kept until ``--views`` per preset, then each is hinted once by a fresh
:class:`daer.bots.hint.Hinter` of that preset (its caches start empty, as in a new server process) and timed.
Prints the median, 99th percentile and maximum per preset, and over all.
"""

from __future__ import annotations

import argparse
import statistics
import time

from daer.bots import RandomBot
from daer.bots.hint import Hinter
from daer.engine import new_hand
from daer.engine.views import View
from daer.rules import find_rules, preset_names


def views_of(name: str, n: int, seed: int) -> list[View]:
    """``n`` views of seats with a decision, from random play of preset ``name``."""
    rules = find_rules(name)
    out: list[View] = []
    hand = 0
    while len(out) < n:
        st = new_hand(rules, seed=f"bench-hint:{seed}:{name}:{hand}", dealer=hand % rules.table.seats)
        bots = [RandomBot(f"{seed}:{hand}:{s}") for s in range(rules.table.seats)]
        hand += 1
        while not st.over and len(out) < n:
            s = st.to_act()[0]
            view = st.view(s, log=False)
            out.append(view)
            st.apply(bots[s].choose(view))
    return out


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def main() -> None:
    """Play, time and print."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--views", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    every: list[float] = []
    print("| preset | views | median ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|")
    for name in preset_names():
        views = views_of(name, args.views, args.seed)
        hinter = Hinter(find_rules(name))
        times = []
        for v in views:
            t = time.perf_counter()
            hinter.hint(v)
            times.append((time.perf_counter() - t) * 1e3)
        every += times
        print(f"| {name} | {len(times)} | {statistics.median(times):.2f} | {pct(times, 0.99):.2f} | {max(times):.2f} |")
    print(f"| all | {len(every)} | {statistics.median(every):.2f} | {pct(every, 0.99):.2f} | {max(every):.2f} |")


if __name__ == "__main__":
    main()
