"""The ruleset: one frozen, keyword-only object built from TOML data.

Every choice the rule texts leave open is a named option here; code branches on
these fields, never on the name of a town.  Presets live in ``presets/*.toml``;
a house rule is a small TOML file naming a base (``base = "luzhou"``) and
overriding options.
"""

from __future__ import annotations

from decimal import Decimal
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
    dead_cards: int = 0
    """Cards at the bottom of the stock turned face up and never played (隆昌: 2, 最下方2张要翻起让字面朝上，
    能用的为字面朝下的17张); the stock runs out (黄) before them and 海底 is the last card above them."""
    dealer_rule: Literal["winner", "rotate", "keep"] = "winner"
    """Who deals next in a match: the winner (黄牌 keeps the dealer); the next seat (轮庄); the dealer
    while he wins, else the next seat (稳庄, 隆昌)."""
    winds: tuple[int, ...] = ()
    """圈风 cards of a round in order (隆昌/古蔺: 大贰 大柒 大拾 小二 小七 小十 = 11, 16, 19, 1, 6, 9)."""
    wind_turns: int = 1
    """Dealer turns per wind (隆昌: every player deals once per wind; 古蔺: one turn each)."""
    match_hands: int = 0
    """Dealer turns in a match (古蔺: six, 一圈); 0 leaves it open."""


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
    instant_optional: bool = True
    """An instant win may be declined (可以直接胡牌): the seat is asked 胡 or 过 at the deal; False: it wins."""
    on_discard: bool = True
    """A player may win on another's discard; False: only on a card revealed from the stock (跑胡子)."""
    tianhu_self_drawn: bool = False
    """天胡为自摸 (跑胡子): a 天胡 — the dealer's dealt hand, or 3提/5坎 at the deal — counts as self-drawn (自摸)."""


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
    bi_jiao: bool = False
    """比牌 after a 吃 whose 列 is a 绞 too (跑胡子: no copy of the eaten kind may stay in the hand)."""
    chi_next_reveal: bool = False
    """The seat after the revealer may 吃 a card revealed from the stock, not only the revealer himself
    (跑胡子: 「吃：上家或自己摸起的牌」); the revealer's 吃 goes first."""
    ba_kuai: bool = True
    """八块: after a second and later 招/垅, no discard; the next player draws."""
    wei: bool = False
    """偎 (跑胡子): a player revealing a card of a concealed pair must take it as a 偎 (a 坎 on the table),
    before anyone may claim or 胡 it; then discards."""
    ti: bool = False
    """提 (跑胡子): a player revealing the fourth card of a concealed 坎 or of his 偎 must take it as a 提
    (scored as 垅), before anyone may claim or 胡 it; 八块 then applies as for 招/垅."""
    pao: bool = False
    """跑 (跑胡子): besides a concealed 坎, a 偎 takes the fourth card from anyone's reveal or discard and
    a 碰 from any reveal, as a 招 (跑) claim; with ``zhao_mandatory`` it must."""
    chou_wei: bool = False
    """臭偎 (跑胡子): a 偎 of a kind its owner passed up for 碰 is a 臭偎 and is laid face up even where
    ``wei_hidden`` lays a 偎 face down (the others saw the 碰 passed)."""
    wei_hidden: bool = False
    """偎 face down (跑胡子): only its owner sees the kind of a 偎 (and its revealed card); a later 提/跑 of it
    shows it."""
    bao: bool = False
    """报牌 (古蔺): a player whose discard leaves a ready hand may declare it; the hand is then locked
    (only 胡 or 过, no 吃/碰/招, mandatory ones included) and a win counts the 报 番."""


class PenaltyRules(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """包牌 the engine charges (the other offences of seed 000's 包牌 list are illegal actions it never offers).

    A seat that passed up a claim it could have made pays 包 when the hand ends with nobody winning (黄);
    the amount is the scoring mode's (``scoring.money.penalty`` 底钱, ``scoring.fan.penalty`` 彩头, else
    ``scoring.deng.penalty`` points), once per offending seat, to every other seat.
    """

    unmade_peng: bool = False
    """没人胡的情况下，未碰牌: passing (or 吃 instead of) a possible 碰 is paid on 黄."""
    unmade_zhao: bool = False
    """没人胡的情况下，未招牌: passing a possible 招 is paid on 黄."""


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
    penalty: int = 2
    """包牌: the offender pays each other seat this many points (points play: 2, as 2倍底钱 with 1 point the
    底家's share; also the amount of the 名堂 and 花样 modes)."""
    round_down: bool = False
    """等 brackets: False — any 胡 past a step starts the next 等 (11-20 = 2等); True — only full steps
    count (跑胡子: 15 = 1等, 18-20 = 2等, 不满3胡不算等)."""


class MoneyScoring(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """付钱计算: an arithmetic sequence times a unit (基数)."""

    first: int = 4
    """What each loser pays for 10-20 胡 (the sequence's first term)."""
    step: int = 1
    """Increase per further bracket (21-30, 31-40 …)."""
    di_qian: int = 2
    """底钱: what the 底家 gets, and what each player pays the 底家 on 黄牌."""
    unit: Decimal = Decimal(1)
    """基数: the money of one 棒, in 元, a whole number of 分 (少的可以五毛钱: 0.5).  Money is counted in 分
    (integers): a money-mode settlement's amounts are 分, shown as 元 (:func:`daer.scoring.yuan`)."""

    def __post_init__(self) -> None:
        fen = self.unit * 100
        if self.unit <= 0 or fen != fen.to_integral_value():
            raise ValueError(f"基数须是正的整分钱，如 0.5 (scoring.money.unit must be a positive number of 分: "
                             f"{self.unit})")

    @property
    def unit_fen(self) -> int:
        """基数 in 分."""
        return int(self.unit * 100)
    penalty: int = 2
    """包牌: the offender pays each other seat this many 底钱 (包牌的向另三人各付2倍底钱)."""


class MingtangScoring(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """名堂 play (高级玩法, mode ``mingtang``): 番 multiply, are capped, and a table turns them into points."""

    cap: int = 32
    """Most 番 a hand counts (一般最高计32番)."""
    pinghu: int = 2
    """番 of a hand without 名堂 (平胡只有两番和四番两种)."""
    pinghu_high: int = 4
    """番 of a 平胡 with at least ``pinghu_high_at`` 胡."""
    pinghu_high_at: int = 27
    """胡 from which a 平胡 counts ``pinghu_high`` 番 (27胡为四番)."""
    points: tuple[tuple[int, int], ...] = ((2, 5), (4, 8), (8, 12), (16, 16), (32, 24))
    """(番, points each loser pays): 2番 5分, 4番 8分, 8番 12分, 16番 16分, 32番 24分."""
    dijia: tuple[tuple[int, int], ...] = ((2, 2), (4, 4), (8, 6), (16, 8), (32, 12))
    """(番, points the winner gives the 底家): 2, 4, 6, 8, 12分."""


class FanScoring(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """番 as powers of two (mode ``fan``, 隆昌/古蔺): final 胡 = 胡 × 2^番, capped; paid in 彩头 by brackets."""

    cap_hu: int = 200
    """Most final 胡 (封顶 200 胡为满贯)."""
    caitou_start: int = 10
    """Final 胡 of the first 彩头 (10胡1个彩头)."""
    caitou_step: int = 10
    """Final 胡 per further 彩头 (11-20 → 2, 21-30 → 3 …)."""
    dealer_double: bool = True
    """Payments between the dealer and another player are doubled (庄家和牌…双倍彩头)."""
    huang: int = 5
    """黄牌: each player pays the 歇底 this many 彩头 (黄5)."""
    penalty: int = 10
    """包牌 (包10): the offender pays each other seat this many 彩头."""


class HuayangScoring(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """花样 play (mode ``huayang``, 跑胡子): 底 = 等 × the sum of the 花样's 番 (平胡 1)."""

    self_drawn_deng: int = 1
    """等 added for 自摸 (自摸在实际底数上加1等)."""
    haidi_alone: int = 1
    """番 of 海底 when it is the only 花样 (平胡海底算1番, added to the plain 1)."""


PATTERN_IDS: frozenset[str] = frozenset({
    "red_hu", "hong", "zhen_zhu", "jia_zhu", "zhao_yin", "long_yin", "he_yin", "san_yin", "pian", "hua",
    "bian_di_jin", "shisan_taibao", "shiwu_guandeng", "wu_hu", "hei", "zimei_peng", "zimei_zhao", "zimei_long",
    "qia", "bang", "qing", "piao", "shuang_piaodai", "da_xiao_18", "gao", "kun", "duidui", "wu_duidui", "phz_red",
    "dian_hu", "hong_wu", "quan", "seat_card", "tianhu", "dihu", "huilong", "haidilao", "haidi", "bao", "xi_24",
    "hu_30", "hu_33", "hu_36",
})
"""The 名堂 / 番 / 花样 a ruleset's ``scoring.patterns`` may name: part of the ruleset's schema, checked when
a ruleset is built (:func:`daer.rules.loader.resolve_rules`).  Each is tested by one pattern of
:mod:`daer.mingtang.patterns`, which registers exactly these ids (adding a 名堂 means listing it here too)."""


PATTERN_MODES: frozenset[str] = frozenset({"mingtang", "fan", "huayang"})
"""Scoring modes that look at 名堂 (and so at every arrangement); :mod:`daer.mingtang` scores them."""


class ScoringRules(_Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How a won hand is paid."""

    mode: Literal["deng", "money", "mingtang", "fan", "huayang"] = "deng"
    """deng: 普通算等 points; money: 付钱计算 with the sequence and 底钱; mingtang: 泸州名堂 (高级玩法);
    fan: 胡 × 2^番 in 彩头 (隆昌, 古蔺); huayang: 跑胡子 底 = 等 × 花样番."""
    deng: DengScoring = msgspec.field(default_factory=DengScoring)
    money: MoneyScoring = msgspec.field(default_factory=MoneyScoring)
    patterns: dict[str, int] = msgspec.field(default_factory=dict)
    """名堂 / 番 / 花样 by id (see ``daer.mingtang``) and their value; only the listed ones count.
    mingtang: 番 factors; fan: powers of two; huayang: 番 added."""
    mingtang: MingtangScoring = msgspec.field(default_factory=MingtangScoring)
    fan: FanScoring = msgspec.field(default_factory=FanScoring)
    huayang: HuayangScoring = msgspec.field(default_factory=HuayangScoring)


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
    penalty: PenaltyRules = msgspec.field(default_factory=PenaltyRules)
    scoring: ScoringRules = msgspec.field(default_factory=ScoringRules)

    @property
    def stock_cards(self) -> int:
        """Cards left in the stock (墩) after the deal: 19 in 大贰."""
        players = self.table.players
        return 80 - self.table.dealer_cards - (players - 1) * self.table.other_cards
