"""Events (事件): frozen records of what happened, each with its audience.

Every card in an event is a *kind* (0-19), never a card id: ids would carry the
deal's order (the engine moves the lowest id of a kind, so a discard's id would
tell whether its owner holds another copy).

An event has a public form and, when it carries a seat's secret, a private form
for that seat only: :meth:`seen_by` gives the form a seat (or a spectator, None)
may see, or None when that audience sees nothing of it.  ``GameState.log`` keeps
the full events (records, replays, the engine itself); every view and every frame
on the wire is built from ``seen_by``.  To add an event with a secret, override
``seen_by`` (see ``docs/engine.md``).
"""

from __future__ import annotations

from typing import cast

import msgspec


class _Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", gc=False):
    # gc=False: a frozen record of ints and tuples closes no reference cycle; the collector need not track it
    def seen_by(self, seat: int | None) -> _Event | None:
        """The form of this event that ``seat`` (None: a spectator) may see; None if it sees nothing.

        Public by default: the whole table sees it.
        """
        return self


class Dealt(_Event, frozen=True, tag="dealt"):
    """砌牌: the deal; ``bottom`` is the kind of the stock's shown bottom card (None if not shown)."""

    dealer: int
    dijia: int | None
    bottom: int | None
    red_moved: int
    """Red bottom cards moved to the top of the stock before a black one was shown."""
    bottoms: tuple[int, ...] = ()
    """Every face-up bottom card: the dead ones (``table.dead_cards``, 隆昌: two), else ``(bottom,)``."""


class LongDeclared(_Event, frozen=True, tag="long"):
    """垅: four dealt cards of ``kind`` laid on the table."""

    seat: int
    kind: int


class Discarded(_Event, frozen=True, tag="discarded"):
    """打牌: ``seat`` put a card of ``kind`` on offer."""

    seat: int
    kind: int


class Revealed(_Event, frozen=True, tag="revealed"):
    """摸牌: ``seat`` turned up a card of ``kind`` from the stock; shown to all (``left`` in the stock).

    ``down``: the card goes straight into its revealer's face-down 偎 (跑胡子, ``play.wei_hidden``): the
    others see only that he drew (:class:`FaceDown`).
    """

    seat: int
    kind: int
    left: int
    down: bool = False

    def seen_by(self, seat: int | None) -> Revealed | FaceDown:
        """The others see a face-down draw without its kind."""
        if self.down and seat != self.seat:
            return FaceDown(seat=self.seat, how="draw", left=self.left)
        return self


class FaceDown(_Event, frozen=True, tag="face_down"):
    """What the other seats see of a face-down 偎 (跑胡子): ``seat`` drew a card it keeps hidden
    (``how`` = "draw", ``left`` in the stock), then laid a 偎 face down (``how`` = "wei").

    Only ever an audience's form of :class:`Revealed` / :class:`Claimed`; never in the engine's log.
    """

    seat: int
    how: str
    left: int | None = None


class ChoiceMade(_Event, frozen=True, tag="chose"):
    """A seat answered the card on offer.  Private to that seat: nobody else learns it had an option."""

    seat: int

    def seen_by(self, seat: int | None) -> ChoiceMade | None:
        """Only the seat that chose sees it."""
        return self if seat == self.seat else None


def _own_guo(guo: tuple[tuple[int, int], ...], seat: int | None) -> tuple[tuple[int, int], ...]:
    return tuple(g for g in guo if g[0] == seat)


class Claimed(_Event, frozen=True, tag="claimed"):
    """The card on offer (``kind``) was taken (碰/招/吃, or 偎/提 in 跑胡子) by ``seat``.

    ``melds`` are the kinds of each 列 laid down.  ``guo`` (private: each seat sees
    only its own pairs) lists the (seat, kind) that became 过张 at this resolution.
    """

    seat: int
    how: str
    kind: int
    melds: tuple[tuple[int, ...], ...]
    guo: tuple[tuple[int, int], ...] = ()
    down: bool = False
    """A 偎 laid face down (跑胡子, ``play.wei_hidden``): the others see a :class:`FaceDown`."""

    def seen_by(self, seat: int | None) -> Claimed | FaceDown:
        """The public form without other seats' 过张; a face-down 偎 without its kinds."""
        if self.down and seat != self.seat:
            return FaceDown(seat=self.seat, how=self.how)
        own = _own_guo(self.guo, seat)
        if own == self.guo:
            return self
        return Claimed(seat=self.seat, how=self.how, kind=self.kind, melds=self.melds, guo=own, down=self.down)


class NotTaken(_Event, frozen=True, tag="not_taken"):
    """Nobody took the card on offer (``kind``); it goes to the discards.  ``guo``: as in :class:`Claimed`."""

    kind: int
    guo: tuple[tuple[int, int], ...] = ()

    def seen_by(self, seat: int | None) -> NotTaken:
        """The public form without other seats' 过张."""
        own = _own_guo(self.guo, seat)
        return self if own == self.guo else NotTaken(kind=self.kind, guo=own)


class HandEnded(_Event, frozen=True, tag="ended"):
    """The hand is over: ``winner`` (None for 黄牌), how, 胡 and each seat's points."""

    winner: int | None
    how: str
    hu: int
    points: tuple[int, ...]
    penalties: tuple[tuple[int, str], ...] = ()
    """包牌 charged at a 黄 end, public: (seat, what it passed up: ``peng``, ``zhao`` or ``peng+zhao``)."""


class Declared(_Event, frozen=True, tag="bao"):
    """报牌: ``seat`` declared its hand ready (its discard follows as :class:`Discarded`)."""

    seat: int


Event = (Dealt | LongDeclared | Discarded | Revealed | ChoiceMade | Claimed | NotTaken | HandEnded | Declared
         | FaceDown)
"""Any event."""


def seen_by(events: tuple[Event, ...] | list[Event], seat: int | None) -> tuple[Event, ...]:
    """The events ``seat`` (None: a spectator) may see, each in that audience's form."""
    out: list[Event] = []
    for ev in events:
        shown = ev.seen_by(seat)
        if shown is not None:
            out.append(cast(Event, shown))
    return tuple(out)
