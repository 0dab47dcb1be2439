"""The settlement explained: each 列 with its 胡, then 等 (or 番 / 名堂), the multipliers, the arithmetic, and who
pays whom.  ``daer score`` prints the calculator's result with it, and ``daer play`` / ``daer replay`` print the
end of every hand with it, from the same fields (:func:`daer.calculator.settlement_fields`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.table import Table

from daer.calculator import settlement_fields
from daer.cards import format_kinds
from daer.cli.terms import term, term_of_zh
from daer.hands import GroupKind
from daer.rules.model import Ruleset
from daer.scoring import Settlement

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
    "seat": ("座位", "seat"),
    "points": ("得分", "points"),
    "not_win": ("不能胡", "not a winning hand"),
    "instant": ("砌牌即胡", "instant win"),
    "how": ("算法", "arithmetic"),
    "pays": ("谁付谁", "who pays whom"),
    "nobody": ("没有人付钱", "nobody pays"),
}
_ROLE = {"winner": ("赢家", "winner"), "dijia": ("底家", "dijia (sits out)"), "loser": ("输家", "loser")}

SeatLabel = Callable[[int, str], str]
"""(seat, role) → the seat's name in a table of points or a payment line."""


def t(key: str, en: bool) -> str:
    """A label of the settlement in the chosen language."""
    return _T[key][1 if en else 0]


def calculator_label(en: bool) -> SeatLabel:
    """Seats as the calculator names them: ``1 输家`` / ``1 loser``."""
    return lambda seat, role: f"{seat} {_ROLE[role][1 if en else 0]}"


def print_result(console: Console, r: dict[str, Any], en: bool, label: SeatLabel | None = None) -> None:
    """A calculator result (or a finished hand in the same fields): the 列 table, then the settlement."""
    if r.get("groups"):
        print_groups(console, r["groups"], r["hu"], en)
    if r.get("instant"):
        console.print(f"{t('instant', en)}: {r['instant']}")
    if r.get("win_as"):  # 偎胡 / 提胡 / 跑胡: the winning card went where the rules force it
        how = r["win_as"]
        console.print(f"{how['name']} (the winning card made a {how['how']})" if en
                      else f"{how['name']}：胡的牌{ {'wei': '偎', 'ti': '提', 'pao': '跑'}[how['how']] }成一列")
    if not r["ok"]:
        console.print(f"[bold red]{t('not_win', en)}[/]: {r.get('error', '')}")
        return
    print_settlement(console, r, en, label)


def print_groups(console: Console, groups: list[dict[str, Any]], hu: int, en: bool) -> None:
    """Each 列 with its cards, 胡 and whether it lay on the table, then the total."""
    table = Table(title=t("title", en))
    for col in ("kind", "cards", "hu", "where"):
        table.add_column(t(col, en), justify="right" if col == "hu" else "left")
    for g in groups:
        name = term(g["kind"], "en") if en else g["name"]
        cards = g["cards_ascii"] if en else g["cards"]
        table.add_row(name, cards, str(g["hu"]), t("table" if g["meld"] else "hand", en))
    table.add_row(t("total", en), "", str(hu), "")
    console.print(table)


def arithmetic(r: dict[str, Any], en: bool) -> str:
    """胡 → 等 (or 番 / 名堂) → multipliers → amounts, on one line."""
    notes = "; ".join(r.get("notes") or ())
    if r.get("mode"):  # 名堂 / 番 / 花样: the notes already start from the 胡 and the 番
        return notes
    mults = " ".join(f"{m['id'] if en else m['name']}×{m['factor']}" for m in r["multipliers"])
    steps = [f"{r['hu']} hu" if en else f"{r['hu']}胡", f"deng {r['deng']}" if en else f"{r['deng']}等"]
    if mults:
        steps.append(mults)
    if notes:
        steps.append(("each loser pays " if en else "输家各付 ") + notes)
    return " → ".join(steps)


def print_settlement(console: Console, r: dict[str, Any], en: bool, label: SeatLabel | None = None) -> None:
    """等 / red / multipliers, the arithmetic, each seat's points and every payment with its reason."""
    label = label or calculator_label(en)
    if r.get("deng") is not None and r.get("ok", True):
        mults = ", ".join(f"{m['id'] if en else m['name']} ×{m['factor']}" for m in r["multipliers"]) \
            or t("none", en)
        console.print(f"{t('deng', en)}: {r['deng']}   {t('red', en)}: {r['red']}   {t('mult', en)}: {mults}")
        if r.get("lan"):
            console.print(f"烂和：没有一列有胡，按 {r['hu']} 胡计" if not en
                          else f"lan he (烂和): no group has hu; counted as {r['hu']}")
        if line := arithmetic(r, en):
            console.print(f"{t('how', en)}: {line}", highlight=False)
    elif r.get("notes"):  # no win: what the notes say (包牌 offenders and their amount)
        console.print(f"{t('how', en)}: {'; '.join(r['notes'])}", highlight=False)
    points = r.get("points")
    if points is None:
        return
    unit = f" {r['unit']}" if r.get("unit") else ""  # money play: amounts in 元 (2.5 元)
    table = Table()
    table.add_column(t("seat", en))
    table.add_column(t("points", en) + (f" ({r['unit']})" if unit else ""), justify="right")
    for seat, (pts, role) in enumerate(zip(points["seats"], points["roles"], strict=True)):
        table.add_row(label(seat, role), f"{pts:+d}" if isinstance(pts, int) else f"{pts:+}")
    console.print(table)
    console.print(f"{t('pays', en)}:" if r["payments"] else f"{t('pays', en)}: {t('nobody', en)}")
    for p in r["payments"]:
        payer = label(p["from"], points["roles"][p["from"]])
        payee = label(p["to"], points["roles"][p["to"]])
        console.print(f"  {payer} → {payee}: {p['amount']}{unit}  ({p['why_en'] if en else p['why']})", highlight=False)


_KIND_OF_ZH = {k.zh: k for k in GroupKind}


def hand_result(
    rules: Ruleset,
    settlement: Settlement,
    *,
    hu: int,
    red: int,
    groups: tuple[tuple[str, tuple[int, ...], int], ...],
    table_melds: tuple[tuple[int, ...], ...] = (),
    instant: str = "",
) -> dict[str, Any]:
    """A finished hand as the calculator's result fields, ready for :func:`print_result`.

    ``groups`` are the winner's 列 as the engine's result holds them (shape, kinds, 胡); ``table_melds`` the
    kinds of the winner's table melds, to mark which 列 lay on the table.
    """
    left = [tuple(sorted(m)) for m in table_melds]
    out_groups = []
    for zh, kinds, g_hu in groups:
        key = tuple(sorted(kinds))
        meld = key in left
        if meld:
            left.remove(key)
        kind = _KIND_OF_ZH.get(zh)
        out_groups.append({
            "kind": kind.value if kind is not None else zh,
            "name": zh if kind is not None else term_of_zh(zh, "zh"),
            "cards": format_kinds(kinds),
            "cards_ascii": format_kinds(kinds, ascii=True),
            "hu": g_hu,
            "meld": meld,
        })
    won = settlement.winner is not None
    out: dict[str, Any] = {"ok": won, "hu": hu, "red": red, "groups": out_groups if won else []}
    if instant:
        out["instant"] = instant
    out.update(settlement_fields(rules, settlement, notes=True))
    if not won:
        out["deng"] = None
    return out
