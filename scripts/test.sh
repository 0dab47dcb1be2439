#!/usr/bin/env bash
# Installs everything the tests need on a fresh machine, then runs lint, types and every test.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
# rl: torch (CPU) and sb3-contrib for the MaskablePPO smoke test (tests/env/test_ppo_smoke.py); where pip would
# fetch torch's CUDA build instead, add --extra-index-url https://download.pytorch.org/whl/cpu
.venv/bin/python -m pip install -q -e '.[dev,postgres,rl]'
# The browser tests (tests/web) drive Debian's Chromium; Playwright's own browser download is not used.
if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-zenhei >/dev/null
fi
# The server tests also run on PostgreSQL: a private cluster of Debian's package on a loopback port
# (tests/server/pgcluster.py); without it they are skipped.
if ! compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null && command -v apt-get >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
# The deployment files (deploy/) are checked by the tools that run them: systemd-analyze and Caddy (Debian's).
if { ! command -v caddy || ! command -v systemd-analyze; } >/dev/null && command -v apt-get >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq caddy systemd >/dev/null
fi
# The accessibility scan (tests/web/test_a11y.py) runs axe-core from the npm registry, at a pinned version, installed
# into a cache directory outside the repository (never committed); DAER_AXE tells the test where it is.
AXE_VERSION=4.14.1
AXE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/daer/axe-core-$AXE_VERSION"
if [ ! -f "$AXE_DIR/node_modules/axe-core/axe.min.js" ]; then
    if ! command -v npm >/dev/null && command -v apt-get >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
    fi
    mkdir -p "$AXE_DIR"
    npm install --prefix "$AXE_DIR" --save-exact --no-audit --no-fund --ignore-scripts --loglevel=error "axe-core@$AXE_VERSION" >/dev/null
fi
export DAER_AXE="$AXE_DIR/node_modules/axe-core/axe.min.js"
# The cluster tests put Debian's HAProxy in front of the workers (scripts/cluster.sh).
if ! command -v haproxy >/dev/null && command -v apt-get >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null
fi
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/pytest "$@"
# The engine's rule tests once more on the source of the modules the install compiled (setup.py's NATIVE): the
# source stays the reference a reader steps through (tests/test_native.py compares the play of both).
DAER_MYPYC=0 .venv/bin/pytest -q -p no:cacheprovider tests/engine
