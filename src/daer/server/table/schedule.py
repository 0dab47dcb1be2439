"""A table that deals a schedule of decks instead of fresh ones: a club tournament's table (docs/tournaments.md).

Every table of a tournament round deals the same committed seeds in the same order, so no seat adds entropy
(the decks must be the same at every table); the next hand is dealt only once the :attr:`Schedule.gate` opens
(every table of the round finished the hand before); the seeds stay unrevealed while the round runs
(:attr:`Schedule.private`), and the table refuses what would let it leave the schedule (a dissolve vote,
spectators, leaving the seat to a bot).  The match (:mod:`daer.server.table.match`) asks its schedule; the
tournament (``daer.server.tourney``) makes it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from daer.server.table.dealing import PendingDeal

REFUSED = frozenset({"dissolve", "agree", "refuse", "watch", "nowatch", "leave"})
"""Commands a tournament table refuses."""
GATE_POLL = 1.0
"""Seconds between two looks at a closed gate (a table of another worker may open it)."""


def _open(_hand: int) -> bool:
    return True


@dataclass
class Schedule:
    """The decks of a table, in hand order, and when it may deal the next one."""

    seeds: tuple[str, ...]
    gate: Callable[[int], bool] = field(default=_open)
    """May hand ``n`` (1-based) be dealt now?"""
    private: bool = True
    """The seeds are not revealed (the round runs)."""

    def pending(self, hand: int, seats: int) -> PendingDeal | None:
        """The deal of hand ``hand`` (1-based); None past the schedule."""
        return PendingDeal(self.seeds[hand - 1], [""] * seats) if 1 <= hand <= len(self.seeds) else None


__all__ = ["GATE_POLL", "REFUSED", "Schedule"]
