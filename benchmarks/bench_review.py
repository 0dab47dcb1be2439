"""Seconds per 复盘 (review) of a whole hand, against the search bot deciding the same decisions (not a test).

Run: ``nice .venv/bin/python benchmarks/bench_review.py [--hands 4] [--worlds 32] [--seed 1]``.  Per preset,
``--hands`` hands are played by the heuristic bot (seeded ``bench-review:{seed}:{preset}:{hand}``); one seat of each
(rotating) is reviewed with ``--worlds`` worlds a decision, and, as the peer in the same run, the search bot
(``search:{worlds}``, no clock) chooses at each of the same decisions from the same views.  Prints, per preset and
over all: the decisions reviewed, the median and largest seconds of a whole hand's review, the seconds a decision
of the review and of the search bot, and their ratio (the review weighs the search bot's candidates plus the 提示
choice and the played action, and words each option).  Seconds are CPU seconds of this process
(``time.process_time``): both are one core's work, and on a shared machine its wall time measures the neighbours.
"""

from __future__ import annotations

import argparse
import statistics
import time

from daer.bots import HeuristicBot, SearchBot
from daer.bots.review import review
from daer.engine import HandRecord, new_hand, record_of, replay
from daer.engine.views import View
from daer.rules import find_rules, preset_names


def hand_of(name: str, seed: int, hand: int) -> HandRecord:
    """A hand of preset ``name`` played by the heuristic bot."""
    rules = find_rules(name)
    tag = f"bench-review:{seed}:{name}:{hand}"
    st = new_hand(rules, seed=tag, dealer=hand % rules.table.seats)
    bot = HeuristicBot(rules)
    while not st.over:
        s = st.to_act()[0]
        st.apply(bot.choose(st.view(s, log=False)))
    return record_of(st, rules=name, seed=tag)


def views_of(rec: HandRecord, seat: int) -> list[View]:
    """The seat's views at its decisions with a choice (the ones a review values)."""
    st = replay(rec, upto=0)
    out = []
    for act in rec.actions:
        if act.seat == seat:
            v = st.view(seat, log=False)
            if len(v.legal) > 1:
                out.append(v)
        st.apply(act)
    return out


def main() -> None:
    """Play, review, search and print."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=4)
    parser.add_argument("--worlds", type=int, default=32)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print("| preset | hands | decisions | median s a review | max s a review | ms a decision: review | "
          "search | ratio |\n|---|---:|---:|---:|---:|---:|---:|---:|")
    all_r: list[float] = []
    all_n = 0
    all_s = 0.0
    for name in preset_names():
        rules = find_rules(name)
        reviews: list[float] = []
        n = 0
        search_s = 0.0
        for hand in range(args.hands):
            rec = hand_of(name, args.seed, hand)
            players = replay(rec, upto=0).players
            seat = players[hand % len(players)]
            t = time.process_time()
            rev = review(rec, seat, rules=rules, worlds=args.worlds)
            reviews.append(time.process_time() - t)
            n += len(rev.decisions)
            bot = SearchBot(rules, f"peer:{hand}", worlds=args.worlds, seconds=None)
            for v in views_of(rec, seat):
                t = time.process_time()
                bot.choose(v)
                search_s += time.process_time() - t
        per_r, per_s = sum(reviews) / max(1, n) * 1e3, search_s / max(1, n) * 1e3
        print(f"| {name} | {len(reviews)} | {n} | {statistics.median(reviews):.2f} | {max(reviews):.2f} | "
              f"{per_r:.1f} | {per_s:.1f} | {per_r / per_s:.2f} |")
        all_r += reviews
        all_n += n
        all_s += search_s
    per_r, per_s = sum(all_r) / max(1, all_n) * 1e3, all_s / max(1, all_n) * 1e3
    print(f"| all | {len(all_r)} | {all_n} | {statistics.median(all_r):.2f} | {max(all_r):.2f} | {per_r:.1f} | "
          f"{per_s:.1f} | {per_r / per_s:.2f} |")


if __name__ == "__main__":
    main()
