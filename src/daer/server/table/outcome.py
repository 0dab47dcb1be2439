"""What a step of a match asks the world to do, as data (:mod:`daer.server.table.match` returns it, the room
performs it).

A :class:`daer.server.table.match.Match` never writes, sends or waits: each of its commands returns an
:class:`Outcome` — the answer to the client's id, the rows to store (in order, all before anything is sent),
the updates to send and whether the room's clock must be re-armed.  :class:`daer.server.table.rooms.Room` performs
it: the writes through its :class:`~daer.server.table.port.RoomPort` (fenced), the updates through its audience.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from daer.server import protocol as p
from daer.store import ActionRow, SeatRow


@dataclass(frozen=True, slots=True)
class RoomWrite:
    """Room fields (``version`` among them when it changes) and seats (``RoomPort.update_room``)."""

    fields: dict[str, Any]
    seats: list[SeatRow] | None = None


@dataclass(frozen=True, slots=True)
class ActionWrite:
    """An accepted action of the current hand, with what it changed (``RoomPort.append_action``)."""

    row: ActionRow
    room: dict[str, Any] = field(default_factory=dict)
    points: str | None = None
    """The hand's points when this action ended it."""
    seats: list[SeatRow] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class HandWrite:
    """A new hand (``RoomPort.start_hand``): the store names it; the room tells the match its id."""

    number: int
    rules: str
    overrides: str
    dealer: int
    deck: str
    version: int
    seats: list[SeatRow]
    fairness: tuple[str, str, str]


@dataclass(frozen=True, slots=True)
class FinishWrite:
    """The current hand's result (``RoomPort.finish_hand``)."""

    points: str


Write = RoomWrite | ActionWrite | HandWrite | FinishWrite


@dataclass(frozen=True, slots=True)
class Send:
    """Send every connection its update from version ``since``; ``only``: a private step of that seat, which
    had ``seen`` private steps at this version before it."""

    since: int | None
    only: int | None = None
    seen: int | None = None


Keep = Literal["store", "memory", "none"]
"""How the answer to a client's id is kept: stored (a repeat gets it across restarts; with the change when
there is one, else alone within the per-seat cap), in memory only, or not at all (the client may retry the id)."""


@dataclass(slots=True)
class Outcome:
    """What one command (or timer) of a match did."""

    reply: p.Ack | p.Error | None = None
    keep: Keep = "store"
    writes: list[Write] = field(default_factory=list)
    """Stored in this order before any update is sent; the first that can carries the answer (``reply``)."""
    sends: list[Send] = field(default_factory=list)
    timers: bool = False
    """The room's clock must look again (a bot to move, a window to close, a deal)."""
    closed: tuple[str, str] | None = None
    """Every connection is told the room closed (Chinese, English) and closed."""
    dealt: bool = False
    """A hand was dealt (logged by the room)."""
    ended: bool = False
    """A hand ended and was booked (logged by the room)."""
    action: int | None = None
    """The seat whose action was accepted (counted by the room)."""
    unwatch: bool = False
    """The host forbade watching: every spectator's socket is told and closed."""

    @property
    def changed(self) -> bool:
        """True when the match changed something the store keeps."""
        return bool(self.writes)
