"""Bots for the search pool's tests, importable by a worker process (daer.server.table.thinking)."""

from __future__ import annotations

import os
import time
from typing import Any


class Sleeper:
    """Thinks far past any cap (stands for a search with no time limit)."""

    name = "sleeper"

    def choose(self, view: Any) -> Any:
        time.sleep(60)
        return view.legal[0]


class Dying:
    """Its worker process dies while it thinks."""

    name = "dying"

    def choose(self, view: Any) -> Any:
        os._exit(3)


def sleeper() -> Sleeper:
    return Sleeper()


def dying() -> Dying:
    return Dying()
