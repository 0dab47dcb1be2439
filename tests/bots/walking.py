"""A walk over many states of every kind for a bot's legality tests (imported by the tests of this folder)."""

from __future__ import annotations

from daer.bots import RandomBot
from daer.bots.base import Bot
from daer.engine import new_hand
from daer.rules.model import Ruleset


def every_choice_is_legal(bot: Bot, rules: Ruleset, decisions: int, seed: str) -> None:
    """Ask ``bot`` at every step of hands dealt from ``seed`` until it made ``decisions`` real choices (more than one
    legal action), asserting each is legal; every other hand walks on by a random choice, to reach states the bot's
    own play never would."""
    walker = RandomBot(2)
    made = 0
    hand = 0
    while made < decisions:
        state = new_hand(rules, seed=f"{seed}:{hand}", dealer=hand % rules.table.seats)
        hand += 1
        while not state.over:
            seat = state.to_act()[0]
            view = state.view(seat, log=False)
            choice = bot.choose(view)
            assert choice in view.legal
            made += len(view.legal) > 1
            state.apply(choice if hand % 2 else walker.choose(view))
