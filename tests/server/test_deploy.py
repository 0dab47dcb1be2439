"""The deployment files in deploy/ (docs/deploy.md): checked by the tools that will run them.

The systemd units by ``systemd-analyze verify`` (no warning allowed) and by starting their exact command lines;
the Caddyfile by ``caddy adapt --validate`` (Debian's packages, installed by scripts/test.sh).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from serving import free_port, get

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


UNITS = {"daer.service": "daer.service", "daer-worker@.service": "daer-worker@8001.service"}
"""Each unit file, and the name it is verified under (a template by one of its instances)."""


def _unit(name: str = "daer.service") -> dict[str, list[str]]:
    """A unit's ``Key=value`` lines (comments skipped), values by key in order."""
    out: dict[str, list[str]] = {}
    for line in (DEPLOY / name).read_text().splitlines():
        if "=" in line and not line.startswith(("#", ";", "[")):
            key, value = line.split("=", 1)
            out.setdefault(key.strip(), []).append(value.strip())
    return out


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (scripts/test.sh installs it from Debian)")
    return path


@pytest.mark.parametrize("name", sorted(UNITS))
def test_the_systemd_units_verify_without_a_warning(tmp_path: Path, name: str) -> None:
    tool = _tool("systemd-analyze")
    daer = Path(sys.executable).with_name("daer")  # the unit's /opt/daer/.venv/bin/daer, here
    assert daer.exists()
    text = (DEPLOY / name).read_text()
    assert "/opt/daer/.venv/bin/daer " in text
    (tmp_path / name).write_text(text.replace("/opt/daer/.venv/bin/daer ", f"{daer} "))
    res = subprocess.run([tool, "verify", str(tmp_path / UNITS[name])], capture_output=True, text=True, timeout=60,
                         check=False)
    assert res.returncode == 0, res.stderr
    assert name not in res.stderr, res.stderr  # an unknown key is only a warning: none allowed either


def _serve(args: list[str], env: dict[str, str], log: Path) -> None:
    """Run ``daer serve`` with these arguments until ``/readyz`` answers 200, then stop it."""
    port = args[args.index("--port") + 1]
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "daer", "serve", *args], stdout=out, stderr=out,
                                env={**os.environ, **env})
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, log.read_text()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                    break
            except OSError:
                assert time.monotonic() < deadline, "the unit's command did not start"
                time.sleep(0.1)
        assert get(f"http://127.0.0.1:{port}/readyz")[0] == 200
    finally:
        proc.terminate()
        proc.wait(10)


def _command(unit: dict[str, list[str]]) -> list[str]:
    """The arguments of the unit's ``daer serve``."""
    (exec_start,) = unit["ExecStart"]
    argv = shlex.split(exec_start)
    assert argv[:2] == ["/opt/daer/.venv/bin/daer", "serve"]
    return argv[2:]


def test_the_unit_command_line_serves_and_caddy_proxies_to_its_address(tmp_path: Path) -> None:
    unit = _unit()
    args = _command(unit)
    address = f"{args[args.index('--host') + 1]}:{args[args.index('--port') + 1]}"
    caddyfile = (DEPLOY / "Caddyfile").read_text()
    assert f"reverse_proxy {address}" in caddyfile  # Caddy sends the players where the unit listens
    assert args[args.index("--trusted-proxy") + 1] == "127.0.0.1"  # and from loopback: a proxy, not one player
    site = re.search(r"^(\S+) \{$", caddyfile, re.MULTILINE)  # the site block's name (after the global options)
    assert site is not None and args[args.index("--allowed-origin") + 1] == f"https://{site.group(1)}"
    env = dict(e.split("=", 1) for e in unit["Environment"])
    assert env["DAER_DATABASE_URL"].startswith(f"sqlite:////var/lib/{unit['StateDirectory'][0]}/")  # its own folder
    # the same command, but on a free port and with the database in a temporary folder
    args[args.index("--port") + 1] = str(free_port())
    _serve(args, {"DAER_DATABASE_URL": f"sqlite:///{tmp_path / 'daer.db'}"}, tmp_path / "daer.log")
    assert (tmp_path / "daer.db").exists()  # it used DAER_DATABASE_URL, as the unit's Environment= says
    first = (tmp_path / "daer.log").read_text().splitlines()[1]
    assert first.startswith("{"), first  # --log-format json


def test_the_worker_unit_command_line_serves_on_its_instance_port(tmp_path: Path) -> None:
    unit = _unit("daer-worker@.service")
    args = _command(unit)
    assert args[args.index("--port") + 1] == "%i"  # the instance name is the port
    assert unit["EnvironmentFile"] == ["/etc/daer/worker.env"]  # the database URL is the operator's
    assert unit["KillSignal"] == ["SIGTERM"]  # which drains the worker
    args[args.index("--port") + 1] = str(free_port())
    args[args.index("--host") + 1] = "127.0.0.1"  # tests listen on loopback only
    _serve(args, {"DAER_DATABASE_URL": f"sqlite:///{tmp_path / 'daer.db'}"}, tmp_path / "daer.log")


def test_the_caddyfile_validates(tmp_path: Path) -> None:
    tool = _tool("caddy")
    res = subprocess.run([tool, "adapt", "--validate", "--adapter", "caddyfile", "--config", str(DEPLOY / "Caddyfile")],
                         capture_output=True, text=True, timeout=60, check=False,
                         env={**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)})
    assert res.returncode == 0, res.stderr
    assert '"upstreams":[{"dial":"127.0.0.1:8000"}]' in res.stdout  # adapted to JSON: the proxy's upstream
