"""Option parsing shared by the commands that run bots (sim, arena)."""

from __future__ import annotations

import typer

from daer.bots import bot_names, is_bot
from daer.rules import RulesError, resolve_rules
from daer.rules.model import Ruleset


def bot_list(bots: str) -> list[str]:
    """Comma-separated bot names or strengths; an unknown one is a usage error naming it."""
    names = [b.strip() for b in bots.split(",") if b.strip()]
    bad = [b for b in names if not is_bot(b)]
    if bad:
        raise typer.BadParameter(f"未知的机器人 {bad} (unknown bots; choose from {', '.join(bot_names())}, search:N)")
    return names


def ruleset_option(rules: str) -> Ruleset:
    """A preset name or house-rule TOML file; a bad one is a usage error."""
    try:
        return resolve_rules(rules)
    except (RulesError, OSError) as exc:
        raise typer.BadParameter(str(exc)) from exc
