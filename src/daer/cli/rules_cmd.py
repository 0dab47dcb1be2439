"""``daer rules list`` and ``daer rules show NAME``."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import msgspec
import typer
from rich.console import Console
from rich.table import Table

from daer.cli.options import check_lang
from daer.rules import RulesError, find_rules, preset_names, resolve_rules
from daer.rules.model import Ruleset

app = typer.Typer(help="规则 — list and show rulesets.", no_args_is_help=True)

LABELS_ZH = {
    "table": "牌桌",
    "seats": "座位",
    "players": "打牌人数",
    "dijia": "有底家",
    "dealer_cards": "庄家张数",
    "other_cards": "闲家张数",
    "show_bottom_card": "底牌示众",
    "swap_red_bottom": "红底牌换",
    "dead_cards": "底下翻起不用的张数",
    "hu": "计胡",
    "peng": "碰 (乌小/红小/乌大/红大)",
    "kan": "坎",
    "zhao": "招",
    "long": "垅",
    "small_123": "一二三",
    "small_2710": "二七十",
    "big_123": "壹贰叁",
    "big_2710": "贰柒拾",
    "win": "胡牌",
    "groups": "列数",
    "min_hu": "最少胡数",
    "pair_with_quad": "有招垅要将",
    "lan_hu": "烂和计胡 (0=不用)",
    "instant_longs": "砌牌几垅即胡 (0=不用)",
    "instant_kans": "砌牌几坎即胡 (0=不用)",
    "play": "打法",
    "chi": "可吃",
    "peng_mandatory": "有碰必碰",
    "zhao_mandatory": "有招必招",
    "zhao_on_own_draw": "自己摸的可招",
    "guo_zhang": "过张",
    "bi_pai": "比牌",
    "ba_kuai": "八块不出牌",
    "scoring": "计分",
    "mode": "方式 (deng 算等 / money 付钱)",
    "deng": "算等",
    "start": "起等胡数",
    "step": "每等胡数",
    "min_points": "最少计分",
    "dijia_share": "底家得分",
    "red_threshold": "红的张数",
    "red": "红 番",
    "black": "乌 番",
    "tianhu": "天胡 番",
    "dihu": "地胡 番",
    "huang": "黄牌付底家",
    "money": "付钱",
    "first": "首项",
    "di_qian": "底钱",
    "unit": "基数",
    "dealer_rule": "坐庄 (winner 赢家坐庄 / rotate 轮庄 / keep 稳庄)",
    "winds": "圈风牌",
    "wind_turns": "每风几个庄",
    "match_hands": "一场几个庄 (0=不限)",
    "on_discard": "可胡别人打的牌",
    "wei": "偎",
    "ti": "提",
    "pao": "跑",
    "bao": "报牌",
    "tianhu_self_drawn": "天胡为自摸",
    "bi_jiao": "绞也要比",
    "chi_next_reveal": "下家可吃翻出的牌",
    "chou_wei": "臭偎 (明偎)",
    "wei_hidden": "偎扣着放",
    "round_down": "满一档才进等",
    "patterns": "名堂 / 番 / 花样",
    "mingtang": "名堂计分",
    "cap": "最高番",
    "pinghu": "平胡番",
    "pinghu_high": "平胡高番",
    "pinghu_high_at": "平胡高番起胡",
    "points": "番→每家分",
    "fan": "番 (胡×2^番)",
    "cap_hu": "封顶胡数",
    "caitou_start": "一个彩头的胡数",
    "caitou_step": "每个彩头胡数",
    "dealer_double": "庄家双倍",
    "penalty": "包牌彩头",
    "huayang": "花样",
    "self_drawn_deng": "自摸加等",
    "haidi_alone": "平胡海底番",
}

PATH_LABELS_ZH = {
    "scoring.mingtang.dijia": "番→底家分",
    "scoring.fan.huang": "黄牌付歇底",
    "penalty": "包牌",
    "penalty.unmade_peng": "没人胡时未碰要包牌",
    "penalty.unmade_zhao": "没人胡时未招要包牌",
    "scoring.deng.penalty": "包牌付每家分",
    "scoring.money.penalty": "包牌付每家几倍底钱",
    "scoring.mode": "方式 (deng 算等 / money 付钱 / mingtang 名堂 / fan 番 / huayang 花样)",
}
"""Labels of options whose leaf name means something else elsewhere."""


def _label(path: str, key: str) -> str:
    if path in PATH_LABELS_ZH:
        return PATH_LABELS_ZH[path]
    if path.startswith("scoring.patterns."):
        from daer.mingtang import PATTERNS  # noqa: PLC0415 — only needed to label 名堂

        return f"{PATTERNS[key].zh} 番" if key in PATTERNS else key
    return LABELS_ZH.get(key, key)


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "是" if value else "否"
    if isinstance(value, list | tuple):
        return " / ".join(str(v) for v in value)
    return str(value)


def _rows(data: dict[str, Any], prefix: str, en: bool, table: Table) -> None:
    for key, value in data.items():
        if key in ("name", "title_zh", "title_en", "description_zh", "description_en"):
            continue
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            table.add_row(f"[bold]{key if en else _label(path, key)}[/]", "", path)
            _rows(value, f"{path}.", en, table)
        else:
            label = key if en else _label(path, key)
            shown = str(value).lower() if en and isinstance(value, bool) else _fmt(value)
            table.add_row(f"  {label}", shown, path)


def show_table(rules: Ruleset, en: bool) -> Table:
    """A table of every option of a ruleset, labelled in Chinese (or English)."""
    table = Table(title=f"{rules.title_en if en else rules.title_zh} ({rules.name})")
    table.add_column("option" if en else "选项")
    table.add_column("value" if en else "值")
    table.add_column("key" if en else "键名")
    _rows(msgspec.to_builtins(rules), "", en, table)
    return table


@app.command("list")
def list_rules(lang: Annotated[str, typer.Option(help="zh or en", callback=check_lang)] = "zh") -> None:
    """列出规则 — list the shipped rulesets."""
    en = lang == "en"
    table = Table()
    table.add_column("name")
    table.add_column("title" if en else "名称")
    table.add_column("description" if en else "说明")
    for name in preset_names():
        r = find_rules(name)
        table.add_row(name, r.title_en if en else r.title_zh, r.description_en if en else r.description_zh)
    Console().print(table)


@app.command("show")
def show(
    name: Annotated[str, typer.Argument(help="ruleset name or house-rule .toml")],
    lang: Annotated[str, typer.Option(help="zh or en", callback=check_lang)] = "zh",
) -> None:
    """显示规则 — show every option of a ruleset."""
    try:
        rules = resolve_rules(name)
    except RulesError as exc:
        print(f"daer rules: {exc}", file=sys.stderr)
        raise typer.Exit(2) from None
    console = Console()
    en = lang == "en"
    console.print(rules.description_en if en else rules.description_zh)
    console.print(show_table(rules, en))
