"""Prints which modules run compiled and a digest of seeded play (run by tests/test_native.py, compiled and pure).

The play touches every compiled module: heuristic self-play hands of several presets (the engine's steps, claims,
偎 and penalties, the heuristic bot), and a few decisions of a small search (worlds sampled from a seat's view,
rolled out by heuristic bots).  The digest covers every hand's record and the search's choices.
"""

from __future__ import annotations

import hashlib
import json

import msgspec

import daer
from daer.bots import make_bot
from daer.engine.record import new_hand, record_of
from daer.rules import find_rules

PRESETS = ("luzhou", "gulin", "hejiang", "longchang", "luzhou-mingtang", "paohuzi")


def digest(hands: int = 6, searched: int = 3) -> str:
    """SHA-256 of the seeded hands' records and the search's choices."""
    h = hashlib.sha256()
    for rules_name in PRESETS:
        rules = find_rules(rules_name)
        for seed in range(hands):
            state = new_hand(rules, seed=f"native-{seed}", dealer=seed % rules.table.seats)
            bots = [make_bot("heuristic", seed, rules=rules) for _ in range(rules.table.seats)]
            search = make_bot("search:4", seed, rules=rules) if seed < searched else None
            while not state.over:
                seat = state.to_act()[0]
                bot = search if search is not None and seat == state.dealer else bots[seat]
                action = bot.choose(state.view(seat, log=False))
                h.update(msgspec.json.encode(action))
                state.apply(action)
            h.update(msgspec.json.encode(record_of(state, seed=f"native-{seed}")))
    return h.hexdigest()


if __name__ == "__main__":
    print(json.dumps({"compiled": list(daer.COMPILED), "digest": digest()}))
