"""Speed of the RL environment: learner steps and episodes per CPU second of ``DaerSingleEnv`` (not a test).

Run: ``.venv/bin/python benchmarks/bench_env.py [--seconds 8] [--rules luzhou] [--opponents heuristic]``, and
with ``DAER_MYPYC=0`` to time the compiled modules' source in the same session.  The learner picks uniformly
among the legal actions (``action_masks``), so the figure is the environment's own cost: the engine, the
opponents' moves and the encodings, not a network's.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import daer
from daer.env.single import DaerSingleEnv


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=8.0, help="CPU seconds to step for")
    ap.add_argument("--rules", default="luzhou")
    ap.add_argument("--opponents", default="heuristic")
    args = ap.parse_args()
    env = DaerSingleEnv(args.rules, opponents=args.opponents)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    steps = episodes = 0
    t0 = time.process_time()
    while time.process_time() - t0 < args.seconds:
        _obs, _reward, terminated, truncated, _info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        steps += 1
        if terminated or truncated:
            episodes += 1
            env.reset()
    cpu = time.process_time() - t0
    print(f"{args.rules}, {args.opponents} opponents, {'compiled' if daer.COMPILED else 'from source'}: "
          f"{steps / cpu:,.0f} learner steps/s, {episodes / cpu:,.1f} episodes/s of one core")


if __name__ == "__main__":
    main()
