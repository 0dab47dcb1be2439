"""Operations: ``/healthz``, ``/readyz`` and ``/metrics`` (Prometheus text format, prometheus-client), and the
collector's tuning (``gc.freeze`` after the rooms are restored and after every collection, the gen-0 threshold).

What is measured (one process, one registry of its own, so the library's default registry stays untouched):

- ``daer_tables{status}`` and ``daer_connections`` — read from the room manager when scraped;
- ``daer_actions_total{by}`` — every applied action (``by="player"``: a person's act, ``"server"``: bots,
  托管 and timeouts); its ``rate()`` is actions per second;
- ``daer_action_seconds`` — a person's act, from the message received to its ack (verify, store, broadcast);
- ``daer_store_write_seconds{op}`` — each write call of the store (``append_action``, ``update_room`` ...: most
  only queue their statements), and ``op="commit"``, each commit of the writer (a tick's group commit);
- ``daer_store_group_units`` — the changes committed together in one group commit;
- ``daer_gc_pause_seconds{generation}`` — every collection, timed with :data:`gc.callbacks` (start to stop),
  ``daer_gc_pause_cpu_seconds{generation}``, the CPU time each took, ``daer_gc_pause_max_seconds{generation}``,
  the longest since start (the start-up collection before the
  freeze is not counted), and ``daer_gc_pause_cpu_max_seconds{generation}``, the most CPU one took (on a
  shared machine a pause's wall time also counts the time other processes held the core);
- ``daer_gc_frozen_objects`` — objects in the permanent generation (``gc.freeze``), counted at most every
  :data:`FROZEN_EVERY` seconds (a count walks them all);
- ``daer_bot_think_seconds{bot}`` — a bot's ``choose`` (inline, or a search decision in the process pool);
- ``daer_lease_renewals_total{result}`` (``ok``, ``failed``), ``daer_lease_renewal_seconds`` and
  ``daer_leases_lost_total`` — a cluster worker's leases (``daer.server.table.port``): a failed renewal is logged
  with its cause (e.g. the deadlock that cost the one-worker cluster a second, docs/benchmarks.md); alert on any;
- the library's process collector (CPU seconds, resident memory, open files).

The ones counted for every action (``daer_actions_total``, ``daer_action_seconds``, ``daer_store_write_seconds``,
``daer_store_group_units``, ``daer_bot_think_seconds``) are :class:`~daer.server.ops.tallies.Tally` families: the
same names and samples, counted without prometheus-client's mutex per value.

``/metrics`` is answered according to ``--metrics``: ``local`` (the default) only to a peer on loopback
that came with no proxy header (``X-Forwarded-For``, ``Forwarded``, ``X-Real-IP``) — so a reverse proxy
on the same machine does not publish it; ``on`` to anyone; ``off`` never (404).
"""

from __future__ import annotations

import functools
import gc
import ipaddress
import time
from collections.abc import Callable, Iterator, Mapping, Sized
from typing import TYPE_CHECKING, Any, Literal, ParamSpec, Protocol, TypeVar

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, ProcessCollector, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import text
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

import daer
from daer.server.ops.tallies import Child, Tally

if TYPE_CHECKING:
    from daer.store import Store


class ServedRoom(Protocol):
    """What the gauges read of a room: its status and its open connections."""

    @property
    def status(self) -> str: ...

    @property
    def conns(self) -> Sized: ...


class ServedRooms(Protocol):
    """What the operations endpoints read of the rooms one process serves (a
    :class:`daer.server.serving.manager.RoomManager`): handed in by :meth:`Ops.started`, never imported."""

    @property
    def rooms(self) -> Mapping[str, ServedRoom]: ...

    @property
    def store(self) -> Store: ...

MetricsAccess = Literal["local", "on", "off"]
GcMode = Literal["tuned", "threshold", "default"]
GC_THRESHOLD = (2_000, 20, 100)
"""``--gc tuned`` (the default): a gen-0 collection every 2,000 net allocations (Python: 700), and after
every collection everything still alive is frozen (:func:`_refreeze`), so no collection ever walks more
than the objects made since the last one: a loaded server's young collections find almost nothing to free
(its net allocations are new room state, not garbage), and without the freeze they would pile up in the
older generations until a full collection walks every room (150-260 ms at 1,000 tables, issue 12).  With the
freeze every object is walked once, young, whatever the threshold: a low one costs no more in all, and keeps
each pause short (a young collection costs ~0.5-3 µs of CPU per object on a loaded 2-core machine)."""
GC_THRESHOLD_ONLY = (50_000, 20, 100)
"""``--gc threshold`` (the last session's tuning, kept to compare): the restored rooms frozen once, a
gen-0 collection every 50,000 net allocations (~20-35 ms each), no freeze after."""

REGISTRY = CollectorRegistry(auto_describe=True)
ProcessCollector(registry=REGISTRY)
_FAST = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
_GC = (0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
_THINK = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# counted for every action (the action, its writes, the bot's choice): lock-free tallies (daer.server.ops.tallies)
ACTIONS = Tally("daer_actions", "Actions applied (by: player = a person's act, server = bots, 托管, timeouts)",
                ["by"], registry=REGISTRY)
ACTION_SECONDS = Tally("daer_action_seconds", "A person's act, from the message received to its ack",
                       buckets=_FAST, registry=REGISTRY)
STORE_SECONDS = Tally("daer_store_write_seconds", "One write of the store (committed)", ["op"],
                      buckets=_FAST, registry=REGISTRY)
GC_SECONDS = Histogram("daer_gc_pause_seconds", "A garbage collection (gc.callbacks start to stop)",
                       ["generation"], buckets=_GC, registry=REGISTRY)
GC_CPU = Histogram("daer_gc_pause_cpu_seconds", "The CPU time of a garbage collection (its wall time counts the "
                   "time other processes held the core too)", ["generation"], buckets=_GC, registry=REGISTRY)
GC_MAX = Gauge("daer_gc_pause_max_seconds", "The longest garbage collection since the process started",
               ["generation"], registry=REGISTRY)
GC_CPU_MAX = Gauge("daer_gc_pause_cpu_max_seconds", "The most CPU time one garbage collection took since start "
                   "(its wall time minus the time other processes held the core)", ["generation"], registry=REGISTRY)
THINK_SECONDS = Tally("daer_bot_think_seconds", "A bot choosing an action (inline, or a search bot's decision "
                      "in the process pool, from submit to answer)", ["bot"], buckets=_THINK, registry=REGISTRY)
STEP_LATE = Tally("daer_step_lateness_seconds", "How long after it was due the server took one of its own "
                  "steps of a room (a bot's move, a claim window closed, a hand dealt): the timer's delay "
                  "plus the wait behind people's messages (daer.server.table.clock)", buckets=(*_GC, 2.5),
                  registry=REGISTRY)
GROUP_UNITS = Tally("daer_store_group_units", "Changes (units) committed together in one group commit",
                    buckets=(1, 2, 5, 10, 20, 50, 100, 200, 500), registry=REGISTRY)
LEASE_RENEWALS = Counter("daer_lease_renewals", "Renewals of this worker's room leases (result: ok, failed — "
                         "a worker that cannot renew for --lease-ttl drops every room)", ["result"], registry=REGISTRY)
LEASE_SECONDS = Histogram("daer_lease_renewal_seconds", "A renewal of every lease this worker holds (the "
                          "statements in a worker thread, then the decisions on the loop)", buckets=_FAST,
                          registry=REGISTRY)
LEASES_LOST = Counter("daer_leases_lost", "Rooms this worker stopped serving because their lease was no longer "
                      "its own (taken over, or not renewed in time)", registry=REGISTRY)
for _r in ("ok", "failed"):
    LEASE_RENEWALS.labels(result=_r)
SLOW_CLOSED = Counter("daer_slow_clients_closed", "HTTP connections closed for a slow client (phase: header, body "
                      "— a request not sent in time; write — an answer not read; pending — one more connection of "
                      "an address past its cap of unfinished requests)", ["phase"], registry=REGISTRY)
for _p in ("header", "body", "write", "pending"):
    SLOW_CLOSED.labels(_p)
COMPILED = Gauge("daer_compiled_modules", "Modules of the engine running compiled by mypyc (setup.py's NATIVE; 0: the "
                 "engine runs from source, e.g. a build without a compiler, DAER_MYPYC=0 or an edit since the build)",
                 registry=REGISTRY)
COMPILED.set(len(daer.COMPILED))
FROZEN = Gauge("daer_gc_frozen_objects", "Objects in the collector's permanent generation (gc.freeze): with "
               "--gc tuned every survivor of a collection; counted at most every 10 minutes", registry=REGISTRY)
FROZEN_EVERY = 600.0
"""Seconds one count of the frozen objects is reported before it is counted again.  Counting walks every frozen
object (``gc.get_freeze_count`` walks a linked list, holding the loop): measured 0.12-0.16 s at 2,000 tables
(2026-12-01), which as the count of every scrape stalled every table at each one."""


class _FrozenCount:
    """``gc.get_freeze_count()``, reused for :data:`FROZEN_EVERY` seconds."""

    def __init__(self) -> None:
        self.at = float("-inf")
        self.value = 0

    def __call__(self) -> float:
        now = time.monotonic()
        if now - self.at >= FROZEN_EVERY:
            self.count(now)
        return float(self.value)

    def count(self, now: float | None = None) -> None:
        self.value = gc.get_freeze_count()
        self.at = time.monotonic() if now is None else now


_frozen = _FrozenCount()
FROZEN.set_function(_frozen)
for _g in ("0", "1", "2"):  # every generation is listed from the start, even before its first collection
    GC_SECONDS.labels(generation=_g)
    GC_CPU.labels(generation=_g)
    GC_MAX.labels(generation=_g)
    GC_CPU_MAX.labels(generation=_g)
ACTIONS_BY = {by: ACTIONS.labels(by=by) for by in ("player", "server")}
"""``daer_actions_total`` by who acted, looked up once (a dict lookup less per action)."""

STORE_WRITES = ("create_room", "update_room", "save_reply", "start_hand", "append_action", "finish_hand")
P = ParamSpec("P")
R = TypeVar("R")


_GC_CHILDREN = {g: (GC_SECONDS.labels(generation=g), GC_CPU.labels(generation=g)) for g in ("0", "1", "2")}


class _GcTimer:
    """Times every collection: ``gc.callbacks`` calls it at the start and the stop of each."""

    def __init__(self) -> None:
        self.started = self.cpu = 0.0
        self.longest: dict[str, float] = {}
        self.costliest: dict[str, float] = {}

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.started, self.cpu = time.perf_counter(), time.thread_time()
        elif self.started:
            pause, gen = time.perf_counter() - self.started, str(info["generation"])
            cpu = time.thread_time() - self.cpu
            self.started = 0.0
            if cpu > self.costliest.get(gen, 0.0):
                self.costliest[gen] = cpu
                GC_CPU_MAX.labels(generation=gen).set(cpu)
            seconds, cpu_seconds = _GC_CHILDREN[gen]  # the young collection on a clock runs ~100 times a second
            seconds.observe(pause)
            cpu_seconds.observe(cpu)
            if pause > self.longest.get(gen, 0.0):
                self.longest[gen] = pause
                GC_MAX.labels(generation=gen).set(pause)


_gc_timer = _GcTimer()


def watch_gc() -> None:
    """Start timing the collector's pauses (once per process)."""
    if _gc_timer not in gc.callbacks:
        gc.callbacks.append(_gc_timer)


def tune_gc(mode: GcMode) -> None:
    """``tuned``: :data:`GC_THRESHOLD`; ``threshold``: :data:`GC_THRESHOLD_ONLY`; ``default``: leave
    Python's (700, 10, 10)."""
    if mode != "default":
        gc.set_threshold(*(GC_THRESHOLD if mode == "tuned" else GC_THRESHOLD_ONLY))


def _refreeze(phase: str, _info: dict[str, Any]) -> None:
    """After each collection: what survived it goes to the permanent generation (``gc.freeze`` moves lists:
    it costs nothing).  Frozen objects are still freed by reference counting when they die; only a reference
    cycle that was alive at a collection and dies later is never collected (see docs/deploy.md)."""
    if phase == "stop":
        gc.freeze()


def freeze_after_restore(mode: GcMode) -> None:
    """``tuned`` and ``threshold``: move everything alive now (modules, restored rooms) to the permanent
    generation, which no collection walks again; called once the rooms are restored.  ``tuned`` then also
    freezes the survivors of every later collection (:func:`_refreeze`)."""
    if mode != "default":
        gc.collect()
        gc.freeze()
        _frozen.count()  # cheap now, before the tables fill the permanent generation
    if mode == "tuned" and _refreeze not in gc.callbacks:
        gc.callbacks.append(_refreeze)


def timed(hist: Child, fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` observed by ``hist`` (seconds, also when it raises)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            hist.observe(time.perf_counter() - t0)

    return wrapper


def time_store(store: Store) -> None:
    """Time every write method of this store (the instance's methods are wrapped; the class is untouched)."""
    for op in STORE_WRITES:
        setattr(store, op, timed(STORE_SECONDS.labels(op=op), getattr(store, op)))


_COMMIT_SECONDS = STORE_SECONDS.labels(op="commit")


def _committed(seconds: float, units: int) -> None:
    _COMMIT_SECONDS.observe(seconds)
    GROUP_UNITS.observe(units)


_THINK_BY: dict[str, Child] = {}


def thought(bot: object, seconds: float) -> None:
    """A bot's inline choice took ``seconds`` (``daer_bot_think_seconds`` by the bot's class; each label's
    child looked up once: a bot chooses for almost every action)."""
    name = type(bot).__name__
    child = _THINK_BY.get(name)
    if child is None:
        child = _THINK_BY[name] = THINK_SECONDS.labels(bot=name)
    child.observe(seconds)


class _Live(Collector):
    """Tables by status and open connections, read from the current manager at each scrape."""

    def __init__(self) -> None:
        self.manager: ServedRooms | None = None

    def collect(self) -> Iterator[Metric]:
        tables = GaugeMetricFamily("daer_tables", "Rooms in this process's memory, by status", labels=["status"])
        conns = GaugeMetricFamily("daer_connections", "Open WebSocket connections joined to a room")
        by: dict[str, int] = {}
        n = 0
        if self.manager is not None:
            for room in list(self.manager.rooms.values()):
                by[room.status] = by.get(room.status, 0) + 1
                n += len(room.conns)
        for status in ("waiting", "playing", "between", *sorted(set(by) - {"waiting", "playing", "between"})):
            tables.add_metric([status], by.get(status, 0))
        conns.add_metric([], n)
        yield tables
        yield conns

    def describe(self) -> Iterator[Metric]:
        return iter(())


_live = _Live()
REGISTRY.register(_live)


class Ops:
    """The operations endpoints of one app: ``ready`` is set once its rooms are restored."""

    def __init__(self, access: MetricsAccess = "local") -> None:
        self.access = access
        self.ready = False
        self.draining = False
        """Set when the process is drained (SIGTERM): ``/readyz`` answers 503 so the balancer stops sending."""
        self.store: Store | None = None

    def started(self, manager: ServedRooms) -> None:
        """The rooms are restored: count them, time the store, answer ``/readyz``."""
        _live.manager = manager
        self.store = manager.store
        time_store(manager.store)
        manager.store.writer.on_commit = _committed
        self.ready = True

    async def healthz(self, _request: Request) -> Response:
        return JSONResponse({"ok": True})

    async def readyz(self, _request: Request) -> Response:
        if self.draining:
            return JSONResponse({"ok": False, "why": "draining: handing rooms over"}, status_code=503)
        if not self.ready or self.store is None:
            return JSONResponse({"ok": False, "why": "starting: rooms not restored yet"}, status_code=503)
        try:
            with self.store.engine.connect() as conn:
                conn.execute(text("SELECT 1"))
        except Exception as exc:  # any driver error means: not ready
            return JSONResponse({"ok": False, "why": f"store: {type(exc).__name__}"}, status_code=503)
        return JSONResponse({"ok": True, "rooms": len(_live.manager.rooms) if _live.manager else 0})

    async def metrics(self, request: Request) -> Response:
        if not self.allowed(request):
            return JSONResponse({"error": "not_found", "zh": "没有这个页面", "en": "not found"}, status_code=404)
        return Response(generate_latest(REGISTRY), media_type="text/plain; version=0.0.4; charset=utf-8")

    def allowed(self, request: Request) -> bool:
        """May this request read ``/metrics`` (see the module's docstring)?"""
        if self.access != "local":
            return self.access == "on"
        if any(h in request.headers for h in ("x-forwarded-for", "forwarded", "x-real-ip")):
            return False
        host = request.client.host if request.client is not None else ""
        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:  # not an address (a test client's made-up name): not loopback
            return False

    def routes(self) -> list[Route]:
        return [Route("/healthz", self.healthz), Route("/readyz", self.readyz), Route("/metrics", self.metrics)]
