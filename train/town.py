"""One command a preset: its data, its network, its learning curve and its arena, resumable step by step.

    nice -n 19 python train/town.py --rules gulin            # → train/out/gulin/: data/, fit.npz, curve/, summary.json

The steps of train/README.md for one preset, in order, each with the recipe's settings (``--help`` lists them):

1. **data** (``train/distill.py``): ``--hands`` hands of seed ``--seed``, the search bot's ``--worlds``-world means
   at each decision, with the 听 numbers, on ``--workers`` processes; resumed after its last shard.
2. **fit** (``train/distill_fit.py``): an ensemble of 3 × (192 × 2 hidden units), margin 0, seed 1, one thread.
3. **curve** (``train/distill_curve.py``): networks fitted on the first ``--sizes`` samples (0: all of them), each
   played against the heuristic bot on ``--curve-deals`` duplicate deals of seed ``curve``; the points and their
   plot in ``curve/``.  A size already measured with the same settings is not measured again.
4. **arena**: the new network, the network the preset plays with today (``learned``) and the heuristic bot on
   ``--deals`` duplicate deals of seed ``--arena-seed`` (``daer arena --log``, one log per network file: a stopped
   arena goes on, and a network fitted again on more data is measured afresh).

Run the same command again after a stop and every finished step is skipped (data: its ``config.json`` must
hold the same settings; fit: ``fit.npz`` newer than the data's last shard).  ``summary.json`` gathers what each
step measured and its CPU seconds (the process's and its children's).  Whether to ship the network is the
reader's call, from the arena's paired difference (train/README.md: ``cp fit.npz src/daer/bots/weights/…``).
Needs the ``train`` extra (torch, matplotlib).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from distill import OUT

NET = ["--more", "--ensemble", "3", "--hidden", "192", "--dropout", "0.3", "--epochs", "15", "--patience", "3",
       "--seed", "1", "--threads", "1"]
"""The recipe of the shipped networks (train/README.md, step 2), but the margin: 0 (``FIT``)."""
FIT = [*NET, "--margin", "0"]


def cpu() -> float:
    """CPU seconds of this process and of its children that ended."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def last_shard(data: Path) -> float:
    """When the data's newest shard was written (0 without any)."""
    return max((f.stat().st_mtime for f in data.glob("w*.npz")), default=0.0)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rules", required=True, help="the preset (luzhou, gulin, hejiang, longchang, luzhou-mingtang, …)")
    p.add_argument("--out", type=Path, default=None, help="the run's directory (default: train/out/RULES)")
    p.add_argument("--hands", type=int, default=1000, help="hands of data")
    p.add_argument("--seed", default="1", help="the data's seed")
    p.add_argument("--worlds", type=int, default=8)
    p.add_argument("--workers", type=int, default=2, help="processes for the data and the arenas")
    p.add_argument("--sizes", default="2500,5000,10000,0", help="the curve's sizes in samples (0: all)")
    p.add_argument("--curve-deals", type=int, default=600)
    p.add_argument("--deals", type=int, default=1000, help="deals of the final arena")
    p.add_argument("--arena-seed", default="2")
    p.add_argument("--steps", default="data,fit,curve,arena", help="the steps to run (the others are skipped)")
    args = p.parse_args(argv)
    import distill  # noqa: PLC0415 (sibling scripts; torch is imported by the fit only)
    import distill_curve  # noqa: PLC0415

    from daer.bots.arena import arena  # noqa: PLC0415
    from daer.rules import resolve_rules  # noqa: PLC0415

    rules = resolve_rules(args.rules)
    out = args.out or OUT / args.rules
    out.mkdir(parents=True, exist_ok=True)
    data, fit, summary_file = out / "data", out / "fit.npz", out / "summary.json"
    summary: dict[str, Any] = json.loads(summary_file.read_text()) if summary_file.exists() else {}
    summary.update(rules=args.rules, settings={k: str(v) for k, v in vars(args).items() if k != "steps"})
    steps = set(args.steps.split(","))

    def done(step: str, t0: float, c0: float, **figures: Any) -> None:
        summary[step] = {**summary.get(step, {}), **figures, "wall_s": round(time.time() - t0, 1),
                         "cpu_s": round(cpu() - c0, 1)}
        summary_file.write_text(json.dumps(summary, indent=1, ensure_ascii=False))
        print(f"[{args.rules}] {step}: {json.dumps(summary[step], ensure_ascii=False)}", flush=True)

    if "data" in steps:
        t0, c0 = time.time(), cpu()
        distill.main(["--rules", args.rules, "--out", str(data), "--more", "--workers", str(args.workers),
                      "--worlds", str(args.worlds), "--seed", args.seed, "--hands", str(args.hands),
                      "--minutes", "100000"])
        done("data", t0, c0, shards=len(list(data.glob("w*.npz"))))
    if "fit" in steps:
        t0, c0 = time.time(), cpu()
        if fit.exists() and fit.stat().st_mtime > last_shard(data):
            print(f"[{args.rules}] fit: {fit} is newer than the data, kept", flush=True)
        else:
            import distill_fit  # noqa: PLC0415 (torch)

            distill_fit.main([str(data), "--out", str(fit), "--rules", args.rules, *FIT])
        from daer.bots.learned import QNet  # noqa: PLC0415

        meta = QNet.load(fit).meta
        done("fit", t0, c0, samples=meta.get("samples"), heldout_mse=meta.get("heldout_mse"),
             zero_mse=meta.get("zero_mse"))
    if "curve" in steps:
        t0, c0 = time.time(), cpu()
        data_cpu = summary.get("data", {}).get("cpu_s")
        samples = summary.get("fit", {}).get("samples")
        per_sample = data_cpu / samples if data_cpu and samples else 0.05
        curve = distill_curve.main([str(data), "--run", str(out / "curve"), "--rules", args.rules, "--sizes",
                                    args.sizes, "--deals", str(args.curve_deals), "--margin", "0",
                                    "--workers", str(args.workers), "--cpu-per-sample", f"{per_sample:.4f}",
                                    "--plot", str(out / "curve" / "curve.png"), "--", *NET])
        done("curve", t0, c0, points=[{k: c[k] for k in ("size", "samples", "diff", "ci95")} for c in curve])
    if "arena" in steps:
        t0, c0 = time.time(), cpu()
        names = [f"learned:{fit}", "learned", "heuristic"]
        # the log is the network's own: a network fitted again (more data) is not credited with the old one's deals
        digest = hashlib.sha256(fit.read_bytes()).hexdigest()[:12]
        st = arena(rules, names, args.deals, args.arena_seed, workers=args.workers,
                   log=out / f"arena-{args.arena_seed}-{digest}.jsonl")
        diffs = {f"{st.bots[i].bot} − {st.bots[j].bot}".replace(f"learned:{fit}", "new"): [round(s.mean, 3),
                                                                                           round(s.ci95, 3)]
                 for (i, j), s in st.diffs.items()}
        done("arena", t0, c0, deals=st.deals, seed=args.arena_seed, diffs=diffs, seconds=round(st.seconds, 1),
             network=digest)
    return summary


if __name__ == "__main__":
    main()
