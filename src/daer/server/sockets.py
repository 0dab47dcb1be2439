"""The WebSocket protocol uvicorn runs for ``daer serve``: uvicorn's own (websockets' sans-I/O core) with one
change of flow control.

uvicorn stops reading a socket (``transport.pause_reading``) as soon as one message waits for the
application, and reads again once the application took it (``resume_reading``): two ``epoll_ctl`` calls and
their bookkeeping for every message a client sends, though a session reads each message at once.  Here a
socket stops being read only once :data:`BACKLOG` messages wait (a client far ahead of its session), so a
message costs no flow-control step at all; back-pressure still holds, a few messages later.
"""

from __future__ import annotations

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

BACKLOG = 16
"""Messages waiting for the application before the socket stops being read."""


class DaerWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, reading on until :data:`BACKLOG` messages wait."""

    def send_receive_event_to_app(self) -> None:
        if self.read_paused or self.queue.qsize() + 1 >= BACKLOG:
            super().send_receive_event_to_app()  # pauses reading (resumed once the queue is empty)
            return
        self.read_paused = True  # the parent pauses only when it is not paused yet: let it think it is
        try:
            super().send_receive_event_to_app()
        finally:
            self.read_paused = False


__all__ = ["BACKLOG", "DaerWebSocketProtocol"]
