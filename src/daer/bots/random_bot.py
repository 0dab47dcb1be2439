"""The random bot (随机): a uniformly random legal action."""

from __future__ import annotations

import random

from daer.engine.actions import Action
from daer.engine.views import View


class RandomBot:
    """Picks uniformly among the legal actions; seeded for reproducible simulations."""

    name = "random"

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: View) -> Action:
        """A random legal action."""
        return self.rng.choice(view.legal)
