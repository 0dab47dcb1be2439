"""What a 名堂 looks at: one arrangement of a winning hand and how it was won."""

from __future__ import annotations

from dataclasses import dataclass, field

from daer.cards import N_KINDS, is_big, is_red, number_of
from daer.hands.groups import Group, GroupKind
from daer.scoring import WinFlags

SEAT_CARDS = (11, 16, 19)
"""Seat cards of 隆昌's 番: the dealer 贰, the next player (杠家) 柒, the last (尾家) 拾."""

WINDS = (11, 16, 19, 1, 6, 9)
"""The six 圈风 of a round, in order: 大贰, 大柒, 大拾, 小二, 小七, 小十."""


@dataclass(frozen=True, slots=True)
class WinContext:
    """One arrangement of a won hand, with everything a 名堂 may need.

    ``hu`` is the counted 胡 of the arrangement (烂和 already turned into its value, see ``lan``).
    ``seat_card`` is the winner's seat card and ``wind`` the 圈风 card, when the game has them.
    ``loose`` are the kinds of cards in no 列 (an instant 3垅/5坎 win keeps its loose cards): they
    count in ``counts``, ``red``, ``cards`` and ``big`` (红/黑 look at every card of the hand), not in
    ``red_groups``.
    """

    groups: tuple[Group, ...]
    hu: int
    flags: WinFlags = field(default_factory=WinFlags)
    lan: bool = False
    seat_card: int | None = None
    wind: int | None = None
    loose: tuple[int, ...] = ()
    counts: tuple[int, ...] = field(init=False)
    red: int = field(init=False)
    red_groups: tuple[int, ...] = field(init=False)
    """Red cards of each 列 that holds any, largest first."""

    def __post_init__(self) -> None:
        c = [0] * N_KINDS
        for g in self.groups:
            for k in g.cards:
                c[k] += 1
        for k in self.loose:
            c[k] += 1
        object.__setattr__(self, "counts", tuple(c))
        object.__setattr__(self, "red", sum(n for k, n in enumerate(c) if is_red(k)))
        reds = sorted((g.red() for g in self.groups if g.red()), reverse=True)
        object.__setattr__(self, "red_groups", tuple(reds))

    def kinds(self, *kinds: GroupKind) -> list[Group]:
        """The 列 of these kinds."""
        return [g for g in self.groups if g.kind in kinds]

    @property
    def cards(self) -> int:
        """Cards in the hand (21 with no quad, 22 with two …)."""
        return sum(self.counts)

    @property
    def big(self) -> int:
        """Big (大写) cards."""
        return sum(n for k, n in enumerate(self.counts) if is_big(k))


def scoring_run(g: Group) -> str | None:
    """``"123"`` or ``"2710"`` for a 一二三 / 二七十 列 (either size), else None."""
    if g.kind is not GroupKind.RUN:
        return None
    first, second = number_of(g.cards[0]), number_of(g.cards[1])
    if (first, second) == (1, 2):
        return "123"
    if (first, second) == (2, 7):
        return "2710"
    return None
