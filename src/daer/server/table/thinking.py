"""Where a room's bots think: cheap bots on the event loop, bots that search in a pool of processes.

A heuristic choice takes well under a millisecond: it is made inline (no thread, no hop).  A search bot
(困难) thinks for up to :data:`daer.server.safety.bounds.BOT_SECONDS`, and in a thread it would hold the GIL and
stall every table of the process.  So it thinks in a :class:`~concurrent.futures.ProcessPoolExecutor`
(forkserver, :data:`WORKERS` processes at a lower CPU priority than the server): the worker gets the bot's
name, the ruleset and the seat's *view* (never the state), builds the bot (capped like every room bot,
:func:`daer.server.safety.bounds.bot_for`) and sends back an action.  The room never waits longer than
:data:`daer.server.safety.bounds.BOT_HARD_CAP`: its clock then plays the heuristic choice, and
:meth:`Pool.overdue` stops the pool's processes (a worker past the cap is still burning a core); a
worker that dies fails its decisions with ``BrokenProcessPool``, which the clock answers the same way.
The next decision starts a fresh pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import multiprocessing
import os
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from daer.bots import SearchBot
from daer.bots.base import Bot
from daer.engine import Action
from daer.engine.views import View
from daer.rules.model import Ruleset
from daer.server.safety.bounds import bot_for

log = logging.getLogger("daer.server")

WORKERS = 2
"""Processes for search bots (the machine's cores are shared with the server's own process)."""
ORPHAN_CHECK = 1.0
"""Seconds between a worker's checks that its server is still alive."""
NICE = 10
"""How much lower than the server a search worker runs (``os.nice``): it can never take a core from it."""


def remote(bot: Bot, name: str, rules: Ruleset) -> Callable[[], Bot] | None:
    """How a worker makes this bot, if it thinks long enough to need a process (search bots): a picklable
    factory (the room's bot name and ruleset, a fresh seed); None for a bot that chooses inline."""
    if isinstance(bot, SearchBot):
        return functools.partial(bot_for, name, rules, secrets.token_hex(8))
    return None


def _start_worker(server: int) -> None:
    with contextlib.suppress(OSError):  # not allowed here: the worker runs at the server's priority
        os.nice(NICE)
    # a pool's workers do not notice their server's death (each holds its own queue's pipe open): a server
    # killed with kill -9 would leave them, and the fork server they keep alive, behind for good
    threading.Thread(target=_exit_with, args=(server,), daemon=True, name="daer-orphan-watch").start()


def _alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie, dead but not yet reaped by its parent, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def _exit_with(server: int) -> None:
    """Exit this worker once the server process ``server`` is gone."""
    while True:
        time.sleep(ORPHAN_CHECK)
        if not _alive(server):
            os._exit(0)


def choose_in_worker(make: Callable[[], Bot], view: View) -> Action:
    """In a worker: the room's bot (made as in a room, so capped the same) chooses for this view."""
    return make().choose(view)


class Pool:
    """The search bots' processes, started on the first decision and restarted after a failure."""

    def __init__(self, workers: int = WORKERS) -> None:
        self.workers = workers
        self._executor: ProcessPoolExecutor | None = None
        self._warm: ProcessPoolExecutor | None = None
        """The executor whose processes were started (off the loop) by a first decision."""
        self.restarts = 0
        """How many times the processes were stopped (a decision past the hard cap, or a dead worker)."""

    def executor(self) -> ProcessPoolExecutor:
        """The running pool (started if there is none)."""
        if self._executor is None:
            methods = multiprocessing.get_all_start_methods()
            ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
            if ctx.get_start_method() == "forkserver":  # each worker forks with the engine already imported
                ctx.set_forkserver_preload([__name__])
            self._executor = ProcessPoolExecutor(self.workers, mp_context=ctx, initializer=_start_worker,
                                                 initargs=(os.getpid(),))
        return self._executor

    def submit(self, make: Callable[[], Bot], view: View) -> asyncio.Future[Action]:
        """A decision for the running loop to wait for (its action, or ``BrokenProcessPool``).

        The first decision of a pool starts its processes (and the fork server, which imports the engine):
        seconds on a loaded machine, so that submit runs in a thread, never on the event loop every table
        shares; later ones are handed over on the loop (a fork from the warm server at most)."""
        loop = asyncio.get_running_loop()
        if self._executor is not None and self._warm is self._executor:
            try:
                return loop.run_in_executor(self._executor, choose_in_worker, make, view)
            except (BrokenProcessPool, RuntimeError):  # a worker died since the last decision: start again
                self.stop()
        return asyncio.ensure_future(self._first(make, view))

    async def _first(self, make: Callable[[], Bot], view: View) -> Action:
        ex = self.executor()  # made on the loop (cheap); its processes start in the thread below
        done = await asyncio.to_thread(ex.submit, choose_in_worker, make, view)
        self._warm = ex
        return await asyncio.wrap_future(done)

    def overdue(self) -> None:
        """A decision went past the hard cap: stop every worker (the others' decisions fall back too)."""
        log.warning("search pool: a decision passed the hard cap; stopping its processes")
        self.stop()

    def stop(self) -> None:
        """Stop the processes now (queued and running decisions fail with ``BrokenProcessPool``)."""
        ex, self._executor = self._executor, None
        if ex is None:
            return
        self.restarts += 1
        procs: dict[Any, Any] = getattr(ex, "_processes", None) or {}  # the library keeps no public handle
        for proc in list(procs.values()):
            proc.terminate()
        ex.shutdown(wait=False, cancel_futures=True)


POOL = Pool()
"""The process's pool for search bots."""
