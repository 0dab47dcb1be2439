"""Offline: what a decision gains with the search bot, the learned network, and the two combined (the hybrid).

    nice -n 19 python train/distill.py --rules luzhou --out train/out/luzhou/eval48 --more --workers 2 --worlds 48 \\
        --minutes 35 --seed eval --keep-worlds           # decisions with each world's points of each candidate
    python train/hybrid_eval.py train/out/luzhou/eval48 --budgets 8,16,24    # --weights: the shipped 泸州 network

Analysis, not a step of the pipeline (train/README.md): it chose the hybrid bot's prior
(``daer.bots.hybrid.PRIOR``).  No torch needed.

Each decision of the data has every candidate's rollout points in ``W`` sampled worlds (common random numbers).
The worlds are cut in two: the first ``N`` are what a bot with a budget of ``N`` worlds would have seen, the
others measure, independently of that choice, what the chosen candidate is worth against the heuristic choice
(then the halves swap, and the two measurements are averaged).  Policies compared, per decision:

- ``search:N`` — the best mean over the N worlds (the heuristic choice, first, wins ties): ``SearchBot``;
- ``net`` — the network's best advantage above 0 (the learned bot);
- ``hybrid:N:k`` — the best of ``N·(mean − mean of the heuristic choice) + k·(network advantage)``: the
  search's means shrunk toward the network's values, the network counting as ``k`` worlds;
- ``prune:N:j`` — the network keeps its ``j`` best candidates (the heuristic choice always), and the search
  spends the same rollouts on them (``N · candidates / j`` worlds, as many as the data has).

It prints the mean gain a decision with its 95% interval, the paired difference against ``search:N`` and the
rollouts a decision costs (candidates × worlds).  Nothing here plays a hand: the figures are per decision,
on the states of the data (heuristic self-play), a filter before the arena.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from distill import load

from daer.bots.learned import WEIGHTS_DIR, load_net


def advantages(d: dict[str, np.ndarray], weights: Path) -> np.ndarray:
    """The network's advantage of each candidate over the heuristic choice, [sample, candidate] (−inf padding)."""
    net = load_net(weights)
    if net.more and "more" not in d:
        raise SystemExit(f"{weights} reads the candidates' 听 numbers: make the data with distill.py --more "
                         "(or add them with distill_more.py)")
    out = np.full(d["cand"].shape, -np.inf, dtype=np.float64)
    for i in range(len(d["cand"])):
        c = [int(a) for a in d["cand"][i] if a >= 0]
        more = d["more"][i, : len(c)].astype(np.float32) if net.more else None  # shards with 听 numbers
        v = net.candidate_values(d["obs"][i].astype(np.float32), c, more)
        out[i, : len(c)] = v - v[0]
    return out


def pick(score: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Index of the best candidate a row (the first on ties; masked candidates never)."""
    s = np.where(mask, score, -np.inf)
    return np.argmax(s >= s.max(axis=1, keepdims=True) - 1e-9, axis=1)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("data", type=Path)
    p.add_argument("--weights", type=Path, default=WEIGHTS_DIR / "luzhou.npz",
                   help="the network to evaluate (default: the shipped 泸州 weights)")
    p.add_argument("--budgets", default="8,16,24")
    p.add_argument("--priors", default="2,4,8,16,32")
    p.add_argument("--keep", default="2,3")
    p.add_argument("--plot", type=Path, default=None, help="write gain against rollouts (search, hybrid) here")
    p.add_argument("--plot-prior", type=float, default=16.0, help="the hybrid's prior drawn in the plot")
    args = p.parse_args(argv)
    d = load(args.data)
    pts = d["pts"].astype(np.float64)  # [sample, candidate, world]
    mask = d["cand"] >= 0
    n, _, w = pts.shape
    adv = advantages(d, args.weights)
    ncand = mask.sum(axis=1)
    print(f"{n} decisions from {len(np.unique(d['hand']))} hands, {w} worlds each, "
          f"{ncand.mean():.2f} candidates a decision", flush=True)
    rows = np.arange(n)
    half = w // 2
    splits = [(np.arange(half), np.arange(half, w)), (np.arange(half, w), np.arange(half))]

    def gain_of(choose: object) -> tuple[np.ndarray, float]:
        """Per-decision gain measured on the other worlds, averaged over the two splits; cost (rollouts)."""
        g = np.zeros(n)
        cost = 0.0
        for seen, held in splits:
            c, k = choose(seen)  # type: ignore[operator]
            ev = pts[:, :, held].mean(axis=2)
            g += ev[rows, c] - ev[:, 0]
            cost += float(k)
        return g / len(splits), cost / len(splits)

    results: dict[str, tuple[np.ndarray, float]] = {}
    results["net"] = gain_of(lambda seen: (pick(np.maximum(adv, 0.0), mask), 0))
    for budget in (int(x) for x in args.budgets.split(",")):
        if budget > half:
            continue

        def search(seen: np.ndarray, budget: int = budget, k: float = 0.0) -> tuple[np.ndarray, float]:
            m = pts[:, :, seen[:budget]].mean(axis=2)
            score = budget * (m - m[:, :1]) + k * np.where(mask, adv, 0.0)
            return pick(score, mask), float((ncand * budget).mean())

        results[f"search:{budget}"] = gain_of(search)
        for k in (float(x) for x in args.priors.split(",")):
            results[f"hybrid:{budget}:{k:g}"] = gain_of(lambda seen, b=budget, k=k: search(seen, b, k))
        for j in (int(x) for x in args.keep.split(",")):

            def prune(seen: np.ndarray, budget: int = budget, j: int = j, k: float = 0.0) -> tuple[np.ndarray, float]:
                order = np.argsort(-np.where(mask, adv, -np.inf), axis=1, kind="stable")
                keep = np.zeros_like(mask)
                keep[:, 0] = True
                taken = np.ones(n, dtype=int)
                for col in range(order.shape[1]):
                    c = order[:, col]
                    ok = mask[rows, c] & (taken < j) & ~keep[rows, c]
                    keep[rows[ok], c[ok]] = True
                    taken += ok
                nk = keep.sum(axis=1)
                worlds = np.minimum(len(seen), np.ceil(budget * ncand / nk)).astype(int)
                score = np.full(mask.shape, -np.inf)
                for ww in np.unique(worlds):
                    r = worlds == ww
                    m = pts[r][:, :, seen[:ww]].mean(axis=2)
                    score[r] = ww * (m - m[:, :1]) + k * np.where(mask[r], adv[r], 0.0)
                return pick(score, keep), float((nk * worlds).mean())

            results[f"prune:{budget}:{j}"] = gain_of(prune)
            results[f"prune:{budget}:{j}+k8"] = gain_of(lambda seen, b=budget, j=j: prune(seen, b, j, 8.0))

    def ci(x: np.ndarray) -> float:
        return float(1.96 * x.std(ddof=1) / np.sqrt(len(x)))

    top = max((k for k in results if k.startswith("search:")), key=lambda k: int(k.split(":")[1]))
    print(f"{'policy':>18} {'gain/decision':>16} {'vs search:N':>16} {'vs ' + top:>16} {'rollouts':>9}")
    for name, (g, cost) in results.items():
        ref = results.get("search:" + name.split(":")[1].split("+")[0]) if ":" in name else None
        vs = "" if ref is None or name.startswith("search") else f"{(g - ref[0]).mean():+.4f} ± {ci(g - ref[0]):.4f}"
        d = g - results[top][0]
        print(f"{name:>18} {g.mean():+.4f} ± {ci(g):.4f} {vs:>16} {d.mean():+.4f} ± {ci(d):.4f} {cost:9.1f}",
              flush=True)
    if args.plot is not None:
        plot(args.plot, results, args.plot_prior, n, w)


def plot(path: Path, results: dict[str, tuple[np.ndarray, float]], prior: float, n: int, w: int) -> None:
    """Gain a decision (95% interval) against the rollouts a decision, for the search bot, the hybrid bot
    with ``prior`` and the network alone."""
    import matplotlib  # noqa: PLC0415 - only for the plot (the train extra)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    def ci(x: np.ndarray) -> float:
        return float(1.96 * x.std(ddof=1) / np.sqrt(len(x)))

    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    for prefix, label, style in (("search:", "search:N (heuristic rollouts)", "o-"),
                                 ("hybrid:", f"hybrid:N (network prior = {prior:g} worlds)", "s-")):
        pts = [(cost, g.mean(), ci(g), name) for name, (g, cost) in results.items()
               if name.startswith(prefix) and (prefix == "search:" or name.endswith(f":{prior:g}"))]
        pts.sort()
        ax.errorbar([p[0] for p in pts], [p[1] for p in pts], yerr=[p[2] for p in pts], fmt=style, capsize=3,
                    label=label)
        for c, m, _, name in pts:
            ax.annotate(name.split(":")[1], (c, m), textcoords="offset points", xytext=(4, -10), fontsize=7)
    g, _ = results["net"]
    ax.axhline(g.mean(), color="grey", ls="--", label=f"network alone (learned bot): {g.mean():+.3f}")
    ax.axhline(0, color="black", lw=0.5)
    ax.set_xlabel("rollouts a decision (candidates × worlds N)")
    ax.set_ylabel("points a decision over the heuristic choice")
    ax.set_title(f"luzhou, {n} decisions, gain measured on {w // 2} other worlds", fontsize=9)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
