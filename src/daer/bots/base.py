"""What a bot is: something that picks one legal action from a seat's view (it never sees the state)."""

from __future__ import annotations

from typing import Protocol

from daer.engine.actions import Action, Hu
from daer.engine.views import View


class Bot(Protocol):
    """A player program: ``choose`` gets a view with ``view.legal`` non-empty and returns one of them."""

    name: str

    def choose(self, view: View) -> Action:
        """Pick an action from ``view.legal``."""
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
