"""Bots that play from a seat's view only, and a registry of them by name or strength.

>>> make_bot("hard", 1).name
'learned'
>>> make_bot("search:50", 1).worlds  # type: ignore[attr-defined]
50
"""

from pathlib import Path
from typing import Literal, overload

from daer.bots.base import Bot, Omniscient
from daer.bots.heuristic import HeuristicBot
from daer.bots.hybrid import HybridBot
from daer.bots.learned import LearnedBot
from daer.bots.oracle import ORACLE, ORACLE_REFUSED, OracleBot
from daer.bots.policy import PolicyBot
from daer.bots.random_bot import RandomBot, RandomishBot
from daer.bots.search import SearchBot
from daer.rules.model import Ruleset

BOTS = ("random", "randomish", "heuristic", "search", "learned", "hybrid")
"""Names accepted by :func:`make_bot` (``search:N`` / ``hybrid:N`` the search / hybrid bot with a budget of N worlds,
``learned:FILE.npz`` the learned bot with other weights, ``policy:FILE.npz`` a policy network exported by a
reinforcement-learning run (:mod:`daer.bots.policy`, ``train/ppo.py``) — the command line's, never a room's)."""

SEARCH_CPU = "search:cpu"
"""The clocked search bot (``search``'s 400 worlds, 0.8 s) timed on its thread's CPU time instead of the wall clock:
it plays as ``search`` does on a core of its own whatever else runs (the arena's long runs; a table's bot answers
by the wall clock)."""

STRENGTHS = {"easy": "randomish", "normal": "heuristic", "hard": "learned"}
"""Strengths a player can pick (简单 / 普通 / 困难) and the bot each one means.  困难 is the learned bot: it beats
the search bot (``search:24``: +0.63 ± 0.25 points a hand over 1,000 duplicate deals, docs/bots.md) at a few
milliseconds a decision instead of up to 0.8 s; the search and hybrid bots stay available by name."""


def bot_names() -> tuple[str, ...]:
    """Every name and strength :func:`make_bot` accepts (besides ``search:N``)."""
    return (*BOTS, *STRENGTHS)


def is_bot(name_or_strength: str) -> bool:
    """True when :func:`make_bot` accepts this name."""
    name = STRENGTHS.get(name_or_strength, name_or_strength)
    if name == SEARCH_CPU:
        return True
    if name.startswith(("search:", "hybrid:")):
        return name[7:].isdigit() and int(name[7:]) > 0
    if name.startswith(("learned:", "policy:")):
        path = name.split(":", 1)[1]
        return path.endswith(".npz") and Path(path).is_file()
    return name in BOTS


@overload
def make_bot(name_or_strength: str, seed: int | str | None = None, *, rules: Ruleset | None = None,
             allow_oracle: Literal[False] = False) -> Bot: ...
@overload
def make_bot(name_or_strength: str, seed: int | str | None = None, *, rules: Ruleset | None = None,
             allow_oracle: bool) -> Bot | Omniscient: ...
def make_bot(name_or_strength: str, seed: int | str | None = None, *, rules: Ruleset | None = None,
             allow_oracle: bool = False) -> Bot | Omniscient:
    """A new bot by name (random / randomish / heuristic / search / search:N / learned / learned:FILE.npz /
    hybrid / hybrid:N / policy:FILE.npz) or strength (easy / normal / hard).

    ``oracle`` (:mod:`daer.bots.oracle`, it sees every card) only with ``allow_oracle=True``, which the duplicate
    arena's measurement path alone passes; otherwise it is refused with :data:`ORACLE_REFUSED`.  It is not among
    :data:`BOTS` nor :func:`bot_names`, so no room, lobby or ``daer play`` offers it.

    ``seed`` makes its random choices reproducible; ``rules`` defaults to the default preset.
    ``search`` thinks up to 0.8 s a decision; ``search:N`` samples exactly N worlds, with no time limit.
    ``learned`` plays the shipped network of the ruleset (the 泸州 one where a preset has none);
    ``hybrid`` is the search bot guided by that network (``hybrid:N``: N worlds, no clock);
    ``policy:FILE.npz`` plays an exported policy network's masked argmax (:class:`~daer.bots.policy.PolicyBot`).
    """
    name = STRENGTHS.get(name_or_strength, name_or_strength)
    if name == ORACLE:
        if not allow_oracle:
            raise ValueError(ORACLE_REFUSED)
        return OracleBot(rules, seed)
    if name == "random":
        return RandomBot(seed)
    if name == "randomish":
        return RandomishBot(rules, seed)
    if name == "heuristic":
        return HeuristicBot(rules, seed)
    if name == "search":
        return SearchBot(rules, seed)
    if name == "learned":
        return LearnedBot(rules, seed)
    if name.startswith("learned:") and is_bot(name):
        return LearnedBot(rules, seed, weights=name[8:])
    if name == SEARCH_CPU:
        return SearchBot(rules, seed, clock="cpu")
    if name.startswith("search:") and is_bot(name):
        return SearchBot(rules, seed, worlds=int(name[7:]), seconds=None)
    if name.startswith("policy:") and is_bot(name):
        return PolicyBot(name[7:], seed)
    if name == "hybrid":
        return HybridBot(rules, seed)
    if name.startswith("hybrid:") and is_bot(name):
        return HybridBot(rules, seed, worlds=int(name[7:]), seconds=None)
    raise ValueError(f"未知的机器人 {name_or_strength!r} (unknown bot; choose from {', '.join(bot_names())}, "
                     "search:N, search:cpu, hybrid:N, learned:FILE.npz, policy:FILE.npz)")


__all__ = [
    "BOTS",
    "ORACLE",
    "ORACLE_REFUSED",
    "SEARCH_CPU",
    "STRENGTHS",
    "Bot",
    "HeuristicBot",
    "HybridBot",
    "LearnedBot",
    "Omniscient",
    "OracleBot",
    "PolicyBot",
    "RandomBot",
    "RandomishBot",
    "SearchBot",
    "bot_names",
    "is_bot",
    "make_bot",
]
