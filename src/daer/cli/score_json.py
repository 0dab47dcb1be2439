"""``daer score --json``: the calculator's batch path on stdin and stdout, shared by the light entry point
(:mod:`daer.cli.entry`) and the typer command (:mod:`daer.cli.score_cmd`)."""

from __future__ import annotations

import sys


def score_json() -> int:
    """``daer score --json``: JSON (Lines) on stdin, one JSON line per request on stdout; the exit status."""
    from daer.calculator.batch import score_lines  # noqa: PLC0415 — loaded only for this command

    lines, errors = score_lines(sys.stdin.buffer.read())
    for number, message in errors:
        print(f"daer score: input {number}: {message}", file=sys.stderr)
    if lines:
        out = sys.stdout.buffer
        out.write(b"\n".join(lines))
        out.write(b"\n")
        out.flush()
    return 2 if errors else 0
