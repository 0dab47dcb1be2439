#!/usr/bin/env bash
# Installs everything the tests need on a fresh machine, then runs lint, types and every test.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q -e '.[dev]'
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/pytest "$@"
