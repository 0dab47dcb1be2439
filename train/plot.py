"""Plot learning curves written by ``train/dmc.py`` (``curve.jsonl``) on one figure.

    python train/plot.py docs/img/learned-curve.png "DMC (returns)=train/runs/luzhou-dmc/curve.jsonl" \\
        "rollout advantages=train/runs/luzhou/curve.jsonl"
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def plot_curves(out: Path, curves: dict[str, list[dict[str, Any]]], title: str) -> None:
    """Learned − heuristic with its 95% CI against hours of training, one line per run."""
    import matplotlib  # noqa: PLC0415 (the train extra; imported only to plot)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=100)
    for label, curve in curves.items():
        xs = [c["minutes"] / 60 for c in curve]
        ax.errorbar(xs, [c["diff"] for c in curve], yerr=[c["ci95"] for c in curve], marker="o", ms=3,
                    capsize=2, lw=1.2, label=label)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("hours of training (one niced core of a shared 2-core machine)")
    ax.set_ylabel("learned − heuristic\npoints / hand (95% CI)")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    if len(curves) > 1:
        ax.legend(fontsize=8)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    plt.close(fig)


def read_curve(path: Path) -> list[dict[str, Any]]:
    """The points of one ``curve.jsonl``."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def main(argv: list[str]) -> None:
    out, *specs = argv
    curves = {}
    for spec in specs:
        label, _, path = spec.rpartition("=")
        curves[label or path] = read_curve(Path(path))
    plot_curves(Path(out), curves, "luzhou: learned − heuristic on fixed duplicate deals during training")


if __name__ == "__main__":
    main(sys.argv[1:])
