"""The ``daer`` command's entry point: ``daer score --json`` starts without loading the other commands.

A program that pipes a file of requests into ``daer score --json`` pays the
start-up once per run; loading typer, rich and the engine for it would cost
more than scoring thousands of hands.  Every other command line goes to the
typer application in :mod:`daer.cli.main`.
"""

from __future__ import annotations

import sys


def score_json() -> int:
    """``daer score --json``: JSON (Lines) on stdin, one JSON line per request on stdout; the exit status."""
    from daer.score_batch import score_lines  # noqa: PLC0415 — loaded only for this command

    lines, errors = score_lines(sys.stdin.buffer.read())
    for number, message in errors:
        print(f"daer score: input {number}: {message}", file=sys.stderr)
    if lines:
        sys.stdout.buffer.write(b"\n".join(lines) + b"\n")
        sys.stdout.buffer.flush()
    return 2 if errors else 0


def main() -> None:
    """Run the command line."""
    if sys.argv[1:] == ["score", "--json"]:
        sys.exit(score_json())
    from daer.cli.main import app  # noqa: PLC0415 — typer and every command, for everything else

    app()
