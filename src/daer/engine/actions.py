"""Actions a seat can take (动作): frozen, tagged structs that serialize to JSON.

Cards in actions are *kinds* (0-19): which physical copy moves is decided by the
engine (the lowest card id of that kind in the hand), so a record never depends
on which copy a player meant.

>>> Chi(seat=1, hand=(3, 4), bi=())
Chi(hand=(3, 4), bi=(), seat=1)
"""

from __future__ import annotations

import msgspec

from daer.cards import format_kinds, kind_ascii, kind_char


class _Action(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", gc=False):
    # gc=False: a frozen record of ints and tuples closes no reference cycle; the collector need not track it
    seat: int


class Discard(_Action, frozen=True, tag="discard"):
    """打牌: put one card of ``kind`` from the concealed hand on offer."""

    kind: int


class Hu(_Action, frozen=True, tag="hu"):
    """胡: win on the card on offer (or, for the dealer before the first discard, 天胡 on the dealt hand)."""


class Zhao(_Action, frozen=True, tag="zhao"):
    """招: a concealed 坎 takes the fourth card."""


class Peng(_Action, frozen=True, tag="peng"):
    """碰: a concealed pair takes the third card."""


class Chi(_Action, frozen=True, tag="chi"):
    """吃: two hand cards (``hand``, kinds) make a 列 with the card on offer.

    ``bi`` lists the 比牌 列 laid down at the same time (three hand kinds each), so
    that no copy of the eaten kind stays in the hand.
    """

    hand: tuple[int, ...]
    bi: tuple[tuple[int, ...], ...] = ()


class Pass(_Action, frozen=True, tag="pass"):
    """过: take nothing."""


class Bao(_Action, frozen=True, tag="bao"):
    """报牌 (古蔺, ``play.bao``): discard ``kind`` and declare the hand ready; from then on only 胡 or 过."""

    kind: int


Action = Discard | Hu | Zhao | Peng | Chi | Pass | Bao
"""Any action."""

PRIORITY = {Hu: 0, Zhao: 1, Peng: 2, Chi: 3, Pass: 4}
"""Claim priority (胡 > 招 > 碰 > 吃 > 过): lower wins."""


def describe(action: Action, *, lang: str = "zh", card: int | None = None) -> str:
    """Short text for a player: ``碰``, ``吃 三四(五)``, ``打 七``; ``card`` is the kind on offer."""
    zh = lang != "en"

    def fk(kinds: tuple[int, ...] | list[int]) -> str:
        return format_kinds(kinds) if zh else format_kinds(kinds, ascii=True)

    if isinstance(action, Discard):
        return f"打 {kind_char(action.kind)}" if zh else f"discard {kind_ascii(action.kind)}"
    if isinstance(action, Bao):
        return f"报牌 打 {kind_char(action.kind)}" if zh else f"declare ready, discard {kind_ascii(action.kind)}"
    if isinstance(action, Hu):
        return "胡" if zh else "hu (win)"
    if isinstance(action, Zhao):
        return "招" if zh else "zhao (4th card onto a 坎)"
    if isinstance(action, Peng):
        return "碰" if zh else "peng"
    if isinstance(action, Chi):
        main = list(action.hand) + ([card] if card is not None else [])
        text = ("吃 " if zh else "chi ") + fk(sorted(main))
        if action.bi:
            text += (" 比 " if zh else " + bi ") + " ".join(fk(g) for g in action.bi)
        return text
    return "过" if zh else "pass"
