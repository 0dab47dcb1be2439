"""Abuse limits of the online table: per-address token buckets, connection caps, and the server's options.

Use from an endpoint (the answer is ``None`` when the request may go on, else a ready 429 response)::

    limits = request.app.state.limits            # a Limits, built by create_app from `daer serve` options
    refused = limits.check("create", request)    # bucket name: create / join / lookup / score / ...
    if refused is not None:
        return refused

A bucket not named in ``Limits.rates`` falls back to ``Limits.default_rate``.  Addresses are the peer
address of the connection (``request.client.host``); behind a reverse proxy run one limit at the proxy too.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the CLI reads this module for its options without loading the server stack
    from starlette.requests import HTTPConnection
    from starlette.responses import JSONResponse

MAX_KEYS = 65536
"""Buckets kept per kind; the least recently used address is forgotten first (a full bucket is the default)."""


@dataclass(frozen=True, slots=True)
class Rate:
    """``per_minute`` requests a minute on average, up to ``burst`` at once (default: ``per_minute``)."""

    per_minute: float
    burst: float | None = None

    @property
    def capacity(self) -> float:
        """Tokens a full bucket holds."""
        return max(1.0, self.burst if self.burst is not None else self.per_minute)


class Buckets:
    """Token buckets by key (an address): :meth:`take` answers 0 when allowed, else seconds to wait."""

    def __init__(self, rate: Rate, *, max_keys: int = MAX_KEYS) -> None:
        self.rate = rate
        self.max_keys = max_keys
        self._b: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, key: str, cost: float = 1.0, *, now: float | None = None) -> float:
        """Spend ``cost`` tokens of ``key``'s bucket: 0.0 when allowed, else the seconds until it would be."""
        now = time.monotonic() if now is None else now
        per_s = self.rate.per_minute / 60.0
        cap = self.rate.capacity
        tokens, t = self._b.pop(key, (cap, now))
        tokens = min(cap, tokens + (now - t) * per_s)
        if tokens >= cost:
            self._b[key] = (tokens - cost, now)
            self._trim()
            return 0.0
        self._b[key] = (tokens, now)
        self._trim()
        return math.inf if per_s <= 0 else (cost - tokens) / per_s

    def _trim(self) -> None:
        while len(self._b) > self.max_keys:
            self._b.popitem(last=False)


class Counter:
    """Live things (connections) per address and in total, with caps."""

    def __init__(self, per_address: int, total: int) -> None:
        self.per_address, self.total = per_address, total
        self.by: dict[str, int] = {}
        self.n = 0

    def acquire(self, key: str) -> bool:
        """Count one more for ``key`` if both caps allow it."""
        if self.n >= self.total or self.by.get(key, 0) >= self.per_address:
            return False
        self.by[key] = self.by.get(key, 0) + 1
        self.n += 1
        return True

    def release(self, key: str) -> None:
        """One fewer for ``key``."""
        left = self.by.get(key, 0) - 1
        if left > 0:
            self.by[key] = left
        else:
            self.by.pop(key, None)
        self.n = max(0, self.n - 1)


DEFAULT_RATES: dict[str, Rate] = {
    "create": Rate(10, 5),
    "join": Rate(30, 10),
    "lookup": Rate(60, 20),
    "score": Rate(120, 30),
    "player": Rate(1, 10),
    "signin": Rate(10, 10),
    "signin_link": Rate(2, 5),
    "club_new": Rate(1, 3),
    "club_invite": Rate(6, 10),
    "club_request": Rate(6, 10),
    "club_act": Rate(60, 30),
    "review": Rate(6, 3),
}
"""Safe defaults per address: 10 rooms a minute (5 at once), 30 joins (10), 60 code look-ups (20),
120 calculator tokens (30; POST /api/score costs one a request and one more a hundred lines); players made at
a first seat: 1 a minute (10 at once: a family on one Wi-Fi); sign-ins with a link or a passkey: 10 a minute
(10); second-device links made: 2 a minute (5); clubs made: 1 a minute (3 at once); club invite links made and
join requests: 6 a minute each (10); every other club change (``club_act``): 60 a minute (30); 复盘 asked
(``review``): 6 a minute (3 at once; one computing at a time per address, :mod:`daer.server.table.reviewing`).
The 我的 and club pages' reads use the ``me`` bucket (``default_rate``)."""


@dataclass(frozen=True, slots=True)
class Deadlines:
    """How long a slow client may take (``daer serve --header-timeout`` …; :mod:`daer.server.http.slow`)."""

    header: float = 10.0
    """Seconds a request's headers may take, from the connection's opening (or the last answer)."""
    body: float = 20.0
    """Seconds its body may take after its headers."""
    write: float = 30.0
    """Seconds an answer may wait for a client that stopped reading."""
    pending: int = 64
    """Connections one address may hold that have not yet sent a whole request; one more gets
    :attr:`pending_grace` to send its own, then is closed."""
    pending_grace: float = 1.0
    """Seconds a connection past its address's :attr:`pending` cap has to send a whole request (never more than
    :attr:`header`).  Not closed at once: a server busy enough to read late accepts a burst of honest
    connections from one address together, their requests already waiting in their sockets (at 2,000 tables on
    one saturated process, 1-20 of the load's 2,000 WebSockets were cut that way), while a slow client's
    connections past the cap still last only this long."""
    proxies: tuple[str, ...] = ()
    """Addresses (or networks) of trusted reverse proxies (``--trusted-proxy``): every player behind one arrives
    from its address, so :attr:`pending` does not count their connections (a burst of reconnects after a
    restart would be cut; the proxy's own request timeout stands in front of them, and :attr:`header` still
    closes a connection that never completes its request)."""


@dataclass(slots=True)
class Limits:
    """Every abuse limit of a server (``daer serve`` options; docs/protocol.md, "Limits")."""

    rates: dict[str, Rate] = field(default_factory=lambda: dict(DEFAULT_RATES))
    default_rate: Rate = Rate(60, 20)
    max_rooms: int = 2000
    """Live rooms (waiting / playing / between) in memory; creating more answers 503."""
    max_rooms_per_address: int = 20
    """Live rooms one address may have created (the sole process of a SQLite store counts those in its
    memory; workers of a cluster count them in the store, over every worker)."""
    max_conns: int = 2000
    """WebSocket connections in total ..."""
    max_conns_per_address: int = 32
    """... and from one address."""
    waiting_ttl: float = 3600.0
    """Seconds a room may wait for its first hand (or sit idle between hands) before it expires."""
    finished_ttl: float = 600.0
    """Seconds a finished or dissolved match stays in memory (its records stay downloadable)."""
    idle_ttl: float = 6 * 3600.0
    """Seconds a playing room may go without any change before it expires (abandoned tables)."""
    sweep_every: float = 60.0
    """Seconds between expiry sweeps."""
    vote_seconds: float = 60.0
    """The dissolve vote's countdown: a seat that has not answered by then agrees."""
    watch_delay: int = 4
    """Public steps (draws, discards, claims, claim windows closed) spectators are shown behind the table."""
    trusted_proxies: tuple[str, ...] = ()
    """Reverse proxies whose ``X-Forwarded-For`` names the client (addresses or networks; empty: none), for the
    same-network warning (:mod:`daer.server.social.networks`)."""
    allowed_origins: tuple[str, ...] = ()
    """Origins allowed to open the socket and to POST (empty: the page's own origin, from the Host header)."""
    _buckets: dict[str, Buckets] = field(default_factory=dict, init=False, repr=False)
    conns: Counter = field(init=False, repr=False)
    """Live WebSocket connections (per address and in total)."""

    def __post_init__(self) -> None:
        self.conns = Counter(self.max_conns_per_address, self.max_conns)

    def retry_after(self, bucket: str, address: str, cost: float = 1.0) -> float:
        """Seconds to wait before ``address`` may use ``bucket`` again (0: allowed now, and counted)."""
        b = self._buckets.get(bucket)
        if b is None:
            b = self._buckets[bucket] = Buckets(self.rates.get(bucket, self.default_rate))
        return b.take(address, cost)

    def check(self, bucket: str, conn: HTTPConnection, cost: float = 1.0) -> JSONResponse | None:
        """None when the request may go on (and is counted), else a 429 answer with ``Retry-After``."""
        wait = self.retry_after(bucket, address_of(conn), cost)
        return None if wait <= 0 else too_many(wait)


def address_of(conn: HTTPConnection) -> str:
    """The peer address of a request or socket (``"?"`` when the server does not know it)."""
    return conn.client.host if conn.client is not None else "?"


def address_key(address: str) -> str:
    """The form in which an address is stored (``rooms.creator``): SHA-256 hex of it — a pseudonym for
    counting, not anonymity (IPv4 addresses are few enough to be tried)."""
    return hashlib.sha256(f"daer-address:{address}".encode()).hexdigest()


def too_many(wait: float) -> JSONResponse:
    """429 Too Many Requests, Chinese first, with ``Retry-After`` in whole seconds."""
    from starlette.responses import JSONResponse  # noqa: PLC0415

    secs = 3600 if math.isinf(wait) else max(1, math.ceil(wait))
    return JSONResponse({"error": "too_many", "zh": f"请求太频繁，请 {secs} 秒后再试",
                         "en": f"too many requests; retry after {secs} s", "retry_after": secs},
                        status_code=429, headers={"Retry-After": str(secs)})


def parse_rate(text: str) -> Rate:
    """``"10"`` (a minute, bursts of 10) or ``"10/5"`` (10 a minute, bursts of 5)."""
    per, _, burst = text.partition("/")
    try:
        rate = Rate(float(per), float(burst) if burst else None)
    except ValueError:
        raise ValueError(f"rate must be N or N/BURST (per minute), not {text!r}") from None
    if rate.per_minute < 0 or (rate.burst is not None and rate.burst < 1):
        raise ValueError(f"rate must be >= 0 and burst >= 1, not {text!r}")
    return rate
