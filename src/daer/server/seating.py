"""Seats and connections of a room: secret seat tokens (stored hashed) and each WebSocket's outbox."""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass

from daer.store import SeatRow


def token_hash(token: str) -> str:
    """SHA-256 of a seat token (only the hash is stored)."""
    return hashlib.sha256(token.encode()).hexdigest()


class Conn:
    """One WebSocket connection's outbox: the room pushes text, a writer task sends it."""

    def __init__(self, seat: int | None, *, limit: int = 256) -> None:
        self.seat = seat
        self.holder: str | None = None
        """Hash of the token this connection proved at ``hello`` (None: a spectator)."""
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(limit)
        self.overflow = False

    def push(self, text: str | None) -> None:
        """Queue a frame (None closes); a client too slow to read is dropped, not waited for."""
        if self.overflow:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.overflow = True


def close_soon(conns: list[Conn]) -> None:
    """Close these connections once the frames already queued for them are sent."""

    def close() -> None:
        for c in conns:
            c.push(None)

    asyncio.get_event_loop().call_soon(close)


@dataclass
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
