"""Build arrangements from text for the 名堂 vectors: ``arr("坎二二二 顺三四五 …")``."""

from __future__ import annotations

from daer.cards import parse_kinds
from daer.hands.groups import Group, GroupKind, group_hu
from daer.mingtang import WinContext
from daer.rules import Ruleset
from daer.scoring import WinFlags

_KINDS = {"垅": GroupKind.LONG, "招": GroupKind.ZHAO, "坎": GroupKind.KAN, "碰": GroupKind.PENG,
          "顺": GroupKind.RUN, "绞": GroupKind.JIAO, "对": GroupKind.PAIR}


def arr(rules: Ruleset, text: str) -> tuple[Group, ...]:
    """列 written as 坎二二二 顺三四五 绞九九玖 … (kind prefix, then the cards)."""
    out = []
    for word in text.split():
        kind = _KINDS[word[0]]
        cards = tuple(sorted(parse_kinds(word[1:])))
        out.append(Group(kind, cards, group_hu(rules.hu, kind, cards)))
    return tuple(out)


def ctx(rules: Ruleset, text: str, *, hu: int | None = None, flags: WinFlags | None = None,
        seat_card: int | None = None, wind: int | None = None, lan: bool = False) -> WinContext:
    groups = arr(rules, text)
    total = sum(g.hu for g in groups) if hu is None else hu
    return WinContext(groups, total, flags or WinFlags(), lan, seat_card, wind)
