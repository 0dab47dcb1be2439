"""``close_soon`` outside a running event loop (a bug found by the whole suite's order: once any earlier test's
``asyncio.run`` had cleared the thread's loop, ``asyncio.get_event_loop()`` raised and a hand-over failed)."""

from __future__ import annotations

import asyncio

from daer.server.table.seating import Conn, close_soon


def test_close_soon_without_a_running_loop_closes_after_the_queued_frames() -> None:
    asyncio.run(asyncio.sleep(0))  # leaves this thread with no current event loop, as a previous test may
    conn = Conn(None)
    conn.push("last frame")
    close_soon([conn])
    assert [conn.queue.get_nowait(), conn.queue.get_nowait()] == ["last frame", None]


def test_close_soon_in_a_running_loop_closes_on_the_next_turn() -> None:
    async def main() -> list[str | None]:
        conn = Conn(None)
        close_soon([conn])
        conn.push("sent before the close")
        await asyncio.sleep(0)
        return [conn.queue.get_nowait(), conn.queue.get_nowait()]

    assert asyncio.run(main()) == ["sent before the close", None]
