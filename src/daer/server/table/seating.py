"""Seats and connections of a room: secret seat tokens (stored hashed) and each WebSocket's outbox."""

from __future__ import annotations

import asyncio
import functools
import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from daer.store import SeatRow

if TYPE_CHECKING:
    from collections.abc import Callable

Frame = str | bytes
"""A text frame's payload: a ``str``, or the UTF-8 bytes of one (an update straight from the encoder)."""


def token_hash(token: str) -> str:
    """SHA-256 of a seat token (only the hash is stored)."""
    return hashlib.sha256(token.encode()).hexdigest()


class Gate(Protocol):
    """What a frame waits for before it is queued: the commit of every write made so far
    (:meth:`daer.store.writer.Writer.after_commit`)."""

    def after_commit(self, fn: Callable[[], None]) -> None: ...


class Conn:
    """One WebSocket connection's outbox: the room pushes text, a writer task sends it.

    With a ``gate`` (the store's writer, in the server), a frame is queued only once every write made
    before it is committed: no ack or update reports a change that is not stored yet.  With ``direct`` (the
    socket's :data:`daer.server.http.sockets.SEND_NOW`), a released frame that has nothing queued before it is
    written at once when the socket allows (``direct`` returns True), without the writer task.
    """

    __slots__ = ("aborted", "close_code", "corked", "direct", "gate", "held", "holder", "name", "overflow", "queue",
                 "seat", "sending")

    def __init__(self, seat: int | None, *, limit: int = 256, gate: Gate | None = None,
                 direct: Callable[..., bool] | None = None) -> None:
        self.seat = seat
        self.holder: str | None = None
        """Hash of the token this connection proved at ``hello`` (None: a spectator)."""
        self.held: str | None = None
        """The seat's stored hash (the very string object) last found equal to :attr:`holder`: while the seat still
        holds that object, nothing changed hands and no comparison is needed (:meth:`Audience.holds`)."""
        self.name = ""
        """A spectator's name (its ``hello``), shown to the table."""
        self.queue: asyncio.Queue[Frame | None] = asyncio.Queue(limit)
        self.overflow = False
        self.gate = gate
        self.aborted = False
        """The room's write failed: frames still waiting for the commit are dropped (:meth:`abort`)."""
        self.direct = direct
        self.sending = False
        """The writer task holds a frame it took from the queue and has not written yet (it waits for the socket):
        a frame written directly now would overtake it."""
        self.close_code = 1000
        """WebSocket close code once closed (``protocol.RECONNECT``: reconnect, the room moved)."""
        self.corked: list[Frame | None] | None = None
        """Frames held by :meth:`cork` until :meth:`uncork`."""

    def push(self, text: Frame | None) -> None:
        """Queue a frame (None closes) after the writes before it commit; a client too slow to read is
        dropped, not waited for."""
        if self.corked is not None:
            self.corked.append(text)
        elif self.gate is None:
            self._put(text)
        else:
            self.gate.after_commit(functools.partial(self._put, text))

    def cork(self) -> None:
        """Hold the frames pushed from now on until :meth:`uncork` (while one message is handled: its update and
        its answer then go out in one write to the socket)."""
        if self.corked is None:
            self.corked = []

    def uncork(self) -> None:
        """Release the held frames together, once the writes made before now commit (so, as each one alone
        would be, after the writes made before it)."""
        held, self.corked = self.corked, None
        if not held:
            return
        if len(held) == 1:
            self.push(held[0])
        elif self.gate is None:
            self._put_all(held)
        else:
            self.gate.after_commit(functools.partial(self._put_all, held))

    def _put(self, text: Frame | None) -> None:
        if self.overflow or self.aborted:
            return
        if (text is not None and self.direct is not None and not self.sending and self.queue.empty()
                and self.direct(text)):
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.overflow = True

    def _put_all(self, texts: list[Frame | None]) -> None:
        """Frames released together: written at once in one write when nothing waits before them, else queued
        in order."""
        if self.overflow or self.aborted:
            return
        if (self.direct is not None and not self.sending and self.queue.empty() and None not in texts
                and self.direct(*texts)):
            return
        for text in texts:
            self._put(text)

    def abort(self, text: Frame) -> None:
        """Send ``text`` now and close, dropping every frame not yet released (its write was not stored)."""
        if self.aborted:
            return
        self._put(text)
        self._put(None)
        self.aborted = True


def close_soon(conns: list[Conn]) -> None:
    """Close these connections once the frames already queued for them are sent."""

    def close() -> None:
        for c in conns:
            c.push(None)

    if not conns:  # nothing to close needs no loop (a room stopped outside the server, e.g. by a script)
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # no loop runs (rooms driven directly, as in tests): the queued frames go first anyway
        close()
        return
    loop.call_soon(close)


@dataclass(slots=True)
class Seat:
    """A seat of a room (``kind``: human / bot / empty)."""

    seat: int
    kind: str = "empty"
    name: str = ""
    token_hash: str | None = None
    auto: bool = False
    online: int = 0

    def row(self) -> SeatRow:
        """As stored."""
        return SeatRow(self.seat, self.kind, self.name, self.token_hash, self.auto)
