"""What a bot is: something that picks one legal action from a seat's view (it never sees the state).

One exception, for measurement only: an :class:`Omniscient` bot (the oracle) is handed the true state by the
duplicate arena, and by nothing else — it has no ``choose``, so it cannot stand where a :class:`Bot` is asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from daer.engine.actions import Action, Hu
from daer.engine.views import View

if TYPE_CHECKING:
    from daer.engine.state import GameState


class Bot(Protocol):
    """A player program: ``choose`` gets a view with ``view.legal`` non-empty and returns one of them."""

    name: str

    def choose(self, view: View) -> Action:
        """Pick an action from ``view.legal``."""
        ...


@runtime_checkable
class Omniscient(Protocol):
    """A measuring program that sees every card (全知): ``choose_full`` gets the true state and the seat to act.

    Only the duplicate arena's measurement path (:func:`daer.bots.arena.play_deal`) calls it; the state is the
    arena's own and must not be changed (an omniscient bot plays on copies).
    """

    name: str

    def choose_full(self, state: GameState, seat: int) -> Action:
        """Pick an action from ``state.legal_actions(seat)``."""
        ...


def obvious(view: View) -> Action | None:
    """The choice no bot deliberates over: the only legal action, or a 胡 (every bot takes a win); else None."""
    legal = view.legal
    if len(legal) == 1:
        return legal[0]
    for a in legal:
        if isinstance(a, Hu):
            return a
    return None
