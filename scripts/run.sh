#!/usr/bin/env bash
# Installs daer on a fresh machine and starts the main job: a game of 泸州大贰 in the terminal against bots.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q -e .
exec .venv/bin/daer play "$@"
