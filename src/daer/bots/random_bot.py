"""The random bot (随机): a uniformly random legal action; and the easy bot, half heuristic, half random."""

from __future__ import annotations

import random

from daer.bots.heuristic import HeuristicBot
from daer.engine.actions import Action, Hu
from daer.engine.views import View
from daer.rules.model import Ruleset


class RandomBot:
    """Picks uniformly among the legal actions; seeded for reproducible simulations."""

    name = "random"

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: View) -> Action:
        """A random legal action."""
        return self.rng.choice(view.legal)


class RandomishBot:
    """The easy bot (随手): always takes a 胡, otherwise plays the heuristic move half the time, a random one else."""

    name = "randomish"

    def __init__(self, rules: Ruleset | None = None, seed: int | str | None = None, *, mistakes: float = 0.5) -> None:
        self.rng = random.Random(seed)
        self.mistakes = mistakes
        self._heuristic = HeuristicBot(rules, seed)

    def choose(self, view: View) -> Action:
        """The heuristic action, or with probability ``mistakes`` a random legal one (never passing a 胡)."""
        for a in view.legal:
            if isinstance(a, Hu):
                return a
        if self.rng.random() < self.mistakes:
            return self.rng.choice(view.legal)
        return self._heuristic.choose(view)
