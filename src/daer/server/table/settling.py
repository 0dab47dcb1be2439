"""The working of a finished hand's settlement for the room's updates (``room.work``): the engine's result and
settlement, read by :func:`daer.settlement_work.worked`."""

from __future__ import annotations

from typing import Any

from daer.engine import GameState
from daer.rules.model import Ruleset
from daer.settlement_work import worked


def work_of(rules: Ruleset, st: GameState | None) -> dict[str, Any] | None:
    """胡 → 等 → multipliers → amounts of a finished hand, in Chinese and English; None while it is played."""
    if st is None or not st.over or st.result is None or st.settlement is None:
        return None
    r = st.result
    return worked(rules, st.settlement, how=r.how, penalties=r.penalties, dealer=st.dealer,
                  self_drawn="self_drawn" in r.flags)
