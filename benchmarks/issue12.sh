#!/bin/bash
# Issue 12 item 1's load figures, before and after, in one go (docs/benchmarks.md, "Measuring issue 12's
# targets"): one server process at a time, each run 30 s measured, the load average printed with each.
#   bash benchmarks/issue12.sh [BEFORE_COMMIT]     (default 121bd2b: main just before the write path changed)
# Run it from the repository with its .venv (pip install -e '.[dev]'); it takes about 15 minutes.
set -u
cd "$(dirname "$0")/.."
before=${1:-121bd2b}
old=$(mktemp -d)
trap 'rm -rf "$old"' EXIT
git archive "$before" src | tar -x -C "$old"
cp src/daer/hands/_fasthand*.so "$old/src/daer/hands/" 2>/dev/null  # the same C extension (else pure Python)
run() {
    echo "=== $* ($(date -u +%H:%M) UTC, load average $(cut -d' ' -f1-3 /proc/loadavg))"
    .venv/bin/python benchmarks/load_table.py --seconds 30 "$@" 2>&1 | grep -E "^(tables|person|  at the|server|load client)"
}
for n in 500 1000 2000; do
    run --tables "$n" --src "$old/src" --plain-ws
    run --tables "$n"
done
run --tables 500 --hard 10 --src "$old/src" --plain-ws
run --tables 500 --hard 10
run --tables 500 --sqlite-sync full
run --tables 2000 --sqlite-sync full
