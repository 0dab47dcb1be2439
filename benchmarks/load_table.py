"""Load on the online table (not a test): N WebSocket clients on loopback, each the one person at a
bot-paced table, against one ``daer serve`` process.

Run: ``.venv/bin/python benchmarks/load_table.py --tables 500 --seconds 60``.  It starts the server
itself (a temporary SQLite database, bots paced by ``--bot-delay``), creates one room per client
(every room: 1 person + 3 bots), lets the clients act after ``--think`` seconds whenever the view offers
something (the measured window opens 5 s after every table had its first update: seated and dealt), and
reports: tables held (connected and still moving at the end), p50/p99 latency from
sending an action to receiving the update that carries it, actions per second, the server's RSS, and the
server's garbage-collection pauses read from its ``/metrics`` (count and p99 over the measured window, the
longest since start).  ``--gc default`` runs the server with Python's own collector settings instead of
``daer serve``'s tuned ones (to compare both in one session).

It also reports what the capacity model of docs/deploy.md needs: the server's CPU seconds per applied action
(``process_cpu_seconds_total`` over ``daer_actions_total``, both read from ``/metrics`` at the start and the end
of the measured window) and the load client's own CPU, as a share of the machine's cores.  And that CPU per
action **in peer calls**: the peer, ``mahjong``'s ``estimate_hand_value`` (as in bench_hands.py), is timed in
a fresh process before and after the load (five samples each over about two seconds; their median), so a figure
carries across hosts that differ 2-3x in speed (``--no-peer`` skips it; it needs the ``bench`` extra).  ``--url``
points it at a running server or a balancer instead (a cluster: ``--metrics`` then names each worker's own
address, whose ``/metrics`` are summed).

Issue 12's runs (docs/benchmarks.md, "Measuring issue 12's targets"; ``benchmarks/issue12.sh`` runs them all):
``--hard N`` adds N rooms of search bots (the "hard" strength until
2026-12-01, now the learned bot), each with one person whose latency is printed apart (the
p99 line is then the other tables'); ``--sqlite-sync full`` passes the server's option; ``--src DIR`` runs
the server from another checkout's ``src/`` (before and after in one session), ``--plain-ws`` connects to
``/ws`` as servers before the cluster routing expect; the collector's pauses in the window are printed by
wall and by CPU time with the count over 20 ms.  ``--trace FILE`` writes each measured action's send time and
latency and lists the stalls (slow actions grouped by when they were sent: a period points at a periodic job).

The latencies are measured by the load client, so its own stalls count in them: it reports its loop's lag (how
late a 10 ms sleep wakes) and its collections.  Its collector is off in the measured window (everything alive
frozen first; ``--client-gc`` leaves it on): at 2,000 tables its collections took up to 0.68 s (57 over 20 ms in
30 s, 2026-12-01), which it counted as the server's latency.  The server's own steps' lateness (bots' moves,
windows closed, deals: ``daer_step_lateness_seconds``) is printed too, since a busy server answers people first.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
import msgspec
import websockets
from prometheus_client.parser import text_string_to_metric_families

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "server"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from serving import TEST_LIMITS, Server

from bench_hands import peer_samples  # the peer (timed in a process of its own)

decode = msgspec.json.Decoder().decode
_encoder = msgspec.json.Encoder()


def encode(msg: dict[str, object]) -> str:
    """A client message as JSON text (msgspec: the load client spends less of the shared cores than with json)."""
    return _encoder.encode(msg).decode()


class Table:
    """One client: a person's seat at a room of bots."""

    def __init__(self, url: str, ws_url: str, think: float, bot: str = "heuristic", *, by_code: bool = True) -> None:
        self.url, self.ws_url, self.think, self.bot, self.by_code = url, ws_url, think, bot, by_code
        self.latencies: list[float] = []
        self.sent: list[float] = []
        """Wall-clock time (time.time()) each measured action was sent, in step with :attr:`latencies`."""
        self.last_progress = 0.0
        self.errors: dict[str, int] = {}
        self.alive = False
        self.updates = 0
        """Update frames received in the measured window (the server's frames per action: updates / actions)."""

    async def run(self, http: httpx.AsyncClient, stop: asyncio.Event, measure: asyncio.Event) -> None:
        r = (await http.post(f"{self.url}/api/rooms", json={"name": "load", "config": {"timer": 0, "hands": 64,
                                                                                     "bot": self.bot}}))
        room = r.json()
        path = f"{self.ws_url}/{room['code']}" if self.by_code else self.ws_url  # routed by code
        # no pings from the client: a browser's WebSocket sends none (the server's own, every 20 s, are answered)
        async with websockets.connect(path, max_size=2**22, ping_interval=None) as ws:
            self.alive = True
            await ws.send(encode({"t": "hello", "room": room["code"], "token": room["token"]}))
            await ws.send(encode({"t": "cmd", "id": "start", "name": "start"}))
            pending: dict[str, tuple[float, int]] = {}
            got: dict[str, float] = {}
            acted = -1
            n = 0
            while not stop.is_set():
                try:
                    async with asyncio.timeout(1.0):  # a timer, not a task per message as wait_for makes
                        raw = await ws.recv()
                except TimeoutError:
                    continue
                now = time.perf_counter()
                m = decode(raw)
                if m["t"] == "update":
                    if measure.is_set():
                        self.updates += 1
                    for msg_id, (_, v_sent) in pending.items():
                        if m["v"] > v_sent and msg_id not in got:
                            got[msg_id] = now
                    self.last_progress = time.monotonic()
                    view, status = m["view"], m["room"]["status"]
                    if status == "between" and m["v"] > acted:
                        acted = m["v"]
                        await ws.send(encode({"t": "cmd", "id": f"n{m['v']}", "name": "next"}))
                    elif view and view["legal"] and status == "playing" and m["v"] > acted:
                        acted = m["v"]
                        await asyncio.sleep(self.think * random.uniform(0.5, 1.5))
                        n += 1
                        pending[f"a{n}"] = (time.perf_counter(), m["v"])
                        await ws.send(encode({"t": "act", "id": f"a{n}", "v": m["v"],
                                              "action": random.choice(view["legal"])}))
                elif m["t"] == "ack" and m["id"] in pending:
                    t0, _ = pending.pop(m["id"])
                    t1 = got.pop(m["id"], now)
                    if measure.is_set():
                        self.latencies.append(t1 - t0)
                        self.sent.append(time.time() - (time.perf_counter() - t0))
                elif m["t"] == "error":
                    pending.pop(m.get("id") or "", None)
                    got.pop(m.get("id") or "", None)
                    self.errors[m["code"]] = self.errors.get(m["code"], 0) + 1


GcSample = tuple[dict[float, float], float, dict[str, float], dict[str, float], dict[float, float]]
"""All generations together: cumulative bucket counts by upper bound, count; by generation the longest pause and
the most CPU time one took (s); cumulative bucket counts of the pauses' CPU time."""


async def scrape(http: httpx.AsyncClient, urls: list[str]) -> list[str]:
    """Each server's /metrics text, read once per window boundary (a scrape costs the server's loop time too)."""
    return [(await http.get(f"{url}/metrics")).text for url in urls]


def gc_pauses(texts: list[str]) -> GcSample:
    """The servers' GC pause histogram, read from their /metrics (summed; the longest of all)."""
    text = "".join(texts)
    buckets: dict[float, float] = {}
    count = 0.0
    longest: dict[str, float] = {}
    cpu: dict[str, float] = {}
    cpu_buckets: dict[float, float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == "daer_gc_pause_seconds_bucket":
                le = float(s.labels["le"])
                buckets[le] = buckets.get(le, 0.0) + s.value
            elif s.name == "daer_gc_pause_cpu_seconds_bucket":
                le = float(s.labels["le"])
                cpu_buckets[le] = cpu_buckets.get(le, 0.0) + s.value
            elif s.name == "daer_gc_pause_seconds_count":
                count += s.value
            elif s.name == "daer_gc_pause_max_seconds":
                g = s.labels["generation"]
                longest[g] = max(longest.get(g, 0.0), s.value)
            elif s.name == "daer_gc_pause_cpu_max_seconds":
                g = s.labels["generation"]
                cpu[g] = max(cpu.get(g, 0.0), s.value)
    return buckets, count, longest, cpu, cpu_buckets


def by_length(before: dict[float, float], after: dict[float, float]) -> tuple[str, float]:
    """Pauses in the window by bucket ("≤5 ms: 3, …") and how many took over 20 ms."""
    window = {le: n - before.get(le, 0.0) for le, n in after.items()}
    below, parts = 0.0, []
    for le in sorted(window):
        if window[le] > below:
            name = f"≤{le * 1000:g} ms" if le != float("inf") else "> 1 s"
            parts.append(f"{name}: {window[le] - below:.0f}")
        below = window[le]
    return ", ".join(parts) or "none", below - window.get(0.02, 0.0)


def quantile(q: float, buckets: dict[float, float]) -> float:
    """Like PromQL's ``histogram_quantile``: linear within the bucket that holds the q-th pause."""
    bounds = sorted(buckets)
    total = buckets[bounds[-1]] if bounds else 0.0
    if total <= 0:
        return 0.0
    rank, lo, below = q * total, 0.0, 0.0
    for b in bounds:
        if buckets[b] >= rank:
            if b == float("inf"):
                return lo
            return lo + (b - lo) * (rank - below) / max(buckets[b] - below, 1e-12)
        lo, below = b, buckets[b]
    return lo


def cpu_and_actions(texts: list[str]) -> tuple[float, float]:
    """(CPU seconds, actions applied) of the servers, summed, from their /metrics."""
    cpu = actions = 0.0
    for text in texts:
        for family in text_string_to_metric_families(text):
            for s in family.samples:
                if s.name == "process_cpu_seconds_total":
                    cpu += s.value
                elif s.name == "daer_actions_total":
                    actions += s.value
    return cpu, actions


def buckets_of(texts: list[str], name: str) -> dict[float, float]:
    """A histogram's cumulative bucket counts by upper bound, summed over the servers' /metrics (empty if a
    server has no such histogram, e.g. an older checkout)."""
    out: dict[float, float] = {}
    for text in texts:
        for family in text_string_to_metric_families(text):
            for s in family.samples:
                if s.name == f"{name}_bucket":
                    le = float(s.labels["le"])
                    out[le] = out.get(le, 0.0) + s.value
    return out


class ClientLag:
    """The load client's own stalls, which its measured latencies include: how late a 10 ms sleep of its loop
    wakes (the loop busy with other tables' frames), and its collector's pauses (gc.callbacks)."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        self.gc: list[float] = []
        self._t = 0.0

    def _gc(self, phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            self._t = time.perf_counter()
        elif self._t:
            self.gc.append(time.perf_counter() - self._t)

    async def watch(self, stop: asyncio.Event) -> None:
        gc.callbacks.append(self._gc)
        try:
            while not stop.is_set():
                t = time.perf_counter()
                await asyncio.sleep(0.01)
                self.lags.append(time.perf_counter() - t - 0.01)
        finally:
            gc.callbacks.remove(self._gc)

    def report(self) -> str:
        lags = sorted(self.lags) or [0.0]
        p99 = lags[min(len(lags) - 1, int(len(lags) * 0.99))]
        return (f"load client's own loop lag (a 10 ms sleep's overshoot): p50 {statistics.median(lags) * 1000:.1f} ms, "
                f"p99 {p99 * 1000:.1f} ms, max {lags[-1] * 1000:.1f} ms; its collections: {len(self.gc)}, "
                f"longest {max(self.gc, default=0.0) * 1000:.1f} ms, over 20 ms: {sum(x > 0.02 for x in self.gc)}")


def rss_kb(pid: int) -> tuple[int, int]:
    """(current RSS, peak RSS) of a process in kB."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


def peer_rates() -> list[float]:
    """Calls a second of the peer, ``mahjong``'s ``estimate_hand_value`` (benchmarks/bench_hands.py), in a
    fresh process now, five samples over about two seconds: the yardstick that turns CPU per action into a figure
    hosts share.  Empty without the package (``pip install -e '.[bench]'``)."""
    return peer_samples()


def peer_rate() -> float | None:
    """The median of :func:`peer_rates` (None without the package)."""
    rates = peer_rates()
    return statistics.median(rates) if rates else None


def peer_line(before: list[float], after: list[float]) -> tuple[float, str] | None:
    """The peer's rate for a run — the median of its samples before and after the load — and how to print it;
    None when it was not timed."""
    if not before or not after:
        return None
    rate = statistics.median(before + after)
    return rate, (f"median {rate:.0f} calls/s of {len(before)} samples before and {len(after)} after the load "
                  f"(before {min(before):.0f}-{max(before):.0f}, after {min(after):.0f}-{max(after):.0f})")


async def main(args: argparse.Namespace) -> None:
    peer0 = [] if args.no_peer else peer_rates()  # before the load, and after it (below): the host's speed
    per_action: float | None = None
    with tempfile.TemporaryDirectory() as tmp:
        srv = None
        if args.url:  # a running server or balancer: its pace and collector are its own
            url = args.url.rstrip("/")
            ws_url = "ws" + url.removeprefix("http") + "/ws"
        else:
            if args.src:  # the server's code from another checkout (a "before" run in the same session)
                os.environ["PYTHONPATH"] = os.pathsep.join([args.src, os.environ.get("PYTHONPATH", "")])
                here = sorted((Path(__file__).resolve().parent.parent / "src/daer/hands").glob("_fasthand*"))
                if here and not list((Path(args.src) / "daer/hands").glob("_fasthand*")):
                    # a `git archive` has no built extension: that server would evaluate hands in Python
                    print(f"warning: {args.src} has no daer/hands/_fasthand extension (this checkout has "
                          f"{here[0].name}; copy it there for a fair comparison)", file=sys.stderr)
            extra = (*(("--sqlite-sync", args.sqlite_sync) if args.sqlite_sync else ()), *args.server_arg)
            srv = Server(Path(tmp) / "load.db", bot_delay=args.bot_delay,
                         args=(*TEST_LIMITS, "--gc", args.gc, *extra)).start()
            url, ws_url = srv.url, srv.ws_url
        metrics = [m.rstrip("/") for m in args.metrics] or [url]
        try:
            stop, measure = asyncio.Event(), asyncio.Event()
            tables = [Table(url, ws_url, args.think, by_code=not args.plain_ws) for _ in range(args.tables)]
            hard = [Table(url, ws_url, args.think, bot="search", by_code=not args.plain_ws) for _ in range(args.hard)]
            # a kept-alive connection is let go well before the server's own keep-alive timeout (uvicorn's 5 s, the
            # same as httpx's default): at an equal expiry a create could be sent on a connection the server was
            # closing that moment, and the table failed with a ReadError (1 and 11 of 2,000 in two saturated runs)
            limits = httpx.Limits(max_connections=50, keepalive_expiry=2.0)
            async with httpx.AsyncClient(limits=limits, timeout=60) as http:
                tasks = []
                t_start = time.monotonic()
                for i, t in enumerate(hard + tables):
                    tasks.append(asyncio.create_task(t.run(http, stop, measure)))
                    if i % 25 == 24:
                        await asyncio.sleep(0.25)
                # every table seated and dealt (its first update) before the 5 s settle: on a busy machine the
                # connections, claims and first deals lag far behind the tasks (a 1-worker cluster at load 10:
                # 1-2.6 s latencies for the first ~5 s, the loop waiting on PostgreSQL for each of them)
                started = time.monotonic()
                while time.monotonic() - started < 60 and not all(
                        t.last_progress or task.done() for t, task in zip(hard + tables, tasks, strict=True)):
                    await asyncio.sleep(0.1)
                ramp = time.monotonic() - t_start
                await asyncio.sleep(5)
                if not args.client_gc:  # the client's collector stalled it up to 0.7 s at 2,000 tables, and the
                    gc.collect()  # latencies it measures counted those stalls as the server's (2026-12-01)
                    gc.freeze()
                    gc.disable()
                measure.set()
                lag, watched = ClientLag(), asyncio.Event()
                watcher = asyncio.create_task(lag.watch(watched))
                texts, me0 = await scrape(http, metrics), time.process_time()
                t0, wall0 = time.monotonic(), time.time()
                gc0, late0, cpu0 = gc_pauses(texts), buckets_of(texts, "daer_step_lateness_seconds"), \
                    cpu_and_actions(texts)
                await asyncio.sleep(args.seconds - (time.monotonic() - t0))
                texts, me1 = await scrape(http, metrics), time.process_time()
                print(f"measured window (Unix time): {wall0:.2f} {time.time():.2f}", flush=True)
                watched.set()
                await watcher
                gc.enable()
                span = time.monotonic() - t0
                gc1, late1, cpu1 = gc_pauses(texts), buckets_of(texts, "daer_step_lateness_seconds"), \
                    cpu_and_actions(texts)
                rss, peak = rss_kb(srv.proc.pid) if srv is not None and srv.proc is not None else (0, 0)
                now = time.monotonic()
                held = sum(1 for t in tables if t.alive and now - t.last_progress < 10)
                stop.set()
                results = await asyncio.gather(*tasks, return_exceptions=True)
            failed = [r for r in results if isinstance(r, BaseException)]
            lat = sorted(x for t in tables for x in t.latencies)
            print(f"tables: {args.tables} requested, {held} held (connected, moving in the last 10 s); "
                  f"ramp {ramp:.1f} s (until every table had its first update); failed clients {len(failed)}"
                  + (f"; plus {args.hard} rooms of search bots, reported apart" if args.hard else ""))
            why: dict[str, int] = {}
            for r in failed:
                key = f"{type(r).__name__}: {str(r)[:120]}"
                why[key] = why.get(key, 0) + 1
            for key, k in sorted(why.items(), key=lambda kv: -kv[1])[:5]:
                print(f"  failed {k}× {key}")
            hard_lat = sorted(x for t in hard for x in t.latencies)
            if hard_lat:
                top = hard_lat[min(len(hard_lat) - 1, int(len(hard_lat) * 0.99))]
                print(f"  at the hard rooms: {len(hard_lat)} person actions, "
                      f"p50 {statistics.median(hard_lat) * 1000:.1f} ms, p99 {top * 1000:.1f} ms")
            if lat:
                p50 = statistics.median(lat) * 1000
                p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000
                print(f"person actions measured: {len(lat)} in {span:.0f} s ({len(lat) / span:.1f}/s); "
                      f"action-to-update latency p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {lat[-1] * 1000:.1f} ms")
            if late1:
                late = {le: n - late0.get(le, 0.0) for le, n in late1.items()}
                print(f"server's own steps (bots' moves, windows closed, deals) late after due: "
                      f"{late.get(float('inf'), 0.0):.0f} in the window, p50 ~{quantile(0.5, late) * 1000:.1f} ms, "
                      f"p99 ~{quantile(0.99, late) * 1000:.1f} ms (from the histogram's buckets)")
            print(lag.report())
            codes: dict[str, int] = {}
            for t in tables:
                for code, k in t.errors.items():
                    codes[code] = codes.get(code, 0) + k
            print(f"refusals by code: {codes or 'none'}")
            if args.trace:
                trace(args.trace, tables)
            window = {le: n - gc0[0].get(le, 0.0) for le, n in gc1[0].items()}
            worst = max(gc1[2].values())
            wall, over = by_length(gc0[0], gc1[0])
            print(f"server GC pauses in the window by wall time (all generations): {wall}; over 20 ms: {over:.0f}")
            if gc1[4]:
                cpu_parts, cpu_over = by_length(gc0[4], gc1[4])
                print(f"server GC pauses by CPU time (without the time other processes held the core): {cpu_parts}; "
                      f"over 20 ms: {cpu_over:.0f}")
            print(f"server GC pauses ({args.gc}): {gc1[1] - gc0[1]:.0f} in the measured window, "
                  f"p99 ~{min(quantile(0.99, window), worst) * 1000:.1f} ms (from the histogram's buckets), "
                  f"longest since start {worst * 1000:.1f} ms (by generation: "
                  + ", ".join(f"{g}: {x * 1000:.1f} ms" for g, x in sorted(gc1[2].items())) + "; most CPU in one: "
                  + ", ".join(f"{g}: {x * 1000:.1f} ms" for g, x in sorted(gc1[3].items())) + ")")
            acts, cpu = cpu1[1] - cpu0[1], cpu1[0] - cpu0[0]
            cores = os.cpu_count() or 1
            print(f"server CPU {cpu:.1f} s for {acts:.0f} actions applied (people and bots) in {span:.0f} s: "
                  f"{cpu / max(acts, 1) * 1e6:.0f} µs per action, {acts / span:.1f} actions/s, "
                  f"{cpu / span / cores:.0%} of the {cores} cores; load client CPU {(me1 - me0) / span / cores:.0%} "
                  f"of the cores ({len(metrics)} server process(es) measured); "
                  f"{sum(t.updates for t in tables) / max(acts, 1):.2f} update frames to the people per action")
            per_action = cpu / max(acts, 1)
            if srv is not None:
                print(f"server RSS {rss / 1024:.0f} MiB (peak {peak / 1024:.0f} MiB)")
            pace = f"{args.bot_delay} s" if srv is not None else "the running server's own"
            print(f"bot delay {pace}, think {args.think} s")
        finally:
            if srv is not None:
                srv.stop()
    peer = peer_line(peer0, [] if args.no_peer else peer_rates())
    if peer is not None and per_action is not None:
        print(f"peer: mahjong estimate_hand_value, {peer[1]}; server CPU per action {per_action * peer[0]:.2f} peer "
              f"calls")


def trace(path: str, tables: list[Table]) -> None:
    """Write every measured action (when it was sent, wall clock; its latency) to ``path`` and print when the
    slow ones (over 100 ms) were sent, grouped into stalls (slow actions less than 0.5 s apart): a stall that
    recurs at a fixed period points at a periodic job."""
    rows = sorted((t0, lat) for t in tables for t0, lat in zip(t.sent, t.latencies, strict=True))
    Path(path).write_text("".join(f"{t0:.3f} {lat * 1000:.1f}\n" for t0, lat in rows))
    slow = [(t0, lat) for t0, lat in rows if lat > 0.1]
    stalls: list[list[tuple[float, float]]] = []
    for row in slow:
        if stalls and row[0] - stalls[-1][-1][0] < 0.5:
            stalls[-1].append(row)
        else:
            stalls.append([row])
    print(f"slow actions (> 100 ms): {len(slow)} of {len(rows)}, in {len(stalls)} stall(s) (trace: {path})")
    prev = None
    for group in stalls[:40]:
        start = group[0][0]
        gap = f", {start - prev:.2f} s after the previous" if prev is not None else ""
        print(f"  {time.strftime('%H:%M:%S', time.gmtime(start))}.{int(start % 1 * 1000):03d}: {len(group)} slow, "
              f"longest {max(lat for _, lat in group) * 1000:.0f} ms{gap}")
        prev = start


def parse() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=500)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--bot-delay", type=float, default=1.0, help="seconds between a bot's moves")
    ap.add_argument("--think", type=float, default=1.0, help="mean seconds a client waits before acting")
    ap.add_argument("--gc", choices=("tuned", "threshold", "default"), default="tuned",
                    help="the server's collector: daer serve's tuned settings, or Python's default")
    ap.add_argument("--hard", type=int, default=0,
                    help="rooms of search bots added to --tables, each with one person (its latency apart)")
    ap.add_argument("--sqlite-sync", choices=("normal", "full"), help="the server's --sqlite-sync")
    ap.add_argument("--server-arg", action="append", default=[], help="one more argument for daer serve")
    ap.add_argument("--plain-ws", action="store_true",
                    help="connect to /ws, not /ws/CODE (a server from before the cluster routing, with --src)")
    ap.add_argument("--src", help="run the server from this checkout's src/ (PYTHONPATH) to compare two versions")
    ap.add_argument("--url", help="load this running server or balancer (http://HOST:PORT) instead of starting one")
    ap.add_argument("--metrics", action="append", default=[],
                    help="a server process's own address whose /metrics to read (repeat for each worker; "
                         "default: the server's address)")
    ap.add_argument("--client-gc", action="store_true",
                    help="leave the load client's own collector on in the measured window (its pauses then count "
                         "into the latencies it measures)")
    ap.add_argument("--trace", help="write each measured action's send time and latency to this file and list "
                                    "the stalls (slow actions by when they were sent)")
    ap.add_argument("--no-peer", action="store_true",
                    help="skip timing the peer (mahjong's estimate_hand_value) before and after the load")
    return ap.parse_args()


if __name__ == "__main__":
    asyncio.run(main(parse()))
