"""``daer arena``: duplicate matches between bots, with confidence intervals (see docs/bots.md)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console, Group
from rich.table import Table

from daer.bots.arena import ArenaLogError, ArenaStats, arena
from daer.bots.spread import SpreadError, ray_module
from daer.cli.bars import progress_bar
from daer.cli.options import bot_list, ruleset_option


def arena_cmd(
    *,
    hands: Annotated[int, typer.Option("--hands", "-n", help="牌局数 deals (each replayed in every seating)")] = 200,
    bots: Annotated[str, typer.Option(
        help="2或3个机器人 bots, e.g. search,heuristic (oracle: sees every card, measurement only)",
    )] = "heuristic,random",
    seed: Annotated[int, typer.Option(help="种子 seed")] = 0,
    rules: Annotated[str, typer.Option(help="规则 preset name or TOML file")] = "luzhou",
    as_json: Annotated[bool, typer.Option("--json", help="输出 JSON summary")] = False,
    workers: Annotated[int, typer.Option(help="进程数 processes to spread the deals over (same results)")] = 1,
    ray: Annotated[str | None, typer.Option(
        "--ray", help="Ray 集群地址 cluster address, or 'local' to start one (pip install 'daer[ray]')")] = None,
    log: Annotated[Path | None, typer.Option(
        "--log", help="记录文件 keep every finished deal in this file; run again to go on where it stopped",
        dir_okay=False)] = None,
) -> None:
    """复式比赛 — duplicate matches: the same deals with the bots rotated through the seats."""
    names = bot_list(bots, measurement=True)
    if len(set(names)) != len(names):
        raise typer.BadParameter("机器人不能重复 (name each bot once)")
    ruleset = ruleset_option(rules)
    if not 2 <= len(names) <= ruleset.table.players:
        raise typer.BadParameter(f"需要 2 到 {ruleset.table.players} 个机器人 (give 2 to {ruleset.table.players} bots)")
    if hands < 1:
        raise typer.BadParameter("--hands 至少 1 (at least one deal)")
    if workers < 1:
        raise typer.BadParameter("--workers 至少 1 (at least one process)")
    if ray is not None:
        try:
            ray_module()
        except SpreadError as exc:
            raise typer.BadParameter(str(exc)) from exc
    try:
        if as_json:
            stats = arena(ruleset, names, hands, seed, workers=workers, ray=ray, log=log)
            typer.echo(json.dumps(stats.to_json(), ensure_ascii=False))
            return
        console = Console()
        with progress_bar(console, "复式 duplicate", hands) as done:
            stats = arena(ruleset, names, hands, seed, progress=lambda i, _s: done(i), workers=workers, ray=ray,
                          log=log)
    except ArenaLogError as exc:
        raise typer.BadParameter(str(exc), param_hint="--log") from exc
    except OSError as exc:
        raise typer.BadParameter(f"记录文件打不开 (cannot open the log): {exc}", param_hint="--log") from exc
    except SpreadError as exc:
        typer.echo(f"错误 error: {exc}", err=True)
        raise typer.Exit(1) from exc
    console.print(arena_tables(stats))


def _ci(x: float) -> str:
    return "-" if math.isinf(x) else f"±{x:.2f}"


def arena_tables(stats: ArenaStats) -> Group:
    """The bots' table and the paired differences, as rich tables."""
    title = (f"{stats.deals} 局 deals × {len(stats.lineups)} 座次 seatings = {stats.hands} 手 hands · "
             f"{stats.rules} · seed {stats.seed} · {stats.seconds:.0f} s")
    if stats.resumed:
        title += f" · {stats.resumed} 局读自记录 read from the log"
    table = Table(title=title)
    for col in ("机器人 bot", "手数 hands", "每手分 pts/hand", "95% CI", "胜率 win rate", "秒/步 s/decision",
                "最长 max s"):
        table.add_column(col, justify="right")
    for b in stats.bots:
        table.add_row(b.bot, str(b.hands), f"{b.score.mean:+.3f}", _ci(b.score.ci95), f"{b.win_rate:.1%}",
                      f"{b.sec_per_decision:.4f}", f"{b.think_max:.3f}")
    diffs = Table(title="配对差 paired difference per hand (same deals, same seats)")
    for col in ("机器人 bot", "对 vs", "差 diff", "95% CI"):
        diffs.add_column(col, justify="right")
    for (i, j), s in stats.diffs.items():
        diffs.add_row(stats.bots[i].bot, stats.bots[j].bot, f"{s.mean:+.3f}", _ci(s.ci95))
    return Group(table, diffs)
