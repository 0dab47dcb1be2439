#!/usr/bin/env bash
# Installs everything the tests need on a fresh machine, then runs lint, types and every test.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q -e '.[dev]'
# The browser tests (tests/web) drive Debian's Chromium; Playwright's own browser download is not used.
if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-zenhei >/dev/null
fi
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/pytest "$@"
