"""Hand evaluation speed, against the riichi ``mahjong`` library measured in the same run.

    .venv/bin/pip install -e '.[bench]'
    .venv/bin/python benchmarks/bench_hands.py            # ~1 minute
    .venv/bin/python benchmarks/bench_hands.py --quick    # smoke run

What is timed, all on one core in this process, every hand a new random one:

* ``daer best``: ``Evaluator.best`` — the most-胡 arrangement and its 胡 — on random complete
  hands (daer.hands.samples), with the native accelerator and with the pure-Python search
  (its caches start empty, so this is its cold rate);
* ``daer evaluate()``: the public function, which also checks the cards, builds ``Group``
  objects and uses the native accelerator when built;
* ``daer waits``: every completing kind with its 胡, on random positions one card short (a
  complete hand minus its winning card); ``waits()`` is the public function;
* ``mahjong estimate_hand_value``: ``HandCalculator.estimate_hand_value`` on random complete
  14-tile hands declared riichi (so every hand has a yaku and is scored in full);
* ``mahjong shanten``: ``Shanten.calculate_shanten`` on random 13-tile hands one tile short.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from daer.hands import evaluate, waits
from daer.hands.analysis import all_kinds
from daer.hands.evaluate import Evaluator
from daer.hands.samples import Sample, random_complete, random_one_short
from daer.rules import find_rules


def rate(fn: Callable[[Any], object], items: Sequence[Any]) -> float:
    """Items per second of ``fn`` over ``items``."""
    t = time.perf_counter()
    for item in items:
        fn(item)
    return len(items) / (time.perf_counter() - t)


def _complete_hands(rng: random.Random, n: int) -> list[list[int]]:
    """``n`` random complete 14-tile hands (four sets and a pair) as the mahjong library's tile ids."""

    def complete_hand() -> list[int]:
        while True:
            counts = [0] * 34
            for _ in range(4):
                if rng.random() < 0.4:
                    counts[rng.randrange(34)] += 3
                else:
                    suit, start = rng.randrange(3), rng.randrange(7)
                    for j in range(3):
                        counts[suit * 9 + start + j] += 1
            counts[rng.randrange(34)] += 2
            if max(counts) <= 4:
                return [k * 4 + i for k, c in enumerate(counts) for i in range(c)]

    return [complete_hand() for _ in range(n)]


def mahjong_rates(rng: random.Random, n: int) -> tuple[float, float]:
    """(estimate_hand_value/s, calculate_shanten/s) of the mahjong library."""
    from mahjong.hand_calculating.hand import HandCalculator
    from mahjong.hand_calculating.hand_config import HandConfig
    from mahjong.shanten import Shanten
    from mahjong.tile import TilesConverter

    hands = _complete_hands(rng, n)
    calc = HandCalculator()
    config = HandConfig(is_riichi=True)
    wins = [(h, h[rng.randrange(14)]) for h in hands]
    est = rate(lambda hw: calc.estimate_hand_value(hw[0], hw[1], config=config), wins)
    shanten = Shanten()
    short = []
    for hand in hands:
        tiles = list(hand)
        tiles.pop(rng.randrange(14))
        short.append(TilesConverter.to_34_array(tiles))
    sh = rate(shanten.calculate_shanten, short)
    return est, sh


def mahjong_samples(rng: random.Random, samples: int = 5, n: int = 1000, gap: float = 0.2) -> list[float]:
    """``samples`` timings of ``estimate_hand_value`` (calls a second, ``n`` calls each, ``gap`` seconds apart) on
    one set of random complete hands: the host's speed as the peer sees it over a second or two, not in one burst.

    Used as a yardstick beside a load's CPU per action (load_table.py, load_cluster.py, bench_writer.py): on a
    shared host one burst of calls ranged 5.7k-10.3k calls a second within a minute (2026-12-07, the same process
    and hands), so one sample, or the best of two, says more about that moment than about the host's speed during
    a load that ran for 30 s; their median does not."""
    from mahjong.hand_calculating.hand import HandCalculator
    from mahjong.hand_calculating.hand_config import HandConfig

    est, _ = mahjong_rates(rng, 200)  # imports and warms the library; its own rate is not kept
    del est
    calc = HandCalculator()
    config = HandConfig(is_riichi=True)
    hands = _complete_hands(rng, n)
    wins = [(h, h[rng.randrange(14)]) for h in hands]
    out = []
    for i in range(samples):
        if i:
            time.sleep(gap)
        out.append(rate(lambda hw: calc.estimate_hand_value(hw[0], hw[1], config=config), wins))
    return out


def peer_samples() -> list[float]:
    """:func:`mahjong_samples` in a fresh process (none without the ``bench`` extra): the load benchmarks time the
    peer before and after their load, and after it their own process holds thousands of closed sockets and a
    frozen heap, which slowed the peer there by up to a fifth."""
    code = ("import json, random, sys; sys.path.insert(0, sys.argv[1]); import bench_hands; "
            "print(json.dumps(bench_hands.mahjong_samples(random.Random(2026))))")
    done = subprocess.run([sys.executable, "-c", code, str(Path(__file__).resolve().parent)], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        if "No module named 'mahjong'" in done.stderr:  # the benchmark extra is optional
            return []
        raise RuntimeError(f"timing the peer failed: {done.stderr.strip()}")
    return [float(x) for x in json.loads(done.stdout)]


def daer_rates(rng: random.Random, n: int) -> dict[str, float]:
    rules = find_rules("luzhou")
    out: dict[str, float] = {}
    native = Evaluator(rules)
    python = Evaluator(rules, native=False)  # fresh caches: every measure below is "cold"
    for label, ev in (("native", native), ("python", python)):
        if label == "native" and not ev.native:
            continue
        hands = [random_complete(rng) for _ in range(n)]
        out[f"best ({label})"] = rate(lambda s, ev=ev: ev.best(s.hand, s.melds, s.win), hands)
        positions: list[tuple[Sample, list[int]]] = []
        for _ in range(n):
            s = random_one_short(rng)
            positions.append((s, [4 - c for c in all_kinds(s.hand, s.melds, None)]))
        out[f"waits ({label})"] = rate(lambda p, ev=ev: ev.waits(p[0].hand, p[0].melds, p[1]), positions)
    hands = [random_complete(rng) for _ in range(n)]
    out["evaluate()"] = rate(lambda s: evaluate(rules, s.hand, s.melds, s.win), hands)
    positions2 = [random_one_short(rng) for _ in range(n)]
    out["waits()"] = rate(lambda s: waits(rules, s.hand, s.melds), positions2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=50_000, help="timed hands per measurement")
    parser.add_argument("--peer-hands", type=int, default=5_000, help="hands for the mahjong library")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    args = parser.parse_args()
    if args.quick:
        args.hands, args.peer_hands = 2_000, 500
    rng = random.Random(args.seed)
    est, sh = mahjong_rates(rng, args.peer_hands)
    ours = daer_rates(rng, args.hands)
    print(f"# {time.strftime('%Y-%m-%d')}  Python {platform.python_version()}  {platform.machine()}")
    print(f"# {args.hands} timed hands each (every one a new random hand), seed {args.seed}")
    print(f"{'measure':32} {'per s':>10} {'ratio':>8}")
    print(f"{'mahjong estimate_hand_value':32} {est:10.0f} {'1.0':>8}")
    for key in ("best (native)", "best (python)", "evaluate()"):
        if key in ours:
            print(f"{'daer ' + key:32} {ours[key]:10.0f} {ours[key] / est:7.1f}x")
    print(f"{'mahjong calculate_shanten':32} {sh:10.0f} {'1.0':>8}")
    for key in ("waits (native)", "waits (python)", "waits()"):
        if key in ours:
            print(f"{'daer ' + key:32} {ours[key]:10.0f} {ours[key] / sh:7.1f}x")
    print("targets: daer best-胡 >= 10x estimate_hand_value; daer waits >= 1x calculate_shanten")


if __name__ == "__main__":
    main()
