#!/usr/bin/env bash
# Installs daer on a fresh machine and starts the main job: the online table (daer serve) at the URL it prints.
# Open it, create a room, share its code; bots fill the empty seats. (The terminal game: .venv/bin/daer play)
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q -e .
echo "daer: open http://127.0.0.1:${DAER_PORT:-8000}/ in a browser"
exec .venv/bin/daer serve --port "${DAER_PORT:-8000}" "$@"
