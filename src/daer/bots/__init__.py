"""Bots that play from a seat's view only: random and heuristic."""

from daer.bots.base import Bot
from daer.bots.heuristic import HeuristicBot
from daer.bots.random_bot import RandomBot
from daer.rules.model import Ruleset

BOTS = ("random", "heuristic")
"""Names accepted by :func:`make_bot`."""


def make_bot(name: str, *, rules: Ruleset | None = None, seed: int | str | None = None) -> Bot:
    """A bot by name (``random`` / ``heuristic``)."""
    if name == "random":
        return RandomBot(seed)
    if name == "heuristic":
        return HeuristicBot(rules, seed)
    raise ValueError(f"未知的机器人 {name!r} (unknown bot; choose from {', '.join(BOTS)})")


__all__ = ["BOTS", "Bot", "HeuristicBot", "RandomBot", "make_bot"]
