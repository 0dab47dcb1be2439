"""The live connections of a room and who hears what: one frame per seat (a spectator is seat None), a
seat's private step only to that seat's sockets, and the ways a connection is closed.

It holds no rules and writes nothing: the room says what each seat sees (its ``update_for``), this says
who is listening.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Iterable

from daer.server import protocol as p
from daer.server.table.seating import Conn, Frame, Seat, close_soon


class Audience:
    """The WebSocket connections of one room."""

    __slots__ = ("conns",)

    def __init__(self) -> None:
        self.conns: set[Conn] = set()

    def __len__(self) -> int:
        return len(self.conns)

    @staticmethod
    def holds(conn: Conn, seats: list[Seat]) -> bool:
        """True while ``conn``'s seat is still held by the token it proved (always for a spectator)."""
        if conn.seat is None:
            return True
        held = seats[conn.seat].token_hash
        if held is None or conn.holder is None:
            return False
        if held is conn.held:  # the same stored hash as at the last check: it matched then (every broadcast asks)
            return True
        if hmac.compare_digest(held, conn.holder):
            conn.held = held
            return True
        return False

    def stale(self, seats: list[Seat]) -> list[Conn]:
        """Connections whose seat changed hands since they proved their token."""
        return [c for c in self.conns if not self.holds(c, seats)]

    def remove(self, conn: Conn, seats: list[Seat]) -> bool:
        """Forget a connection (its seat's online count drops); False if it was not here."""
        if conn not in self.conns:
            return False
        self.conns.discard(conn)
        if conn.seat is not None:
            seats[conn.seat].online = max(0, seats[conn.seat].online - 1)
        return True

    def send(self, frame_for: Callable[[int | None], Frame], only: int | None = None) -> None:
        """Each connection its seat's frame (built once per seat); ``only``: that seat's connections alone."""
        cache: dict[int | None, Frame] = {}
        for c in list(self.conns):
            if only is not None and c.seat != only:
                continue
            if c.seat not in cache:
                cache[c.seat] = frame_for(c.seat)
            c.push(cache[c.seat])

    def watcher_names(self) -> list[str]:
        """The names the room's spectators gave ("" for none), one per connection."""
        return [c.name for c in self.conns if c.seat is None]

    def close_watchers(self, zh: str, en: str) -> None:
        """Tell every spectator why and close its socket."""
        gone = [c for c in self.conns if c.seat is None]
        self.conns.difference_update(gone)
        self.tell_and_close(gone, zh, en)

    @staticmethod
    def tell_and_close(conns: Iterable[Conn], zh: str, en: str) -> None:
        """Send ``closed`` (Chinese first), then close once what is queued is sent."""
        out = list(conns)
        for c in out:
            c.push(p.encode(p.Closed(zh=zh, en=en)))
        close_soon(out)

    def close_all(self, zh: str, en: str) -> None:
        """The room closed: tell every connection and close it."""
        conns = list(self.conns)
        self.conns.clear()
        self.tell_and_close(conns, zh, en)

    def reconnect_all(self, abort: str | None = None) -> None:
        """This process stops serving the room (its lease went to another worker, or it is drained): close
        every connection with :data:`daer.server.protocol.RECONNECT`, so clients reconnect through the
        balancer and resume at their version.  ``abort``: a frame sent at once, and the frames still waiting
        for a write's commit dropped (that write was refused)."""
        conns = list(self.conns)
        self.conns.clear()
        for c in conns:
            c.close_code = p.RECONNECT
            if abort is not None:
                c.abort(abort)
        if abort is None:
            close_soon(conns)
