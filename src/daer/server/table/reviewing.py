"""复盘 (review) on the server: a finished hand's review for one seat, computed in the bot process pool, queued and
bounded per address, kept once made.

A review is a few seconds of one core (:mod:`daer.bots.review`, :data:`WORLDS` worlds a decision, the client
cannot choose more), so it never runs on the event loop: it goes to the search bots' pool
(:data:`daer.server.table.thinking.POOL`) as the record's JSON and the seat, and comes back as the answer's JSON
bytes.  The bounds: :data:`RUNNING` reviews computing at once (the pool's other worker stays free for the
rooms' search bots), :data:`QUEUE` waiting or computing over every address, one at a time per address; past a
bound the asker gets a 429 in Chinese first, and asks again later.  An asker waits at most :data:`WAIT` seconds:
then the answer is 202 (「复盘正在计算」) and the page asks again; the review goes on meanwhile, and its address stays
busy until it is done.  A review is the same for everyone who asks (it is seeded from the seat's view), so the
answer is kept per (room, hand, seat) in a small LRU (:data:`CACHE`), and two askers of the same review wait for
the same computation.  The pool's processes are started (and the review handed to them) from a thread, never on
the event loop: starting a worker takes seconds on a loaded machine.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from daer.bots.review import as_json, review
from daer.engine import HandRecord, dumps, loads
from daer.server.table.thinking import POOL, Pool

__all__ = ["CACHE", "FULL", "MINE_BUSY", "PENDING", "QUEUE", "RUNNING", "WAIT", "WORLDS", "Busy", "Reviews",
           "review_in_worker"]

WORLDS = 32
"""Worlds a decision in a server's review (:data:`daer.bots.review.WORLDS`: a hand in a few seconds)."""
RUNNING = 1
"""Reviews computing at once (of the pool's two workers, one stays for the rooms' search bots)."""
QUEUE = 4
"""Reviews waiting or computing, over every address: past it a new one is refused (429)."""
CACHE = 256
"""Reviews kept, the least recently asked forgotten first."""
WAIT = 5.0
"""Seconds one request waits for its review before a 202 (ask again: the review goes on and is kept when done)."""

Key = tuple[str, int, int]
"""(room code, hand number, seat)."""
Run = Callable[[HandRecord, int], Awaitable[bytes]]


@dataclass(frozen=True)
class Busy:
    """A review refused for now: the answer's code, Chinese and English reason, HTTP status."""

    code: str
    zh: str
    en: str
    status: int = 429


MINE_BUSY = Busy("review_running", "你的复盘还在算，请等它算完再要下一个",
                 "your review is still being computed; ask for the next one when it is done")
FULL = Busy("review_queue_full", "复盘排队的人太多，请过一会儿再试",
            "too many reviews are queued; try again in a little while")
PENDING = Busy("review_pending", "复盘正在计算，请稍候", "the review is being computed; ask again in a moment", 202)


def review_in_worker(record: str, seat: int, worlds: int) -> bytes:
    """In a pool worker: the review of ``seat`` in the record (its JSON text), as the answer's JSON bytes."""
    return json.dumps(as_json(review(loads(record), seat, worlds=worlds)), ensure_ascii=False).encode()


class Reviews:
    """The server's reviews: the ones being computed, the ones kept, and who is waiting for which."""

    def __init__(self, run: Run | None = None, *, pool: Pool = POOL, running: int = RUNNING, queue: int = QUEUE,
                 cache: int = CACHE, wait: float = WAIT) -> None:
        self.pool = pool
        self.run: Run = run or self._in_pool
        self.queue, self.cache_size, self.wait = queue, cache, wait
        self._slots = asyncio.Semaphore(running)
        self._kept: OrderedDict[Key, bytes] = OrderedDict()
        self._pending: dict[Key, asyncio.Future[bytes]] = {}
        self._by: dict[str, Key] = {}
        """The review each address started that is not done yet (one at a time)."""

    def kept(self, key: Key) -> bytes | None:
        """The review already made for ``key``, if any."""
        hit = self._kept.get(key)
        if hit is not None:
            self._kept.move_to_end(key)
        return hit

    async def ask(self, key: Key, address: str, record: HandRecord, seat: int) -> bytes | Busy:
        """The review of ``seat`` in ``record`` (a finished hand the asker may see), or why not now (a 429, or
        :data:`PENDING` after :attr:`wait` seconds: the review goes on)."""
        if (hit := self.kept(key)) is not None:
            return hit
        fut = self._pending.get(key)
        if fut is None:
            if address in self._by:
                return MINE_BUSY
            if len(self._pending) >= self.queue:
                return FULL
            fut = self._pending[key] = asyncio.ensure_future(self._make(key, record, seat))
            self._by[address] = key
            fut.add_done_callback(lambda f: self._done(f, address, key))
        try:
            return await asyncio.wait_for(asyncio.shield(fut), self.wait)
        except TimeoutError:
            return PENDING

    def _done(self, fut: asyncio.Future[bytes], address: str, key: Key) -> None:
        if self._by.get(address) == key:
            del self._by[address]
        if not fut.cancelled():
            fut.exception()  # retrieved here: an asker that left does not leave it unread

    async def _make(self, key: Key, record: HandRecord, seat: int) -> bytes:
        try:
            async with self._slots:
                body = await self.run(record, seat)
            self._kept[key] = body
            while len(self._kept) > self.cache_size:
                self._kept.popitem(last=False)
            return body
        finally:
            self._pending.pop(key, None)

    async def _in_pool(self, record: HandRecord, seat: int) -> bytes:
        text = dumps(record)
        try:
            return await self._submit(text, seat)
        except (BrokenProcessPool, RuntimeError):  # a worker died (or the pool was stopped): once more, afresh
            self.pool.stop()
            return await self._submit(text, seat)

    async def _submit(self, text: str, seat: int) -> bytes:
        ex = self.pool.executor()  # made on the loop (cheap); its processes start in the thread below
        done = await asyncio.to_thread(ex.submit, review_in_worker, text, seat, WORLDS)
        return await asyncio.wrap_future(done)
