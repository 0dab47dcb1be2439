"""The distilled network's learning curve: fits on the first N samples, each measured in the duplicate arena.

    nice -n 19 python train/distill_curve.py train/out/luzhou/data --sizes 5000,10000,20000,40000,0 --deals 600 \\
        --margin 0.25 --workers 2 --plot train/out/luzhou/curve/curve.png \\
        -- --ensemble 3 --hidden 192 --dropout 0.3 --epochs 15 --patience 3     # writes train/out/luzhou/curve (--run)

Analysis, not a step of the pipeline (train/README.md): it drew the learning curve of docs/bots.md.  Needs torch
(the ``train`` extra) to fit; ``--help`` does not.

For each size (0: every sample) ``train/distill_fit.py`` fits a network on the samples of the first hands
(the same held-out rule, the other arguments after ``--``), then ``learned − heuristic`` is measured on
``--deals`` duplicate deals (the arena's own ``arena()``; seed ``--seed``, deals the data never saw: the data's
hands are dealt from ``distill:…``).  Appends one line per size to ``{run}/curve.jsonl`` and plots them against
the samples and the CPU minutes of data generation they cost (``--cpu-per-sample``, measured from the
generator's log).  The plot shows every point of ``curve.jsonl`` (earlier invocations' too: a point can be
added later, when more data has been made).  A size already in ``curve.jsonl`` with the same deals, seed, margin
and fit arguments is kept, not fitted again: run the same command again after a stop (``train/town.py`` does); size 0
only on the same data shards (more data made since: measured again, the earlier point kept in the plot).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from distill import OUT

from daer.bots.arena import arena
from daer.bots.learned import QNet
from daer.rules import resolve_rules

REFERENCE = {"luzhou": 1.49}
"""``search:24`` − heuristic on the preset, drawn as a dashed line (docs/bots.md; measured for 泸州 only)."""


def plot(out: Path, curve: list[dict[str, Any]], title: str, rules: str = "luzhou") -> None:
    """Learned − heuristic (95% CI) against the samples of the fit."""
    import matplotlib  # noqa: PLC0415 (the train extra; imported only to plot)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=100)
    xs = [c["samples"] / 1000 for c in curve]
    ax.errorbar(xs, [c["diff"] for c in curve], yerr=[c["ci95"] for c in curve], marker="o", ms=4, capsize=3,
                lw=1.2, label="distilled network − heuristic")
    ax.axhline(0, color="grey", lw=0.8)
    if rules in REFERENCE:
        ax.axhline(REFERENCE[rules], color="tab:red", lw=0.8, ls="--",
                   label=f"search:24 − heuristic (+{REFERENCE[rules]}, docs/bots.md)")
    ax.set_xlabel("training samples (thousands; search:8 decisions)")
    ax.set_ylabel("learned − heuristic\npoints / hand (95% CI)")
    top = ax.secondary_xaxis("top", functions=(lambda k: k * curve[-1]["cpu_per_sample"] * 1000 / 60,
                                               lambda m: m * 60 / 1000 / curve[-1]["cpu_per_sample"]))
    top.set_xlabel("CPU minutes of data generation (of the training samples)", fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    plt.close(fig)


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    argv = sys.argv[1:] if argv is None else argv
    fit_args = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("data", type=Path)
    p.add_argument("--run", type=Path, default=None, help="directory of the fits and curve.jsonl "
                   "(default: train/out/RULES/curve)")
    p.add_argument("--rules", default="luzhou")
    p.add_argument("--sizes", default="10000,20000,40000,0")
    p.add_argument("--deals", type=int, default=1000)
    p.add_argument("--seed", default="curve")
    p.add_argument("--margin", type=float, default=0.25)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--cpu-per-sample", type=float, default=0.033)
    p.add_argument("--plot", type=Path, default=None)
    args = p.parse_args(argv)
    import distill_fit  # noqa: PLC0415 (needs torch; --help does not)

    if args.run is None:
        args.run = OUT / args.rules / "curve"
    rules = resolve_rules(args.rules)
    args.run.mkdir(parents=True, exist_ok=True)
    curve: list[dict[str, Any]] = []
    book = args.run / "curve.jsonl"
    earlier = [json.loads(x) for x in book.read_text().splitlines() if x.strip()] if book.exists() else []
    shards = sorted(f.name for f in args.data.glob("w*.npz"))
    for size in (int(x) for x in args.sizes.split(",")):
        # "every sample" (0) is the same point only on the same data: made bigger (more --hands), it is measured again
        same = [c for c in earlier if c.get("size") == size and c.get("deals") == args.deals
                and c.get("margin") == args.margin and c.get("seed") == args.seed and c.get("fit") == fit_args
                and (size != 0 or c.get("shards") == shards)]
        if same:  # measured by an earlier invocation with these settings: resumed, not measured again
            print(f"size {size}: measured before ({same[-1]['samples']} samples), kept", flush=True)
            curve.append(same[-1])
            continue
        w = args.run / f"n{size}.npz"
        more = ["--max-samples", str(size)] if size else []
        log = distill_fit.main([str(args.data), "--out", str(w), "--rules", args.rules, "--margin", str(args.margin),
                                *more, *fit_args])
        net = QNet.load(w)
        st = arena(rules, [f"learned:{w}", "heuristic"], args.deals, args.seed, workers=args.workers)
        diff = st.diffs[(0, 1)]
        row = {"size": size, "seed": args.seed, "fit": fit_args,
               "samples": net.meta["samples"], "diff": diff.mean, "ci95": diff.ci95, "deals": args.deals,
               "margin": args.margin, "heldout_mse": net.meta["heldout_mse"], "zero_mse": net.meta["zero_mse"],
               "epochs": len(log), "cpu_per_sample": args.cpu_per_sample, "weights": str(w),
               "learned_sec_per_decision": st.bots[0].sec_per_decision, "shards": shards}
        print(f"{row['samples']} samples: learned − heuristic {diff.mean:+.3f} ± {diff.ci95:.3f} "
              f"({args.deals} deals)", flush=True)
        curve.append(row)
        with book.open("a") as f:
            f.write(json.dumps(row) + "\n")
    if args.plot is not None:  # every point of the run so far (earlier invocations too), by size
        lines = (args.run / "curve.jsonl").read_text().splitlines()
        curve = sorted((json.loads(x) for x in lines if x.strip()), key=lambda c: c["samples"])
        plot(args.plot, curve, f"distilled network ({args.rules}, margin {args.margin}) − heuristic bot, "
                               f"{args.deals} duplicate deals per point", args.rules)
    return curve


if __name__ == "__main__":
    main()
