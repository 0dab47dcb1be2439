"""Add the candidates' 听 and feeding numbers to shards written without them (``train/distill.py`` before ``--more``).

    nice -n 19 python train/distill_more.py train/out/luzhou/data-old train/out/luzhou/data --workers 2

Not needed to rebuild the shipped networks (train/README.md): ``train/distill.py --more`` stores the numbers
while it makes the data.  Kept for shards written without ``--more`` (the shipped networks' own data was
converted so, before ``--more`` existed).

A shard stores only the observation, which holds the melds as counts of kinds, so the numbers of
``daer.bots.features.candidate_more`` (which need the melds and the discards by seat) cannot be computed
from it.  The hands are replayed instead: a hand of ``train/distill.py`` is a deterministic function of its
seed and of the search's means at the followed decisions, which the shard stores, so replaying it with those
means (``hand_samples(..., given=...)``, no rollouts: about a thousandth of the cost) visits the same views.
Every replayed sample is checked against the stored one (observation and candidates); a hand that does not
match is dropped and counted.  Each shard is written again to the output directory with ``more`` added.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from distill import MAX_CANDS, hand_samples

from daer.bots.features import MORE
from daer.rules import resolve_rules


def convert(src: Path, dst: Path, config: dict[str, object]) -> tuple[int, int]:
    """Write ``dst`` (``src`` with ``more``); returns (samples kept, hands dropped)."""
    rules = resolve_rules(str(config["rules"]))
    d = dict(np.load(src))
    n = len(d["hand"])
    more = np.zeros((n, MAX_CANDS, MORE), dtype=np.float16)
    keep = np.ones(n, dtype=bool)
    dropped = 0
    for h in np.unique(d["hand"]):
        rows = np.flatnonzero(d["hand"] == h)
        given = [d["mean"][i] for i in rows]
        got = hand_samples(rules, str(config["seed"]), int(h), worlds=int(config["worlds"]),  # type: ignore[call-overload]
                           width=int(config["width"]), fork=float(config["fork"]), eps=float(config["eps"]),  # type: ignore[arg-type]
                           follow=float(config["follow"]), more=True, given=given)  # type: ignore[arg-type]
        ok = len(got) == len(rows) and all(
            np.array_equal(s["obs"].astype(np.float16), d["obs"][i])
            and list(d["cand"][i][: len(s["cand"])]) == s["cand"]
            for s, i in zip(got, rows, strict=False))
        if not ok:
            keep[rows] = False
            dropped += 1
            continue
        for s, i in zip(got, rows, strict=True):
            more[i, : len(s["more"])] = s["more"]
    out = {k: v[keep] for k, v in d.items()}
    out["more"] = more[keep]
    tmp = dst.with_name("." + dst.name + ".tmp.npz")
    np.savez_compressed(tmp, **out)
    tmp.rename(dst)
    return int(keep.sum()), dropped


def _job(job: tuple[str, str, dict[str, object]]) -> tuple[str, int, int, float]:
    t0 = time.process_time()
    kept, dropped = convert(Path(job[0]), Path(job[1]), job[2])
    return Path(job[0]).name, kept, dropped, time.process_time() - t0


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("src", type=Path)
    p.add_argument("dst", type=Path)
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args(argv)
    config = json.loads((args.src / "config.json").read_text())
    args.dst.mkdir(parents=True, exist_ok=True)
    (args.dst / "config.json").write_text(json.dumps({**config, "more": True, "replayed_from": str(args.src)},
                                                     sort_keys=True))
    jobs = [(str(s), str(args.dst / s.name), config) for s in sorted(args.src.glob("w*-*.npz"))
            if not (args.dst / s.name).exists()]
    if args.workers == 1:  # in this process (also when the module was loaded from its file, as in the tests)
        for job in jobs:
            _report(*_job(job))
        return
    with multiprocessing.Pool(args.workers) as pool:
        for got in pool.imap_unordered(_job, jobs):
            _report(*got)


def _report(name: str, kept: int, dropped: int, cpu: float) -> None:
    print(f"{name}: {kept} samples, {dropped} hands dropped, {cpu:.0f} CPU s", flush=True)


if __name__ == "__main__":
    main()
