"""The HTTP protocol uvicorn runs for ``daer serve``: uvicorn's h11 protocol with deadlines, so slow clients
cannot hold the server (issue 26, item 6; docs/deploy.md, "Slow clients").

uvicorn itself waits for a request's headers and body for as long as the client sends a byte now and then (a
"slowloris": one header line every few seconds holds a socket, and its memory, indefinitely), and for as long
as a client does not read its answer.  Here each connection has one deadline at a time, never pushed back by
the data a client trickles in:

- **headers**: a request's headers must be complete within :attr:`Deadlines.header` seconds of the connection
  opening (or of the last answer, on a kept-alive connection);
- **body**: its body within :attr:`Deadlines.body` seconds of its headers;
- **write**: an answer the client stops reading (the socket's buffer full) must drain within
  :attr:`Deadlines.write` seconds;

past a deadline the connection is closed.  And one address may hold at most :attr:`Deadlines.pending`
connections that have not yet sent a whole request: one more has :attr:`Deadlines.pending_grace` (a second) to
send its own, then is closed — except a trusted reverse proxy's (:attr:`Deadlines.proxies`), which carries every
player behind it.  A WebSocket, once upgraded, leaves these deadlines (its own pings and caps take over).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from daer.server.http.transports import release_transport
from daer.server.ops.metrics import SLOW_CLOSED
from daer.server.safety.limits import Deadlines
from daer.server.social.networks import Net, is_trusted, parse_proxies


class DaerHttpProtocol(H11Protocol):
    """uvicorn's h11 protocol with the deadlines of :class:`Deadlines` (the module's docstring)."""

    deadlines: ClassVar[Deadlines] = Deadlines()
    proxies: ClassVar[tuple[Net, ...]] = ()
    """:attr:`Deadlines.proxies`, parsed."""
    pending_by: ClassVar[Counter[str]] = Counter()
    """Connections of each address that have not sent a whole request (every connection of the process)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._phase = ""
        self._pending_key: str | None = None
        self._proxy = False
        """The peer is a trusted proxy: its connections are not counted (:attr:`Deadlines.proxies`)."""

    @classmethod
    def with_deadlines(cls, deadlines: Deadlines) -> type[DaerHttpProtocol]:
        """The protocol class with these deadlines (what ``uvicorn.run(http=…)`` is given)."""
        return type("DaerHttpProtocol", (cls,), {"deadlines": deadlines, "pending_by": Counter(),
                                                 "proxies": parse_proxies(deadlines.proxies)})

    # -- the deadline of the current phase ----------------------------------------------------------------
    def _arm(self, phase: str, seconds: float) -> None:
        if self._phase == phase:
            return  # already running: data trickling in never pushes it back
        self._disarm()
        self._phase = phase
        self._deadline = self.loop.call_later(seconds, self._expired, phase)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self._phase = ""

    def _expired(self, phase: str) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            SLOW_CLOSED.labels(phase).inc()
            self.transport.abort()

    def _waiting(self, waiting: bool) -> None:
        """Count the connection among its address's pending ones (or no longer)."""
        if waiting and self._pending_key is None and self.client is not None and not self._proxy:
            self._pending_key = self.client[0]
            self.pending_by[self._pending_key] += 1
        elif not waiting and self._pending_key is not None:
            self.pending_by[self._pending_key] -= 1
            if self.pending_by[self._pending_key] <= 0:
                del self.pending_by[self._pending_key]
            self._pending_key = None

    # -- uvicorn's hooks -------------------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = self.client[0] if self.client is not None else ""
        self._proxy = bool(self.proxies) and is_trusted(address, self.proxies)
        over = not self._proxy and self.pending_by[address] >= self.deadlines.pending
        self._waiting(True)
        if over:  # past the cap: a short deadline of its own (counted as "pending" when it runs out)
            self._arm("pending", min(self.deadlines.pending_grace, self.deadlines.header))
        else:
            self._arm("header", self.deadlines.header)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._waiting(False)
        super().connection_lost(exc)
        # uvicorn cancels its keep-alive timer only on a clean close; its handle holds a bound method of this
        # protocol, a cycle never collected under --gc tuned (daer.server.http.transports)
        self._unset_keepalive_if_required()
        release_transport(self.transport)

    def handle_events(self) -> None:
        super().handle_events()
        if self.transport.is_closing() or self._phase == "upgraded":
            return
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            self._waiting(False)
            self._arm("body", self.deadlines.body)
        elif state is h11.DONE:  # a whole request: the application answers in its own time
            self._waiting(False)
            if self._phase in ("header", "body", "pending"):
                self._disarm()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._disarm()
        self._waiting(False)
        self._phase = "upgraded"
        super().handle_websocket_upgrade(event)

    def on_response_complete(self) -> None:
        super().on_response_complete()  # may already read a pipelined request (through handle_events)
        # kept alive and waiting for the next request: its headers have their deadline.  A pipelined request
        # already read (their state DONE, or SEND_BODY with its body deadline armed) keeps what handle_events
        # gave it: a header deadline armed now would cut its answer, however long the application takes.
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._disarm()
            self._waiting(True)
            self._arm("header", self.deadlines.header)

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._phase != "upgraded":
            self._disarm()
            self._arm("write", self.deadlines.write)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._phase == "write":
            self._disarm()
