"""The ``daer`` command's entry point: ``daer score --json`` starts without loading the other commands.

A program that pipes a file of requests into ``daer score --json`` pays the
start-up once per run; loading typer, rich and the engine for it would cost
more than scoring thousands of hands.  Every other command line goes to the
typer application in :mod:`daer.cli.main`.
"""

from __future__ import annotations

import sys

from daer.cli.score_json import score_json


def main() -> None:
    """Run the command line."""
    if sys.argv[1:] == ["score", "--json"]:
        sys.exit(score_json())
    from daer.cli.main import app  # noqa: PLC0415 — typer and every command, for everything else

    app()
