"""Text rendering of a view for the terminal (Chinese first, ``lang="en"`` for English words and ASCII cards).

Everything here reads one seat's :class:`~daer.engine.View` (and, once a hand is over, its public settlement):
never another seat's concealed cards.
"""

from __future__ import annotations

import io

from rich.cells import cell_len
from rich.console import Console

from daer.cards import COPIES, N_KINDS, format_kinds, kind_of
from daer.cli.explain import hand_result, print_result, print_settlement
from daer.cli.terms import BI_EN, BI_ZH, INSTANT_EN, term
from daer.engine.actions import Action, Bao, Chi, Discard, Hu, Pass, Peng, Zhao
from daer.engine.events import Claimed, Declared, Discarded, Event, FaceDown, LongDeclared, NotTaken, Revealed
from daer.engine.views import View
from daer.hands import Meld, MeldKind, waits
from daer.rules.model import Ruleset
from daer.scoring import Settlement

_SMALL_2710 = (1, 6, 9)
"""Kinds of 二 七 十 (the red run); 贰 柒 拾 are these + 10."""


def fmt(kinds: list[int] | tuple[int, ...], lang: str) -> str:
    """Cards in the chosen notation: ``一二三`` or ``x1 x2 x3``."""
    return format_kinds(kinds, ascii=True) if lang == "en" else format_kinds(kinds)


def _counts(hand: tuple[int, ...]) -> list[int]:
    c = [0] * N_KINDS
    for cid in hand:
        c[kind_of(cid)] += 1
    return c


def _single_groups(kinds: list[int]) -> list[list[int]]:
    """Singles of one size as a player lays them out: runs together (一二三 五 七), 二七十 together."""
    rest = sorted(kinds)
    out: list[list[int]] = []
    base = 10 if rest and rest[0] >= 10 else 0
    red = [base + k for k in _SMALL_2710]
    if all(k in rest for k in red) and not any(k + d in rest for k in red for d in (-1, 1) if k + d not in red):
        out.append(red)
        rest = [k for k in rest if k not in red]
    run: list[int] = []
    for k in rest:
        if run and k != run[-1] + 1:
            out.append(run)
            run = []
        run.append(k)
    if run:
        out.append(run)
    return sorted(out, key=lambda g: g[0])


def hand_groups(hand: tuple[int, ...]) -> list[list[int]]:
    """The concealed hand sorted and grouped: 垅 and 坎 first, then pairs, then singles in runs, small before big."""
    c = _counts(hand)
    groups: list[list[int]] = []
    for n in (4, 3, 2):
        groups += [[k] * n for k in range(N_KINDS) if c[k] == n]
    groups += _single_groups([k for k in range(10) if c[k] == 1])
    groups += _single_groups([k for k in range(10, N_KINDS) if c[k] == 1])
    return groups


def grouped_hand(hand: tuple[int, ...], lang: str) -> str:
    """``一一一  五五  一二三  五  七`` / ``x1 x1 x1  x5 x5  x1 x2 x3  x5  x7``."""
    return "  ".join(fmt(g, lang) for g in hand_groups(hand))


def seat_name(view: View, seat: int, lang: str) -> str:
    """``2号位(庄)`` / ``seat 2 (dealer)``."""
    tags = []
    if seat == view.dealer:
        tags.append(term("dealer", lang))
    if seat == view.dijia:
        tags.append(term("dijia", lang) if lang != "en" else "dijia")
    if seat == view.seat:
        tags.append(term("you", lang))
    if lang == "en":
        return f"seat {seat}" + (f" ({', '.join(tags)})" if tags else "")
    return f"{seat}号位" + (f"({','.join(tags)})" if tags else "")


def meld_text(kind: str, kinds: tuple[int, ...], lang: str, rules: Ruleset | None = None) -> str:
    """``碰玖玖玖`` / ``pong d9 d9 d9`` (with ``rules``, in the ruleset's words: 跑 for 招 in 跑胡子)."""
    word = term(kind, lang, rules)
    return f"{word} {fmt(kinds, lang)}" if lang == "en" else f"{word}{fmt(kinds, lang)}"


DOWN_ZH, DOWN_EN = "(扣)", " (face down)"
"""Mark of one's own face-down meld (跑胡子's 偎: the others see only its backs)."""


def face_down_text(kind: str, n: int, lang: str) -> str:
    """Another seat's face-down meld (跑胡子's 偎): ``偎(扣3张)`` / ``wei (3 face down)``."""
    return f"{term(kind, lang)} ({n} face down)" if lang == "en" else f"{term(kind, lang)}(扣{n}张)"


def wrap_items(head: str, items: list[str], width: int, *, sep: str = "  ", indent: int = 6) -> list[str]:
    """``head`` then ``items`` on as few lines as fit ``width`` cells, breaking only between items."""
    lines, line = [], head
    for item in items:
        if line.strip() and cell_len(line) + cell_len(sep) + cell_len(item) > width and line != head:
            lines.append(line + sep.rstrip())
            line = " " * indent + item
        else:
            line = line + (sep if line != head and line.strip() else "") + item
    lines.append(line.rstrip())
    return lines


def render_view(view: View, *, lang: str = "zh", width: int = 80, rules: Ruleset | None = None) -> str:
    """The table as seen by the view's seat: stock, every seat (the 底家 too), the card on offer, the hand.

    Lines break between melds and between groups of cards, never inside one, to fit ``width`` cells.
    """
    en = lang == "en"
    lines = []
    shown = view.bottoms or ((view.bottom,) if view.bottom is not None else ())
    bottom = fmt(list(shown), lang) if shown else "-"  # 隆昌: two dead bottom cards
    if view.dead:  # 隆昌: the bottom cards are turned up and never played
        lines.append(f"stock {view.stock} · dead bottom cards {bottom} (out of play)" if en
                     else f"墩 {view.stock} · 底牌 {bottom}（翻开不用）")
    else:
        lines.append(f"stock {view.stock} · bottom card {bottom}" if en else f"墩 {view.stock} · 底牌 {bottom}")
    for seat in view.players:
        head = f"  {seat_name(view, seat, lang)}: " + (
            f"{view.hand_sizes[seat]} cards" if en else f"{view.hand_sizes[seat]}张")
        melds = [(meld_text(m.kind, m.kinds, lang, rules) + (DOWN_EN if en else DOWN_ZH) * bool(m.down)) if m.kinds
                 else face_down_text(m.kind, m.down, lang) for m in view.melds[seat]]
        if melds:
            melds[0] = "| " + melds[0]
        lines += wrap_items(head + " ", melds, width, sep=", " if en else "  ")
        disc = [fmt([k], lang) for s, k in view.discards if s == seat]
        if disc:
            lines += wrap_items("      " + ("discards: " if en else "弃牌："), disc, width, sep=" " if en else "")
    if view.dijia is not None:
        sits = "sits this hand out: plays no card, pays nothing, is paid" if en else "这手坐底：不打牌、不付钱，只收钱"
        lines.append(f"  {seat_name(view, view.dijia, lang)}: {sits}")
    if view.offer is not None and view.phase == "claim":
        lines.append(offer_text(view, lang))
    if view.seat is not None and view.hand:
        groups = [fmt(g, lang) for g in hand_groups(view.hand)]
        lines += wrap_items("your hand: " if en else "你的手牌：", groups, width, indent=11 if en else 10)
        if view.guo:
            lines.append(f"passed (过张): {fmt(view.guo, lang)} — no chow or pong of these again this hand" if en
                         else f"过张：{fmt(view.guo, lang)}（这手不能再吃、碰）")
    return "\n".join(lines)


def offer_text(view: View, lang: str) -> str:
    """``桌上的牌：肆（3号位打出）`` / ``on offer: d4 (discarded by seat 3)``."""
    assert view.offer is not None
    rev = view.offer.source == "reveal"
    card, owner = fmt([view.offer.kind], lang), view.offer.owner
    if lang == "en":
        by = "you" if owner == view.seat else f"seat {owner}"
        return f"on offer: {card} ({'revealed' if rev else 'discarded'} by {by})"
    by = "你" if owner == view.seat else f"{owner}号位"
    return f"桌上的牌：{card}（{by}{'翻出' if rev else '打出'}）"


def turn_line(view: View, lang: str) -> str:
    """Whose turn it is, or whom the table waits for (without saying who could claim: that is hidden)."""
    en = lang == "en"
    if view.phase == "over":
        return "the hand is over" if en else "这手结束"
    if view.phase == "discard":
        if view.actor == view.seat:
            return ">> your turn: discard a card" if en else ">> 轮到你出牌：打一张"
        return f">> seat {view.actor} to discard" if en else f">> 轮到{view.actor}号位出牌"
    if view.offer is None:  # 3垅 / 5坎 in the dealt hand: the win may be taken or declined (可以直接胡牌)
        if view.to_act:
            return (">> your call: your dealt hand is an instant win — take it (hu) or play on (pass)" if en
                    else ">> 轮到你：砌牌就能胡（3垅/5坎），胡还是过")
        return (">> waiting for a player to take or decline an instant win" if en
                else ">> 等其他家决定胡不胡（砌牌即胡）")
    card = fmt([view.offer.kind], lang)
    if view.to_act:
        return f">> your call: take {card} or pass" if en else f">> 轮到你：要不要 {card}"
    return f">> waiting for the others to take or pass {card}" if en else f">> 等其他家决定要不要 {card}"


def unseen(view: View) -> list[int]:
    """Copies of each kind the seat has not seen: not in its hand, on the table, in the discards, on offer or dead."""
    left = [COPIES] * N_KINDS
    seen = [kind_of(c) for c in view.hand] + [k for _, k in view.discards]
    seen += [k for seat in view.melds for m in seat for k in m.kinds]
    if view.offer is not None:
        seen.append(view.offer.kind)
    if view.dead:  # 隆昌's dead bottom cards are never played
        seen += list(view.bottoms)
    for k in seen:
        left[k] -= 1
    return [max(0, n) for n in left]


def _waits_of(view: View, rules: Ruleset, counts: list[int], left: list[int], lang: str) -> list[str]:
    """``十(15胡·剩2)`` for each winning kind: its 胡 and how many copies the seat has not seen yet."""
    assert view.seat is not None
    melds = tuple(Meld(MeldKind(m.kind), m.kinds) for m in view.melds[view.seat])
    out = []
    for w in waits(rules, tuple(counts), melds):
        if w.hu < rules.win.min_hu:
            continue
        n = left[w.kind]
        if lang == "en":
            out.append(f"{fmt([w.kind], lang)} ({w.hu} hu, {n or 'none'} left)")
        else:
            out.append(f"{fmt([w.kind], lang)}({w.hu}胡·{f'剩{n}' if n else '没了'})")
    return out


def waits_line(view: View, rules: Ruleset, lang: str, width: int = 80) -> str:
    """叫牌 with their 胡 when the seat is one card short (or, at its discard, after each discard that leaves it so).

    Each winning card says how many copies are still unseen (none: a dead wait).  Several lines when needed,
    broken between items, to fit ``width`` cells.
    """
    if view.seat is None or view.phase == "over":
        return ""
    counts = _counts(view.hand)
    left = unseen(view)
    if view.phase == "discard" and view.actor == view.seat and view.to_act:
        out: list[str] = []  # "打 捌 → 叁(…)" then each further wait: lines break between waits
        for kind in sorted({a.kind for a in view.legal if isinstance(a, Discard | Bao)}):
            counts[kind] -= 1
            if ws := _waits_of(view, rules, counts, left, lang):
                if out:
                    out[-1] += ";"
                out += [f"{fmt([kind], lang)} → {ws[0]}", *ws[1:]]
            counts[kind] += 1
        if not out:
            return ""
        head = "waits after discarding: " if lang == "en" else "叫牌提示：打 "
        return "\n".join(wrap_items(head, out, width, sep=" ", indent=4))
    ws = _waits_of(view, rules, counts, left, lang)
    if not ws:
        return ""
    return "\n".join(wrap_items("you are waiting for (叫牌): " if lang == "en" else "叫牌：", ws, width,
                                sep=" ", indent=4))


def action_text(action: Action, lang: str, card: int | None = None, rules: Ruleset | None = None) -> str:
    """One choice in words: ``碰 捌捌捌`` / ``pong d8 d8 d8``; ``card`` is the kind on offer."""
    en = lang == "en"
    if isinstance(action, Discard):
        return f"discard {fmt([action.kind], lang)}" if en else f"打 {fmt([action.kind], lang)}"
    if isinstance(action, Bao):
        return (f"declare ready (报牌), discard {fmt([action.kind], lang)}" if en
                else f"报牌 打 {fmt([action.kind], lang)}")
    if isinstance(action, Pass):
        return "pass" if en else "过"
    if isinstance(action, Hu):
        if card is None:
            return "hu (win now)" if en else "胡"
        return f"hu (win) on {fmt([card], lang)}" if en else f"胡 {fmt([card], lang)}"
    if isinstance(action, Zhao | Peng):
        n, key = (4, "zhao") if isinstance(action, Zhao) else (3, "peng")
        return f"{term(key, lang, rules)} {fmt([card] * n, lang)}" if card is not None else term(key, lang, rules)
    assert isinstance(action, Chi)
    main = sorted([*action.hand, *([card] if card is not None else [])])
    text = f"{term('chi', lang)} {fmt(main, lang)}"
    if action.bi:
        sep = " + " if en else " "
        text += f"{sep}{term('bi', lang)} " + (", " if en else " ").join(fmt(g, lang) for g in action.bi)
    return text


def action_menu(view: View, lang: str, rules: Ruleset | None = None) -> list[str]:
    """The legal actions as short numbered choices."""
    card = view.offer.kind if view.offer is not None else None
    out = []
    for i, a in enumerate(view.legal, 1):
        text = action_text(a, lang, card, rules)
        if isinstance(a, Hu) and card is None:  # a win on the dealt hand
            instant = view.phase == "claim"
            text = ("hu: instant win (砌牌即胡)" if instant else "hu: heavenly hand (天胡)") if lang == "en" \
                else ("胡（砌牌即胡）" if instant else "胡（天胡）")
        out.append(f"{i}. {text}")
    return out


def menu_lines(items: list[str], width: int) -> list[str]:
    """Choices laid out in columns that fit ``width`` terminal cells: no choice is ever split over two lines.

    Every column is as wide as the widest choice; the numbers run along the rows (1 2 3 / 4 5 6).
    """
    if not items:
        return []
    gap = 2
    cell = max(cell_len(s) for s in items)
    per_row = max(1, (width + gap) // (cell + gap))
    lines = []
    for i in range(0, len(items), per_row):
        row = items[i:i + per_row]
        padded = [s + " " * (cell - cell_len(s)) for s in row[:-1]] + [row[-1]]
        lines.append((" " * gap).join(padded))
    return lines


def bi_note(view: View, lang: str) -> str:
    """The explanation of 比, for the first menu that carries one."""
    if not any(isinstance(a, Chi) and a.bi for a in view.legal):
        return ""
    return BI_EN if lang == "en" else BI_ZH


def narrate(ev: Event, lang: str, me: int | None = None, rules: Ruleset | None = None) -> str:
    """One public event in words ('' for events not worth a line); seat ``me`` is called 你 / you."""
    en = lang == "en"

    def who(seat: int) -> str:
        if seat == me:
            return "you" if en else "你"
        return f"seat {seat}" if en else f"{seat}号位"

    def does(seat: int, verb: str) -> str:  # English: "you discard" / "seat 1 discards"
        return f"{who(seat)} {verb if seat == me else verb + 's'}"

    if isinstance(ev, Discarded):
        card = fmt([ev.kind], lang)
        return f"{does(ev.seat, 'discard')} {card}" if en else f"{who(ev.seat)}打出 {card}"
    if isinstance(ev, Revealed):
        card = fmt([ev.kind], lang)
        return f"{does(ev.seat, 'reveal')} {card} ({ev.left} left)" if en else \
            f"{who(ev.seat)}翻牌 {card}（墩剩{ev.left}）"
    if isinstance(ev, Claimed):
        main, *bi = [fmt(list(m), lang) for m in ev.melds]
        text = f"{term(ev.how, lang, rules)} {main}"
        if bi and ev.how == "chi":  # the 比 laid down with the 吃
            text += (" + " if en else " ") + f"{term('bi', lang)} " + (", " if en else " ").join(bi)
        elif bi:
            text += (", " if en else " ") + (", " if en else " ").join(bi)
        return f"{who(ev.seat)}: {text}" if en else f"{who(ev.seat)}{text}"
    if isinstance(ev, LongDeclared):
        cards = fmt([ev.kind] * 4, lang)
        return f"{does(ev.seat, 'lay')} down a dealt kong (垅) {cards}" if en else f"{who(ev.seat)}亮垅 {cards}"
    if isinstance(ev, FaceDown):  # another seat's face-down 偎 (跑胡子)
        if ev.how == "draw":
            return f"{does(ev.seat, 'draw')} a card face down ({ev.left} left)" if en else \
                f"{who(ev.seat)}摸了一张扣着的牌（墩剩{ev.left}）"
        return f"{does(ev.seat, 'lay')} a wei face down" if en else f"{who(ev.seat)}偎了一坎（扣着）"
    if isinstance(ev, Declared):
        return f"{does(ev.seat, 'declare')} ready (报牌)" if en else f"{who(ev.seat)}报牌"
    if isinstance(ev, NotTaken):
        card = fmt([ev.kind], lang)
        return f"nobody takes {card}" if en else f"没人要 {card}"
    return ""


def beaten_line(mine: Action, taken: Claimed, lang: str) -> str:
    """Why the player's 吃/碰/招 did not happen: another seat's claim came first.

    Claims go by 胡 > 招 > 碰 > 吃; between equals, the revealer first, then the nearest seat.
    """
    key = "chi" if isinstance(mine, Chi) else "zhao" if isinstance(mine, Zhao) else "peng"
    if lang == "en":
        return (f"(seat {taken.seat}'s {term(taken.how, lang)} comes before your {term(key, lang)}: "
                "hu > kong > pong > chow, then the nearest seat)")
    return (f"（{taken.seat}号位的{term(taken.how, lang)}优先，你的{term(key, lang)}没有成："
            "胡 > 招 > 碰 > 吃，同级先近家）")


_FLAG = {
    "tianhu": ("天胡", "heavenly hand (天胡)"), "dihu": ("地胡", "earthly hand (地胡)"),
    "haidi": ("海底", "last card (海底)"), "self_drawn": ("自摸", "self-drawn (自摸)"),
    "huilong": ("回龙", "huilong (回龙)"), "bao": ("报牌", "declared ready (报牌)"), "lan": ("烂和", "lan he (烂和)"),
}


def print_hand_end(console: Console, view: View, settlement: Settlement, rules: Ruleset, lang: str) -> None:
    """The end of a hand as ``daer score`` explains a hand: who won and how, each 列, 等 / 番, who pays whom."""
    r = view.result
    assert r is not None
    en = lang == "en"

    def label(seat: int, _role: str) -> str:
        return seat_name(view, seat, lang)

    if r.winner is None:
        console.print("Draw (黄牌): the stock ran out and nobody won." if en else "黄牌：墩翻完了，没有人胡。")
        fields = hand_result(rules, settlement, hu=0, red=0, groups=())
        print_settlement(console, fields, en, label)
        return
    how = [_FLAG[f][1 if en else 0] for f in r.flags if f in _FLAG]
    head = (f"{seat_name(view, r.winner, lang)} wins" if en else f"{seat_name(view, r.winner, lang)}胡了")
    name = INSTANT_EN.get(r.name, r.name) if en else r.name
    if name:
        head += f" ({name})" if en else f"（{name}）"
    if r.win_kind is not None:
        head += f" on {fmt([r.win_kind], lang)}" if en else f"，胡 {fmt([r.win_kind], lang)}"
    if how:
        head += f" [{', '.join(how)}]" if en else f"（{'、'.join(how)}）"
    console.print(head, highlight=False)
    fields = hand_result(rules, settlement, hu=r.hu, red=r.red, groups=r.groups,
                         table_melds=tuple(m.kinds for m in view.melds[r.winner]),
                         instant=name if r.how == "instant" else "")
    print_result(console, fields, en, label)


def hand_end_text(view: View, settlement: Settlement, rules: Ruleset, lang: str, width: int = 100) -> str:
    """:func:`print_hand_end` as plain text (for records and golden files)."""
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    print_hand_end(console, view, settlement, rules, lang)
    return console.export_text().rstrip("\n")
