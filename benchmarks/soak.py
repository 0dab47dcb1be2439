"""Chaos soak (not a test): the cluster under load for a set time while its processes are killed, then a check
that nothing was lost.

Run: ``nice -n 19 .venv/bin/python benchmarks/soak.py --tables 200 --minutes 60 --kill-every 3``.  It starts a
cluster (``daer cluster up``: PostgreSQL, HAProxy, two workers) in ``--dir`` (a temporary folder by default) and
loads it through HAProxy with ``--tables`` tables: half of them (``--people``) a scripted person at a table of
three bots who acts after ``--think`` seconds whenever the view offers something and readies up between hands,
the others bot tables (the host starts the room, leaves — a bot takes the seat — and watches as a spectator).
A room that finishes (``--hands``) is followed by a new one at the same table.  Every client reconnects
through the balancer after a drop, says ``hello`` at the last version it saw, sends again (same id) what was
unanswered, and records every action and command the server acked with its version.

Faults, on a schedule drawn from ``--seed``: every ``--kill-every`` minutes ``kill -9`` of a random worker,
restarted 1–5 s later with its recorded command line; once, half-way between two kills, ``pg_ctl restart -m
immediate`` of PostgreSQL (a crash and its recovery); once, later, SIGTERM (a drain) of a random worker,
restarted when it has exited.  It samples each worker's RSS from ``/proc`` every 5 s and keeps every acked
person action's latency (sent → ack) with its time, so the p99 in the ``--window`` seconds after each fault
and outside them can be told apart.

At the end it stops the load, reads PostgreSQL and checks: every acked action is stored exactly once (its
``actions`` row, found by the client id, and the stored reply with the acked version), every acked command's
reply is stored with its version, every hand's actions are numbered without a hole (a hand with one cannot be
replayed), no room stores an older version than its client saw, every room either finished or is resumable (a
fresh ``hello`` through the balancer is welcomed at a version at least the last seen), every drop was followed
by the room's resumption, no room stopped moving, no seat holds two tokens (a person's seat holds the hash of
exactly the token its client has, a left seat none, no hash in two seats), and every restarted worker came
back.  It prints a report (``--json FILE`` also writes it): tables, actions acked / stored / lost /
duplicated, the faults with the rooms each one hit and their resumption times (a fault to the room's first new
version on a fresh connection), p99 during and outside the faults, and each worker's memory at the start and
the end with its growth per hour (a linear fit within each process's life, the first ``--window`` seconds
after a start left out) and its RSS minute by minute (in ``--json``; every eighth of them printed), which
tells a leak (steady growth) from caches filling (growth that slows).  A worker with a life of ``--judge-after``
minutes or more (30) is judged: its memory is flat if the second half of its long lives grew at most
``--max-growth`` MiB an hour (6); a check, "memory flat", when any worker was judged.  It exits 1 when a check
fails.
``--server-arg`` passes one more option to every worker (``--server-arg=--log-level --server-arg=debug``: each
action in the workers' logs, to trace a failed check).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import os
import random
import secrets
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import msgspec
import websockets
from sqlalchemy import create_engine, text
from sqlalchemy.exc import SQLAlchemyError
from websockets.exceptions import WebSocketException

from daer.cluster import local
from daer.cluster.pg import Postgres
from daer.server.social.watching import WATCH_DELAY
from daer.server.table.rooms import match_from_row, replay_hand
from daer.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "server"))
from serving import TEST_LIMITS

decode = msgspec.json.Decoder().decode
_encoder = msgspec.json.Encoder()
DROPS = (OSError, TimeoutError, WebSocketException)
"""What a client sees when its worker dies, drains or refuses it (refused, reset, closed, 502/503)."""
OVER = ("finished", "dissolved", "expired", "gone")
"""A room's statuses once it is over (``gone``: a hello found no such room)."""


def encode(msg: dict[str, Any]) -> str:
    """A client message as JSON text."""
    return _encoder.encode(msg).decode()


@dataclass
class Room:
    """One room a table played: its code and host token, what its client saw and what the server acked."""

    code: str
    token: str | None
    v: int | None = None
    """The last version the client saw."""
    status: str = "waiting"
    acked: dict[str, tuple[str, int]] = field(default_factory=dict)
    """Acked message id → (``act`` or ``cmd``, the acked version)."""
    leaving: bool = False
    """A bot table's host asked to leave: from then on it watches as a spectator."""
    left: bool = False
    """... and the leave was acked (the seat is a bot's, the token no longer valid)."""


@dataclass
class Drop:
    """A connection of a table that ended unasked: when, and when the room next moved on a fresh connection."""

    at: float
    code: str
    v: int | None
    resumed: float | None = None


class Table:
    """One client at a time of one table: creates rooms one after another through the balancer and plays them."""

    def __init__(self, n: int, url: str, *, person: bool, think: float, hands: int, rng: random.Random) -> None:
        self.n, self.url, self.person, self.think, self.hands = n, url, person, think, hands
        self.ws_url = "ws" + url.removeprefix("http") + "/ws"
        self.rng = random.Random(rng.random())
        self.prefix = secrets.token_hex(4)
        """Message ids are unique per table over all its connections: a repeat gets its first answer."""
        self.rooms: list[Room] = []
        self.drops: list[Drop] = []
        self.latencies: list[tuple[float, float]] = []
        """(time sent, seconds to the ack) of each acked person action."""
        self.last_progress = 0.0
        self.refusals: dict[str, int] = {}
        self.unknown_creates = 0
        """Creates still unanswered when the load stopped (a room may exist that no client knows)."""
        self.ids = 0
        self.connections = 0
        self.welcomed = False
        """The current connection was welcomed (its end, unasked, is a drop)."""

    def _id(self, kind: str) -> str:
        self.ids += 1
        return f"{self.prefix}-{kind}{self.ids}"

    async def run(self, http: httpx.AsyncClient, stop: asyncio.Event) -> None:
        """Rooms one after another until ``stop``."""
        while not stop.is_set():
            room = await self._create(http, stop)
            if room is None:
                return
            self.rooms.append(room)
            await self._play(room, stop)

    async def _create(self, http: httpx.AsyncClient, stop: asyncio.Event) -> Room | None:
        rid = secrets.token_hex(8)  # a repeat of a create whose answer was lost gets the same room
        body = {"name": "soak", "rid": rid, "config": {"timer": 0, "hands": self.hands, "bot": "heuristic"}}
        while not stop.is_set():
            try:
                r = await http.post(f"{self.url}/api/rooms", json=body)
                if r.status_code == 200:
                    made = r.json()
                    return Room(made["code"], made["token"])
                self._refused(f"create {r.status_code}")
            except (httpx.HTTPError, OSError):
                self._refused("create failed")
            await asyncio.sleep(self.rng.uniform(0.3, 1.0))
        self.unknown_creates += 1
        return None

    def _refused(self, code: str) -> None:
        self.refusals[code] = self.refusals.get(code, 0) + 1

    async def _play(self, room: Room, stop: asyncio.Event) -> None:
        """Connections to one room until it is over or ``stop``; each unasked end is a :class:`Drop`."""
        pending: dict[str, tuple[dict[str, Any], float]] = {}
        while not stop.is_set() and room.status not in OVER:
            again = self.welcomed = False
            try:
                async with websockets.connect(f"{self.ws_url}/{room.code}", max_size=2**22, open_timeout=20,
                                              close_timeout=2) as ws:
                    again = await self._session(ws, room, pending, stop)
            except DROPS:
                pass
            if stop.is_set() or room.status in OVER:
                return
            if not again:
                if self.welcomed:  # a connection that served the room ended unasked (not a failed attempt)
                    self.drops.append(Drop(time.time(), room.code, room.v))
                await asyncio.sleep(self.rng.uniform(0.2, 1.0))

    async def _session(self, ws: Any, room: Room, pending: dict[str, tuple[dict[str, Any], float]],
                       stop: asyncio.Event) -> bool:
        """One connection; True when it ended by choice (a bot table's host now watches as a spectator)."""
        await ws.send(encode({"t": "hello", "room": room.code, "token": None if room.left else room.token,
                              "v": room.v}))
        while True:
            async with asyncio.timeout(20):
                first = decode(await ws.recv())
            if first["t"] in ("welcome", "error"):
                break
        if first["t"] == "error":  # moved (the room is on its way to another worker), or refused
            self._refused(f"hello {first['code']}")
            if first["code"] == "no_room":  # over and gone from the store's live rooms
                room.status = "gone"
            if first["code"] == "bad_token" and room.leaving:  # the leave was stored, its ack lost in a drop
                room.left = True
                for mid in [mid for mid, (msg, _) in pending.items() if msg.get("name") == "leave"]:
                    del pending[mid]
            return False
        self.connections += 1
        self.welcomed = True
        fresh = True
        last: dict[str, Any] | None = None
        acted = [-1]
        for msg, _ in list(pending.values()):  # unanswered on the last connection: the same ids again
            await ws.send(encode(msg))
        while not stop.is_set():
            try:
                async with asyncio.timeout(1.0):
                    m = decode(await ws.recv())
            except TimeoutError:  # nothing new: a refused command is sent again
                if last is not None and (msg := self._decide(room, last, pending, acted)) is not None:
                    await self._send(ws, msg, pending)
                continue
            now = time.time()
            if m["t"] == "update":
                if room.v is None or m["v"] > room.v:
                    self.last_progress = time.monotonic()
                    if fresh:  # the room moves again after a drop: resumed
                        for d in self.drops:
                            if d.code == room.code and d.resumed is None:
                                d.resumed = now
                        fresh = False
                    room.v = m["v"]
                room.status = m["room"]["status"]
                if room.status in OVER:
                    return True
                last = m
                msg = self._decide(room, m, pending, acted)
                if msg is not None:
                    if msg["t"] == "act":
                        await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
                    await self._send(ws, msg, pending)
            elif m["t"] in ("ack", "error") and m.get("id") in pending:
                msg, sent = pending.pop(m["id"])
                if m["t"] == "ack":
                    room.acked[m["id"]] = (msg["t"], m["v"])
                    if msg["t"] == "act":
                        self.latencies.append((sent, now - sent))
                    if msg.get("name") == "leave":
                        room.left = True
                        return True
                else:
                    self._refused(m["code"])
                    if msg.get("name") == "leave":
                        room.leaving = False
            elif m["t"] == "closed":  # this seat left (a bot table's host: now a spectator), or a write failed
                if room.leaving:  # evicted from the seat it left (before or after the ack)
                    room.left = True
                    for mid in [mid for mid, (msg, _) in pending.items() if msg.get("name") == "leave"]:
                        del pending[mid]
                return room.left  # else a drop (the next hello tells whether the room is over)
        return True

    def _decide(self, room: Room, m: dict[str, Any], pending: dict[str, tuple[dict[str, Any], float]],
                acted: list[int]) -> dict[str, Any] | None:
        """What to send on update ``m``, if anything: the host starts the room; a person acts once per version
        when the view offers something and readies up between hands; a bot table's host leaves once it plays."""
        names = {msg.get("name") for msg, _ in pending.values()}
        status, view = m["room"]["status"], m["view"]
        if room.leaving or room.left:
            return None
        if status == "waiting":
            return None if "start" in names else {"t": "cmd", "id": self._id("c"), "name": "start"}
        if not self.person:
            if status == "playing" and "leave" not in names:
                room.leaving = True
                return {"t": "cmd", "id": self._id("c"), "name": "leave"}
            return None
        if status == "between" and 0 not in m["room"]["ready"] and "next" not in names:
            return {"t": "cmd", "id": self._id("c"), "name": "next"}
        if view and view["legal"] and status == "playing" and m["v"] > acted[0]:
            acted[0] = m["v"]
            return {"t": "act", "id": self._id("a"), "v": m["v"], "action": self.rng.choice(view["legal"])}
        return None

    @staticmethod
    async def _send(ws: Any, msg: dict[str, Any], pending: dict[str, tuple[dict[str, Any], float]]) -> None:
        pending[msg["id"]] = (msg, time.time())
        await ws.send(encode(msg))


@dataclass
class Fault:
    """One fault of the schedule: when (seconds into the soak), what, and what it did."""

    at: float
    kind: str
    """``kill`` (kill -9, restart 1–5 s later), ``postgres`` (pg_ctl restart -m immediate), ``drain`` (SIGTERM)."""
    worker: str | None = None
    wall: float = 0.0
    rooms_held: int = 0
    """Rooms whose lease the worker held at that instant (kill, drain)."""
    took: float = 0.0
    """Seconds until the worker (or PostgreSQL) was back."""


def schedule(minutes: float, kill_every: float, window: float, rng: random.Random, names: list[str]) -> list[Fault]:
    """The faults: a kill every ``kill_every`` minutes, the PostgreSQL restart half-way after the first third of
    them, the drain half-way after the second third; none in the last ``window`` seconds (time to recover)."""
    span, step = minutes * 60, kill_every * 60
    kills = [Fault(k * step, "kill", rng.choice(names)) for k in range(1, int(span / step) + 1)
             if k * step <= span - window]
    n = len(kills)
    pg_after = max(1, n // 3)
    drain_after = max(pg_after + 1, 2 * n // 3)
    faults = [*kills, Fault((pg_after + 0.5) * step, "postgres"),
              Fault((drain_after + 0.5) * step, "drain", rng.choice(names))]
    return sorted((f for f in faults if f.at <= span - window), key=lambda f: f.at)


def minutely(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """(minute, MiB) of the first sample in each minute of ``points`` ((wall time, MiB), in order), from the
    first point's minute: the memory's shape over the run (a leak grows steadily, caches filling slow down)."""
    out: list[tuple[float, float]] = []
    for t, mib in points:
        minute = int((t - points[0][0]) // 60)
        if not out or minute > out[-1][0]:
            out.append((minute, round(mib, 1)))
    return out


class Soak:
    """The cluster's state, the faults as they happen and the workers' memory."""

    def __init__(self, state: dict[str, Any], folder: Path) -> None:
        self.state, self.folder = state, folder
        self.workers = {w["name"]: w for w in state["workers"]}
        self.engine = create_engine(state["db"], pool_pre_ping=True)
        self.memory: list[tuple[float, str, int, float]] = []
        """(time, worker, pid, RSS MiB) every 5 s."""
        self.rooms: list[tuple[float, str, int]] = []
        """(time, worker, rooms whose lease it holds) every 5 s."""
        self.started: dict[int, float] = {int(w["pid"]): time.time() for w in state["workers"]}
        """When each worker process started."""
        self.missing: list[str] = []
        """Workers that did not answer ``/readyz`` within 120 s of a restart."""

    def owners(self) -> dict[str, str | None]:
        """The worker whose lease names each live room (None: nobody's)."""
        with self.engine.connect() as conn:
            return dict(conn.execute(text(  # type: ignore[arg-type]
                "SELECT code, owner FROM rooms WHERE status IN ('waiting', 'playing', 'between')")).all())

    def _save(self) -> None:
        self.state["workers"] = list(self.workers.values())  # so `down` stops the new processes
        (self.folder / local.STATE).write_text(json.dumps(self.state, indent=1))

    def restart(self, name: str) -> float:
        """Start worker ``name`` again with its recorded command line; seconds until it was ready."""
        t0 = time.monotonic()
        w = self.workers[name]
        w["pid"] = local.spawn(w["cmd"], Path(w["log"]))
        self.started[int(w["pid"])] = time.time()
        self._save()
        if not local.ready(w["url"], 120):  # e.g. its start-up failed: the soak goes on, the check fails
            self.missing.append(name)
            print(f"worker {name} did not come back; see {w['log']}", file=sys.stderr, flush=True)
        return time.monotonic() - t0

    def held_by(self, name: str) -> int:
        try:
            return sum(o == name for o in self.owners().values())
        except SQLAlchemyError:  # a count for the report only
            return -1

    def kill(self, fault: Fault, delay: float) -> None:
        fault.rooms_held = self.held_by(fault.worker or "")
        fault.wall = time.time()
        local.stop_pid(int(self.workers[fault.worker or ""]["pid"]), signal.SIGKILL)  # and reap it
        time.sleep(delay)
        fault.took = delay + self.restart(fault.worker or "")

    def drain(self, fault: Fault) -> None:
        fault.rooms_held = self.held_by(fault.worker or "")
        fault.wall = time.time()
        t0 = time.monotonic()
        local.stop_pid(int(self.workers[fault.worker or ""]["pid"]), signal.SIGTERM, wait=60)
        fault.took = time.monotonic() - t0 + self.restart(fault.worker or "")

    def postgres(self, fault: Fault) -> None:
        pg = self.state["pg"]
        fault.wall = time.time()
        t0 = time.monotonic()
        Postgres(Path(pg["dir"]), int(pg["port"])).restart("immediate")
        fault.took = time.monotonic() - t0

    async def sample(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            for name, w in self.workers.items():
                pid = int(w["pid"])
                with contextlib.suppress(OSError, StopIteration, ValueError):
                    line = next(x for x in Path(f"/proc/{pid}/status").read_text().splitlines()
                                if x.startswith("VmRSS:"))
                    self.memory.append((time.time(), name, pid, int(line.split()[1]) / 1024))
            with contextlib.suppress(SQLAlchemyError):  # the rooms each holds, to read its memory by
                owners = await asyncio.to_thread(self.owners)
                now = time.time()
                for name in self.workers:
                    self.rooms.append((now, name, sum(o == name for o in owners.values())))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 5)


def slope_per_hour(points: list[tuple[float, int, float]]) -> float | None:
    """Growth in MiB per hour fitted within each process's life (one slope, an intercept per pid: a restart
    resets the memory); None without two points in one life."""
    by_pid: dict[int, list[tuple[float, float]]] = {}
    for t, pid, mib in points:
        by_pid.setdefault(pid, []).append((t, mib))
    num = den = 0.0
    for pts in by_pid.values():
        if len(pts) < 2:
            continue
        mt = statistics.fmean(t for t, _ in pts)
        mm = statistics.fmean(m for _, m in pts)
        num += sum((t - mt) * (m - mm) for t, m in pts)
        den += sum((t - mt) ** 2 for t, _ in pts)
    return num / den * 3600 if den else None


def second_halves(points: list[tuple[float, int, float]]) -> list[tuple[float, int, float]]:
    """The points of the second half of each process's life: the growth there, against the whole life's, tells
    caches that fill and stop (it falls to ~0) from a leak (it stays)."""
    lives: dict[int, tuple[float, float]] = {}
    for t, pid, _ in points:
        a, b = lives.get(pid, (t, t))
        lives[pid] = (min(a, t), max(b, t))
    return [(t, pid, mib) for t, pid, mib in points if t >= (lives[pid][0] + lives[pid][1]) / 2]


def memory_of(pts: list[tuple[float, int, float]], started: dict[int, float], held: list[int], *, window: float,
              judge_after: float, max_growth: float) -> dict[str, Any]:
    """One worker's memory over the soak from its samples ``pts`` ((wall time, pid, RSS MiB)): start, end, growth
    per hour fitted within each life (from ``window`` seconds after its start) and over each life's second half,
    and ``flat``: whether that late growth is at most ``max_growth`` MiB an hour — judged only when one life
    lasted ``judge_after`` seconds (None otherwise: a short life's second half still holds its caches filling, as
    the finished rooms kept for ``finished_ttl``)."""
    fit = [(t, pid, mib) for t, pid, mib in pts if t - started.get(pid, 0.0) >= window]
    slope, late = slope_per_hour(fit), slope_per_hour(second_halves(fit))
    lives: dict[int, tuple[float, float]] = {}
    for t, pid, _ in pts:
        lives[pid] = (min(lives.get(pid, (t, t))[0], t), t)
    longest = max((b - a for a, b in lives.values()), default=0.0)
    judged = [(t, pid, mib) for t, pid, mib in fit if lives[pid][1] - lives[pid][0] >= judge_after]
    judged_late = slope_per_hour(second_halves(judged))
    return {"start_mib": round(pts[0][2], 1) if pts else None, "end_mib": round(pts[-1][2], 1) if pts else None,
            "processes": len(lives), "longest_life_min": round(longest / 60, 1),
            "rooms_start": held[0] if held else None, "rooms_end": held[-1] if held else None,
            "growth_mib_per_hour": None if slope is None else round(slope, 1),
            "growth_late_mib_per_hour": None if late is None else round(late, 1),
            "flat": None if judged_late is None else judged_late <= max_growth,
            "judged_late_mib_per_hour": None if judged_late is None else round(judged_late, 1),
            "series": minutely([(t, mib) for t, _, mib in pts])}


def pct(xs: list[float], q: float) -> float | None:
    """The q-quantile (nearest rank) in ms, None if empty."""
    if not xs:
        return None
    s = sorted(xs)
    return round(s[min(len(s) - 1, int(len(s) * q))] * 1000, 1)


def resumed_by(room: Room, m: dict[str, Any]) -> bool | None:
    """What a message of the fresh ``hello`` says: True (welcomed, brought up to date), False (the token no longer
    names the seat, or the room is behind what its client saw), None (read on).  A room whose person left its seat
    is asked as a spectator, who is shown a hand in play :data:`WATCH_DELAY` public steps behind (before, such a
    room failed the check: 2 of 149 rooms of a 25-minute soak, one of 59 in a 35-minute one)."""
    if m["t"] == "welcome" and m["seat"] != (None if room.leaving else 0):
        return False
    if m["t"] == "update":
        return room.v is None or m["v"] >= room.v - (WATCH_DELAY if room.leaving else 0)
    return None


async def resumable(url: str, room: Room, deadline: float) -> bool:
    """A fresh hello through the balancer is welcomed and brought to a version at least the last one seen."""
    ws_url = "ws" + url.removeprefix("http") + f"/ws/{room.code}"
    while time.monotonic() < deadline:
        try:
            async with websockets.connect(ws_url, max_size=2**22, open_timeout=20, close_timeout=2) as ws:
                await ws.send(encode({"t": "hello", "room": room.code,
                                      "token": None if room.leaving else room.token, "v": room.v}))
                async with asyncio.timeout(20):
                    while True:
                        m = decode(await ws.recv())
                        if m["t"] == "error":
                            break
                        verdict = resumed_by(room, m)
                        if verdict is not None:
                            return verdict
        except DROPS:
            pass
        await asyncio.sleep(0.5)
    return False


def read_store(soak: Soak) -> dict[str, Any]:
    """What PostgreSQL holds: rooms, seats, the people's actions by client id, the replies."""
    with soak.engine.connect() as conn:
        rooms = {c: (s, v) for c, s, v in conn.execute(text("SELECT code, status, version FROM rooms"))}
        seats = [tuple(r) for r in conn.execute(text("SELECT room_code, seat, kind, token_hash FROM seats"))]
        actions: dict[tuple[str, str], list[int]] = {}
        for code, cid, v in conn.execute(text(
                "SELECT h.room_code, a.client_id, a.version FROM actions a JOIN hands h ON h.id = a.hand_id "
                "WHERE a.client_id IS NOT NULL AND a.seat = 0")):
            actions.setdefault((code, cid), []).append(v)
        replies = {(c, i): json.loads(r).get("v") for c, i, r in conn.execute(text(
            "SELECT room_code, client_id, reply FROM replies WHERE seat = 0 AND refused = false"))}
        total = conn.execute(text("SELECT count(*) FROM actions")).scalar_one()
        holes = [f"{code}#{number}" for code, number in conn.execute(text(
            "SELECT h.room_code, h.number FROM hands h JOIN actions a ON a.hand_id = h.id "
            "GROUP BY h.id, h.room_code, h.number HAVING count(*) <> max(a.idx) + 1 OR min(a.idx) <> 0"))]
    return {"rooms": rooms, "seats": seats, "actions": actions, "replies": replies, "total_actions": total,
            "holes": holes}


def restored_versions(soak: Soak, tables: list[Table], rooms: dict[str, tuple[str, int]]) -> dict[str, int]:
    """The version a restart would serve, for each room whose stored version is behind what its client saw.  A
    claim window closed by the server is not stored on its own (the stored actions decide it, and a restart
    closes it again), so a room whose last steps were such closes is stored at a lower version than its client
    saw; the check asks the store's own replay (:func:`daer.server.table.rooms.replay_hand`), which writes
    nothing, how far a restart brings it."""
    lagging = [r.code for t in tables for r in t.rooms
               if r.v is not None and r.code in rooms and rooms[r.code][1] < r.v]
    if not lagging:
        return {}
    store = Store(soak.state["db"])
    try:
        out = {}
        for code in lagging:
            row = store.load_room(code)
            if row is None:
                continue
            match = match_from_row(row)
            try:
                replay_hand(match, row)
            except ValueError:  # a hole in the hand's actions: the check's "holes" reports it
                continue
            out[code] = match.version
        return out
    finally:
        store.engine.dispose()


def check(tables: list[Table], store: dict[str, Any], resumed_ok: dict[str, bool], stall: float,
          ended: float) -> dict[str, Any]:
    """The checks of the end: acked = stored exactly once, rooms accounted for, one token per seat."""
    acked = acts = lost = duplicated = 0
    lost_ids: list[str] = []
    for t in tables:
        for room in t.rooms:
            for mid, (kind, v) in room.acked.items():
                acked += 1
                key = (room.code, mid)
                ok = store["replies"].get(key) == v
                if kind == "act":
                    acts += 1
                    rows = store["actions"].get(key, [])
                    duplicated += len(rows) > 1
                    ok = ok and len(rows) >= 1
                if not ok:
                    lost += 1
                    lost_ids.append(f"{room.code}/{mid}")
    rooms = [r for t in tables for r in t.rooms]
    restored = store.get("restored", {})  # a restart's version where the stored one is behind (restored_versions)
    behind = [r.code for r in rooms if r.v is not None
              and restored.get(r.code, store["rooms"].get(r.code, ("", -1))[1]) < r.v]
    missing = [r.code for r in rooms if r.code not in store["rooms"]]
    finished = [r.code for r in rooms if store["rooms"].get(r.code, ("",))[0] in OVER]
    live = [r for r in rooms if r.code in store["rooms"] and r.code not in finished]
    not_resumable = [r.code for r in live if not resumed_ok.get(r.code)]
    unresumed = [d.code for t in tables for d in t.drops if d.resumed is None and d.code not in finished]
    stalled = [t.n for t in tables if t.rooms and t.rooms[-1].code not in finished
               and ended - t.last_progress > stall]
    by_code = {r.code: r for r in rooms}
    hashes: dict[str, int] = {}
    wrong_token: list[str] = []
    for code, seat, kind, token_hash in store["seats"]:
        if token_hash is not None:
            hashes[token_hash] = hashes.get(token_hash, 0) + 1
        r = by_code.get(code)
        if r is None or seat != 0:
            if token_hash is not None and kind != "human":
                wrong_token.append(f"{code}/{seat}")
            continue
        mine = hashlib.sha256((r.token or "").encode()).hexdigest()
        if token_hash != (None if r.left else mine) and not (r.leaving and token_hash in (None, mine)):
            wrong_token.append(f"{code}/{seat}")
    shared = sum(n > 1 for n in hashes.values())
    known = {r.code for r in rooms}
    orphans = [c for c in store["rooms"] if c not in known]
    checks = {"nothing lost": lost == 0, "nothing duplicated": duplicated == 0, "no room behind its client": not behind,
              "every room stored": not missing, "every live room resumable": not not_resumable,
              "every drop resumed": not unresumed, "no room stalled": not stalled,
              "one token per seat": not wrong_token and shared == 0, "no hole in a hand's actions": not store["holes"]}
    return {"acked": acked, "acked_actions": acts, "acked_commands": acked - acts, "stored": acked - lost,
            "lost": lost, "duplicated": duplicated, "lost_ids": lost_ids[:20], "rooms": len(rooms),
            "finished": len(finished), "live": len(live), "resumable": len(live) - len(not_resumable),
            "not_resumable": not_resumable[:20], "behind": behind[:20], "missing": missing[:20],
            "unresumed_drops": unresumed[:20], "stalled_tables": stalled[:20], "wrong_token": wrong_token[:20],
            "shared_tokens": shared, "holes": store["holes"][:20], "orphan_rooms": len(orphans),
            "unknown_creates": sum(t.unknown_creates for t in tables), "checks": checks}


async def soak(state: dict[str, Any], folder: Path, args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    run = Soak(state, folder)
    url = state["url"]
    people = round(args.tables * args.people)
    tables = [Table(i, url, person=i < people, think=args.think, hands=args.hands, rng=rng)
              for i in range(args.tables)]
    faults = schedule(args.minutes, args.kill_every, args.window, rng, sorted(run.workers))
    stop, sampled = asyncio.Event(), asyncio.Event()
    sampler = asyncio.create_task(run.sample(sampled))
    async with httpx.AsyncClient(limits=httpx.Limits(max_connections=50), timeout=20) as http:
        tasks = []
        for i, t in enumerate(tables):
            tasks.append(asyncio.create_task(t.run(http, stop)))
            if i % 25 == 24:
                await asyncio.sleep(0.25)
        ramp0 = time.monotonic()
        while time.monotonic() - ramp0 < 120 and not all(t.last_progress for t in tables):
            await asyncio.sleep(0.2)
        ramp = time.monotonic() - ramp0
        await asyncio.sleep(args.settle)
        t0 = time.time()
        for f in faults:
            await asyncio.sleep(max(0.0, t0 + f.at - time.time()))
            print(f"{f.at:7.1f} s  {f.kind} {f.worker or ''}", file=sys.stderr, flush=True)
            if f.kind == "kill":
                await asyncio.to_thread(run.kill, f, rng.uniform(1, 5))
            elif f.kind == "drain":
                await asyncio.to_thread(run.drain, f)
            else:
                await asyncio.to_thread(run.postgres, f)
        await asyncio.sleep(max(0.0, t0 + args.minutes * 60 - time.time()))
        ended = time.monotonic()
        stop.set()
        results = await asyncio.gather(*tasks, return_exceptions=True)
    failed = [repr(r)[:200] for r in results if isinstance(r, BaseException)]
    span = time.time() - t0
    sampled.set()
    await sampler
    deadline = time.monotonic() + 120
    store = await asyncio.to_thread(read_store, run)
    live = [r for t in tables for r in t.rooms if store["rooms"].get(r.code, ("finished",))[0] not in OVER]
    gate = asyncio.Semaphore(20)

    async def one(room: Room) -> tuple[str, bool]:
        async with gate:
            return room.code, await resumable(url, room, deadline)

    resumed_ok = dict(await asyncio.gather(*(one(r) for r in live)))
    store = await asyncio.to_thread(read_store, run)  # again: a resumable room may have moved on meanwhile
    store["restored"] = await asyncio.to_thread(restored_versions, run, tables, store["rooms"])
    result = check(tables, store, resumed_ok, args.stall, ended)
    windows = [(f.wall, f.wall + args.window) for f in faults]
    during = [lat for t in tables for sent, lat in t.latencies if any(a <= sent < b for a, b in windows)]
    outside = [lat for t in tables for sent, lat in t.latencies if sent >= t0 and not any(a <= sent < b
                                                                                          for a, b in windows)]
    fault_rows = []
    for f in faults:
        hit = [d for t in tables for d in t.drops if f.wall <= d.at < f.wall + args.window]
        took = [d.resumed - f.wall for d in hit if d.resumed is not None]
        fault_rows.append({"at_s": round(f.wall - t0, 1), "kind": f.kind, "worker": f.worker,
                           "rooms_held": f.rooms_held,
                           "rooms_dropped": len({d.code for d in hit}),
                           "resumed": len({d.code for d in hit if d.resumed is not None}),
                           "resume_p50_s": round(statistics.median(took), 2) if took else None,
                           "resume_max_s": round(max(took), 2) if took else None, "back_after_s": round(f.took, 1)})
    all_resumes = [d.resumed - d.at for t in tables for d in t.drops if d.resumed is not None]
    memory = {name: memory_of([(t, pid, mib) for t, n, pid, mib in run.memory if n == name], run.started,
                              [n for _, w, n in run.rooms if w == name], window=args.window,
                              judge_after=args.judge_after * 60, max_growth=args.max_growth)
              for name in sorted(run.workers)}
    refusals: dict[str, int] = {}
    for t in tables:
        for code, k in t.refusals.items():
            refusals[code] = refusals.get(code, 0) + k
    report = {
        "tables": args.tables, "people_tables": people, "bot_tables": args.tables - people,
        "minutes": args.minutes, "kill_every_min": args.kill_every, "seed": args.seed, "window_s": args.window,
        "judge_after_min": args.judge_after, "max_growth_mib_per_hour": args.max_growth,
        "ramp_s": round(ramp, 1), "span_s": round(span, 1), "failed_clients": failed[:10],
        **result,
        "actions_stored_all": store["total_actions"],
        "actions_per_s": round(store["total_actions"] / max(span + ramp + args.settle, 1.0), 1),
        "connections": sum(t.connections for t in tables), "drops": sum(len(t.drops) for t in tables),
        "resume_p50_s": round(statistics.median(all_resumes), 2) if all_resumes else None,
        "resume_max_s": round(max(all_resumes), 2) if all_resumes else None,
        "faults": fault_rows,
        "latency_ms": {"during": {"n": len(during), "p50": pct(during, 0.5), "p99": pct(during, 0.99)},
                       "outside": {"n": len(outside), "p50": pct(outside, 0.5), "p99": pct(outside, 0.99)}},
        "memory": memory, "refusals": refusals,
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    judged = [m["flat"] for m in memory.values() if m["flat"] is not None]
    if judged:  # a leak shows as growth in the second half of a long life (see memory_of)
        report["checks"]["memory flat"] = all(judged)
    report["checks"]["no client failed"] = not failed
    report["checks"]["every worker came back"] = not run.missing
    report["ok"] = all(report["checks"].values())
    run.engine.dispose()
    return report


def show(r: dict[str, Any]) -> str:
    """The report as text."""
    lat = r["latency_ms"]
    lines = [
        f"soak: {r['tables']} tables ({r['people_tables']} with a person, {r['bot_tables']} of bots), "
        f"{r['minutes']} min, a kill every {r['kill_every_min']} min, seed {r['seed']}; ramp {r['ramp_s']} s",
        f"rooms: {r['rooms']} ({r['finished']} finished, {r['live']} live, {r['resumable']} of them resumable); "
        f"orphan rooms {r['orphan_rooms']}, creates unanswered at the stop {r['unknown_creates']}",
        f"acked: {r['acked']} ({r['acked_actions']} actions, {r['acked_commands']} commands); stored {r['stored']}, "
        f"lost {r['lost']}, duplicated {r['duplicated']}; actions stored in all (people and bots) "
        f"{r['actions_stored_all']}, {r['actions_per_s']}/s",
        f"connections {r['connections']}, drops {r['drops']}; resumption after a drop p50 {r['resume_p50_s']} s, "
        f"max {r['resume_max_s']} s",
    ]
    for f in r["faults"]:
        lines.append(f"  {f['at_s']:7.1f} s {f['kind']:8} {f['worker'] or '':3} held {f['rooms_held']:4}, "
                     f"dropped {f['rooms_dropped']:4}, resumed {f['resumed']:4} (p50 {f['resume_p50_s']} s, max "
                     f"{f['resume_max_s']} s); back after {f['back_after_s']} s")
    lines.append(f"person actions: during the faults ({r['window_s']} s after each) n {lat['during']['n']}, "
                 f"p50 {lat['during']['p50']} ms, p99 {lat['during']['p99']} ms; outside n {lat['outside']['n']}, "
                 f"p50 {lat['outside']['p50']} ms, p99 {lat['outside']['p99']} ms")
    for name, m in r["memory"].items():
        lines.append(f"memory {name}: {m['start_mib']} → {m['end_mib']} MiB (rooms held {m['rooms_start']} → "
                     f"{m['rooms_end']}) over {m['processes']} process(es), the longest {m['longest_life_min']} min; "
                     f"growth {m['growth_mib_per_hour']} MiB/hour (fitted within each life), "
                     f"{m['growth_late_mib_per_hour']} MiB/hour in each life's second half"
                     + ("" if m.get("flat") is None else
                        f"; lives of {r.get('judge_after_min', 30):g} min or more: {m['judged_late_mib_per_hour']} "
                        f"MiB/hour, {'flat' if m['flat'] else 'NOT flat'}"))
        if m["series"]:  # the shape: steady growth (a leak) or growth that slows (caches filling)
            step = max(1, len(m["series"]) // 8)
            lines.append("  RSS by minute: " + ", ".join(f"{t:g}: {mib:g}" for t, mib in m["series"][::step]))
    lines.append(f"refusals: {r['refusals'] or 'none'}; load average {r['load_average']}")
    for name, ok in r["checks"].items():
        lines.append(f"  [{'ok' if ok else 'FAILED'}] {name}")
    for key in ("lost_ids", "holes", "behind", "missing", "not_resumable", "unresumed_drops", "stalled_tables",
                "wrong_token", "failed_clients"):
        if r[key]:
            lines.append(f"  {key}: {r[key]}")
    return "\n".join(lines)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--minutes", type=float, default=60, help="how long the load runs after the ramp")
    ap.add_argument("--kill-every", type=float, default=3, help="minutes between two kill -9 of a random worker")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="also write the report to this file")
    ap.add_argument("--dir", help="the cluster's folder, kept with its logs, cluster.json and (stopped) "
                                  "PostgreSQL's data for a look afterwards (default: a temporary one, removed with "
                                  "the database)")
    ap.add_argument("--people", type=float, default=0.5, help="share of the tables with a scripted person")
    ap.add_argument("--hands", type=int, default=8, help="hands of a room (a finished room is followed by a new one)")
    ap.add_argument("--think", type=float, default=1.0, help="mean seconds a person waits before acting")
    ap.add_argument("--bot-delay", type=float, default=1.0, help="the workers' seconds between a bot's moves")
    ap.add_argument("--lease-ttl", type=float, default=10.0, help="the workers' --lease-ttl (daer serve's default)")
    ap.add_argument("--window", type=float, default=30.0, help="seconds after a fault counted as during it")
    ap.add_argument("--settle", type=float, default=5.0, help="seconds after the ramp before the clock starts")
    ap.add_argument("--stall", type=float, default=60.0,
                    help="a live room that did not move in its last this many seconds counts as stalled")
    ap.add_argument("--judge-after", type=float, default=30.0,
                    help="minutes a worker's process must live for its memory to be judged flat or not")
    ap.add_argument("--max-growth", type=float, default=6.0,
                    help="MiB an hour a long life may still grow in its second half and count as flat")
    ap.add_argument("--server-arg", action="append", default=[], help="one more argument for every daer serve")
    return ap.parse_args(argv)


def main() -> int:
    args = parse()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.dir) if args.dir else Path(tmp) / "cluster"
        extra = [*TEST_LIMITS, "--bot-delay", str(args.bot_delay), "--claim-window", "0", *args.server_arg]
        state = local.up(folder, workers=2, extra=extra, lease_ttl=args.lease_ttl, lb_rate=10**6, lb_conns=10**6)
        try:
            report = asyncio.run(soak(state, folder, args))
        finally:
            local.down(folder, keep=bool(args.dir))
    print(show(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
