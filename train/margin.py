"""Choose the learned bot's margin: learned − heuristic for several margins on the same duplicate deals.

    nice -n 19 python train/margin.py train/out/luzhou/fit.npz --rules luzhou --deals 2000 \\
        --margins=-0.25,-0.1,0,0.1 --write src/daer/bots/weights/luzhou.npz

Step 3 of the pipeline in train/README.md.  No torch needed.

The margin is the points a candidate must be valued above the heuristic bot's choice to be played
(``meta["margin"]`` of an advantage network).  The deals (seed ``margin``) are not the training curve's.
``--write`` saves the weights with the best margin.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from daer.bots.arena import Series, lineups, play_deal
from daer.bots.learned import QNet
from daer.rules import resolve_rules


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("weights", type=Path)
    p.add_argument("--rules", default="luzhou")
    p.add_argument("--deals", type=int, default=600)
    p.add_argument("--seed", default="margin")
    p.add_argument("--margins", default="0,0.5,1,2")
    p.add_argument("--write", type=Path, default=None)
    args = p.parse_args(argv)
    rules = resolve_rules(args.rules)
    net = QNet.load(args.weights)
    best: tuple[float, float] | None = None
    with tempfile.TemporaryDirectory() as tmp:
        for m in (float(x) for x in args.margins.split(",")):
            path = Path(tmp) / f"m{m}.npz"
            QNet(net.layers, {**net.meta, "margin": m}).save(path)
            names = (f"learned:{path}", "heuristic")
            lus = lineups(list(names), rules.table.players)
            s = Series()
            for d in range(args.deals):
                r = play_deal(rules, names, lus, args.seed, d)
                s.add(r.per_hand[0] - r.per_hand[1])
            print(f"margin {m:4.2f}: learned − heuristic {s.mean:+.3f} ± {s.ci95:.3f} ({args.deals} deals)", flush=True)
            if best is None or s.mean > best[1]:
                best = (m, s.mean)
    if args.write is not None and best is not None:
        QNet(net.layers, {**net.meta, "margin": best[0]}).save(args.write)
        print(f"wrote {args.write} with margin {best[0]}")


if __name__ == "__main__":
    main()
