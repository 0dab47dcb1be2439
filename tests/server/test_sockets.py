"""The WebSocket protocol of ``daer serve`` (server/http/sockets.py): a socket is read on while fewer than BACKLOG
messages wait for the session, and paused past it (uvicorn's own pauses at the first)."""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState

from daer.server.http.sockets import BACKLOG, DaerWebSocketProtocol


class _Transport:
    """Counts what flow control asks of the socket."""

    def __init__(self) -> None:
        self.paused = False
        self.pauses = self.resumes = 0

    def pause_reading(self) -> None:
        self.paused, self.pauses = True, self.pauses + 1

    def resume_reading(self) -> None:
        self.paused, self.resumes = False, self.resumes + 1


async def _app(scope: Any, receive: Any, send: Any) -> None:  # never called: the protocol is driven directly
    raise AssertionError


def _protocol(cls: type[WebSocketsSansIOProtocol]) -> tuple[WebSocketsSansIOProtocol, _Transport]:
    proto = cls(Config(app=_app, log_config=None), ServerState(), {}, _loop=asyncio.get_running_loop())
    transport = _Transport()
    proto.transport = transport  # type: ignore[assignment]
    return proto, transport


def _message(proto: WebSocketsSansIOProtocol, text: str) -> None:
    """A whole text message arrived (what handle_text does for a final frame)."""
    proto.curr_msg_data_type = "text"
    proto.frames = [text.encode()]
    proto.send_receive_event_to_app()


def test_reads_on_until_backlog_messages_wait_then_pauses_and_resumes_when_drained() -> None:
    async def run() -> None:
        proto, transport = _protocol(DaerWebSocketProtocol)
        for i in range(BACKLOG - 1):
            _message(proto, f"m{i}")
        assert (transport.pauses, transport.paused) == (0, False)  # read on: nothing to pause for yet
        _message(proto, "last")
        assert (transport.pauses, transport.paused) == (1, True)  # a client far ahead is paused
        got = [(await proto.receive())["text"] for _ in range(BACKLOG)]
        assert got == [f"m{i}" for i in range(BACKLOG - 1)] + ["last"]  # every message, in order
        assert (transport.resumes, transport.paused) == (1, False)  # read again once drained
        _message(proto, "again")  # one message read at once costs no flow-control step
        assert (await proto.receive())["text"] == "again"
        assert (transport.pauses, transport.resumes) == (1, 1)

    asyncio.run(run())


def test_uvicorns_own_protocol_pauses_for_every_message() -> None:
    """What the subclass saves: uvicorn pauses and resumes the socket around each message."""

    async def run() -> None:
        proto, transport = _protocol(WebSocketsSansIOProtocol)
        for i in range(3):
            _message(proto, f"m{i}")
            assert (await proto.receive())["text"] == f"m{i}"
        assert (transport.pauses, transport.resumes) == (3, 3)

    asyncio.run(run())


class _Wire(_Transport):
    """Also keeps what is written."""

    def __init__(self) -> None:
        super().__init__()
        self.written = b""

    def write(self, data: bytes) -> None:
        self.written += data

    def is_closing(self) -> bool:
        return False


def test_send_now_writes_the_frame_only_when_the_asgi_send_would_not_wait() -> None:
    from websockets.protocol import State  # noqa: PLC0415

    async def run() -> None:
        proto, _ = _protocol(DaerWebSocketProtocol)
        wire = _Wire()
        proto.transport = wire  # type: ignore[assignment]
        assert not proto.send_now("early")  # before the handshake: the ASGI path
        proto.handshake_complete = True
        proto.conn.state = State.OPEN
        assert proto.send_now("hi")
        assert wire.written == b"\x81\x02hi"  # one unmasked text frame, as uvicorn's send writes it
        proto.writable.clear()  # the transport asked to stop writing (a slow reader)
        assert not proto.send_now("later") and wire.written == b"\x81\x02hi"
        proto.writable.set()
        proto.close_sent = True
        assert not proto.send_now("closing") and wire.written == b"\x81\x02hi"

    asyncio.run(run())


def test_a_connection_writes_directly_only_with_nothing_queued_before() -> None:
    from daer.server.table.seating import Conn  # noqa: PLC0415

    async def run() -> None:
        sent: list[str] = []
        ok = [False]

        def direct(text: str) -> bool:
            if ok[0]:
                sent.append(text)
            return ok[0]

        conn = Conn(0, direct=direct)
        conn.push("a")  # the socket cannot take it now: queued for the writer task
        ok[0] = True
        conn.push("b")  # "a" waits: "b" goes behind it, not around it
        assert sent == [] and [conn.queue.get_nowait(), conn.queue.get_nowait()] == ["a", "b"]
        conn.push("c")  # nothing waits: written at once
        conn.push(None)  # a close always takes the queue (the writer task closes the socket)
        assert sent == ["c"] and conn.queue.get_nowait() is None

    asyncio.run(run())


class _Writes(_Wire):
    """Also counts the writes to the socket."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, data: bytes) -> None:
        super().write(data)
        self.writes += 1


def _open_protocol() -> tuple[DaerWebSocketProtocol, _Writes]:
    """A protocol past its handshake, writing to a transport that counts its writes."""
    from websockets.protocol import State  # noqa: PLC0415

    proto, _ = _protocol(DaerWebSocketProtocol)
    wire = _Writes()
    proto.transport = wire  # type: ignore[assignment]
    proto.handshake_complete = True
    proto.conn.state = State.OPEN
    return proto, wire


def test_send_now_writes_several_frames_in_one_write() -> None:

    async def run() -> None:
        proto, wire = _open_protocol()
        assert proto.send_now("up", "ack")
        assert wire.written == b"\x81\x02up\x81\x03ack" and wire.writes == 1  # two frames, in order, one write
        proto.writable.clear()
        assert not proto.send_now("x", "y") and wire.writes == 1

    asyncio.run(run())


def test_a_frame_given_as_utf8_bytes_goes_out_as_its_text_would() -> None:
    """An update is pushed as the encoder's UTF-8 bytes (no str made of it): on the wire the same text frame, on
    the direct path and on the library's (here with compression), mixed with frames given as text."""
    from websockets.extensions.permessage_deflate import PerMessageDeflate  # noqa: PLC0415

    text = '{"t":"update","name":"玩家一号"}'

    async def run() -> None:
        as_text, wire_t = _open_protocol()
        as_bytes, wire_b = _open_protocol()
        assert as_text.send_now(text, "ack") and as_bytes.send_now(text.encode(), "ack")
        assert wire_b.written == wire_t.written and wire_b.writes == 1
        assert wire_t.written.startswith(bytes((0x81, len(text.encode()))) + text.encode())
        for proto in (as_text, as_bytes):
            proto.conn.extensions = [PerMessageDeflate(False, False, 15, 15)]
        wire_t.written = wire_b.written = b""
        assert as_text.send_now(text) and as_bytes.send_now(text.encode())
        assert wire_b.written == wire_t.written != b""

    asyncio.run(run())


class _Gate:
    """A store writer with writes queued: what waits for the commit runs at :meth:`commit`."""

    def __init__(self) -> None:
        self.waiting: list[Any] = []

    def after_commit(self, fn: Any) -> None:
        self.waiting.append(fn)

    def commit(self) -> None:
        waiting, self.waiting = self.waiting, []
        for fn in waiting:
            fn()


def test_frames_pushed_while_corked_go_out_together_after_the_commit_in_order() -> None:
    from daer.server.table.seating import Conn  # noqa: PLC0415

    async def run() -> None:
        calls: list[tuple[str, ...]] = []
        ok = [True]

        def direct(*texts: str) -> bool:
            if ok[0]:
                calls.append(texts)
            return ok[0]

        gate = _Gate()
        conn = Conn(0, gate=gate, direct=direct)
        conn.push("before")  # pushed before the cork: released first, alone
        conn.cork()
        conn.push("update")
        conn.push("ack")
        assert gate.waiting and len(gate.waiting) == 1  # nothing of the corked frames is registered yet
        conn.uncork()
        assert calls == []  # the writes before them are not committed yet
        gate.commit()
        assert calls == [("before",), ("update", "ack")]  # one write for the two
        # the socket cannot take them: queued in order behind nothing, written by the writer task
        ok[0] = False
        conn.cork()
        conn.push("u2")
        conn.push("a2")
        conn.uncork()
        gate.commit()
        assert [conn.queue.get_nowait(), conn.queue.get_nowait()] == ["u2", "a2"]
        # a close among the held frames: each one as pushed alone (the close takes the queue: the writer task
        # closes the socket)
        ok[0] = True
        conn.cork()
        conn.push("bye")
        conn.push(None)
        conn.uncork()
        gate.commit()
        assert calls[-1] == ("bye",) and conn.queue.get_nowait() is None  # the frame written, then the close
        # one held frame goes as an ordinary push; an empty cork releases nothing
        conn.cork()
        conn.uncork()
        assert gate.waiting == []

    asyncio.run(run())


def test_a_text_frame_is_framed_as_the_websockets_library_frames_a_servers() -> None:
    from websockets.frames import Frame, Opcode  # noqa: PLC0415

    from daer.server.http.sockets import text_frame  # noqa: PLC0415

    for n in (0, 1, 125, 126, 127, 4000, 65535, 65536, 70000):
        payload = ("机" * (n // 3) + "x" * (n % 3)).encode()
        assert text_frame(payload) == Frame(Opcode.TEXT, payload).serialize(mask=False, extensions=[]), n


def test_frames_take_the_librarys_path_with_an_extension_or_mid_message() -> None:
    from websockets.extensions.permessage_deflate import PerMessageDeflate  # noqa: PLC0415
    from websockets.frames import Frame, Opcode  # noqa: PLC0415

    async def run() -> None:
        proto, wire = _open_protocol()
        deflate = PerMessageDeflate(False, False, 15, 15)
        proto.conn.extensions = [deflate]
        assert proto.send_now("hello hello hello hello")
        want = Frame(Opcode.TEXT, b"hello hello hello hello").serialize(
            mask=False, extensions=[PerMessageDeflate(False, False, 15, 15)])
        assert wire.written == want and wire.written != b"\x81\x17hello hello hello hello"  # compressed
        proto.conn.extensions = []
        proto.conn.expect_continuation_frame = True  # a fragmented message under way: the library refuses
        assert not proto.send_now("x") and wire.writes == 1

    asyncio.run(run())
