"""Events (事件): frozen records of what happened, all public.

A seat's claim choice is private until the claims are resolved: the event of
submitting it (:class:`ChoiceMade`) names the seat only.
"""

from __future__ import annotations

import msgspec


class _Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    pass


class Dealt(_Event, frozen=True, tag="dealt"):
    """砌牌: the deal; ``bottom`` is the stock's shown bottom card id (None if not shown)."""

    dealer: int
    dijia: int | None
    bottom: int | None
    red_moved: int
    """Red bottom cards moved to the top of the stock before a black one was shown."""
    bottoms: tuple[int, ...] = ()
    """Every face-up bottom card: the dead ones (``table.dead_cards``, 隆昌: two), else ``(bottom,)``."""


class LongDeclared(_Event, frozen=True, tag="long"):
    """垅: four dealt cards laid on the table."""

    seat: int
    cards: tuple[int, ...]


class Discarded(_Event, frozen=True, tag="discarded"):
    """打牌: ``card`` (id) put on offer by ``seat``."""

    seat: int
    card: int


class Revealed(_Event, frozen=True, tag="revealed"):
    """摸牌: ``seat`` turned up ``card`` (id) from the stock; shown to all."""

    seat: int
    card: int
    left: int


class ChoiceMade(_Event, frozen=True, tag="chose"):
    """A seat answered the card on offer; what it chose stays hidden until resolution."""

    seat: int


class Claimed(_Event, frozen=True, tag="claimed"):
    """The card on offer was taken (碰/招/吃) by ``seat``; ``melds`` are the card ids laid down."""

    seat: int
    how: str
    card: int
    melds: tuple[tuple[int, ...], ...]
    guo: tuple[tuple[int, int], ...] = ()
    """(seat, kind) pairs that became 过张 at this resolution."""


class NotTaken(_Event, frozen=True, tag="not_taken"):
    """Nobody took the card on offer; it goes to the discards."""

    card: int
    guo: tuple[tuple[int, int], ...] = ()


class HandEnded(_Event, frozen=True, tag="ended"):
    """The hand is over: ``winner`` (None for 黄牌), how, 胡 and each seat's points."""

    winner: int | None
    how: str
    hu: int
    points: tuple[int, ...]


class Declared(_Event, frozen=True, tag="bao"):
    """报牌: ``seat`` declared its hand ready (its discard follows as :class:`Discarded`)."""

    seat: int


Event = Dealt | LongDeclared | Discarded | Revealed | ChoiceMade | Claimed | NotTaken | HandEnded | Declared
"""Any event."""
