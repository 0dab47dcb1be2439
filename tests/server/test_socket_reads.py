"""Reading a client's frames (server/http/sockets.py): a read holding exactly one small whole text frame is handed
to the session without websockets' parser; whatever the reads hold, the session gets the same messages, and the
client the same answers (pongs, closes), as through uvicorn's own protocol."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from uvicorn.config import Config
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.frames import Frame, Opcode
from websockets.protocol import State

from daer.server.http.sockets import DaerWebSocketProtocol

LIMIT = 300
"""The protocols' largest message (``ws_max_size``): a bigger one closes the connection (1009)."""


class _Wire:
    """A transport that keeps what is written and ignores flow control."""

    def __init__(self) -> None:
        self.written = b""
        self.closed = False

    def write(self, data: bytes) -> None:
        self.written += data

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True


async def _app(scope: Any, receive: Any, send: Any) -> None:  # never called: the protocol is driven directly
    raise AssertionError


def _open(cls: type[WebSocketsSansIOProtocol]) -> tuple[WebSocketsSansIOProtocol, _Wire]:
    proto = cls(Config(app=_app, log_config=None, ws_max_size=LIMIT), ServerState(), {},
                _loop=asyncio.get_running_loop())
    wire = _Wire()
    proto.transport = wire  # type: ignore[assignment]
    proto.handshake_complete = True
    proto.conn.state = State.OPEN
    proto.conn.parser = proto.conn.parse()  # past the handshake: the parser reads frames (the request is read)
    next(proto.conn.parser)
    return proto, wire


def _drain(proto: WebSocketsSansIOProtocol) -> list[Any]:
    got = []
    while not proto.queue.empty():
        got.append(proto.queue.get_nowait())
    return got


def _masked(frame: Frame) -> bytes:
    return frame.serialize(mask=True, extensions=[])


def _feed(chunks: list[bytes]) -> list[tuple[list[Any], bytes, State]]:
    """What each protocol made of the same reads: the messages for the session, the bytes written back, the
    connection's state."""

    async def run() -> list[tuple[list[Any], bytes, State]]:
        out = []
        for cls in (WebSocketsSansIOProtocol, DaerWebSocketProtocol):
            proto, wire = _open(cls)
            got: list[Any] = []
            for chunk in chunks:
                if proto.conn.state is not State.OPEN:
                    break
                try:
                    proto.data_received(chunk)
                except Exception as exc:  # compared below; asyncio's transport would drop the connection
                    # uvicorn's own protocol raises on some reads (text that is not UTF-8 read together with a
                    # close: its answer, a close, finds the connection closing): both must raise alike
                    got += _drain(proto)
                    got.append(("raised", type(exc).__name__))
                    break
                got += _drain(proto)
            out.append((got, wire.written, proto.conn.state))
        return out

    return asyncio.run(run())


texts = st.text(max_size=LIMIT // 3) | st.text(min_size=40, max_size=200).map(lambda t: t * 3)


@st.composite
def frames(draw: st.DrawFn) -> list[bytes]:
    """A client's frames, each serialized (masked): whole texts (some past the limit, some not UTF-8), fragmented
    texts (and one interrupted by a new text: a protocol error), pings, pongs, binaries, and now and then a close or an
    unmasked frame (a protocol error)."""
    kind = draw(st.sampled_from(["text", "text", "text", "fragments", "interrupted", "ping", "pong", "binary",
                                 "bad_utf8", "close", "unmasked"]))
    if kind == "text":
        return [_masked(Frame(Opcode.TEXT, draw(texts).encode()))]
    if kind == "fragments":
        data = draw(texts).encode()
        cut = draw(st.integers(0, len(data)))
        return [_masked(Frame(Opcode.TEXT, data[:cut], fin=False)), _masked(Frame(Opcode.CONT, data[cut:]))]
    if kind == "interrupted":  # a new message before the last one's end: a protocol error (1002)
        return [_masked(Frame(Opcode.TEXT, draw(texts).encode(), fin=False)), _masked(Frame(Opcode.TEXT, b"x"))]
    if kind in ("ping", "pong"):
        return [_masked(Frame(Opcode.PING if kind == "ping" else Opcode.PONG, draw(st.binary(max_size=20))))]
    if kind == "binary":
        return [_masked(Frame(Opcode.BINARY, draw(st.binary(max_size=50))))]
    if kind == "bad_utf8":
        return [_masked(Frame(Opcode.TEXT, b"\xff\xfe" + draw(st.binary(max_size=10))))]
    if kind == "close":
        return [_masked(Frame(Opcode.CLOSE, b"\x03\xe8"))]
    return [Frame(Opcode.TEXT, draw(texts).encode()).serialize(mask=False, extensions=[])]


@st.composite
def reads(draw: st.DrawFn) -> list[bytes]:
    """The frames' bytes as the socket hands them over: mostly one frame a read, sometimes split or joined."""
    wire = [b for group in draw(st.lists(frames(), min_size=1, max_size=8)) for b in group]
    chunks: list[bytes] = []
    for frame in wire:
        how = draw(st.sampled_from(["alone", "alone", "alone", "split", "joined"]))
        if how == "split" and len(frame) > 1:
            cut = draw(st.integers(1, len(frame) - 1))
            chunks += [frame[:cut], frame[cut:]]
        elif how == "joined" and chunks:
            chunks[-1] += frame
        else:
            chunks.append(frame)
    return chunks


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reads())
# found by Hypothesis: a ping, then a text that is not UTF-8 and a close in one read (uvicorn's protocol raises)
@example(chunks=[_masked(Frame(Opcode.PING, b"")),
                 _masked(Frame(Opcode.TEXT, b"\xff\xfe")) + _masked(Frame(Opcode.CLOSE, b"\x03\xe8"))])
def test_the_session_gets_the_same_messages_and_the_client_the_same_answers_as_through_uvicorns_protocol(
        chunks: list[bytes]) -> None:
    (theirs, their_bytes, their_state), (ours, our_bytes, our_state) = _feed(chunks)
    assert ours == theirs
    assert our_bytes == their_bytes
    assert our_state is their_state


def test_a_read_of_one_whole_text_frame_skips_the_librarys_parser() -> None:
    async def run() -> None:
        proto, _ = _open(DaerWebSocketProtocol)

        def parser(data: bytes) -> None:
            raise AssertionError("the library's parser ran")

        library = proto.conn.receive_data
        proto.conn.receive_data = parser  # type: ignore[method-assign]
        for text in ("", "x", '{"t":"act","id":"a1","v":7,"action":{"type":"pass","seat":0}}', "机" * 60):
            proto.data_received(_masked(Frame(Opcode.TEXT, text.encode())))
            assert _drain(proto) == [{"type": "websocket.receive", "text": text}]
        proto.conn.receive_data = library  # type: ignore[method-assign]
        # past the limit, the library answers: the connection is closed with 1009 (message too big)
        proto.data_received(_masked(Frame(Opcode.TEXT, b"x" * (LIMIT + 1))))
        got = _drain(proto)
        assert [m["type"] for m in got] == ["websocket.disconnect"] and got[0]["code"] == 1009
        assert proto.conn.state is not State.OPEN

    asyncio.run(run())
