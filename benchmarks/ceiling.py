"""The ceiling: how much of the oracle's margin over the heuristic bot each bot reaches, per preset (not a test).

Run: ``nice -n 19 .venv/bin/python benchmarks/ceiling.py --deals 150 --seed 23 --out runs/ceiling.jsonl``.

For each preset and each bot B of ``--bots`` (default ``oracle,search:24,learned``) it plays the duplicate arena
of B against two heuristic bots (:func:`daer.bots.arena.play_deals`: line-up ``B,heuristic``, every seating), on
the same deals (deal ``i`` shuffled from ``f"{seed}:{i}"``) for every bot.  Since the deals are the same, the
per-deal margins of two bots are paired, and it prints per preset:

- each bot's margin over the heuristic bot (points a hand, 95% interval over deals);
- each bot's **share of the oracle's margin**, (B − heuristic) / (oracle − heuristic), with a 95% interval by the
  delta method on the paired per-deal margins;
- the oracle's lead over each bot (oracle − B, paired per deal), and the time each arena took.

Where two arenas of a preset played different numbers of deals, the share and the lead pair the deals both played
(the first ones: deal ``i`` is the same deal in every arena).  Each (preset, bot) arena is appended to ``--out``
(JSON Lines: the per-deal margins) as soon as it is done, and a run started again with the same ``--out`` and seed
skips the arenas there (with any number of deals): an interrupted run still gives its figures.
``--workers N`` spreads the deals over N processes (the same figures; only the times differ).
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import time
from pathlib import Path
from typing import Any

from daer.bots.arena import lineups, play_deals
from daer.bots.review import mean_interval
from daer.bots.spread import spread
from daer.rules import find_rules, preset_names

Z = 1.96


def mean_ci(xs: list[float]) -> tuple[float, float]:
    """Mean and 95% half-width (normal approximation over independent deals)."""
    return mean_interval(xs, Z)


def share_ci(bot: list[float], oracle: list[float]) -> tuple[float, float]:
    """mean(bot) / mean(oracle) and its 95% half-width (delta method, per-deal pairs).

    >>> r, h = share_ci([1.0, 2.0, 3.0, 2.0], [4.0, 5.0, 6.0, 5.0])
    >>> round(r, 2), h < 0.2
    (0.4, True)
    """
    n = len(bot)
    mb, mo = sum(bot) / n, sum(oracle) / n
    r = mb / mo
    if n < 2:
        return r, math.inf
    # the ratio's variance: Var(b - r o) / (n mo²), b and o the paired per-deal margins
    resid = [b - r * o for b, o in zip(bot, oracle, strict=True)]
    mr = sum(resid) / n
    var = sum((x - mr) ** 2 for x in resid) / (n - 1)
    return r, Z * math.sqrt(var / n) / abs(mo)


def play(rules_name: str, bot: str, deals: int, seed: int, workers: int) -> dict[str, Any]:
    """The arena of ``bot`` against two heuristic bots: the per-deal margins and the timings."""
    rules = find_rules(rules_name)
    names = (bot, "heuristic")
    lus = tuple(lineups(list(names), rules.table.players))
    work = functools.partial(play_deals, rules, names, lus, seed)
    start = time.perf_counter()
    margins: list[float] = []
    decisions, think = 0, 0.0
    wins, hands = 0, 0
    for r in spread(work, deals, workers=workers):
        margins.append(r.per_hand[0] - r.per_hand[1])
        decisions += r.decisions[0]
        think += r.think[0]
        wins += r.wins[0]
        hands += r.hands[0]
    return {"rules": rules_name, "bot": bot, "seed": seed, "deals": deals, "margins": margins,
            "seconds": round(time.perf_counter() - start, 1), "win_rate": round(wins / hands, 4),
            "sec_per_decision": round(think / decisions, 5) if decisions else 0.0,
            "load": [round(x, 2) for x in os.getloadavg()]}


def report(rows: dict[tuple[str, str], dict[str, Any]], presets: list[str], bots: list[str]) -> str:
    """The table, one line per preset and bot (Markdown)."""
    out = ["| preset | bot | deals | bot − heuristic | share of the oracle's margin | oracle − bot | win rate "
           "| s/decision | minutes |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for p in presets:
        o = rows.get((p, "oracle"))
        for b in bots:
            row = rows.get((p, b))
            if row is None:
                continue
            m, h = mean_ci(row["margins"])
            share = gap = "—"
            if o is not None and b != "oracle":
                n = min(len(o["margins"]), len(row["margins"]))  # deal i is the same deal in every arena: pair
                bm, om = row["margins"][:n], o["margins"][:n]  # the deals both played (the first n)
                r, rh = share_ci(bm, om)
                share = f"{100 * r:.0f}% ± {100 * rh:.0f}%"
                g, gh = mean_ci([x - y for x, y in zip(om, bm, strict=True)])
                gap = f"{g:+.2f} ± {gh:.2f}"
            out.append(f"| {p} | {b} | {row['deals']} | {m:+.2f} ± {h:.2f} | {share} | {gap} | "
                       f"{100 * row['win_rate']:.1f}% | {row['sec_per_decision']:.4f} | {row['seconds'] / 60:.1f} |")
    return "\n".join(out)


def main() -> None:
    """Play what ``--out`` does not hold yet, then print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=150)
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--presets", default=",".join(preset_names()))
    parser.add_argument("--bots", default="oracle,search:24,learned")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("ceiling.jsonl"))
    args = parser.parse_args()
    presets = [p.strip() for p in args.presets.split(",") if p.strip()]
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    if args.out.exists():  # what an earlier run with this seed played: kept (the longest run of each arena)
        for line in args.out.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            key = (row["rules"], row["bot"])
            if row["seed"] == args.seed and row["deals"] > rows.get(key, {"deals": 0})["deals"]:
                rows[key] = row
    args.out.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    for p in presets:
        for b in bots:
            if (p, b) in rows:
                continue
            row = play(p, b, args.deals, args.seed, args.workers)
            rows[(p, b)] = row
            with args.out.open("a", encoding="utf-8") as f:
                f.write(json.dumps(row) + "\n")
            m, h = mean_ci(row["margins"])
            print(f"{p} {b}: {m:+.2f} ± {h:.2f} over {row['deals']} deals, {row['seconds']:.0f} s, "
                  f"load {row['load']}", flush=True)
    print(f"\nseed {args.seed}, {args.deals} deals a preset, this run {(time.perf_counter() - start) / 60:.1f} min\n")
    print(report(rows, presets, bots))


if __name__ == "__main__":
    main()
