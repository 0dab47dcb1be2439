"""``daer score``: the calculator, for people (Chinese or English) and for machines (JSON Lines)."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from daer.calculator import RequestError, parse_request, score_request
from daer.cards import format_kinds
from daer.cli.entry import score_json
from daer.cli.options import check_lang
from daer.hands import waits
from daer.rules import RulesError, parse_override

_T = {
    "title": ("计分", "Score"),
    "kind": ("列", "group"),
    "cards": ("牌", "cards"),
    "hu": ("胡", "hu"),
    "where": ("位置", "where"),
    "table": ("桌面", "table"),
    "hand": ("手牌", "hand"),
    "total": ("合计", "total"),
    "deng": ("等", "deng"),
    "red": ("红牌", "red cards"),
    "mult": ("番", "multipliers"),
    "none": ("无", "none"),
    "pays": ("付", "pays"),
    "seat": ("座位", "seat"),
    "points": ("得分", "points"),
    "not_win": ("不能胡", "not a winning hand"),
    "waits": ("叫牌", "waits"),
    "no_waits": ("没有叫牌", "no waits"),
    "instant": ("砌牌即胡", "instant win"),
}
_ROLE = {"winner": ("赢家", "winner"), "dijia": ("底家", "dijia"), "loser": ("输家", "loser")}


def _t(key: str, en: bool) -> str:
    return _T[key][1 if en else 0]


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
    }
    melds = [(k, c) for k, vals in (("peng", peng), ("zhao", zhao), ("long", long), ("chi", chi)) for c in vals or ()]
    request["melds"] = [{"kind": k, "cards": c} for k, c in melds]
    if win is not None:
        request["win"] = {"card": win, "from": "self" if self_drawn else "other"}
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
            parts = [f"{format_kinds([w.kind])}({w.hu}{_t('hu', en)})" for w in found]
            console.print(f"{_t('waits', en)}: " + "  ".join(parts))
            return
    _print_result(console, result, en)


def _print_result(console: Console, r: dict[str, Any], en: bool) -> None:
    if r.get("groups"):
        table = Table(title=_t("title", en))
        for col in ("kind", "cards", "hu", "where"):
            table.add_column(_t(col, en), justify="right" if col == "hu" else "left")
        for g in r["groups"]:
            name = g["kind"] if en else g["name"]
            cards = g["cards_ascii"] if en else g["cards"]
            table.add_row(name, cards, str(g["hu"]), _t("table" if g["meld"] else "hand", en))
        table.add_row(_t("total", en), "", str(r["hu"]), "")
        console.print(table)
    if r.get("instant"):
        console.print(f"{_t('instant', en)}: {r['instant']}")
    if not r["ok"]:
        console.print(f"[bold red]{_t('not_win', en)}[/]: {r.get('error', '')}")
        return
    mults = ", ".join(f"{m['id'] if en else m['name']} ×{m['factor']}" for m in r["multipliers"]) or _t("none", en)
    console.print(f"{_t('deng', en)}: {r['deng']}   {_t('red', en)}: {r['red']}   {_t('mult', en)}: {mults}")
    if r.get("lan"):
        lan = f"烂和：没有一列有胡，按 {r['hu']} 胡计" if not en else f"烂和: no 列 has 胡; counted as {r['hu']}"
        console.print(lan)
    for note in r.get("notes", ()):  # 名堂 / 番 / 花样 modes: how the points were reached
        console.print(f"  {note}")
    table = Table()
    table.add_column(_t("seat", en))
    table.add_column(_t("points", en), justify="right")
    for seat, (pts, role) in enumerate(zip(r["points"]["seats"], r["points"]["roles"], strict=True)):
        table.add_row(f"{seat} {_ROLE[role][1 if en else 0]}", f"{pts:+d}")
    console.print(table)
    for p in r["payments"]:
        console.print(f"  {p['from']} → {p['to']}: {p['amount']}  ({p['why_en'] if en else p['why']})")
