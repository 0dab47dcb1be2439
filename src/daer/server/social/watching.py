"""Spectators who cannot help: they see the public table a number of *public steps* behind (a step is one change
of the room's public version within a hand: a draw or reveal, a discard, a claim, a claim window closed), so
nothing they see is still on offer; never a seat's concealed cards (they get the spectator's view, seat None).

:class:`Delayed` keeps a second copy of the hand for them, fed the same steps as the live one and advanced only
to ``version - delay``: its log is the live log's prefix (the engine is deterministic), so the spectator's events
and view are exactly what the table saw then.  No I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from daer.engine import Action, GameState
from daer.rules import Ruleset

WATCH_DELAY = 4
"""Default public steps behind (``daer serve --watch-delay``): about one seat's whole turn — its draw, the draw's
claim window, its discard, the discard's claim window."""


@dataclass(slots=True)
class Delayed:
    """The hand as spectators see it: the live hand's steps (version after, action or None for a window closed),
    applied up to the version they are shown.  The copy is dealt when a spectator first looks (most hands have
    none: a copy dealt for every hand cost ~2% of the table's CPU and a second hand's memory in every room)."""

    deal: tuple[Ruleset, tuple[int, ...], int, int | None, bool] | None = None
    """The live hand's deal, taken before its first step: rules, deck, dealer, wind, hold."""
    behind: GameState | None = None
    steps: list[tuple[int, Action | None]] = field(default_factory=list)
    applied: int = 0

    def reset(self, st: GameState) -> None:
        """A new hand, as dealt (``st`` before any step)."""
        self.deal, self.behind = (st.rules, st.deck, st.dealer, st.wind, st.hold), None
        self.steps, self.applied = [], 0

    def record(self, version: int, action: Action | None) -> None:
        """A step of the live hand: the action applied (or the window closed, None) at ``version``."""
        self.steps.append((version, action))

    def at(self, version: int) -> GameState:
        """The hand after every step up to ``version`` (it only moves forward)."""
        st = self.behind
        if st is None:
            assert self.deal is not None
            rules, deck, dealer, wind, hold = self.deal
            st = self.behind = GameState(rules, deck, dealer=dealer, wind=wind, hold=hold)
        while self.applied < len(self.steps) and self.steps[self.applied][0] <= version:
            _, action = self.steps[self.applied]
            if action is None:
                st.close_window()
            else:
                st.apply(action)
            self.applied += 1
        return st


def watch_target(version: int, hand_start: int, delay: int, *, live: bool) -> int:
    """The version spectators are shown: ``delay`` public steps behind while a hand is in play (``live``), never
    before its deal; the live version otherwise (a hand over, or between hands: nothing is on offer)."""
    if not live or delay <= 0:
        return version
    return max(hand_start, version - delay)
