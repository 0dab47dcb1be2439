"""``daer review RECORD --seat N``: 复盘, one seat's decisions in a finished hand valued from its view."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from daer.bots.review import MAX_WORLDS, WORLDS, Decision, Review, ReviewError, as_json
from daer.bots.review import review as review_hand
from daer.cli.options import check_lang, seat_option
from daer.cli.replay_cmd import read_record_file
from daer.engine import RecordError, loads
from daer.rules import RulesError, resolve_rules


def review(
    record: Annotated[Path, typer.Argument(help="牌谱文件 record file (JSON)")],
    *,
    seat: Annotated[int, typer.Option(help="复盘哪个座位 the seat to review (0 …)")],
    worlds: Annotated[int, typer.Option(help=f"每步模拟的牌局数 worlds a decision (2-{MAX_WORLDS})")] = WORLDS,
    seed: Annotated[int, typer.Option(help="种子 seed of the worlds")] = 0,
    as_json_: Annotated[bool, typer.Option("--json", help="输出 JSON")] = False,
    lang: Annotated[str, typer.Option(help="zh / en", callback=check_lang)] = "zh",
) -> None:
    """复盘 — review one seat's decisions in a finished hand: the options, their expected points, the costly steps."""
    if not 2 <= worlds <= MAX_WORLDS:
        raise typer.BadParameter(f"--worlds 应在 2 到 {MAX_WORLDS} 之间 (must be 2-{MAX_WORLDS}), not {worlds}")
    data = read_record_file(record, "review")
    try:
        rec = loads(data)
        rules = resolve_rules(rec.rules, rec.overrides)
    except (RecordError, RulesError, ValueError) as exc:
        _fail(f"{record} 不是有效的牌谱（not a valid hand record: {exc}）")
    seat_option(seat, rules)
    start = time.perf_counter()
    try:
        rev = review_hand(rec, seat, rules=rules, worlds=worlds, seed=seed, ascii=lang == "en")
    except ReviewError as exc:
        _fail(f"{record}: {exc}")
    if as_json_:
        typer.echo(json.dumps(as_json(rev), ensure_ascii=False))
        return
    Console().print(review_table(rev, lang, time.perf_counter() - start))


def review_table(rev: Review, lang: str, seconds: float) -> Group:
    """The decisions as a rich table (each step's played action, the best, and what it may have cost), then the
    flagged steps' options with their expected points and why."""
    en = lang == "en"
    title = (f"Review of seat {rev.seat}: {len(rev.decisions)} decisions, {len(rev.flagged)} flagged "
             f"(may have cost {rev.lost:.1f} points) · {rev.worlds} worlds a decision · {seconds:.1f} s" if en else
             f"{rev.seat}号位复盘：{len(rev.decisions)} 个选择，{len(rev.flagged)} 步可能失分"
             f"（共约 {rev.lost:.1f} 分）· 每步 {rev.worlds} 局模拟 · {seconds:.1f} 秒")
    table = Table(title=title, show_lines=False)
    for col in (("step", "played", "expected", "best", "expected", "note") if en else
                ("步", "打法", "期望分", "最好的选择", "期望分", "评语")):
        table.add_column(col, justify="right" if col in ("step", "步", "expected", "期望分") else "left")
    for d in rev.decisions:
        played = next(o for o in d.options if o.action == d.played)
        best = d.options[0]
        note = _note(d, en)
        style = "bold red" if d.flagged else None
        table.add_row(str(d.step + 1), _head(played.en if en else played.zh), f"{played.mean:+.1f}",
                      "" if d.best == d.played else _head(best.en if en else best.zh), f"{best.mean:+.1f}", note,
                      style=style)
    if rev.skipped:
        table.caption = (f"{rev.skipped} more decisions not valued (the review's limit)" if en else
                         f"另有 {rev.skipped} 个选择未评（复盘的上限）")
    details: list[Text] = []
    for d in rev.flagged:
        head = f"Step {d.step + 1}: {d.en}" if en else f"第 {d.step + 1} 步：{d.zh}"
        details.append(Text(head, style="bold"))
        for o in d.options:
            mark = "←" if o.action == d.played else " "
            words = o.en if en else o.zh
            details.append(Text(f"  {mark} {o.mean:+6.1f} [{o.low:+.1f}, {o.high:+.1f}]  {words}"))
    return Group(table, *details)


def _head(words: str) -> str:
    """The action of an option's words (「打 九」 of 「打 九：两头叫 …」)."""
    return words.split("：", maxsplit=1)[0].split(": ", maxsplit=1)[0]


def _note(d: Decision, en: bool) -> str:
    if d.flagged:
        return d.en if en else d.zh
    if d.best == d.played:
        return "best" if en else "最好"
    return (f"within the noise ({d.loss:.1f} ± {d.margin:.1f})" if en else
            f"差别在误差内（{d.loss:.1f} ± {d.margin:.1f}）")


def _fail(message: str) -> NoReturn:
    """A bad record or a hand that cannot be reviewed: the message on stderr, exit 2."""
    typer.echo(f"daer review: {message}", err=True)
    raise typer.Exit(2)
