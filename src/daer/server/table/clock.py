"""The clock of a room (its driver): bots choosing, turn timers and 托管, claim windows closed after their
minimum time, the next hand dealt.

Functions of a :class:`daer.server.table.rooms.Room`: its match says *when* the server must act
(:meth:`daer.server.table.match.Match.wake`) and what it owes (``due``, ``run_out``, ``movers``); this module sets
the timers and runs the bots.  A bot sees only a frozen view: a cheap bot chooses inline, a search bot in a
process of :data:`daer.server.table.thinking.POOL`, under the server's hard cap (then the heuristic choice).

**People first.**  A room's timer does not step the room itself: it puts the room on its loop's
:class:`Runner`, which steps due rooms in the order they came due but for at most :data:`STEP_BUDGET` seconds
a turn of the event loop, then lets the loop read sockets and answer people before it goes on.  Without it
one turn of a busy loop ran every bot move that had come due (hundreds at 2,000 tables), and a person's
message — read, applied and answered over three turns — waited behind each of those bursts.  Under load a
bot moves a little later instead (``daer_step_lateness_seconds`` says how much); nothing is skipped or
reordered within a room.

**Waiting lines, not a timer a room.**  Most waits are the same length: a bot moves ``bot_delay`` (× the room's
节奏) after the step before.  The runner keeps the rooms that wait the same length in one line, in the order they
came (the clock only moves on, so that is the order they come due), and sets one timer for each line's first room
(:meth:`Runner.later`).  A timer for every move of every room was asyncio's heap of ``TimerHandle`` s: created,
pushed, compared in Python, cancelled and popped, ~4% of a loaded server's CPU (py-spy, 1,000 tables).  A wait of
its own length (the rest of a claim window, a turn timer) is a line of one room with its own timer, as before.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
import weakref
from collections import deque
from typing import TYPE_CHECKING, Protocol

from daer.engine import Action
from daer.engine.views import View
from daer.server.ops.metrics import STEP_LATE, THINK_SECONDS, thought
from daer.server.safety import bounds
from daer.server.safety.bounds import RoomError
from daer.server.table import thinking
from daer.server.table.port import LeaseLost

if TYPE_CHECKING:
    from daer.bots.base import Bot
    from daer.engine import GameState
    from daer.rules.model import Ruleset
    from daer.server.safety.bounds import RoomConfig
    from daer.server.table.match import Match
    from daer.server.table.outcome import Outcome
    from daer.server.table.seating import Seat


class ClockedRoom(Protocol):
    """The room as its clock drives it (a :class:`daer.server.table.rooms.Room`, which imports this module:
    the clock is handed its room, it never imports it)."""

    handle: asyncio.Handle | Queued | None
    runner: Runner | None
    thinking: bool
    think: int
    watchdog: asyncio.TimerHandle | None
    future: asyncio.Future[Action] | None
    serving: bool
    bot_delay: float
    claim_window: float
    match: Match

    @property
    def code(self) -> str: ...

    @property
    def version(self) -> int: ...

    @property
    def status(self) -> str: ...

    @property
    def state(self) -> GameState | None: ...

    @property
    def seats(self) -> list[Seat]: ...

    @property
    def rules(self) -> Ruleset: ...

    @property
    def config(self) -> RoomConfig: ...

    def perform(self, out: Outcome) -> None: ...

    def bot(self, seat: int) -> Bot: ...

    def auto_bot(self, seat: int) -> Bot: ...

    def commit_action(self, action: Action, seat: int) -> None: ...

log = logging.getLogger("daer.server")


STEP_BUDGET = 0.004
"""Seconds of due room steps a :class:`Runner` takes in one turn of the event loop before it lets the loop
read sockets again (a step is ~0.5-1 ms: a bot's choice, the action applied, stored and sent)."""


RELEASE_EARLY = 0.001
"""Seconds before its time a room in a line may be released with the one before it: asyncio runs a timer up to its
clock's resolution early, and rooms due within a millisecond of each other go together rather than one timer each."""


class Queued:
    """A room's step waiting in its :class:`Runner`, in a line or due (what ``room.handle`` holds then: cancelled
    like a timer)."""

    __slots__ = ("cancelled", "due", "room")

    def __init__(self, room: ClockedRoom, due: float) -> None:
        self.room = room
        self.due = due
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class Runner:
    """The due steps of one event loop's rooms, run in the order they came due, :data:`STEP_BUDGET` seconds a
    turn of the loop (see the module's docstring: people's messages are read between two turns)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, budget: float = STEP_BUDGET) -> None:
        self.loop = loop
        self.budget = budget
        self.queue: deque[Queued] = deque()
        self.armed = False
        self.lines: dict[float, deque[Queued]] = {}
        """Rooms waiting the same number of seconds, by that number, in the order they came."""
        self.timers: dict[float, asyncio.TimerHandle] = {}
        """Each line's one timer, set for its first room."""

    def add(self, room: ClockedRoom, due: float) -> Queued:
        """Queue ``room``'s step, due at ``due`` (``time.monotonic()``)."""
        return self._due(Queued(room, due))

    def _due(self, entry: Queued) -> Queued:
        self.queue.append(entry)
        if not self.armed:
            self.armed = True
            self.loop.call_soon(self.run)
        return entry

    def later(self, room: ClockedRoom, wait: float, now: float) -> Queued:
        """Queue ``room``'s step ``wait`` seconds after ``now`` (``time.monotonic()``, never earlier than the last
        call's) at the end of the line of rooms that wait as long."""
        entry = Queued(room, now + wait)
        line = self.lines.get(wait)
        if line is None:
            line = self.lines[wait] = deque()
        line.append(entry)
        if wait not in self.timers:
            self.timers[wait] = self.loop.call_at(entry.due, self._release, wait)
        return entry

    def _release(self, wait: float) -> None:
        """A line's first room came due: it and every room behind it that is due go to the queue of due steps
        (a room cancelled or no longer served is dropped), and the timer is set for the next."""
        del self.timers[wait]
        line = self.lines[wait]
        now = time.monotonic() + RELEASE_EARLY
        while line and line[0].due <= now:
            entry = line.popleft()
            if entry.cancelled:
                continue
            room = entry.room
            if room.serving:
                self._due(entry)
            elif room.handle is entry:
                room.handle = None
        if line:
            self.timers[wait] = self.loop.call_at(line[0].due, self._release, wait)
        else:
            del self.lines[wait]

    def run(self) -> None:
        """One turn's share: steps until the budget is spent, the rest at the next turn.  A step queued
        during this turn (a room due again at once) waits for the next: every room takes at most one step a
        turn, so the loop reads people's messages between any two steps of one room."""
        self.armed = False
        queue = self.queue
        clock = time.monotonic
        end = clock() + self.budget
        for _ in range(len(queue)):
            entry = queue.popleft()
            if entry.cancelled:
                continue
            now = clock()
            STEP_LATE.observe(max(now - entry.due, 0.0))
            tick(entry.room, entry)
            if clock() >= end:
                break
        if queue and not self.armed:
            self.armed = True
            self.loop.call_soon(self.run)


_RUNNERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Runner] = weakref.WeakKeyDictionary()


def runner(loop: asyncio.AbstractEventLoop) -> Runner:
    """The loop's runner of due room steps (made at first use)."""
    r = _RUNNERS.get(loop)
    if r is None:
        r = _RUNNERS[loop] = Runner(loop)
    return r


def loop_runner(room: ClockedRoom) -> Runner:
    """The runner of the loop this room is stepped on, kept on the room: ``asyncio.get_event_loop()`` asks the
    kernel for the process's id at every call (its check against a fork), and with a timer set or fired for
    every move that system call was ~3% of a busy server's CPU (py-spy --native, 1,000 tables)."""
    r = room.runner
    if r is None or r.loop.is_closed():
        r = room.runner = runner(asyncio.get_event_loop())
    return r


def schedule(room: ClockedRoom) -> None:
    """Arrange the next thing the server itself does for this room (when: :meth:`Match.wake`)."""
    if room.handle is not None:
        room.handle.cancel()
        room.handle = None
    if room.thinking or not room.serving:
        return  # the bot's answer reschedules
    now = time.monotonic()
    wait = room.match.wake(now, room.bot_delay, room.claim_window)
    if wait is None:
        return
    r = loop_runner(room)
    if wait <= 0:  # due now (a window already held long enough): straight to the runner, no timer
        room.handle = r.add(room, now)
    else:  # in the line of rooms that wait as long (most wait the bot delay): one timer a line
        room.handle = r.later(room, wait, now)


def tick(room: ClockedRoom, entry: Queued | None = None) -> None:
    """Step the room now (from the :class:`Runner`: ``entry`` is the room's queued step)."""
    if entry is None or room.handle is entry:
        room.handle = None
    if not room.serving:
        return
    try:
        step(room)
    except LeaseLost:
        pass  # another worker serves the room now (the port stopped this copy and logged it)
    except Exception:
        log.exception("room %s: step failed", room.code)


def step(room: ClockedRoom) -> None:
    """Do what the match is owed now: deal, close a window, put seats whose timer ran out into 托管, or let
    the first bot (or 托管 or stand-in) seat to act choose."""
    now = time.monotonic()
    due = room.match.due(now)
    if due is not None:
        room.perform(due)
        return
    ran_out = room.match.run_out(now)
    if ran_out.changed:
        room.perform(ran_out)
    st = room.state
    for s in room.match.movers():
        assert st is not None
        bot = room.bot(s)
        view = st.view(s, log=False)  # the bot sees only its seat's view
        make = thinking.remote(bot, room.config.bot, room.rules) if room.seats[s].kind == "bot" else None
        if make is None:  # well under a millisecond: chosen inline, no thread, no hop
            t0 = time.perf_counter()
            try:
                action = bot.choose(view)
            except Exception:
                log.exception("room %s: bot failed", room.code)
                action = view.legal[0]
            thought(bot, time.perf_counter() - t0)
            play_bot(room, action, seat=s, view=view, version=room.version)
            return
        # a search bot thinks in a process of the pool: it cannot hold the loop (daer.server.table.thinking)
        room.thinking = True
        room.think += 1
        loop = loop_runner(room).loop
        future = thinking.POOL.submit(make, view)
        room.future = future
        v, n = room.version, room.think
        future.add_done_callback(functools.partial(chosen, room, seat=s, view=view, version=v, think=n,
                                                   started=time.perf_counter(), bot=type(bot).__name__))
        room.watchdog = loop.call_later(bounds.BOT_HARD_CAP, functools.partial(
            overdue, room, seat=s, view=view, version=v, think=n))
        return
    schedule(room)


def overdue(room: ClockedRoom, *, seat: int, view: View, version: int, think: int) -> None:
    """A bot did not answer within the server's hard cap: play the heuristic bot's choice instead."""
    room.watchdog = None
    if not room.thinking or think != room.think:
        return
    log.warning("room %s: bot overdue at seat %d; playing the heuristic choice", room.code, seat)
    room.think += 1  # its late answer is ignored
    if room.future is not None and not room.future.done():
        thinking.POOL.overdue()  # the hard cap: the worker still thinking is stopped
        room.future.cancel()
    room.thinking = False
    play_bot(room, fallback(room, seat, view), seat=seat, view=view, version=version)


def fallback(room: ClockedRoom, seat: int, view: View) -> Action:
    """The seat's 托管 (heuristic) choice, played when its bot is overdue or failed; the first legal action if
    even that fails."""
    try:
        return room.auto_bot(seat).choose(view)
    except Exception:
        log.exception("room %s: fallback bot failed", room.code)
        return view.legal[0]


def chosen(
    room: ClockedRoom, future: asyncio.Future[Action], *, seat: int, view: View, version: int, think: int,
    started: float = 0.0, bot: str = "",
) -> None:
    """A bot's choice is back (or its worker failed: the heuristic choice is played); play it if nothing
    moved meanwhile, else look again."""
    if think != room.think:
        return  # too late: the watchdog played for it
    if room.watchdog is not None:
        room.watchdog.cancel()
        room.watchdog = None
    room.thinking = False
    if started:
        THINK_SECONDS.labels(bot=bot).observe(time.perf_counter() - started)
    try:
        action = future.result()
    except Exception as exc:  # a worker that died (BrokenProcessPool), or the bot's own error
        log.warning("room %s: bot failed (%s); playing the heuristic choice", room.code, type(exc).__name__)
        action = fallback(room, seat, view)
    play_bot(room, action, seat=seat, view=view, version=version)


def play_bot(room: ClockedRoom, action: Action, *, seat: int, view: View, version: int) -> None:
    if not room.serving:
        return
    try:
        if room.status == "playing" and room.state is not None and room.version == version:
            if action not in view.legal:
                action = view.legal[0]
            room.commit_action(action, seat)
            return
    except RoomError as exc:
        if exc.code == "moved":
            return
        log.exception("room %s: bot action failed", room.code)
    except Exception:
        log.exception("room %s: bot action failed", room.code)
    schedule(room)
