"""包牌 the engine charges: a claim passed up, paid when nobody wins (seed 000 【包牌规则】).

「没人胡的情况下，未碰牌」「没人胡的情况下，未招牌」: a seat that could have made a 碰 (or 招) and did
not — it answered 过, or 吃 instead of 碰 — pays 包 if the hand ends 黄.  Passing stays legal (unless
``play.peng_mandatory`` / ``zhao_mandatory`` take the choice away): it is a gamble that a win pays off.
The amount and who receives it are :func:`daer.scoring.settle_draw`'s; the other offences of the list
(垅 not shown, 坎 split, 未比牌, 吃过张, 诈胡 …) are actions the engine never offers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from daer.engine.actions import Hu, Peng, Zhao

if TYPE_CHECKING:
    from daer.engine.handstate import HandState


def note_unmade(st: HandState) -> None:
    """Record, before a claim is resolved, the seats that passed up a possible 碰 or 招."""
    pen = st.rules.penalty
    if not (pen.unmade_peng or pen.unmade_zhao):
        return
    for seat, act in st.choices.items():
        opts = st.options.get(seat, ())
        if isinstance(act, Hu):
            continue
        if pen.unmade_peng and not isinstance(act, Peng) and any(isinstance(a, Peng) for a in opts):
            st.unmade[seat].add("peng")
        if pen.unmade_zhao and not isinstance(act, Zhao) and any(isinstance(a, Zhao) for a in opts):
            st.unmade[seat].add("zhao")


def huang_penalties(st: HandState) -> tuple[tuple[int, str], ...]:
    """(seat, reasons) of the seats that pay 包 at a 黄 end: ``peng``, ``zhao`` or ``peng+zhao``."""
    return tuple((seat, "+".join(r for r in ("peng", "zhao") if r in st.unmade[seat]))
                 for seat in st.players if st.unmade[seat])
