"""The general calculator: a request checked (:func:`parse_request`) and scored (:func:`score_request`).

A request is what a player at a real table knows: the ruleset, the concealed
cards, the 列 on the table and the winning card.  The result names every 列
with its 胡, every multiplier, and every payment.  :func:`daer.calculator.score`
puts this behind the batch path's fast lane (:mod:`daer.calculator.batch`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from daer.calculator.fields import settlement_fields
from daer.cards import NotationError, format_kinds, is_red, kind_ascii, kind_char, parse_kinds, to_counts
from daer.hands import HOW_ZH, Arrival, Evaluation, Meld, MeldError, MeldKind, evaluate_win, instant_win, waits
from daer.hands.analysis import all_kinds, check_cards
from daer.mingtang import Win, best_win, settle_instant
from daer.rules import RulesError, Ruleset, resolve_rules
from daer.scoring import WinFlags, settle

REQUEST_FIELDS = frozenset(
    {"rules", "options", "hand", "melds", "win", "tianhu", "dihu", "haidi", "seat", "dealer", "lang",
     "huilong", "bao", "wind", "notes"}
)


class RequestError(ValueError):
    """A request the calculator cannot understand (bad card, bad meld, bad field)."""


@dataclass(frozen=True, slots=True)
class Request:
    """A checked calculator request."""

    rules: Ruleset
    hand: tuple[int, ...]
    melds: tuple[Meld, ...]
    win: int | None
    flags: WinFlags
    seat: int
    dealer: int
    wind: int | None = None
    """圈风 card (隆昌/古蔺), when given."""
    notes: bool = False
    """The arithmetic of the payment in every scoring mode (always given under 名堂 / 番 / 花样)."""
    arrival: Arrival | None = None
    """How the winning card came (``win.from``): ``self``, ``other`` (another's reveal) or ``discard``."""


def _cards(value: Any, what: str) -> list[int]:
    if not isinstance(value, str):
        raise RequestError(f"{what} 应是牌的字符串 must be a card string, got {type(value).__name__}")
    try:
        return parse_kinds(value)
    except NotationError as exc:
        raise RequestError(f"{what}: {exc}") from None


def _bool(data: Mapping[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise RequestError(f"{key} 应是 true/false must be a boolean")
    return value


def _seat(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 3:
        raise RequestError(f"{key} 应是 0-3 的座位号 must be a seat number 0-3")
    return value


def parse_request(data: Any) -> Request:
    """Check a JSON request; raises :class:`RequestError` with a message naming what is wrong."""
    if not isinstance(data, Mapping):
        raise RequestError("请求应是 JSON 对象 a request must be a JSON object")
    unknown = sorted(set(data) - REQUEST_FIELDS)
    if unknown:
        raise RequestError(f"未知字段 unknown field(s): {', '.join(unknown)}")
    rules_name = data.get("rules", "luzhou")
    options = data.get("options", {})
    if not isinstance(rules_name, str) or not isinstance(options, Mapping):
        raise RequestError("rules 应是规则名, options 应是对象 rules must be a name and options an object")
    try:
        rules = resolve_rules(rules_name, options)
    except RulesError as exc:
        raise RequestError(str(exc)) from None
    if "hand" not in data:
        raise RequestError("缺少手牌 missing field: hand")
    hand = _cards(data["hand"], "hand")
    melds_raw = data.get("melds", [])
    if not isinstance(melds_raw, list):
        raise RequestError("melds 应是数组 melds must be a list")
    melds = []
    for i, m in enumerate(melds_raw):
        if not isinstance(m, Mapping) or set(m) - {"kind", "cards"} or "kind" not in m:
            raise RequestError(f"melds[{i}] 应是 {{\"kind\", \"cards\"}} must be an object with kind and cards")
        try:
            kind = MeldKind(m["kind"])
        except ValueError:
            raise RequestError(
                f"melds[{i}]: 未知的牌组 unknown meld kind {m['kind']!r} ({', '.join(k.value for k in MeldKind)})"
            ) from None
        try:
            melds.append(Meld(kind, tuple(_cards(m.get("cards"), f"melds[{i}]"))))
        except MeldError as exc:
            raise RequestError(f"melds[{i}]: {exc}") from None
    win_card: int | None = None
    arrival: Arrival | None = None
    win = data.get("win")
    if win is not None:
        if not isinstance(win, Mapping) or set(win) - {"card", "from"} or "card" not in win:
            raise RequestError('win 应是 {"card": "…", "from": "self"|"other"|"discard"} must be an object')
        kinds = _cards(win["card"], "win.card")
        if len(kinds) != 1:
            raise RequestError(f"胡的牌应是一张 win.card must be one card, got {len(kinds)}")
        win_card = kinds[0]
        source = win.get("from", "other")
        if source == "self":
            arrival = "self"
        elif source == "other":
            arrival = "other"
        elif source == "discard":
            arrival = "discard"
        else:
            raise RequestError(f"win.from 应是 self、other 或 discard (self, other or discard), not {source!r}")
        if arrival == "discard" and not rules.win.on_discard:
            raise RequestError("这套规则不能胡别人打出的牌 (under these rules a win is only on a card revealed "
                               "from the stock)")
    self_drawn = arrival == "self"
    tianhu = _bool(data, "tianhu")
    flags = WinFlags(
        tianhu=tianhu, dihu=_bool(data, "dihu"), haidi=_bool(data, "haidi"),
        self_drawn=self_drawn or (tianhu and rules.win.tianhu_self_drawn),  # 天胡为自摸
        huilong=_bool(data, "huilong"), bao=_bool(data, "bao"),
    )
    wind: int | None = None
    if data.get("wind") is not None:
        winds = _cards(data["wind"], "wind")
        if len(winds) != 1:
            raise RequestError(f"圈风应是一张牌 wind must be one card, got {len(winds)}")
        wind = winds[0]
    mt, counts = tuple(melds), to_counts(hand)
    try:
        check_cards(counts, mt, win_card)
    except NotationError as exc:
        raise RequestError(str(exc)) from None
    return Request(rules, counts, mt, win_card, flags, _seat(data, "seat"), _seat(data, "dealer"), wind,
                   _bool(data, "notes"), arrival)


def _group_json(ev: Evaluation) -> list[dict[str, Any]]:
    return [
        {
            "kind": g.kind.value,
            "name": g.kind.zh,
            "cards": format_kinds(g.cards),
            "cards_ascii": format_kinds(g.cards, ascii=True),
            "hu": g.hu,
            "meld": g.meld,
        }
        for g in ev.groups
    ]


def score_request(req: Request) -> dict[str, Any]:
    """Evaluate and settle a checked request (``req.notes``: the arithmetic of 等 play too, for people)."""
    rules = req.rules
    ev, _shape = evaluate_win(rules, req.hand, req.melds, req.win, req.arrival)
    red = sum(n for k, n in enumerate(all_kinds(req.hand, req.melds, req.win)) if is_red(k))
    out: dict[str, Any] = {"complete": ev.complete, "ok": False, "hu": None, "red": red, "groups": []}
    hu: int | None = None
    won: Win | None = None
    if ev.complete:
        hu = ev.hu
        out["groups"] = _group_json(ev)
        try:
            won = best_win(rules, req.hand, req.melds, req.win, winner=req.seat, dealer=req.dealer,
                           flags=req.flags, wind=req.wind, arrival=req.arrival)
        except ValueError as exc:
            out["error"] = str(exc)
            out.update(hu=hu, deng=None, multipliers=[], points=None, payments=[])
            return out
        if won is None:
            out["error"] = f"胡数不够：{hu} 胡，至少要 {rules.win.min_hu} 胡 (only {hu} 胡; {rules.win.min_hu} needed)"
        else:
            out["ok"] = True
            hu = won.hu
            out["groups"] = _group_json(Evaluation(True, hu, won.groups))
            if won.lan:
                out["lan"] = True
            if won.how:  # 偎胡 / 提胡 / 跑胡: the winning card went where it must
                out["win_as"] = {"how": won.how, "name": HOW_ZH[won.how]}
    else:
        out["error"] = ev.reason
        inst = instant_win(rules, req.hand) if req.win is None and not req.melds else None
        if inst is not None:
            name, hu, groups = inst
            out.update(ok=True, instant=name, groups=_group_json(Evaluation(True, hu, groups)))
            out.pop("error")
            try:  # every card of the dealt hand counts for 红/乌/黑, the loose ones too
                won = Win(hu, groups, settle_instant(rules, req.hand, groups, hu, winner=req.seat,
                                                     dealer=req.dealer, flags=req.flags, wind=req.wind))
            except ValueError as exc:
                out.update(ok=False, error=str(exc))
    out["hu"] = hu
    out["deng"] = None
    out["multipliers"] = []
    out["points"] = None
    out["payments"] = []
    if out["ok"] and hu is not None:
        if won is not None:
            s = won.settlement
        else:
            try:
                s = settle(rules, hu=hu, red=red, winner=req.seat, dealer=req.dealer, flags=req.flags)
            except ValueError as exc:
                out["ok"] = False
                out["error"] = str(exc)
                return out
        out.update(settlement_fields(rules, s, notes=req.notes))
    if req.win is None and not out["ok"]:
        out["waits"] = [
            {"card": kind_char(w.kind), "card_ascii": kind_ascii(w.kind), "hu": w.hu}
            for w in waits(rules, req.hand, req.melds)
        ]
    return out
