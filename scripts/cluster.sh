#!/usr/bin/env bash
# A local cluster in one command: a private PostgreSQL, HAProxy routing every room by its code, and N
# `daer serve` workers, all on free loopback ports, from Debian's packages (installed when missing).
#   scripts/cluster.sh up [--workers N] [--dir DIR] [--lease-ttl S] [--lb-rate N] [--lb-conns N]
#                         [-- daer serve options]   (prints the URL)
#   scripts/cluster.sh down [--dir DIR]
#   scripts/cluster.sh status [--dir DIR]
# docs/deploy.md, "Cluster".
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/daer ]; then
    python3 -m venv .venv
    .venv/bin/python -m pip install -q -e '.[postgres]'
fi
if [ "${1:-}" = up ] && command -v apt-get >/dev/null; then
    missing=()
    command -v haproxy >/dev/null || missing+=(haproxy)
    compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
    if [ ${#missing[@]} -gt 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
fi
exec .venv/bin/daer cluster "$@"
