"""Instant wins at the deal (3垅 / 5坎, 砌牌后有3垅或者5坎，可以直接胡牌): take them or play on.

The texts say such a hand *may* win at once (可以直接胡牌).  With ``win.instant_optional``
every playing seat holding one is asked right after the deal — phase ``claim`` with no
card on offer, options 胡 and 过 — through the same checker as every claim; the answers
are resolved like claims (the first seat in turn order from the dealer among those who
take it).  When all decline, the hand plays on normally (their 垅 are declared as usual).
Without the option the first such seat wins at once, as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from daer.engine.actions import Action, Hu, Pass
from daer.engine.claims import resolve
from daer.engine.handstate import Instant
from daer.engine.views import Result
from daer.hands import instant_win
from daer.mingtang import settle_instant

if TYPE_CHECKING:
    from daer.engine.handstate import HandState



def instant_seats(st: HandState) -> dict[int, Instant]:
    """Playing seats whose dealt hand is an instant win, in turn order from the dealer."""
    out: dict[int, Instant] = {}
    for seat in st.players:
        inst = instant_win(st.rules, tuple(st.counts[seat]))
        if inst is not None:
            out[seat] = inst
    return out


def offer_instant(st: HandState, wins: dict[int, Instant]) -> None:
    """Ask every seat of ``wins`` to 胡 or 过 (or, when the win is not optional, let the first win)."""
    if not st.rules.win.instant_optional:
        seat = next(iter(wins))
        take_instant(st, seat, wins[seat])
        return
    st.instants = dict(wins)
    st.phase = "claim"
    st.actor = None
    st.offer = None
    st.choices = {}
    st.options = {seat: [Hu(seat=seat), Pass(seat=seat)] for seat in wins}


def resolve_instant(st: HandState) -> None:
    """All asked seats answered: the first taker in turn order wins, else the hand plays on."""
    win: Action | None = resolve(st.players, st.choices)
    st.options = {}
    st.choices = {}
    wins, st.instants = st.instants, {}
    if isinstance(win, Hu):
        take_instant(st, win.seat, wins[win.seat])
    else:
        st.start_play()


def take_instant(st: HandState, seat: int, inst: Instant) -> None:
    """End the hand with ``seat``'s instant win, paid on every card of its dealt hand."""
    name, hu, groups = inst
    settlement = settle_instant(st.rules, tuple(st.counts[seat]), groups, hu, winner=seat, dealer=st.dealer,
                                wind=st.wind)
    st.finish(
        Result(winner=seat, how="instant", hu=hu, name=name, red=settlement.red,
               flags=("self_drawn",) if st.rules.win.tianhu_self_drawn else (),  # 天胡为自摸 (跑胡子)
               groups=tuple((g.kind.zh, g.cards, g.hu) for g in groups)),
        settlement,
    )
