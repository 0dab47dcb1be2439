"""Closed connections freed at once: the reference cycles of asyncio's and uvicorn's connection objects broken
when the connection is lost, so that reference counting frees them, not a collection.

``daer serve --gc tuned`` freezes the survivors of every young collection (:mod:`daer.server.ops.metrics`); a
cycle that was alive at one collection (10 ms) and dies later is never collected.  Two such cycles outlive every
connection the server closes (found by the garbage probe of docs/benchmarks.md, "Memory that stays flat"):

- **asyncio's socket transport** (Python 3.11) keeps a bound method of itself in ``_read_ready_cb``, a cycle its
  close breaks only from CPython 3.12 on (python/cpython#100348): with its socket objects, ~1 KB per connection;
- **uvicorn's HTTP protocol** keeps its keep-alive timer (``timeout_keep_alive_task``, a handle holding its bound
  ``timeout_keep_alive_handler``) when the connection is lost with an error (a client's reset: every health
  check of a balancer that closes with RST), ~10 KB with its h11 state and last request.

A server that closes a few connections a second grew ~30 MiB an hour from these alone."""

from __future__ import annotations

import asyncio
from typing import Any


def _read_nothing() -> None:
    """What a dead transport runs if its socket is ever read again (it is not: its reader is removed)."""


def release_transport(transport: asyncio.BaseTransport | None) -> None:
    """Break the transport's cycle through its own bound reader (called from a protocol's ``connection_lost``,
    when the transport is done).  A transport without that attribute (TLS, Python 3.12+ after close) is left
    as it is."""
    state: dict[str, Any] | None = getattr(transport, "__dict__", None)
    if state is not None and getattr(state.get("_read_ready_cb"), "__self__", None) is transport:
        state["_read_ready_cb"] = _read_nothing
