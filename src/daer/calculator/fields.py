"""The JSON fields of a settlement, shared by the general calculator, its batch path and ``daer play``.

Kept apart from :mod:`daer.calculator.core` so that the batch path can encode a settlement without loading
the general calculator (and the 名堂 it scores): ``daer score --json`` starts faster for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from daer.rules.model import PATTERN_MODES, Ruleset

if TYPE_CHECKING:
    from daer.scoring import Settlement


def _settlement_json(s: Settlement) -> dict[str, Any]:
    pts = [s.shown(p) for p in s.points]  # money play: 元, exact (counted in 分)
    losers = [p for seat, p in enumerate(pts) if s.role(seat) == "loser"]
    return {
        "winner": pts[s.winner] if s.winner is not None else 0,
        "dijia": pts[s.dijia] if s.dijia is not None else None,
        "losers": losers,
        "seats": pts,
        "roles": [s.role(seat) for seat in range(len(s.points))],
    }


def settlement_fields(rules: Ruleset, s: Settlement, *, notes: bool = False) -> dict[str, Any]:
    """The JSON fields of a settlement: 等, multipliers, 番 and notes, points and payments.

    ``daer score`` and the settlement of ``daer play`` are both printed from these fields.  ``notes`` (the
    arithmetic, always given under 名堂 / 番 / 花样) also in 等 play: for people, not in the JSON API.
    """
    out: dict[str, Any] = {
        "deng": s.deng,
        "multipliers": [{"id": m.id, "name": m.zh, "factor": m.factor} for m in s.multipliers],
        "factor": s.factor,
    }
    if rules.scoring.mode in PATTERN_MODES:
        out["mode"] = rules.scoring.mode
        out["fan"] = s.fan
        out["mingtang"] = [{"id": m.id, "name": m.zh, "en": m.en, "value": m.factor} for m in s.multipliers]
    if notes or rules.scoring.mode in PATTERN_MODES:
        out["notes"] = list(s.notes)  # the arithmetic: (2+1)×1 = 3, or how 名堂 / 番 reached the points
    if rules.scoring.mode == "fan":
        out["final"] = s.final
    out["points"] = _settlement_json(s)
    out["payments"] = [
        {"from": p.payer, "to": p.payee, "amount": s.shown(p.amount), "why": p.zh, "why_en": p.en}
        for p in s.payments
    ]
    if s.money:
        out["unit"] = "元"  # amounts in 元 (exact: 2.5, never a rounded float)
    return out
