"""``daer replay FILE``: step through a saved hand as a spectator (or as one seat)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console

from daer.cli.options import check_lang, seat_option
from daer.cli.render import action_text, narrate, print_hand_end, render_view, turn_line
from daer.cli.terms import legend_en
from daer.engine import RecordError, loads
from daer.engine import replay as replay_record
from daer.engine.errors import IllegalActionError
from daer.rules import RulesError


def replay(
    file: Annotated[Path, typer.Argument(help="牌谱文件 record file (JSON)")],
    *,
    seat: Annotated[int | None, typer.Option(help="以某座位的视角 view as a seat")] = None,
    lang: Annotated[str, typer.Option(help="zh / en", callback=check_lang)] = "zh",
    step: Annotated[bool, typer.Option(help="每步按回车 press Enter after each action")] = False,
) -> None:
    """回放牌谱 — replay a saved hand action by action."""
    console = Console()
    data = read_record_file(file, "replay")
    try:
        record = loads(data)
        final = replay_record(record)
    except (RecordError, RulesError, IllegalActionError, ValueError) as exc:
        _fail(f"{file} 不是有效的牌谱（not a valid hand record: {exc}）")
    if seat is not None:
        seat_option(seat, final.rules)
    if lang == "en":
        console.print(legend_en(final.rules.win.min_hu) + "\n", highlight=False)
    state = replay_record(record, upto=0)
    total = len(record.actions)
    shown = 0

    def tell() -> None:  # the new events, as the chosen seat (or a spectator) sees them
        nonlocal shown
        log = state.view(seat).log
        for ev in log[shown:]:
            if line := narrate(ev, lang, seat, final.rules):
                console.print(f"[dim]{line}[/dim]", highlight=False)
        shown = len(log)

    tell()
    for i, act in enumerate(record.actions, 1):
        card = state.offer.kind if state.offer is not None else None
        state.apply(act)
        who = f"seat {act.seat}" if lang == "en" else f"{act.seat}号位"
        console.rule(f"{i}. {who}: {action_text(act, lang, card, final.rules)}")
        tell()
        if step and i < total:
            view = state.view(seat)
            console.print(render_view(view, lang=lang, width=console.width, rules=final.rules), highlight=False)
            console.print(turn_line(view, lang), highlight=False)
            try:
                input()
            except (EOFError, KeyboardInterrupt):
                return
    view = final.view(seat)
    console.print(render_view(view, lang=lang, width=console.width, rules=final.rules), highlight=False)
    if final.settlement is not None and view.result is not None:
        print_hand_end(console, view, final.settlement, final.rules, lang)


def _fail(message: str, command: str = "replay") -> NoReturn:
    """A bad record file: the message on stderr, exit 2."""
    typer.echo(f"daer {command}: {message}", err=True)
    raise typer.Exit(2)


def read_record_file(path: Path, command: str) -> bytes:
    """The bytes of a record file, or a clear message and exit 2 (``daer replay`` and ``daer review``)."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        _fail(f"找不到牌谱文件 {path}（no such file）", command)
    except OSError as exc:
        _fail(f"读不了牌谱文件 {path}（cannot read it: {exc.strerror or exc}）", command)
