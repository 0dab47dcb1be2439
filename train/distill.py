"""Data for distilling the search bot into the learned bot: per-candidate rollout means (see docs/bots.md).

    nice -n 19 python train/distill.py --rules luzhou --more --workers 2 --worlds 8 --seed 1 --hands 2500 \\
        --minutes 180      # writes train/out/luzhou/data (--out); run again with the same arguments to resume

Step 1 of the pipeline in train/README.md.

Hands are played with the heuristic bot at every seat (``--eps`` of the decisions a random legal action, and
at a searched decision the search's choice with probability ``--follow``, for a wider set of states).  At a
share ``--fork`` of the decisions the search bot deliberates over (no 胡, more than one candidate), it does
exactly what ``search:N`` does (``daer.bots.search.SearchBot._search``): ``--worlds`` determinizations of the
cards the seat has not seen (``daer.engine.world.sample_hidden``), every candidate rolled out in each of them
with the heuristic bot (common random numbers), and the sample records, from the seat's view only:

- ``obs`` (the 286 numbers of ``encode_view``, float16) and ``heur`` (the heuristic choice's action index);
- ``cand`` (the candidates' action indices, the heuristic choice first, ``-1`` padding) and ``mean`` (each
  candidate's mean points over the worlds; the search bot plays the best of them, the first on ties);
- ``claim`` (1 for a claim decision, 0 for a discard), ``hand`` (the hand number: split train / held-out by hand).

Seeded and order-independent: hand ``h`` is dealt from ``f"distill:{seed}:{h}"``, its play and every
search draw from generators seeded by ``(seed, h, decision)``, so a hand gives the same samples in any
process.  Worker ``w`` of ``W`` plays hands ``w, w + W, …`` and writes a shard
``{out}/w{w}-{first:07d}-{last:07d}.npz`` every ``--shard-minutes``; a new run with the same ``--out`` (and the
same settings: ``{out}/config.json`` holds them) resumes each worker after its last shard.  ``--out`` defaults to
``train/out/{rules}/data`` (in the repository, whatever the working directory).  Nothing but numpy and the
package is needed (no torch).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import re
import time
from pathlib import Path
from typing import Any

import numpy as np

from daer.bots.base import obvious
from daer.bots.features import MORE, candidate_more
from daer.bots.search import SearchBot
from daer.engine.actions import Chi, Pass, Peng, Zhao
from daer.engine.encoding import OBS_SIZE, encode_action, encode_view, offer_kind
from daer.engine.record import new_hand
from daer.rules import resolve_rules
from daer.rules.model import Ruleset

OUT = Path(__file__).resolve().parent / "out"
"""``train/out``: where the training scripts write by default (ignored by git)."""

MAX_CANDS = 16
"""Candidates kept per decision (claims can have many 吃 options; the rest are dropped, rarely any)."""


def hand_samples(rules: Ruleset, seed: int | str, hand: int, *, worlds: int, width: int = 4, fork: float = 1.0,
                 eps: float = 0.03, follow: float = 0.5, keep_worlds: bool = False, more: bool = False,
                 given: list[np.ndarray] | None = None) -> list[dict[str, Any]]:
    """Play hand ``hand`` and return its samples (one dict a searched decision; ``view`` and ``decision`` too,
    which :func:`pack` does not write: the search of decision ``d`` drew from ``f"distill:{seed}:{hand}:{d}"``).

    ``more``: also the candidates' 听 and feeding numbers (``daer.bots.features.candidate_more``).  ``given``:
    replay instead of searching — the stored means of this hand's samples, in order (a shard written before),
    which decide the followed choices as the search did; the samples then carry the stored means."""
    state = new_hand(rules, seed=f"distill:{seed}:{hand}", dealer=hand % rules.table.seats)
    rng = random.Random(f"distill:{seed}:{hand}:play")
    search = SearchBot(rules, worlds=worlds, seconds=None, width=width)
    out: list[dict[str, Any]] = []
    d = 0
    while not state.over:
        seat = state.to_act()[0]
        view = state.view(seat, log=False)
        d += 1
        if (sure := obvious(view)) is not None:
            state.apply(sure)
            continue
        cands = search.candidates(view)
        action = cands[0]
        if len(cands) > 1 and rng.random() < fork:
            per_world: list[list[float]] | None = [] if keep_worlds else None
            if given is None:
                search.rng.seed(f"distill:{seed}:{hand}:{d}")
                totals = search._search(view, cands, per_world)
            else:
                if len(out) >= len(given):
                    break  # the replay left the stored hand (the caller checks)
                stored = given[len(out)]
                totals = [float(stored[i]) * worlds if i < len(stored) else -1e9 for i in range(len(cands))]
            k = offer_kind(view)
            mean = [t / worlds for t in totals]
            out.append({
                "obs": encode_view(view),
                "cand": [encode_action(a, k) for a in cands][:MAX_CANDS],
                "mean": mean[:MAX_CANDS],
                "claim": int(isinstance(cands[0], Chi | Peng | Pass | Zhao)),
                "hand": hand,
                "view": view,  # for tests and inspection; not written to shards
                "decision": d,
                **({"pts": [w[:MAX_CANDS] for w in per_world]} if per_world is not None else {}),
                **({"more": candidate_more(view, cands[:MAX_CANDS], search._policy)} if more else {}),
            })
            if rng.random() < follow:
                action = cands[max(range(len(cands)), key=lambda i: (totals[i], -i))]
        if rng.random() < eps:
            action = rng.choice(view.legal)
        state.apply(action)
    return out


def pack(samples: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """Samples as arrays (the shard format)."""
    n = len(samples)
    obs = np.zeros((n, OBS_SIZE), dtype=np.float16)
    cand = np.full((n, MAX_CANDS), -1, dtype=np.int16)
    mean = np.zeros((n, MAX_CANDS), dtype=np.float32)
    for i, s in enumerate(samples):
        obs[i] = s["obs"]
        cand[i, : len(s["cand"])] = s["cand"]
        mean[i, : len(s["mean"])] = s["mean"]
    extra = {}
    if n and "pts" in samples[0]:  # --keep-worlds: each world's points, [sample, candidate, world]
        pts = np.zeros((n, MAX_CANDS, len(samples[0]["pts"])), dtype=np.int16)
        for i, s in enumerate(samples):
            w = np.array(s["pts"], dtype=np.int16)  # [world, candidate]
            pts[i, : w.shape[1]] = w.T
        extra["pts"] = pts
    if n and "more" in samples[0]:  # --more: each candidate's 听 and feeding numbers, [sample, candidate, MORE]
        more = np.zeros((n, MAX_CANDS, MORE), dtype=np.float16)
        for i, s in enumerate(samples):
            more[i, : len(s["more"])] = s["more"]
        extra["more"] = more
    return {**extra, "obs": obs, "cand": cand, "mean": mean, "heur": cand[:, 0].copy(),
            "claim": np.array([s["claim"] for s in samples], dtype=np.int8),
            "hand": np.array([s["hand"] for s in samples], dtype=np.int32)}


SHARD = re.compile(r"w(\d+)-(\d+)-(\d+)\.npz$")


def next_hand(out: Path, worker: int, workers: int) -> int:
    """The first hand worker ``worker`` has not written yet (resume)."""
    last = -1
    for p in out.glob(f"w{worker}-*.npz"):
        m = SHARD.search(p.name)
        if m:
            last = max(last, int(m.group(3)))
    return worker if last < 0 else last + workers


def run_worker(args: argparse.Namespace, worker: int) -> None:
    """Play this worker's hands until the time is up, writing a shard every ``shard_minutes``."""
    rules = resolve_rules(args.rules)
    out = Path(args.out)
    deadline = time.monotonic() + 60 * args.minutes
    h = next_hand(out, worker, args.workers)
    while time.monotonic() < deadline and (args.hands is None or h < args.hands):
        first, samples, cut = h, [], time.monotonic() + 60 * args.shard_minutes
        t0 = time.process_time()
        while True:  # at least one hand a shard
            samples += hand_samples(rules, args.seed, h, worlds=args.worlds, width=args.width, fork=args.fork,
                                    eps=args.eps, follow=args.follow, keep_worlds=args.keep_worlds, more=args.more)
            h += args.workers
            if time.monotonic() >= min(cut, deadline) or (args.hands is not None and h >= args.hands):
                break
        last = h - args.workers
        tmp = out / f".w{worker}.tmp.npz"
        np.savez_compressed(tmp, **pack(samples))
        tmp.rename(out / f"w{worker}-{first:07d}-{last:07d}.npz")
        print(f"worker {worker}: hands {first}-{last}, {len(samples)} samples, "
              f"{time.process_time() - t0:.0f} CPU s", flush=True)


def load(out: Path | str) -> dict[str, np.ndarray]:
    """Every shard under ``out``, concatenated in hand order (so that the first N samples are the first hands)."""
    parts = [dict(np.load(p)) for p in sorted(Path(out).glob("w*-*.npz"))]
    if not parts:
        raise FileNotFoundError(f"no shards in {out}")
    d = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    order = np.argsort(d["hand"], kind="stable")
    return {k: v[order] for k, v in d.items()}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rules", default="luzhou")
    p.add_argument("--out", default=None, help="directory of the shards (default: train/out/RULES/data)")
    p.add_argument("--seed", default="1")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--worlds", type=int, default=12)
    p.add_argument("--width", type=int, default=4)
    p.add_argument("--fork", type=float, default=1.0)
    p.add_argument("--eps", type=float, default=0.03)
    p.add_argument("--follow", type=float, default=0.5)
    p.add_argument("--minutes", type=float, default=60.0)
    p.add_argument("--shard-minutes", type=float, default=3.0)
    p.add_argument("--keep-worlds", action="store_true",
                   help="also store each world's points (pts: [sample, candidate, world], int16) for offline "
                        "evaluation of search budgets and of the hybrid bot (train/hybrid_eval.py)")
    p.add_argument("--more", action="store_true",
                   help="also store each candidate's 听 and feeding numbers (more: [sample, candidate, MORE], float16)")
    p.add_argument("--hands", type=int, default=None, help="stop before this hand number (default: the clock)")
    args = p.parse_args(argv)
    if args.out is None:
        args.out = str(OUT / args.rules / "data")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    config = {k: v for k, v in vars(args).items() if k not in ("minutes", "hands", "out")}
    cfg = out / "config.json"
    if cfg.exists() and json.loads(cfg.read_text()) != config:
        raise SystemExit(f"{cfg} holds other settings: resume with the same ones, or use another --out")
    cfg.write_text(json.dumps(config, sort_keys=True))
    if args.workers == 1:
        run_worker(args, 0)
        return
    procs = [multiprocessing.Process(target=run_worker, args=(args, w)) for w in range(args.workers)]
    for pr in procs:
        pr.start()
    for pr in procs:
        pr.join()


if __name__ == "__main__":
    main()
