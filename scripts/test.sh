#!/usr/bin/env bash
# Installs everything the tests need on a fresh machine, then runs lint, types and every test.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q -e '.[dev,postgres]'
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
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/pytest "$@"
