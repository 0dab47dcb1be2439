"""The WebSocket protocol of ``daer serve`` (server/sockets.py): a socket is read on while fewer than BACKLOG
messages wait for the session, and paused past it (uvicorn's own pauses at the first)."""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState

from daer.server.sockets import BACKLOG, DaerWebSocketProtocol


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
    proto = cls(Config(app=_app), ServerState(), {}, _loop=asyncio.get_running_loop())
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
