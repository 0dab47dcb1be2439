"""Load across workers (not a test): ``benchmarks/load_table.py`` through HAProxy against a local cluster of 1
worker, then of 2 workers, in one run on this machine (``daer cluster up``: PostgreSQL, HAProxy, N workers).

Run: ``.venv/bin/python benchmarks/load_cluster.py --tables 300 --seconds 40``.  For each worker count it
starts a fresh cluster (workers paced like load_table's own server: ``--bot-delay``, no claim window, the
test limits), runs load_table against the balancer (``--url``, every worker's ``/metrics`` summed), stops
the cluster, and reports what load_table measured (tables held, latency, actions per second, the workers'
CPU per action, the load client's share of the cores) and the CPU each part took per applied action — the
workers, PostgreSQL (the postmaster, its live backends and the ones that ended) and HAProxy, read from /proc
every 0.5 s — both inside load_table's measured window (the steady state: room creation at the start left
out) and over the whole load run.  These are the inputs of the capacity model in docs/deploy.md.

First, in the same run, the single process it is compared with: ``load_table.py`` on embedded SQLite at the same
tables and pace (``--no-single`` skips it); the table gives each worker count's CPU per action over the single
process's.  And every figure also in **peer calls**: ``mahjong``'s ``estimate_hand_value`` timed before and
after the runs (five samples each; their median), so the figures carry across hosts (the ``bench`` extra).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from daer.cluster import local

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_hands import peer_samples  # the peer (timed in a process of its own)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "server"))
from serving import TEST_LIMITS

HERE = Path(__file__).resolve().parent

TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(pid: int, *, children: bool = False) -> float:
    """CPU seconds of one process (user + system), with its waited-for children's if ``children``."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15 of stat)
    if children:
        ticks += int(fields[13]) + int(fields[14])  # cutime, cstime: backends that ended
    return ticks / TICK


def postgres_cpu(pg_dir: str) -> float:
    """CPU seconds of a PostgreSQL cluster: the postmaster (with its ended children) and its live children."""
    pid = int(next(Path(pg_dir).rglob("postmaster.pid")).read_text().split()[0])
    total = cpu_of(pid, children=True)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid:  # ppid
                total += cpu_of(int(entry.name))
    return total


def actions_of(url: str) -> float:
    """Actions a worker has applied (``daer_actions_total``, people and bots)."""
    with urllib.request.urlopen(f"{url}/metrics", timeout=10) as res:
        text = res.read().decode()
    return sum(s.value for f in text_string_to_metric_families(text) for s in f.samples
               if s.name == "daer_actions_total")


def rss_mib(pid: int) -> float:
    """Resident memory of one process (MiB)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def sample(state: dict[str, Any]) -> dict[str, float]:
    """CPU seconds of every part of the cluster, the actions applied so far and the workers' memory."""
    return {"workers": sum(cpu_of(int(w["pid"])) for w in state["workers"]),
            "rss": sum(rss_mib(int(w["pid"])) for w in state["workers"]),
            "postgres": postgres_cpu(state["pg"]["dir"]), "haproxy": cpu_of(int(state["haproxy"]["pid"])),
            "actions": sum(actions_of(w["url"]) for w in state["workers"])}


def one(workers: int, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """Start a cluster of ``workers``, load it through HAProxy, stop it; the figures."""
    extra = [*TEST_LIMITS, "--bot-delay", str(args.bot_delay), "--claim-window", "0", *args.server_arg]
    if args.check:  # the balancer's health checks as given instead of deploy/haproxy.cfg's
        shipped = local.haproxy_template()
        assert "default-server inter 500ms fall 2 rise 2" in shipped
        patched = shipped.replace("default-server inter 500ms fall 2 rise 2", f"default-server {args.check}")
        local.haproxy_template = lambda: patched
    state = local.up(folder, workers=workers, extra=extra, lb_rate=10**6, lb_conns=10**6)  # one client address
    try:
        idle0 = sample(state)  # the cluster idle: health checks, lease renewals
        time.sleep(args.idle)
        before, kids0, t0 = sample(state), resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
        idle = {k: (before[k] - idle0[k]) / args.idle for k in ("workers", "postgres", "haproxy")}
        cmd = [sys.executable, str(HERE / "load_table.py"), "--url", state["url"], "--tables", str(args.tables),
               "--seconds", str(args.seconds), "--think", str(args.think), "--bot-delay", str(args.bot_delay),
               "--no-peer"]
        for w in state["workers"]:
            cmd += ["--metrics", w["url"]]
        samples: list[tuple[float, dict[str, float]]] = []
        done = threading.Event()

        def sampler() -> None:  # every part's CPU twice a second, to cut out load_table's measured window
            while not done.wait(0.5):
                samples.append((time.time(), sample(state)))

        watch = threading.Thread(target=sampler, daemon=True)
        watch.start()
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        finally:
            done.set()
            watch.join()
        after, kids1, span = sample(state), resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic() - t0
    finally:
        local.down(folder)
    acts = max(after["actions"] - before["actions"], 1.0)
    per = {k: (after[k] - before[k]) / acts * 1e6 for k in ("workers", "postgres", "haproxy")}
    # the same, less what the cluster spends idle (its health checks and lease renewals) in as long a time
    net = {k: (after[k] - before[k] - idle[k] * span) / acts * 1e6 for k in ("workers", "postgres", "haproxy")}
    client = (kids1.ru_utime + kids1.ru_stime - kids0.ru_utime - kids0.ru_stime) / span / (os.cpu_count() or 1)
    window = re.search(r"measured window \(Unix time\): ([\d.]+) ([\d.]+)", out)
    in_window: dict[str, float] = {}
    if window and samples:  # the samples nearest the window's edges: the ramp (rooms made, sockets opened) left out
        w0, w1 = float(window.group(1)), float(window.group(2))
        a = min(samples, key=lambda x: abs(x[0] - w0))[1]
        b = min(samples, key=lambda x: abs(x[0] - w1))[1]
        n = max(b["actions"] - a["actions"], 1.0)
        in_window = {k: (b[k] - a[k]) / n * 1e6 for k in ("workers", "postgres", "haproxy")}
    return {"workers": workers, "out": out, "per_action_us": per, "net_us": net, "idle_cpu_per_s": idle,
            "window_us": in_window,
            "actions": acts, "span": span, "client_share": client, "rss_mib": (before["rss"], after["rss"])}


def single(args: argparse.Namespace) -> tuple[str, float]:
    """load_table.py against one ``daer serve`` on SQLite at the same tables and pace: (its output, its server's
    µs of CPU per action)."""
    cmd = [sys.executable, str(HERE / "load_table.py"), "--tables", str(args.tables), "--seconds", str(args.seconds),
           "--think", str(args.think), "--bot-delay", str(args.bot_delay), "--no-peer"]
    for a in args.server_arg:
        cmd.append(f"--server-arg={a}")
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return out, float(_num(r"([\d.]+) µs per action", out))


def peer() -> list[float]:
    """The peer's calls a second now, five samples over about two seconds in a fresh process (none without the
    ``bench`` extra)."""
    return peer_samples()


def _num(pattern: str, text: str) -> str:
    m = re.search(pattern, text)
    return m.group(1) if m else "?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=300)
    ap.add_argument("--seconds", type=float, default=40)
    ap.add_argument("--think", type=float, default=1.0)
    ap.add_argument("--bot-delay", type=float, default=1.0)
    ap.add_argument("--check", help="HAProxy's health checks instead of the shipped ones ('inter 2s fall 3 rise 2')")
    ap.add_argument("--idle", type=float, default=5.0, help="seconds the idle cluster is measured first")
    ap.add_argument("--server-arg", action="append", default=[], help="one more argument for every worker (and for "
                    "the single process)")
    ap.add_argument("--no-single", action="store_true", help="skip the single process on SQLite")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="the worker counts, run in this order")
    args = ap.parse_args()
    rows = []
    rate0 = peer()
    alone: tuple[str, float] | None = None
    if not args.no_single:
        alone = single(args)
        print(f"--- one process on SQLite\n{alone[0]}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp).chmod(0o755)  # PostgreSQL runs as its own user and must reach its data folder
        for n in args.workers:
            r = one(n, args, Path(tmp) / f"c{n}")
            print(f"--- {n} worker(s)\n{r['out']}", flush=True)
            rows.append(r)
    rate1 = peer()
    calls = statistics.median(rate0 + rate1) if rate0 and rate1 else None
    print(f"health checks: {args.check or 'as shipped'}")
    print(f"{args.tables} tables, {args.seconds:.0f} s measured, bot delay {args.bot_delay} s, think {args.think} s; "
          f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at the end")
    print("| workers | held | p50 | p99 | actions/s | workers µs/action | PostgreSQL µs/action | HAProxy µs/action "
          "| load client (share of the cores) | workers' memory before → after |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        out, per = r["out"], r["per_action_us"]
        held, p50, p99 = _num(r"(\d+) held", out), _num(r"p50 ([\d.]+ ms)", out), _num(r"p99 ([\d.]+ ms)", out)
        rate = _num(r"per action, ([\d.]+) actions/s", out)
        net = r["net_us"]
        cells = " | ".join(f"{per[k]:.0f} ({net[k]:.0f})" for k in ("workers", "postgres", "haproxy"))
        mem = r["rss_mib"]
        print(f"| {r['workers']} | {held} | {p50} | {p99} | {rate} | {cells} | {r['client_share']:.0%} "
              f"| {mem[0]:.0f} → {mem[1]:.0f} MiB |")
    print("(µs per action over the whole load run; in brackets less the idle cluster's own CPU in as long a time)")
    if calls is not None:
        print(f"peer: mahjong estimate_hand_value, median {calls:.0f} calls/s of {len(rate0)} samples before and "
              f"{len(rate1)} after the runs (before {min(rate0):.0f}-{max(rate0):.0f}, after {min(rate1):.0f}-"
              f"{max(rate1):.0f}); one peer call = {1e6 / calls:.0f} µs")
    for r in rows:
        per = r["window_us"] or r["per_action_us"]
        line = f"{r['workers']} worker(s), in load_table's measured window: workers {per['workers']:.0f} µs an action"
        if alone is not None:
            line += f" = {per['workers'] / alone[1]:.2f}x the single process's {alone[1]:.0f} µs (its window)"
        if calls is not None:
            line += (f"; in peer calls: workers {per['workers'] * calls / 1e6:.2f}, PostgreSQL "
                     f"{per['postgres'] * calls / 1e6:.2f}, HAProxy {per['haproxy'] * calls / 1e6:.2f}")
            if alone is not None:
                line += f", the single process {alone[1] * calls / 1e6:.2f}"
        else:
            line += f"; PostgreSQL {per['postgres']:.0f} µs, HAProxy {per['haproxy']:.0f} µs"
        print(line)
    print(json.dumps([{k: v for k, v in r.items() if k != "out"} for r in rows]))


if __name__ == "__main__":
    main()
