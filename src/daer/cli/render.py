"""Text rendering of a view for the terminal (Chinese first, ``lang="en"`` for ASCII cards)."""

from __future__ import annotations

from daer.cards import N_KINDS, format_kinds, kind_of
from daer.engine.actions import describe
from daer.engine.events import Claimed, Declared, Discarded, Event, LongDeclared, NotTaken, Revealed
from daer.engine.views import View

_MELD_ZH = {"peng": "碰", "zhao": "招", "long": "垅", "chi": "吃", "wei": "偎"}


def fmt(kinds: list[int] | tuple[int, ...], lang: str) -> str:
    """Cards in the chosen notation."""
    return format_kinds(kinds, ascii=True) if lang == "en" else format_kinds(kinds)


def grouped_hand(hand: tuple[int, ...], lang: str) -> str:
    """The concealed hand sorted and grouped: 坎 first, then pairs, then singles by size."""
    c = [0] * N_KINDS
    for cid in hand:
        c[kind_of(cid)] += 1
    parts = []
    for n in (4, 3, 2):
        parts += [fmt([k] * n, lang) for k in range(N_KINDS) if c[k] == n]
    small = [k for k in range(10) if c[k] == 1]
    big = [k for k in range(10, 20) if c[k] == 1]
    if small:
        parts.append(fmt(small, lang))
    if big:
        parts.append(fmt(big, lang))
    return "  ".join(parts)


def seat_name(view: View, seat: int, lang: str) -> str:
    """``2号位(庄)`` / ``seat 2 (dealer)``."""
    tags = []
    if seat == view.dealer:
        tags.append("庄" if lang != "en" else "dealer")
    if seat == view.dijia:
        tags.append("底家" if lang != "en" else "sits out")
    if seat == view.seat:
        tags.append("你" if lang != "en" else "you")
    tag = f"({','.join(tags)})" if tags else ""
    return f"{seat}号位{tag}" if lang != "en" else f"seat {seat}{tag}"


def render_view(view: View, *, lang: str = "zh") -> str:
    """The whole table as seen by the view's seat."""
    en = lang == "en"
    lines = []
    shown = view.bottoms or ((view.bottom,) if view.bottom is not None else ())
    bottom = fmt([kind_of(c) for c in shown], lang) if shown else "-"  # 隆昌: two dead bottom cards
    head = f"stock {view.stock} · bottom {bottom}" if en else f"墩 {view.stock} · 底牌 {bottom}"
    lines.append(head)
    for seat in view.players:
        melds = " ".join(
            (m.kind if en else _MELD_ZH.get(m.kind, m.kind)) + fmt(m.kinds, lang) for m in view.melds[seat]
        )
        disc = fmt([kind_of(c) for s, c in view.discards if s == seat], lang)
        lines.append(
            f"  {seat_name(view, seat, lang)}: "
            + (f"{view.hand_sizes[seat]} cards" if en else f"{view.hand_sizes[seat]}张")
            + (f" | {melds}" if melds else "")
            + ((" | discards " if en else " | 弃 ") + disc if disc else "")
        )
    if view.offer is not None and view.phase == "claim":
        rev = view.offer.source == "reveal"
        src = ("revealed by" if rev else "discarded by") if en else ("翻自" if rev else "打自")
        card = fmt([view.offer.kind], lang)
        lines.append(("on offer: " if en else "桌上的牌：") + f"{card} ({src} {view.offer.owner})")
    if view.seat is not None and view.hand:
        lines.append(("your hand: " if en else "你的手牌：") + grouped_hand(view.hand, lang))
        if view.guo:
            lines.append(("passed (过张): " if en else "过张：") + fmt(view.guo, lang))
    if view.result is not None:
        lines.append(explain_result(view, lang))
    return "\n".join(lines)


def explain_result(view: View, lang: str) -> str:
    """The settlement in words."""
    r = view.result
    assert r is not None
    en = lang == "en"
    if r.winner is None:
        head = "Draw (黄牌): each player pays the 底家." if en else "黄牌：没有人胡，三家各付底家。"
    else:
        how = r.name or ("胡" if not en else "hu")
        head = (f"Seat {r.winner} wins ({how}) with {r.hu} 胡, 等 {r.deng}, red cards {r.red}"
                if en else f"{r.winner}号位胡牌（{how}），{r.hu}胡，{r.deng}等，红牌{r.red}张")
        if r.multipliers:
            head += f"; 番 {'、'.join(r.multipliers)} ×{r.factor}"
        if r.groups:
            head += "\n  " + "  ".join(f"{g[0]}{fmt(g[1], lang)}({g[2]})" for g in r.groups)
    pts = "  ".join(f"{seat_name(view, s, lang)} {p:+d}" for s, p in enumerate(r.points))
    return head + "\n  " + ("points: " if en else "得分：") + pts


def action_menu(view: View, lang: str) -> list[str]:
    """The legal actions as short numbered choices."""
    card = view.offer.kind if view.offer is not None else None
    return [f"{i}. {describe(a, lang=lang, card=card)}" for i, a in enumerate(view.legal, 1)]


def narrate(ev: Event, lang: str) -> str:
    """One public event in words ('' for events not worth a line)."""
    en = lang == "en"
    if isinstance(ev, Discarded):
        return f"{ev.seat}号位打出 {fmt([kind_of(ev.card)], lang)}" if not en else \
            f"seat {ev.seat} discards {fmt([kind_of(ev.card)], lang)}"
    if isinstance(ev, Revealed):
        return f"{ev.seat}号位翻牌 {fmt([kind_of(ev.card)], lang)}（墩剩{ev.left}）" if not en else \
            f"seat {ev.seat} reveals {fmt([kind_of(ev.card)], lang)} ({ev.left} left)"
    if isinstance(ev, Claimed):
        zh = {"peng": "碰", "zhao": "招", "chi": "吃", "wei": "偎", "ti": "提"}.get(ev.how, ev.how)
        cards = " ".join(fmt([kind_of(c) for c in m], lang) for m in ev.melds)
        return f"{ev.seat}号位{zh} {cards}" if not en else f"seat {ev.seat} {ev.how} {cards}"
    if isinstance(ev, LongDeclared):
        return f"{ev.seat}号位亮垅 {fmt([kind_of(c) for c in ev.cards], lang)}" if not en else \
            f"seat {ev.seat} lays down a 垅 {fmt([kind_of(c) for c in ev.cards], lang)}"
    if isinstance(ev, Declared):
        return f"{ev.seat}号位报牌" if not en else f"seat {ev.seat} declares ready (报牌)"
    if isinstance(ev, NotTaken):
        card = fmt([kind_of(ev.card)], lang)
        return f"没人要 {card}" if not en else f"nobody takes {card}"
    return ""
