"""``daer score``: the calculator, for people (Chinese or English) and for machines (JSON Lines)."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer
from rich.console import Console

from daer.calculator import RequestError, parse_request, score_request
from daer.cards import format_kinds
from daer.cli.explain import print_result
from daer.cli.options import check_lang
from daer.cli.score_json import score_json
from daer.hands import waits
from daer.rules import RulesError, parse_override


def _t(key: str, en: bool) -> str:
    return {"hu": ("胡", "hu"), "waits": ("叫牌", "waits")}[key][1 if en else 0]


def score(
    hand: Annotated[
        str | None, typer.Argument(help="手牌（不含胡的那张） concealed cards, e.g. 一二三壹贰叁 or x1x2x3")
    ] = None,
    win: Annotated[str | None, typer.Option("--win", "-w", help="胡的那张牌 the winning card")] = None,
    self_drawn: Annotated[bool, typer.Option("--self", help="自己摸的 the winning card was your own draw")] = False,
    peng: Annotated[list[str] | None, typer.Option(help="桌面的碰 a 碰 on the table (repeatable)")] = None,
    zhao: Annotated[list[str] | None, typer.Option(help="桌面的招 a 招 on the table")] = None,
    long: Annotated[list[str] | None, typer.Option(help="桌面的垅 a 垅 on the table")] = None,
    chi: Annotated[list[str] | None, typer.Option(help="桌面的吃 a 吃 (run or 绞) on the table")] = None,
    wei: Annotated[list[str] | None, typer.Option(help="桌面的偎（跑胡子，扣着的也是） a 偎 on the table")] = None,
    discard: Annotated[bool, typer.Option("--discard", help="别人打出的 the winning card was a discard")] = False,
    rules: Annotated[str, typer.Option(help="规则 ruleset name or house-rule .toml")] = "luzhou",
    set_: Annotated[list[str] | None, typer.Option("--set", help="改规则 override an option: key=value")] = None,
    tianhu: Annotated[bool, typer.Option(help="天胡")] = False,
    dihu: Annotated[bool, typer.Option(help="地胡")] = False,
    haidi: Annotated[bool, typer.Option(help="海底")] = False,
    seat: Annotated[int, typer.Option(help="赢家座位 winner's seat 0-3")] = 0,
    dealer: Annotated[int, typer.Option(help="庄家座位 dealer's seat 0-3")] = 0,
    lang: Annotated[str, typer.Option(help="zh or en", callback=check_lang)] = "zh",
    as_json: Annotated[bool, typer.Option("--json", help="读标准输入的 JSON 行 read JSON (Lines) on stdin")] = False,
) -> None:
    """计算胡数与输赢 — evaluate a hand: its best 列, 胡, 等 and who pays whom."""
    if as_json:
        sys.stdout.flush()
        raise typer.Exit(score_json())
    en = lang == "en"
    if hand is None:
        print("请给出手牌，例如: daer score 一二三四五六七八九壹贰叁肆伍陆柒捌玖二七 --win 十", file=sys.stderr)
        raise typer.Exit(2)
    request: dict[str, Any] = {
        "rules": rules, "hand": hand, "tianhu": tianhu, "dihu": dihu, "haidi": haidi, "seat": seat, "dealer": dealer,
        "notes": True,  # people read the terminal: the arithmetic of 等 play too
    }
    melds = [(k, c) for k, vals in (("peng", peng), ("zhao", zhao), ("long", long), ("chi", chi), ("wei", wei))
             for c in vals or ()]
    request["melds"] = [{"kind": k, "cards": c} for k, c in melds]
    if win is not None:
        request["win"] = {"card": win, "from": "self" if self_drawn else "discard" if discard else "other"}
    try:
        request["options"] = dict(parse_override(s) for s in set_ or ())
        req = parse_request(request)
    except (RequestError, RulesError) as exc:
        print(f"daer score: {exc}", file=sys.stderr)
        raise typer.Exit(2) from None
    console = Console()
    result = score_request(req)
    if not result["complete"] and not result["ok"] and win is None:
        found = waits(req.rules, req.hand, req.melds)
        if found:
            parts = [f"{format_kinds([w.kind], ascii=en)}({w.hu}{' hu' if en else '胡'})" for w in found]
            console.print(f"{_t('waits', en)}: " + "  ".join(parts))
            return
    print_result(console, result, en)
