"""``daer sim``: many seeded hands between bots, with a progress bar and a summary table."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from daer.bots.runner import SimStats, bot_count_message, simulate
from daer.cli.bars import progress_bar
from daer.cli.options import bot_list, ruleset_option


def sim(
    *,
    games: Annotated[int, typer.Option("--games", "-n", help="手数 hands to play")] = 1000,
    bots: Annotated[str, typer.Option(help="机器人 bots, comma-separated: one per playing seat "
                                           "(泸州 3, or 4 with the 底家 seat)")] = "heuristic,random,heuristic",
    seed: Annotated[int, typer.Option(help="种子 seed")] = 0,
    rules: Annotated[str, typer.Option(help="规则 preset name or TOML file")] = "luzhou",
    as_json: Annotated[bool, typer.Option("--json", help="输出 JSON summary")] = False,
) -> None:
    """机器人对局模拟 — simulate seeded hands between bots and summarize (see docs/sim.md)."""
    if games < 1:
        raise typer.BadParameter(f"手数至少 1 (--games must be at least 1), not {games}")
    names = bot_list(bots)
    ruleset = ruleset_option(rules)
    if (why := bot_count_message(ruleset, len(names))) is not None:
        raise typer.BadParameter(why)
    if as_json:
        stats = simulate(ruleset, names, games, seed)
        typer.echo(json.dumps(stats.to_json(), ensure_ascii=False))
        return
    console = Console()
    with progress_bar(console, "模拟 simulating", games) as done:
        stats = simulate(ruleset, names, games, seed, progress=done)
    console.print(summary_table(stats))


def summary_table(stats: SimStats) -> Table:
    """The summary as a rich table."""
    table = Table(title=f"{stats.hands} 手 hands · 黄牌 draws {stats.draws / max(stats.hands, 1):.1%} · "
                        f"{stats.hands_per_s:.0f} 手/秒 hands/s")
    cols = ("位置 row", "机器人 bot", "胜率 win rate", "平均胡 mean 胡", "每手分 pts/hand", "总分 points")
    for col in cols:
        table.add_column(col, justify="right")
    for i, s in enumerate(stats.seats):
        table.add_row(str(i), s.bot, f"{s.win_rate:.1%}", f"{s.mean_hu:.1f}",
                      f"{s.points / max(s.hands, 1):+.2f}", str(s.points))
    return table
