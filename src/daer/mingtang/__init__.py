"""名堂 / 番 / 花样: the patterns of the rule texts and the scoring modes that use them."""

from daer.mingtang.context import SEAT_CARDS, WINDS, WinContext
from daer.mingtang.patterns import PATTERNS, Pattern, matches
from daer.mingtang.settle import (
    Win,
    best_of,
    best_win,
    seat_card,
    settle_context,
    settle_instant,
)
from daer.rules.model import PATTERN_MODES

__all__ = [
    "PATTERNS",
    "PATTERN_MODES",
    "SEAT_CARDS",
    "WINDS",
    "Pattern",
    "Win",
    "WinContext",
    "best_of",
    "best_win",
    "matches",
    "seat_card",
    "settle_context",
    "settle_instant",
]
