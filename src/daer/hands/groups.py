"""列 (groups of cards), table melds, and the 胡 each is worth under a ruleset."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from daer.cards import format_kinds, is_big, is_red, number_of
from daer.rules.model import HuTable


class GroupKind(StrEnum):
    """The shape and origin of one 列."""

    LONG = "long"
    """垅: four of a kind dealt into the hand."""
    ZHAO = "zhao"
    """招: a 坎 plus a claimed fourth card."""
    KAN = "kan"
    """坎: three of a kind dealt into the hand."""
    PENG = "peng"
    """碰: a pair plus a claimed (or winning) card."""
    RUN = "run"
    """顺: three consecutive numbers of one size, or 二七十 / 贰柒拾."""
    JIAO = "jiao"
    """绞: a pair of one size with the same number of the other size (九九玖)."""
    PAIR = "pair"
    """对 / 将: the pair a hand with a 招 or 垅 needs."""

    @property
    def zh(self) -> str:
        """Chinese name."""
        return _ZH[self]


_ZH = {
    GroupKind.LONG: "垅",
    GroupKind.ZHAO: "招",
    GroupKind.KAN: "坎",
    GroupKind.PENG: "碰",
    GroupKind.RUN: "顺",
    GroupKind.JIAO: "绞",
    GroupKind.PAIR: "对",
}

QUAD_KINDS = frozenset({GroupKind.LONG, GroupKind.ZHAO})
"""Group kinds of four cards."""


class MeldKind(StrEnum):
    """How a 列 came onto the table."""

    PENG = "peng"
    """碰."""
    ZHAO = "zhao"
    """招."""
    LONG = "long"
    """垅 (declared from the dealt hand)."""
    CHI = "chi"
    """吃 (a run or 绞 made with a claimed card, or laid down with it by 比牌)."""
    WEI = "wei"
    """偎 (跑胡子): a concealed pair takes its owner's own revealed card; it counts as a 坎."""


class MeldError(ValueError):
    """A table meld whose cards do not fit its kind."""


def hu_column(kind: int) -> int:
    """Column of the 胡 table: 0 black small, 1 red small, 2 black big, 3 red big."""
    return (2 if is_big(kind) else 0) + (1 if is_red(kind) else 0)


def run_hu(table: HuTable, first: int, second: int) -> int:
    """胡 of a run given its two lowest kinds: 一二三 / 二七十 and their big forms score, others 0."""
    big = is_big(first)
    n1, n2 = number_of(first), number_of(second)
    if n1 == 1 and n2 == 2:
        return table.big_123 if big else table.small_123
    if n1 == 2 and n2 == 7:
        return table.big_2710 if big else table.small_2710
    return 0


def shape_of(cards: tuple[int, ...]) -> GroupKind | None:
    """The shape of three or four kinds if they form a 列, else None (triples come back as KAN)."""
    s = tuple(sorted(cards))
    if len(s) == 4:
        return GroupKind.LONG if s[0] == s[3] else None
    if len(s) == 2:
        return GroupKind.PAIR if s[0] == s[1] else None
    if len(s) != 3:
        return None
    a, b, c = s
    if a == b == c:
        return GroupKind.KAN
    if is_big(a) == is_big(c) and ((b == a + 1 and c == a + 2 and number_of(a) <= 8) or _is_2710(s)):
        return GroupKind.RUN
    if number_of(a) == number_of(c) and b in (a, c):
        return GroupKind.JIAO
    return None


def _is_2710(s: tuple[int, ...]) -> bool:
    return [number_of(k) for k in s] == [2, 7, 10] and is_big(s[0]) == is_big(s[2])


@dataclass(frozen=True, slots=True)
class Group:
    """One 列 of an arrangement, with its 胡."""

    kind: GroupKind
    cards: tuple[int, ...]
    hu: int
    meld: bool = False
    """True when the 列 lies on the table; False when it is in the hand (with the winning card)."""

    def __str__(self) -> str:
        return f"{self.kind.zh}{format_kinds(self.cards)}"

    def red(self) -> int:
        """Red cards in this 列."""
        return sum(1 for k in self.cards if is_red(k))


def group_hu(table: HuTable, kind: GroupKind, cards: tuple[int, ...]) -> int:
    """胡 of a 列 of ``kind`` made of ``cards`` (sorted kinds)."""
    if kind in (GroupKind.PAIR, GroupKind.JIAO):
        return 0
    if kind is GroupKind.RUN:
        return run_hu(table, cards[0], cards[1])
    row = {
        GroupKind.LONG: table.long,
        GroupKind.ZHAO: table.zhao,
        GroupKind.KAN: table.kan,
        GroupKind.PENG: table.peng,
    }[kind]
    return row[hu_column(cards[0])]


@dataclass(frozen=True, slots=True)
class Meld:
    """A 列 on the table: 碰, 招, 垅 or 吃 and its cards (kinds)."""

    kind: MeldKind
    cards: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(sorted(self.cards)))
        shape = shape_of(self.cards)
        # the cards are written out only for a message (a meld is made at every update and every bot's choice)
        if self.kind in (MeldKind.PENG, MeldKind.WEI) and shape is not GroupKind.KAN:
            zh = "碰" if self.kind is MeldKind.PENG else "偎"
            raise MeldError(f"{zh}必须是三张相同的牌：{format_kinds(self.cards)} "
                            f"(a {self.kind.value} is three of a kind)")
        if self.kind in (MeldKind.ZHAO, MeldKind.LONG) and shape is not GroupKind.LONG:
            zh = "招" if self.kind is MeldKind.ZHAO else "垅"
            raise MeldError(f"{zh}必须是四张相同的牌：{format_kinds(self.cards)} "
                            f"(a {self.kind.value} is four of a kind)")
        if self.kind is MeldKind.CHI and shape not in (GroupKind.RUN, GroupKind.JIAO):
            raise MeldError(f"吃的牌不成列：{format_kinds(self.cards)} (a chi is a run, 二七十 or 绞)")

    @property
    def group_kind(self) -> GroupKind:
        """The kind of 列 this meld counts as."""
        if self.kind is MeldKind.CHI:
            shape = shape_of(self.cards)
            assert shape is not None
            return shape
        if self.kind is MeldKind.WEI:
            return GroupKind.KAN
        return GroupKind(self.kind.value)

    def to_group(self, table: HuTable) -> Group:
        """This meld as a scored 列."""
        kind = self.group_kind
        return Group(kind, self.cards, group_hu(table, kind, self.cards), meld=True)
