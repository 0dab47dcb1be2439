"""The WebSocket protocol uvicorn runs for ``daer serve``: uvicorn's own (websockets' sans-I/O core) with two
changes, both about cost per message.

Sending: a frame released by the store's commit is written at once when nothing waits before it
(:meth:`DaerWebSocketProtocol.send_now`, offered to the application as the ASGI extension
:data:`SEND_NOW`), instead of going through the connection's queue, its writer task and the ASGI ``send``
chain: exactly what uvicorn's ``send`` does for ``websocket.send``, minus a task switch and four coroutine
layers, and only when that ``send`` would not have waited (handshake done, not closing, the transport not
paused for writing); otherwise the frame takes the queue as before, so frames keep their order.

Reading:
uvicorn stops reading a socket (``transport.pause_reading``) as soon as one message waits for the
application, and reads again once the application took it (``resume_reading``): two ``epoll_ctl`` calls and
their bookkeeping for every message a client sends, though a session reads each message at once.  Here a
socket stops being read only once :data:`BACKLOG` messages wait (a client far ahead of its session), so a
message costs no flow-control step at all; back-pressure still holds, a few messages later.  And a read that
holds exactly one whole, small, unfragmented text frame — what a client's every message is — is unmasked and handed
on here (:meth:`DaerWebSocketProtocol.data_received`), without websockets' parser: the library's generators, its
``Frame`` and its list of events cost ~60 µs a message on a loaded server.  Anything else (a control frame, a
fragment, a frame split across reads or several in one, a frame too big, bytes the parser holds already) goes to
the library as before.
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState, ProtocolError
from websockets.protocol import State

try:
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover - the library built without its C extension
    from websockets.utils import apply_mask

from daer.server.http.transports import release_transport

BACKLOG = 16
"""Messages waiting for the application before the socket stops being read."""
SEND_NOW = "daer.send_now"
"""The ASGI extension (in ``scope["extensions"]``) whose value sends text frames now, in one write:
``send_now(*texts) -> bool``, False when they must take the ASGI ``send`` instead."""


def text_header(n: int) -> bytes:
    """The head of an unmasked, unfragmented text frame of ``n`` bytes (RFC 6455 5.2: FIN and opcode 1, then the
    length in 7 bits, or 126 and 16 bits, or 127 and 64 bits)."""
    if n < 126:
        return bytes((0x81, n))
    if n < 1 << 16:
        return bytes((0x81, 126)) + n.to_bytes(2, "big")
    return bytes((0x81, 127)) + n.to_bytes(8, "big")


def text_frame(payload: bytes) -> bytes:
    """One unmasked, unfragmented text frame of ``payload``, as the websockets library serializes a server's
    frame."""
    return text_header(len(payload)) + payload


class DaerWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, reading on until :data:`BACKLOG` messages wait."""

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:  # the application runs from the next loop step on: it finds the extension
            scope["extensions"][SEND_NOW] = self.send_now

    def connection_lost(self, exc: Exception | None) -> None:
        """Two reference cycles broken once the socket is gone, which only a collection would free — and under
        ``--gc tuned`` a cycle alive at one collection is frozen and never freed (``tests/server/test_cycles.py``):

        - the extension out of the scope: the scope is the protocol's own, so its bound ``send_now`` there made a
          cycle protocol → scope → method → protocol (every closed connection stayed in memory);
        - websockets' connection (``self.conn``) keeps its parser, a suspended generator whose frame holds the
          connection; the parser ends only at the end of the stream, which uvicorn never feeds it
          (``eof_received`` does nothing).  Closed here, it ends and lets the connection go: before, every
          WebSocket the server ever served kept its connection, parser, buffers and last frames (~2 KB; 1,131 on
          one soak worker after six minutes, ~25 MiB an hour — docs/benchmarks.md, "The parser that kept every
          WebSocket")."""
        super().connection_lost(exc)
        scope = getattr(self, "scope", None)
        if scope is not None:
            scope["extensions"].pop(SEND_NOW, None)
        parser = getattr(getattr(self, "conn", None), "parser", None)
        if parser is not None:
            parser.close()
        release_transport(getattr(self, "transport", None))

    def send_now(self, *texts: str | bytes) -> bool:
        """Write text frames now (in one write to the socket) if uvicorn's ``send`` of them would not wait;
        False: send them through ASGI.  A frame given as bytes is already UTF-8 (an update from the encoder)."""
        if (not self.handshake_complete or self.close_sent or self.disconnected
                or self.initial_response is not None or not self.writable.is_set()):
            return False
        conn = self.conn
        if conn.state is State.OPEN and not conn.extensions and not conn.expect_continuation_frame:
            # what conn.send_text would write (a server's frames are not masked), framed here: no Frame object,
            # no serializer, no buffer of writes for each frame
            parts: list[bytes] = []
            for text in texts:  # each payload copied once, into the one write (not framed first, then joined)
                payload = text if isinstance(text, bytes) else text.encode()
                parts += (text_header(len(payload)), payload)
            self.transport.write(b"".join(parts))
            return True
        try:
            for text in texts:
                conn.send_text(text if isinstance(text, bytes) else text.encode())
        except (InvalidState, ProtocolError):  # not open, or mid-message: no frame was framed (before the first)
            return False
        self.transport.write(b"".join(conn.data_to_send()))
        return True

    def data_received(self, data: bytes) -> None:
        """One whole masked text frame (FIN set, no reserved bits, no extension) of at most 65,535 bytes, alone in
        ``data``, while the connection is open and the parser holds nothing: the message goes to the application
        at once, as the library's parser and uvicorn's ``handle_text`` would hand it on.  Anything else: the
        library, as before."""
        conn = self.conn
        n = len(data)
        if (n >= 6 and data[0] == 0x81 and 0x80 <= data[1] < 0xFF and conn.state is State.OPEN and not conn.extensions
                and conn.current_size is None and not conn.reader.buffer and not self.frames):
            size, head = data[1] & 0x7F, 6
            if size == 126:  # a 16-bit length follows (0xFF, mask and 127: a 64-bit one, is left to the library)
                size, head = int.from_bytes(data[2:4], "big"), 8
            limit = conn.max_message_size
            if head + size == n and size < 1 << 16 and (limit is None or size <= limit) and (
                    conn.max_fragment_size is None or size <= conn.max_fragment_size):
                self.curr_msg_data_type = "text"
                self.frames = [apply_mask(data[head:], data[head - 4:head])]
                self.send_receive_event_to_app()
                return
        super().data_received(data)

    def send_receive_event_to_app(self) -> None:
        if self.read_paused or self.queue.qsize() + 1 >= BACKLOG:
            super().send_receive_event_to_app()  # pauses reading (resumed once the queue is empty)
            return
        self.read_paused = True  # the parent pauses only when it is not paused yet: let it think it is
        try:
            super().send_receive_event_to_app()
        finally:
            self.read_paused = False


__all__ = ["BACKLOG", "SEND_NOW", "DaerWebSocketProtocol", "text_frame", "text_header"]
