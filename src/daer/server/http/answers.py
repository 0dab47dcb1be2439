"""Answers to HTTP requests with a client request id (请求编号, ``rid``): a double tap gets the first answer.

Kept in this process's memory for a while; what a create or join took is also stored with its room
(:func:`daer.server.table.rooms.request_key`), so a repeat that reaches another worker or a restarted process gets
the same room and seat (docs/protocol.md, "Double taps").
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from typing import Any


class Answers:
    """Answers to requests with a client request id, kept for a while so a repeat gets the first answer."""

    def __init__(self, size: int = 4096, ttl: float = 600.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.size, self.ttl, self.clock = size, ttl, clock
        self.kept: OrderedDict[tuple[str, ...], tuple[float, dict[str, Any]]] = OrderedDict()
        self.busy: dict[tuple[str, ...], asyncio.Lock] = {}
        """A lock for each key of requests being answered ..."""
        self.holders: dict[tuple[str, ...], int] = {}
        """... and how many requests hold or wait for it (the lock goes with the last)."""

    def get(self, key: tuple[str, ...]) -> dict[str, Any] | None:
        """The first answer to this request, if it is still kept."""
        hit = self.kept.get(key)
        if hit is None or self.clock() - hit[0] > self.ttl:
            return None
        return hit[1]

    @contextlib.asynccontextmanager
    async def turn(self, key: tuple[str, ...]) -> AsyncIterator[None]:
        """Requests with one key are answered one after the other: a repeat that arrives while the first is
        still waiting (a join waits for its seat's commit) finds the first's answer (:meth:`get`)."""
        lock = self.busy.setdefault(key, asyncio.Lock())
        self.holders[key] = self.holders.get(key, 0) + 1
        try:
            async with lock:
                yield
        finally:
            self.holders[key] -= 1
            if not self.holders[key]:
                del self.holders[key], self.busy[key]

    def put(self, key: tuple[str, ...], answer: dict[str, Any]) -> None:
        """Keep an answer.  Answers past ``ttl`` leave (they are kept oldest first), and the oldest past
        ``size``: what is kept follows the requests of the last ``ttl`` seconds, so a worker's memory does not
        climb for an hour until ``size`` answers are held."""
        now = self.clock()
        self.kept[key] = (now, answer)
        self.kept.move_to_end(key)
        kept = self.kept
        while kept and (len(kept) > self.size or now - next(iter(kept.values()))[0] > self.ttl):
            kept.popitem(last=False)


__all__ = ["Answers"]
