"""Plot learning curves written by ``train/dmc.py`` (``curve.jsonl``) on one figure.

    python train/plot.py docs/img/learned-curve.png "luzhou, DMC=train/runs/luzhou-dmc/curve.jsonl" \\
        "luzhou, advantages=train/runs/luzhou/curve.jsonl" "paohuzi, advantages=train/runs/paohuzi/curve.jsonl"
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def plot_curves(out: Path, curves: dict[str, list[dict[str, Any]]], title: str) -> None:
    """Learned − heuristic with its 95% CI against CPU minutes of training, one line per run."""
    import matplotlib  # noqa: PLC0415 (the train extra; imported only to plot)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=100)
    for label, curve in curves.items():
        xs = cpu_minutes(curve)
        ax.errorbar(xs, [c["diff"] for c in curve], yerr=[c["ci95"] for c in curve], marker="o", ms=3,
                    capsize=2, lw=1.2, label=label)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("CPU minutes of training (one niced thread; evaluation included)")
    ax.set_ylabel("learned − heuristic\npoints / hand (95% CI)")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    if len(curves) > 1:
        ax.legend(fontsize=8)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    plt.close(fig)


def cpu_minutes(curve: list[dict[str, Any]]) -> list[float]:
    """Cumulative CPU minutes at each point (a resumed run's process starts its count at 0 again)."""
    out, offset, last = [], 0.0, 0.0
    for c in curve:
        if c["cpu_seconds"] < last:
            offset += last
        last = c["cpu_seconds"]
        out.append((offset + last) / 60)
    return out


def read_curve(path: Path) -> list[dict[str, Any]]:
    """The points of one ``curve.jsonl``."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def main(argv: list[str]) -> None:
    out, *specs = argv
    curves = {}
    for spec in specs:
        label, _, path = spec.rpartition("=")
        curves[label or path] = read_curve(Path(path))
    plot_curves(Path(out), curves, "raw network (no margin) − heuristic bot, 400 fixed duplicate deals per point")


if __name__ == "__main__":
    main(sys.argv[1:])
