"""提示 (hint) in a room that offers it (``RoomConfig.hint``): the bot's suggestion for the seat to act, in that
seat's own update only.

The suggestion and its reason come from the bots layer (:mod:`daer.bots.hint`), from the seat's view alone.  A
seat's update is rebuilt on every step of the table while its decision stays the same (other seats' steps, the
claim window), so a seat's last hint is kept with the point of the hand it was made for (the hand's start and
the length of its log): it is computed once per decision.  A room without the option never calls this module.
"""

from __future__ import annotations

from daer.bots.hint import hinter_for
from daer.engine.views import View
from daer.rules.model import Ruleset
from daer.server import protocol as p

__all__ = ["Suggestions"]


class Suggestions:
    """Each seat's last hint, with the point of the hand it was made for."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: dict[int, tuple[tuple[int, int], p.Hint | None]] = {}

    def of(self, rules: Ruleset, view: View, at: tuple[int, int]) -> p.Hint | None:
        """The hint for ``view``'s seat at point ``at`` of the hand (None: a spectator, or nothing to decide)."""
        seat = view.seat
        if seat is None or not view.to_act or view.phase == "over":
            return None
        last = self._last.get(seat)
        if last is not None and last[0] == at:
            return last[1]
        h = hinter_for(rules).hint(view)
        out = None if h is None else p.Hint(action=h.action, zh=h.zh, en=h.en)
        self._last[seat] = (at, out)
        return out
