"""A young collection on a clock (``--gc tuned``): the collector's pauses bounded by time, not by its count.

Python starts a gen-0 collection when its *net* count of tracked objects (allocations minus deallocations)
passes the threshold.  ``--gc tuned`` freezes every collection's survivors (:mod:`daer.server.ops.metrics`), and
a loaded server keeps freeing old, frozen objects (a finished hand's state, a sent frame's parts) while it
makes new ones: each free lowers the count, so the count stays under the threshold while the list of young
objects — the ones a collection walks — grows to 10,000-50,000 between collections.  Measured at 1,000
tables: young collections of up to 46,619 objects that took 37 ms of CPU with the count at 2,001
(docs/benchmarks.md, "Measuring issue 12's targets").  So the server also collects the young generation every
:data:`YOUNG_EVERY` seconds: the young list then holds at most what the server made in that time and still
holds, and each pause is a few milliseconds at most (each object that lives to a collection is walked once,
young, then frozen; one that dies before it is never walked).
"""

from __future__ import annotations

import asyncio
import gc

YOUNG_EVERY = 0.025
"""Seconds between two timed young collections (each also freezes its survivors, ``--gc tuned``).  An object that
dies before the next collection is never walked, so a longer period walks fewer; 25 ms against the earlier
10 ms: ~1% less CPU an action at 1,000 tables (``benchmarks/ab_table.py``, the median of seven rounds), and at
2,000 tables 1,140 collections in 30 s instead of ~2,570, p99 ~1.0 ms, the longest 5.2 ms (docs/benchmarks.md,
"Two servers at once")."""


class YoungCollector:
    """``gc.collect(0)`` every :data:`YOUNG_EVERY` seconds on the running event loop, until :meth:`stop`."""

    def __init__(self, every: float = YOUNG_EVERY) -> None:
        self.every = every
        self._handle: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Begin (on ``loop``, the running one by default)."""
        self._loop = loop or asyncio.get_running_loop()
        self._handle = self._loop.call_later(self.every, self._collect)

    def _collect(self) -> None:
        gc.collect(0)
        if self._loop is not None:
            self._handle = self._loop.call_later(self.every, self._collect)

    def stop(self) -> None:
        """No more timed collections."""
        self._loop = None
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
