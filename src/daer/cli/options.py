"""Option parsing shared by the commands: bot names, rulesets, seats, languages.

Every bad value is a :class:`typer.BadParameter`: typer prints the usage line and
the message (Chinese first, then English) and exits with status 2, never a traceback.
"""

from __future__ import annotations

import typer

from daer.bots import BOTS, ORACLE, ORACLE_REFUSED, SEARCH_CPU, STRENGTHS, is_bot
from daer.rules import RulesError, resolve_rules
from daer.rules.model import Ruleset

LANGS = ("zh", "en")
"""Languages of player text: Chinese (the default) and English."""


def check_lang(lang: str) -> str:
    """``--lang``: zh or en, anything else a usage error listing both."""
    if lang not in LANGS:
        raise typer.BadParameter(f"语言只能是 zh（中文）或 en（English）(--lang must be zh or en), not {lang!r}")
    return lang


def bot_choices() -> str:
    """The names and strengths a bot option accepts, for messages."""
    strengths = ", ".join(f"{s} ({b})" for s, b in STRENGTHS.items())
    return (f"机器人 bots: {', '.join(BOTS)}, search:N, {SEARCH_CPU}, hybrid:N, learned:FILE.npz, policy:FILE.npz; "
            f"难度 strengths: {strengths}")


def bot_list(bots: str, *, measurement: bool = False) -> list[str]:
    """Comma-separated bot names or strengths; an unknown one is a usage error listing the valid ones.

    ``measurement`` (``daer arena`` only) also accepts ``oracle``, the bot that sees every card; anywhere else
    naming it is a usage error saying why.
    """
    names = [b.strip() for b in bots.split(",") if b.strip()]
    if ORACLE in names and not measurement:
        raise typer.BadParameter(ORACLE_REFUSED)
    bad = [b for b in names if not is_bot(b) and not (measurement and b == ORACLE)]
    if bad or not names:
        shown = ", ".join(repr(b) for b in bad) or repr(bots)
        raise typer.BadParameter(f"未知的机器人 unknown bot {shown}. 可选 choose from — {bot_choices()}")
    return names


def ruleset_option(rules: str) -> Ruleset:
    """A preset name or house-rule TOML file; a bad one is a usage error."""
    try:
        return resolve_rules(rules)
    except (RulesError, OSError) as exc:
        raise typer.BadParameter(str(exc)) from exc


def seat_option(seat: int, ruleset: Ruleset) -> int:
    """A seat number of the ruleset's table (0 … seats-1); anything else a usage error naming the range."""
    n = ruleset.table.seats
    if not 0 <= seat < n:
        raise typer.BadParameter(
            f"座位号应是 0-{n - 1}（{ruleset.title_zh} {n} 个座位）"
            f"(--seat must be 0-{n - 1}: {ruleset.name} has {n} seats), not {seat}"
        )
    return seat


