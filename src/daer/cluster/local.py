"""``daer cluster up|down``: PostgreSQL, HAProxy and N ``daer serve`` workers on free loopback ports.

Everything lives in one folder (``--dir``): PostgreSQL's data, the rendered ``haproxy.cfg``, each process's log
and ``cluster.json`` (ports, process ids, each worker's command line) — read by ``down``, by the tests and by
``benchmarks/load_table.py``.  The processes run in their own sessions, so they outlive the command.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from daer.cluster.pg import Postgres

DEFAULT_DIR = Path(os.environ.get("DAER_CLUSTER_DIR") or f"/tmp/daer-cluster-{os.getuid()}")
STATE = "cluster.json"


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


TEMPLATE = Path(__file__).resolve().parents[3] / "deploy" / "haproxy.cfg"
"""The balancer's config in the repository (a source checkout: ``pip install -e``)."""


def haproxy_template() -> str:
    """``deploy/haproxy.cfg``."""
    return TEMPLATE.read_text()


LB_RATE = 300
"""Requests one client address may make through the balancer in 10 s (all workers together)."""
LB_CONNS = 64
"""Connections one client address may hold open at the balancer (sockets and keep-alive, all workers)."""


TABLE = "store http_req_rate(10s),conn_cur"
"""The stick table's data in deploy/haproxy.cfg (the peers are named after it)."""


def render_haproxy(bind: str, workers: list[tuple[str, int]], *, rate: int = LB_RATE, conns: int = LB_CONNS,
                   peers: list[tuple[str, str]] | None = None) -> str:
    """The balancer's config: listen on ``bind``, one checked server line per (name, port) worker, and the
    cluster-wide per-address limits (``rate`` requests in 10 s, ``conns`` open connections).  ``peers``:
    (name, host:port) of every balancer in front of the same workers, this one included — their stick tables
    are kept in step (a ``peers`` section; start each balancer with ``haproxy -L NAME``)."""
    servers = "\n".join(f"    server {name} 127.0.0.1:{port} check" for name, port in workers)
    text = (haproxy_template().replace("@BIND@", bind).replace("@SERVERS@", servers)
            .replace("@RATE@", str(rate)).replace("@CONNS@", str(conns)))
    if peers:
        assert TABLE in text and "\nfrontend daer\n" in text, "deploy/haproxy.cfg changed: update render_haproxy"
        section = "peers daer\n" + "".join(f"    peer {name} {address}\n" for name, address in peers)
        text = text.replace(TABLE, f"{TABLE} peers daer").replace("\nfrontend daer\n", f"\n{section}\nfrontend daer\n")
    return text


def check_haproxy(path: Path, peer: str | None = None) -> str | None:
    """``haproxy -c -f path`` (``-L peer``: this balancer's name among its peers): None when valid, else its
    message."""
    res = subprocess.run(["haproxy", "-c", "-f", str(path), *(("-L", peer) if peer else ())],
                         capture_output=True, text=True, check=False)
    return None if res.returncode == 0 else (res.stdout + res.stderr).strip()


def ready(url: str, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/readyz", timeout=1) as res:
                if res.status == 200:
                    return True
        except (OSError, urllib.error.HTTPError):
            pass
        time.sleep(0.1)
    return False


def worker_command(name: str, port: int, db: str, *, lease_ttl: float, extra: list[str]) -> list[str]:
    """The command line of one worker."""
    return [sys.executable, "-m", "daer", "serve", "--host", "127.0.0.1", "--port", str(port), "--db", db,
            "--worker-id", name, "--lease-ttl", str(lease_ttl), "--trusted-proxy", "127.0.0.1", *extra]


def spawn(cmd: list[str], log: Path) -> int:
    """Start a process in its own session (it outlives this one), output to ``log``; its pid."""
    with log.open("ab") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=out, stdin=subprocess.DEVNULL, start_new_session=True,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
    return proc.pid


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie counts as gone: ours is reaped here, another's is only read)."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not zombie(pid)


def zombie(pid: int) -> bool:
    """Whether ``pid`` has ended but its parent (another process: a test's, a supervisor's) has not reaped it yet:
    it takes no signal, so waiting for it to end would wait for nothing (Linux's ``/proc``; False elsewhere)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def stop_pid(pid: int, sig: int = signal.SIGTERM, wait: float = 15.0) -> None:
    """Send ``sig`` to one process (by its id) and wait for it to end (SIGKILL after ``wait`` seconds)."""
    if not alive(pid):
        return
    os.kill(pid, sig)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if not alive(pid):
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)


def up(folder: Path = DEFAULT_DIR, *, workers: int = 2, db: str | None = None, lease_ttl: float = 10.0,
       extra: list[str] | None = None, lb_rate: int = LB_RATE, lb_conns: int = LB_CONNS) -> dict[str, Any]:
    """Start the cluster; its state (also written to ``folder/cluster.json``).  On failure what was started is
    stopped again (the folder is kept for its logs)."""
    state_file = folder / STATE
    if state_file.exists():
        old = json.loads(state_file.read_text())
        if any(alive(w["pid"]) for w in old["workers"]) or alive(old.get("haproxy", {}).get("pid", 0) or 0):
            raise RuntimeError(f"a cluster is already up in {folder} ({old.get('url')}); `daer cluster down` first")
    try:
        return _up(folder, workers=workers, db=db, lease_ttl=lease_ttl, extra=extra, limits=(lb_rate, lb_conns))
    except BaseException:
        down(folder, keep=True)
        raise


def _up(folder: Path, *, workers: int, db: str | None, lease_ttl: float, extra: list[str] | None,
        limits: tuple[int, int]) -> dict[str, Any]:
    state_file = folder / STATE
    if shutil.which("haproxy") is None:
        raise RuntimeError("needs haproxy (apt-get install haproxy; scripts/cluster.sh installs it)")
    folder.mkdir(parents=True, exist_ok=True)
    state: dict[str, Any] = {"dir": str(folder), "workers": [], "pg": None}
    if db is None:
        # its own folder under /tmp: as root the server runs as the postgres user, who may not enter ``folder``
        pg = Postgres(Path(tempfile.mkdtemp(prefix="daer-cluster-pg-")), free_port())
        state["pg"] = {"dir": str(pg.dir), "port": pg.port}
        state_file.write_text(json.dumps(state, indent=1))
        db = pg.start().database("daer")
    state["db"] = db
    for i in range(1, workers + 1):
        name, port = f"w{i}", free_port()
        cmd = worker_command(name, port, db, lease_ttl=lease_ttl, extra=list(extra or []))
        log = folder / f"{name}.log"
        state["workers"].append({"name": name, "port": port, "url": f"http://127.0.0.1:{port}", "cmd": cmd,
                                 "log": str(log), "pid": spawn(cmd, log)})
        state_file.write_text(json.dumps(state, indent=1))
    for w in state["workers"]:
        if not ready(w["url"], 60):
            raise RuntimeError(f"worker {w['name']} did not become ready; see {w['log']}")
    lb_port = free_port()
    cfg = folder / "haproxy.cfg"
    cfg.write_text(render_haproxy(f"127.0.0.1:{lb_port}", [(w["name"], w["port"]) for w in state["workers"]],
                                  rate=limits[0], conns=limits[1]))
    problem = check_haproxy(cfg)
    if problem is not None:
        raise RuntimeError(f"haproxy -c refused {cfg}: {problem}")
    log = folder / "haproxy.log"
    state["haproxy"] = {"pid": spawn(["haproxy", "-f", str(cfg)], log), "port": lb_port, "cfg": str(cfg),
                        "log": str(log)}
    state["url"] = f"http://127.0.0.1:{lb_port}"
    state_file.write_text(json.dumps(state, indent=1))
    if not ready(state["url"], 30):
        raise RuntimeError(f"haproxy did not answer /readyz; see {log}")
    return state


def down(folder: Path = DEFAULT_DIR, *, keep: bool = False) -> bool:
    """Stop what ``up`` started in ``folder`` (workers drained by SIGTERM, then HAProxy, then PostgreSQL) and
    remove the folder unless ``keep``; False if there was nothing to stop."""
    state_file = folder / STATE
    if not state_file.exists():
        return False
    state = json.loads(state_file.read_text())
    for w in state["workers"]:  # SIGTERM all first (they drain at once), then wait for each
        if alive(int(w["pid"])):
            os.kill(int(w["pid"]), signal.SIGTERM)
    for w in state["workers"]:
        stop_pid(int(w["pid"]))
    if state.get("haproxy"):
        stop_pid(int(state["haproxy"]["pid"]))
    if state.get("pg"):
        with contextlib.suppress(subprocess.CalledProcessError):  # it never started
            Postgres(Path(state["pg"]["dir"]), int(state["pg"]["port"])).stop(remove=not keep)
    if not keep:
        shutil.rmtree(folder, ignore_errors=True)
    return True
