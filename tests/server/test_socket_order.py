"""Frames of one socket keep their order when a frame written directly could overtake one the writer task holds."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from daer.server.http.app import Session
from daer.server.http.sockets import SEND_NOW
from daer.server.safety.limits import Limits


class _Socket:
    """A WebSocket whose transport can stop taking writes (a slow reader), like uvicorn's: ``send_text`` waits
    until it is writable again, ``send_now`` writes only while it is."""

    def __init__(self) -> None:
        self.writable = asyncio.Event()
        self.writable.set()
        self.wire: list[str] = []
        self.scope: dict[str, Any] = {"extensions": {SEND_NOW: self.send_now}}

    def send_now(self, text: str) -> bool:
        if not self.writable.is_set():
            return False
        self.wire.append(text)
        return True

    async def send_text(self, text: str) -> None:
        await self.writable.wait()
        self.wire.append(text)

    async def close(self, code: int = 1000) -> None:
        self.wire.append(f"close {code}")


def test_a_frame_written_directly_never_overtakes_one_the_writer_task_holds() -> None:
    async def run() -> None:
        ws = _Socket()
        manager = SimpleNamespace(store=SimpleNamespace(writer=None))
        session = Session(ws, manager, Limits(), "127.0.0.1")  # type: ignore[arg-type]
        writer = asyncio.create_task(session._writer())
        ws.writable.clear()  # the client reads slowly: the transport's buffer is full
        session.conn.push("a")  # cannot be written now: queued
        await asyncio.sleep(0)  # the writer task takes "a" and waits for the socket
        assert ws.wire == []
        ws.writable.set()  # the buffer drained (resume_writing) ...
        session.conn.push("b")  # ... and a frame is released before the writer task runs again
        session.conn.push(None)
        await asyncio.wait_for(writer, 1)
        assert ws.wire == ["a", "b", "close 1000"]

    asyncio.run(run())
