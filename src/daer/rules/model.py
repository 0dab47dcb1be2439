"""The ruleset: one frozen, keyword-only object built from TOML data.

Every choice the rule texts leave open is a named option here; code branches on
these fields, never on the name of a town.  Presets live in ``presets/*.toml``;
a house rule is a small TOML file naming a base (``base = "luzhou"``) and
overriding options.
"""

from __future__ import annotations

from typing import Literal

import msgspec

Quad = tuple[int, int, int, int]
"""胡 of one 列 type by colour and size: (black small, red small, black big, red big)."""


class _Options(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Base of every option group: frozen, keyword-only, unknown names refused."""


class HuTable(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """胡 of each 列 (计胡规则); the same whether the 列 lies on the table or is concealed."""

    peng: Quad
    """碰: three of a kind, one of them claimed (or the winning card)."""
    kan: Quad
    """坎: three of a kind dealt into the hand."""
    zhao: Quad
    """招: four of a kind, a 坎 plus a claimed card."""
    long: Quad
    """垅: four of a kind dealt into the hand."""
    small_123: int
    """一二三."""
    small_2710: int
    """二七十."""
    big_123: int
    """壹贰叁."""
    big_2710: int
    """贰柒拾."""


class TableRules(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Seats and the deal (砌牌)."""

    seats: int = 4
    """Seats at the table, the 底家 included."""
    players: int = 3
    """Seats that play a hand."""
    dijia: bool = True
    """The seat opposite the dealer sits the hand out and is paid (坐底/数底/歇底)."""
    dealer_cards: int = 21
    """Cards dealt to the dealer (庄家砌21张)."""
    other_cards: int = 20
    """Cards dealt to each other player."""
    show_bottom_card: bool = True
    """The stock's bottom card is shown to all (底牌最后一张牌必须示众)."""
    swap_red_bottom: bool = True
    """A red bottom card is moved to the front of the stock and a black one shown instead."""


class WinRules(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What a winning hand (胡牌) is."""

    groups: int = 7
    """列 in a winning hand (7列)."""
    min_hu: int = 10
    """Least 胡 to win (至少有10胡)."""
    pair_with_quad: bool = True
    """A hand with a 招 or 垅 needs exactly one pair (将); a hand without needs none."""
    lan_hu: int = 0
    """烂和: a complete hand in which no 列 has 胡 wins and counts as this many 胡 (隆昌: 40); 0 is off."""
    instant_longs: int = 3
    """So many 垅 in the dealt hand win at once (3垅); 0 is off."""
    instant_kans: int = 5
    """So many 坎 in the dealt hand win at once (5坎); 0 is off."""


class PlayRules(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Claims and obligations during a hand."""

    chi: bool = True
    """吃 is allowed."""
    peng_mandatory: bool = False
    """有碰必碰: a possible 碰 must be taken."""
    zhao_mandatory: bool = False
    """有招必招: a possible 招 must be taken."""
    zhao_on_own_draw: bool = True
    """A 坎 may 招 the card its owner reveals from the stock, not only others' cards."""
    guo_zhang: bool = True
    """过张: a kind passed up for 吃 or 碰 cannot be taken that way again this hand (胡 still can)."""
    bi_pai: bool = True
    """比牌: after 吃, every remaining copy of the eaten kind must be laid down in 列 (not for 绞)."""
    ba_kuai: bool = True
    """八块: after a second and later 招/垅, no discard; the next player draws."""


class DengScoring(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """等 and the multipliers (普通算等玩法)."""

    start: int = 10
    """胡 of the first 等 (从10胡开始计算)."""
    step: int = 10
    """胡 per further 等: 10 = 1等, 11-20 = 2等, 21-30 = 3等 …"""
    min_points: int = 2
    """Least points per 等 count (最少计2分)."""
    dijia_share: int = 1
    """Points the 底家 gets, before multipliers (底家加1分)."""
    red_threshold: int = 10
    """Red cards among all the winner's cards that make 红."""
    red: int = 2
    """Multiplier of 红."""
    black: int = 4
    """Multiplier of 乌 (no red card)."""
    tianhu: int = 2
    """Multiplier of 天胡."""
    dihu: int = 2
    """Multiplier of 地胡."""
    huang: int = 1
    """黄牌: each player pays the 底家 this many points."""


class MoneyScoring(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """付钱计算: an arithmetic sequence times a unit (基数)."""

    first: int = 4
    """What each loser pays for 10-20 胡 (the sequence's first term)."""
    step: int = 1
    """Increase per further bracket (21-30, 31-40 …)."""
    di_qian: int = 2
    """底钱: what the 底家 gets, and what each player pays the 底家 on 黄牌."""
    unit: int = 1
    """基数: the money of one 棒."""


class ScoringRules(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How a won hand is paid."""

    mode: Literal["deng", "money"] = "deng"
    """deng: 普通算等 points; money: 付钱计算 with the sequence and 底钱."""
    deng: DengScoring = msgspec.field(default_factory=DengScoring)
    money: MoneyScoring = msgspec.field(default_factory=MoneyScoring)


class Ruleset(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A complete, frozen description of one variant of the game."""

    name: str
    """Short ASCII name (``luzhou``)."""
    title_zh: str
    """Chinese title shown to players."""
    title_en: str
    """English title."""
    hu: HuTable
    description_zh: str = ""
    description_en: str = ""
    table: TableRules = msgspec.field(default_factory=TableRules)
    win: WinRules = msgspec.field(default_factory=WinRules)
    play: PlayRules = msgspec.field(default_factory=PlayRules)
    scoring: ScoringRules = msgspec.field(default_factory=ScoringRules)

    @property
    def stock_cards(self) -> int:
        """Cards left in the stock (墩) after the deal: 19 in 大贰."""
        players = self.table.players
        return 80 - self.table.dealer_cards - (players - 1) * self.table.other_cards
