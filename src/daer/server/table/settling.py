"""A finished hand's settlement, read for the room: its working for the room's updates (``room.work``), read by
:func:`daer.settlement_work.worked`, and its 战绩 rows (:class:`daer.store.records.HandRecord`), stored with the
hand's finish."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from daer.engine import GameState
from daer.rules.model import Ruleset
from daer.server.table.seating import Seat
from daer.settlement_work import worked
from daer.store.records import HandRecord, SeatResult


def work_of(rules: Ruleset, st: GameState | None) -> dict[str, Any] | None:
    """胡 → 等 → multipliers → amounts of a finished hand, in Chinese and English; None while it is played."""
    if st is None or not st.over or st.result is None or st.settlement is None:
        return None
    r = st.result
    return worked(rules, st.settlement, how=r.how, penalties=r.penalties, dealer=st.dealer,
                  self_drawn="self_drawn" in r.flags)


def how_won(st: GameState) -> str:
    """How a finished hand ended: ``zimo`` (自摸: the winner's own card), ``dianpao`` (点炮: won on another seat's
    discard), ``hu`` (won on a card another seat revealed from the stock: neither), else the result's own
    ``instant`` (3垅 / 5坎 at the deal) or ``huang`` (黄)."""
    r = st.result
    assert r is not None
    if r.how != "hu":
        return r.how
    if "self_drawn" in r.flags:
        return "zimo"
    offer = st.offer  # the card won on (the hand ended on it: it was never cleared)
    if offer is not None and offer.source == "discard" and offer.owner != r.winner:
        return "dianpao"
    return "hu"


def record_of(code: str, rules: str, number: int, seats: Sequence[Seat], st: GameState | None) -> HandRecord | None:
    """The 战绩 of hand ``number`` of room ``code`` as it ended (None while it is played): every seat's player kind,
    shown name and points, the winner and how, 胡 and 名堂 (the result's flags, multipliers and instant win's
    name)."""
    if st is None or not st.over or st.result is None:
        return None
    r = st.result
    return HandRecord(
        room_code=code, hand_number=number, rules=rules, money=r.money, winner=r.winner, how=how_won(st), hu=r.hu,
        mingtang=(*r.flags, *r.multipliers, *((r.name,) if r.name else ())),
        seats=tuple(SeatResult(s.seat, s.kind, s.name, int(r.points[s.seat]) if s.seat < len(r.points) else 0)
                    for s in seats))
