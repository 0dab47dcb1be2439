"""Entry point of the ``daer`` command; each sub-command lives in its own module."""

from __future__ import annotations

import typer

from daer.cli import (
    arena_cmd,
    backup_cmd,
    cluster_cmd,
    play_cmd,
    replay_cmd,
    review_cmd,
    rules_cmd,
    score_cmd,
    serve_cmd,
    sim_cmd,
    verify_cmd,
)

app = typer.Typer(
    name="daer",
    help="大贰 (Da Er): 计分器、规则、对局 — calculator, rules and games of the Sichuan paper-card game.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("score")(score_cmd.score)
app.command("sim")(sim_cmd.sim)
app.command("play")(play_cmd.play)
app.command("replay")(replay_cmd.replay)
app.command("review")(review_cmd.review)
app.command("arena")(arena_cmd.arena_cmd)
app.command("serve")(serve_cmd.serve)
app.command("verify")(verify_cmd.verify)
app.command("backup")(backup_cmd.backup)
app.command("restore")(backup_cmd.restore)
app.add_typer(rules_cmd.app, name="rules")
app.add_typer(cluster_cmd.app, name="cluster")


def main() -> None:
    """Run the command line."""
    app()
