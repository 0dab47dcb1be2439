"""The clock's runner of due room steps (issue 12 item 1, "one process that never stutters"): bot moves, window
closes and deals that come due together run at most a budget per turn of the event loop, so a person's message is
read between two turns instead of after the whole burst; nothing is skipped, reordered or run after its room
stopped."""

from __future__ import annotations

import asyncio
import socket
import time
from pathlib import Path
from typing import Any, cast

import pytest

from daer.server import protocol as p
from daer.server.ops.metrics import STEP_LATE
from daer.server.safety.bounds import RoomConfig
from daer.server.serving.manager import RoomManager
from daer.server.table import clock
from daer.server.table.rooms import Room
from daer.store import Store


def _late_count() -> float:
    return sum(s.value for m in STEP_LATE.collect() for s in m.samples if s.name.endswith("_count"))


def test_a_burst_of_due_steps_lets_a_persons_message_in_after_one_budget(
        loop: asyncio.AbstractEventLoop, monkeypatch: pytest.MonkeyPatch) -> None:
    done: list[Any] = []

    def slow_step(room: Any, entry: Any = None) -> None:  # a bot's move: ~1 ms of the loop's time
        t = time.perf_counter()
        while time.perf_counter() - t < 0.001:
            pass
        done.append(room)

    monkeypatch.setattr(clock, "tick", slow_step)
    runner = clock.Runner(loop, budget=0.004)
    a, b = socket.socketpair()
    read_after: list[int] = []

    def person() -> None:
        b.recv(16)
        read_after.append(len(done))

    loop.add_reader(b.fileno(), person)
    late0 = _late_count()
    try:
        for i in range(100):
            runner.add(cast(Room, i), time.monotonic())
        a.send(b"act")
        loop.run_until_complete(asyncio.sleep(0.5))
    finally:
        loop.remove_reader(b.fileno())
        a.close()
        b.close()
    assert done == list(range(100))  # every step ran, in the order they came due
    assert read_after and read_after[0] <= 10, read_after  # read after about one budget, not after 100 steps
    assert _late_count() - late0 == 100  # each step's lateness observed


def test_a_cancelled_queued_step_does_not_run(loop: asyncio.AbstractEventLoop,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    done: list[Any] = []
    monkeypatch.setattr(clock, "tick", lambda room, entry=None: done.append(room))
    runner = clock.Runner(loop)
    entries = [runner.add(cast(Room, i), time.monotonic()) for i in range(5)]
    entries[1].cancel()
    entries[3].cancel()
    loop.run_until_complete(asyncio.sleep(0.05))
    assert done == [0, 2, 4]


def _bot_room(tmp_path: Path) -> Room:
    mgr = RoomManager(Store(f"sqlite:///{tmp_path / 'd.db'}"), bot_delay=0.0)
    room, _seat, _token = mgr.create(RoomConfig(timer=0, hands=1), "A")
    room.command(0, p.Command(id="s", name="start"))
    room.command(0, p.Command(id="l", name="leave"))  # every seat a bot: the clock alone plays the hand
    return room


def test_a_room_due_now_waits_in_the_runner_and_plays_on(tmp_path: Path, loop: asyncio.AbstractEventLoop) -> None:
    room = _bot_room(tmp_path)
    clock.schedule(room)
    assert isinstance(room.handle, clock.Queued)  # due at once (no bot delay): queued, not a timer
    v = room.version
    loop.run_until_complete(asyncio.sleep(0.3))
    assert room.version > v  # the bots played through the runner
    if room.handle is not None:
        room.handle.cancel()


def test_a_stopped_room_takes_no_queued_step(tmp_path: Path, loop: asyncio.AbstractEventLoop) -> None:
    room = _bot_room(tmp_path)
    clock.schedule(room)
    assert isinstance(room.handle, clock.Queued)
    v = room.version
    room.stop()
    loop.run_until_complete(asyncio.sleep(0.1))
    assert room.version == v
    assert room.handle is None


def test_a_room_due_again_at_once_waits_for_the_next_turn(loop: asyncio.AbstractEventLoop,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """One step per room per turn, as when each step was its own callback: a person's message to a room whose
    bots move with no delay is read between any two of its steps."""
    runner = clock.Runner(loop, budget=10.0)
    turns: list[int] = []
    turn = [0]

    def count_turns() -> None:
        turn[0] += 1
        if turn[0] < 20:
            loop.call_soon(count_turns)

    def again(room: Any, entry: Any = None) -> None:  # the room is due again at once, like a bot at delay 0
        turns.append(turn[0])
        if len(turns) < 5:
            runner.add(room, time.monotonic())

    monkeypatch.setattr(clock, "tick", again)
    loop.call_soon(count_turns)
    runner.add(cast(Room, "R"), time.monotonic())
    loop.run_until_complete(asyncio.sleep(0.05))
    assert len(turns) == 5 and len(set(turns)) == 5, turns  # five steps in five turns of the loop


def test_a_room_keeps_its_loops_runner_and_takes_the_new_loops_once_the_old_one_closed() -> None:
    # the runner is kept on the room (asking asyncio for the running loop costs a system call at every timer); a
    # room stepped on a later loop (a test's, a server started again in one process) must not use a closed one's
    class Fake:
        runner: clock.Runner | None = None

    room = cast(Room, Fake())
    first = asyncio.new_event_loop()
    try:
        asyncio.set_event_loop(first)
        r1 = clock.loop_runner(room)
        assert r1.loop is first and clock.loop_runner(room) is r1
    finally:
        first.close()
    second = asyncio.new_event_loop()
    try:
        asyncio.set_event_loop(second)
        r2 = clock.loop_runner(room)
        assert r2.loop is second and room.runner is r2
    finally:
        asyncio.set_event_loop(None)
        second.close()


class _Waiting:
    """A room as a line sees it: whether it is served, and its handle."""

    def __init__(self, name: str) -> None:
        self.name, self.serving = name, True
        self.handle: clock.Queued | None = None

    def __repr__(self) -> str:
        return self.name


def test_rooms_that_wait_as_long_share_one_timer_and_come_due_in_order(
        loop: asyncio.AbstractEventLoop, monkeypatch: pytest.MonkeyPatch) -> None:
    done: list[tuple[str, float]] = []
    monkeypatch.setattr(clock, "tick", lambda room, entry=None: done.append((room.name, time.monotonic())))
    runner = clock.Runner(loop)
    rooms = {n: _Waiting(n) for n in "abcdefg"}
    t0 = time.monotonic()
    for i, n in enumerate("abcde"):  # five rooms wait 0.1 s, each 0.01 s after the one before
        rooms[n].handle = runner.later(cast(Room, rooms[n]), 0.1, t0 + 0.01 * i)
    rooms["f"].handle = runner.later(cast(Room, rooms["f"]), 0.02, t0)  # a shorter wait: its own line
    rooms["g"].handle = runner.later(cast(Room, rooms["g"]), 0.1, t0 + 0.045)
    assert len(runner.timers) == 2 and len(loop._scheduled) == 2  # type: ignore[attr-defined]  # one a line
    assert rooms["b"].handle is not None
    rooms["b"].handle.cancel()  # rescheduled elsewhere: its place in the line is skipped
    rooms["d"].serving = False  # stopped serving: dropped, its handle cleared
    loop.run_until_complete(asyncio.sleep(0.3))
    assert [n for n, _ in done] == ["f", "a", "c", "e", "g"]
    due = {"f": 0.02, "a": 0.1, "c": 0.12, "g": 0.145, "e": 0.14}
    for n, at in done:
        assert at >= t0 + due[n] - clock.RELEASE_EARLY, (n, at - t0)  # never before its time
    assert rooms["d"].handle is None
    assert not runner.lines and not runner.timers and not loop._scheduled  # type: ignore[attr-defined]


def test_a_bot_rooms_moves_wait_in_the_runners_line_not_a_timer_each(tmp_path: Path,
                                                                       loop: asyncio.AbstractEventLoop) -> None:
    mgr = RoomManager(Store(f"sqlite:///{tmp_path / 'd.db'}"), bot_delay=0.02)
    rooms = []
    for _ in range(3):
        room, _seat, _token = mgr.create(RoomConfig(timer=0, hands=1), "A")
        room.command(0, p.Command(id="s", name="start"))
        room.command(0, p.Command(id="l", name="leave"))
        rooms.append(room)
    v = [r.version for r in rooms]
    loop.run_until_complete(asyncio.sleep(0.05))
    assert all(isinstance(r.handle, clock.Queued) for r in rooms if r.status == "playing")
    lines = rooms[0].runner.lines if rooms[0].runner is not None else {}
    assert 0.02 in lines and len(loop._scheduled) <= len(lines) + 2  # type: ignore[attr-defined]
    loop.run_until_complete(asyncio.sleep(0.4))
    assert all(r.version > before for r, before in zip(rooms, v, strict=True))  # the bots played on
    for r in rooms:
        r.stop()
