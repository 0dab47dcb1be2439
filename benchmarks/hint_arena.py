"""The 提示 (hint) policy in the duplicate arena against the learned bot (not a test).

Run: ``nice .venv/bin/python benchmarks/hint_arena.py --deals 400 --seed 7 [--rules luzhou]``.  The hint's
suggestion (:meth:`daer.bots.hint.Hinter.choose`: the learned bot with the discards that leave the hand 听 added to
its candidates) plays as a bot named ``hint`` in :func:`daer.bots.arena.arena` (one process: the name is known only
here), against ``learned`` (or ``--vs``).  Prints the paired difference, points a hand, with its 95% interval.
"""

from __future__ import annotations

import argparse
from typing import Any

from daer.bots import arena as A
from daer.bots.base import Bot
from daer.bots.hint import Hinter
from daer.engine import Action
from daer.engine.views import View
from daer.rules import find_rules
from daer.rules.model import Ruleset


class HintBot:
    """The hint's suggestion as a bot."""

    name = "hint"

    def __init__(self, rules: Ruleset) -> None:
        self.hinter = Hinter(rules)

    def choose(self, view: View) -> Action:
        return self.hinter.choose(view)


def main() -> None:
    """Play the arena and print the paired difference."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rules", default="luzhou")
    parser.add_argument("--vs", default="learned")
    args = parser.parse_args()
    rules = find_rules(args.rules)
    real = A.make_bot

    def make(name: str, seed: Any = None, *, rules: Ruleset | None = None, allow_oracle: bool = False) -> Bot:
        assert rules is not None
        return HintBot(rules) if name == "hint" else real(name, seed, rules=rules)

    A.make_bot = make  # type: ignore[assignment]  # the arena makes its bots by name
    st = A.arena(rules, ["hint", args.vs], args.deals, seed=args.seed)
    for (i, j), s in st.diffs.items():
        print(f"{st.bots[i].bot} - {st.bots[j].bot}: {s.mean:+.2f} ± {s.ci95:.2f} points a hand over {st.deals} deals "
              f"({args.rules}, seed {args.seed}, {st.seconds:.0f} s)")


if __name__ == "__main__":
    main()
