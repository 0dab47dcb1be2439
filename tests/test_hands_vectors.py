"""Hand vectors: every row of the 泸州 胡 table (计胡规则) and the shape rules of a winning hand, by hand.

Conventions: hands are written in Chinese; ``win`` is the winning card (None: the dealt hand as it is, 天胡).
The fillers below are 列 worth 0 胡 that share no kind with the 列 under test, and never hold three of a kind:

* FILLER6 (6 列, 18 cards): 三四五 四五六 叁肆伍 肆伍陆 九九玖 捌捌八 — four plain runs and two 绞, 0 胡.
* FILLER5_PAIR (5 列 + the pair, 17 cards): 三四五 四五六 叁肆伍 肆伍陆 捌捌八 + 九九, 0 胡.

So in a 21-card hand "列 under test + FILLER6" the expected total is the 胡 of the 列 under test.
"""

from __future__ import annotations

import pytest

from daer.calculator import score
from daer.cards import TooManyCopiesError, parse_counts, parse_kinds
from daer.hands import (
    GroupKind,
    Meld,
    MeldError,
    MeldKind,
    evaluate,
    group_hu,
    instant_win,
    iter_arrangements,
    waits,
)
from daer.rules import find_rules, preset_names, with_overrides

R = find_rules("luzhou")
HEJIANG = find_rules("hejiang")
PENG_3_6 = with_overrides(R, {"hu.peng": [1, 3, 3, 6]})  # the 000 text's first part: red 碰 3 / 6

FILLER6 = "三四五 四五六 叁肆伍 肆伍陆 九九玖 捌捌八"
FILLER6_LESS_6 = "三四五 四五 叁肆伍 肆伍陆 九九玖 捌捌八"  # FILLER6 without its 六 (the winning card)
FILLER5_PAIR = "三四五 四五六 叁肆伍 肆伍陆 捌捌八 九九"
FILLER5_PAIR_LESS_6 = "三四五 四五 叁肆伍 肆伍陆 捌捌八 九九"


def k(card: str) -> int:
    (kind,) = parse_kinds(card)
    return kind


def ev(hand: str, win: str | None = None, melds=(), rules=R):
    return evaluate(rules, parse_counts(hand), tuple(melds), None if win is None else k(win))


def meld(kind: MeldKind, cards: str) -> Meld:
    return Meld(kind, tuple(parse_kinds(cards)))


def ref_hus(hand: str, win: str | None = None, melds=(), rules=R) -> set[int]:
    """胡 of every valid arrangement, by the slow reference enumerator."""
    arrangements = iter_arrangements(rules, parse_counts(hand), tuple(melds), None if win is None else k(win))
    return {sum(g.hu for g in a) for a in arrangements}


def kinds_of(e) -> list[GroupKind]:
    return [g.kind for g in e.groups]


def test_fillers_are_worth_0_hu():
    # FILLER6 + 六七八 (八 wins): 7 列 of 0 胡 each
    e = ev(FILLER6 + "六七", win="八")
    assert e.complete and e.hu == 0  # every 列: plain runs and 绞 are 0
    assert ref_hus(FILLER6 + "六七", win="八") == {0}


# -- 碰 (peng): 1 / 6 / 3 / 9 ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "hu"),
    [("一", 1), ("二", 6), ("壹", 3), ("贰", 9)],
    ids=["black_small_1", "red_small_6", "black_big_3", "red_big_9"],
)
def test_peng_by_winning_card_is_1_6_3_9(card, hu):
    # concealed pair + the winning card = 碰 (hu of the 碰) + FILLER6 (0) = hu
    e = ev(card * 2 + FILLER6, win=card)
    assert e.complete
    assert e.hu == hu
    assert GroupKind.PENG in kinds_of(e)


@pytest.mark.parametrize(("card", "hu"), [("一", 1), ("二", 6), ("壹", 3), ("贰", 9)])
def test_peng_on_the_table_is_1_6_3_9(card, hu):
    # melded 碰 (hu) + FILLER6 less 六 + 六 wins (0) = hu
    e = ev(FILLER6_LESS_6, win="六", melds=[meld(MeldKind.PENG, card * 3)])
    assert e.complete and e.hu == hu
    assert e.groups[0].meld and e.groups[0].kind is GroupKind.PENG


def test_peng_red_small_is_6_hu():
    assert ev("二二" + FILLER6, win="二").hu == 6


def test_peng_red_big_is_9_hu():
    assert ev("贰贰" + FILLER6, win="贰").hu == 9


def test_peng_red_3_6_is_an_option():
    # 000 part one: 红小牌为3胡 … 红大牌为6胡
    assert ev("二二" + FILLER6, win="二", rules=PENG_3_6).hu == 3
    assert ev("贰贰" + FILLER6, win="贰", rules=PENG_3_6).hu == 6
    # black 碰 and every other row unchanged
    assert ev("一一" + FILLER6, win="一", rules=PENG_3_6).hu == 1
    assert ev("壹壹" + FILLER6, win="壹", rules=PENG_3_6).hu == 3
    assert ev("贰贰贰" + FILLER6_LESS_6, win="六", rules=PENG_3_6).hu == 12


# -- 坎 (kan): 6 / 9 / 9 / 12 ------------------------------------------------------------------------------


@pytest.mark.parametrize(("card", "hu"), [("一", 6), ("二", 9), ("壹", 9), ("贰", 12)])
def test_kan_is_6_9_9_12(card, hu):
    # dealt 坎 (hu) + FILLER6 less 六 + 六 wins (0) = hu
    e = ev(card * 3 + FILLER6_LESS_6, win="六")
    assert e.complete and e.hu == hu
    assert GroupKind.KAN in kinds_of(e)


# -- 招 (zhao) = 坎 + 3: 9 / 12 / 12 / 15 --------------------------------------------------------------------


@pytest.mark.parametrize(("card", "hu"), [("一", 9), ("二", 12), ("壹", 12), ("贰", 15)])
def test_zhao_on_the_table_is_9_12_12_15(card, hu):
    # melded 招 (hu) + FILLER5_PAIR less 六 + 六 wins (0; the pair is the 将) = hu; 4 + 16 + 1 = 21 cards
    e = ev(FILLER5_PAIR_LESS_6, win="六", melds=[meld(MeldKind.ZHAO, card * 4)])
    assert e.complete and e.hu == hu


@pytest.mark.parametrize(("card", "hu"), [("一", 9), ("二", 12), ("壹", 12), ("贰", 15)])
def test_winning_card_on_a_concealed_kan_is_zhao_9_12_12_15(card, hu):
    # concealed 坎 + the winning 4th card = 招 (hu) + FILLER5_PAIR (0) = hu
    e = ev(card * 3 + FILLER5_PAIR, win=card)
    assert e.complete and e.hu == hu
    assert GroupKind.ZHAO in kinds_of(e)


# -- 垅 (long) = 招 + 3: 12 / 15 / 15 / 18 -------------------------------------------------------------------


@pytest.mark.parametrize(("card", "hu"), [("一", 12), ("二", 15), ("壹", 15), ("贰", 18)])
def test_long_is_12_15_15_18(card, hu):
    # dealt 垅 (hu) + FILLER5_PAIR less 六 + 六 wins (0) = hu
    e = ev(card * 4 + FILLER5_PAIR_LESS_6, win="六")
    assert e.complete and e.hu == hu
    assert GroupKind.LONG in kinds_of(e)


@pytest.mark.parametrize(("card", "hu"), [("一", 12), ("二", 15), ("壹", 15), ("贰", 18)])
def test_long_on_the_table_is_12_15_15_18(card, hu):
    e = ev(FILLER5_PAIR_LESS_6, win="六", melds=[meld(MeldKind.LONG, card * 4)])
    assert e.complete and e.hu == hu


def test_long_red_big_is_the_biggest_single_lie_18_hu():
    # 龙贰柒拾18胡(最大单列胡数)
    for kind in (GroupKind.PENG, GroupKind.KAN, GroupKind.ZHAO, GroupKind.LONG):
        for card in "一二壹贰":
            n = 4 if kind in (GroupKind.ZHAO, GroupKind.LONG) else 3
            assert group_hu(R.hu, kind, (k(card),) * n) <= 18
    assert group_hu(R.hu, GroupKind.LONG, (k("拾"),) * 4) == 18


# -- runs: 一二三 3, 二七十 6, 壹贰叁 6, 贰柒拾 9; everything else 0 ----------------------------------------


@pytest.mark.parametrize(
    ("run", "hu"),
    [("一二三", 3), ("二七十", 6), ("壹贰叁", 6), ("贰柒拾", 9)],
    ids=["small_123_3", "small_2710_6", "big_123_6", "big_2710_9"],
)
def test_special_runs_123_3_2710_6_big_123_6_big_2710_9(run, hu):
    # the run (hu) + FILLER6 less 六 + 六 wins (0) = hu
    e = ev(run + FILLER6_LESS_6, win="六")
    assert e.complete and e.hu == hu


@pytest.mark.parametrize(
    "cards",
    ["二三四", "四五六", "八九十", "捌玖拾", "柒捌玖", "二二贰", "贰贰二", "拾拾十", "一一壹"],
    ids=["run_234", "run_456", "run_8910_red_ten", "big_8910", "big_789", "jiao_red", "jiao_red_big",
         "jiao_ten", "jiao_one"],
)
def test_other_runs_and_jiao_are_0_hu(cards):
    kinds = tuple(sorted(parse_kinds(cards)))
    shape = GroupKind.RUN if len(set(kinds)) == 3 else GroupKind.JIAO
    assert group_hu(R.hu, shape, kinds) == 0


def test_pair_is_0_hu():
    assert group_hu(R.hu, GroupKind.PAIR, (k("贰"), k("贰"))) == 0


def test_a_hand_of_only_plain_runs_and_jiao_is_0_hu():
    # 六七八 八九十 陆柒捌 捌玖拾 二二贰 三四五 肆伍陆: 7 列 of 0 胡 each = 0 (there is no 二七十 / 贰柒拾
    # rearrangement: the 二 and 贰 are bound in the 绞)
    hand = "六七八 八九十 陆柒捌 捌玖拾 二二贰 三四五 肆伍"
    e = ev(hand, win="陆")
    assert e.complete and e.hu == 0
    assert max(ref_hus(hand, win="陆")) == 0


def test_seed_example_all_runs_15_hu():
    # 一二三 3 + 二七十 6 + 四五六 0 + 七八九 0 + 壹贰叁 6 + 肆伍陆 0 + 柒捌玖 0 = 15
    e = ev("一二三四五六七八九壹贰叁肆伍陆柒捌玖二七", win="十")
    assert e.complete and e.hu == 15
    assert sum(g.hu for g in e.groups) == e.hu


# -- shape: 7 列, the pair iff a quad, 坎 never split --------------------------------------------------------


def test_seven_lie_needed_six_is_too_few():
    e = ev(FILLER6_LESS_6, win="六")  # 18 cards, 6 列
    assert not e.complete and e.hu == 0 and e.groups == ()
    assert "少牌" in e.reason_zh and "18" in e.reason_zh and "21" in e.reason_zh
    assert "18" in e.reason_en


def test_seven_lie_needed_eight_is_too_many():
    e = ev("一二三" + FILLER6 + "柒捌", win="玖")  # 24 cards, 8 列
    assert not e.complete
    assert "多牌" in e.reason_zh and "24" in e.reason_zh and "21" in e.reason_zh


def test_seven_lie_is_a_ruleset_option():
    six = with_overrides(R, {"win.groups": 6})
    assert ev(FILLER6_LESS_6, win="六", rules=six).complete
    assert not ev("一二三" + FILLER6_LESS_6, win="六", rules=six).complete


def test_kan_is_never_split():
    # 一一一 二三 壹: as 一二三 + 一一壹 it would be 7 列, but the dealt 坎 一一一 must stay whole
    hand = "一一一二三壹 四五六 七八九 肆伍陆 柒捌玖 贰柒"
    e = ev(hand, win="拾")
    assert not e.complete
    assert "坎/垅不能拆开" in e.reason_zh and "一" in e.reason_zh
    assert "cannot be split" in e.reason_en
    assert ref_hus(hand, win="拾") == set()
    # the reference does find the forbidden split when allowed to split
    split = list(iter_arrangements(R, parse_counts(hand), (), k("拾"), split_kan=True))
    assert split


def test_kan_is_never_split_in_a_dealt_hand_either():
    e = ev("一一一二三壹 四五六 七八九 肆伍陆 柒捌玖 贰柒拾")
    assert not e.complete and "坎/垅不能拆开" in e.reason_zh


def test_pair_only_with_quad():
    # 21 cards with one quad = 4 + 15 + 2: 垅一 12 + FILLER5_PAIR (0) = 12
    e = ev("一一一一" + FILLER5_PAIR_LESS_6, win="六")
    assert e.complete and e.hu == 12
    assert len(e.groups) == 7
    assert kinds_of(e).count(GroupKind.PAIR) == 1


def test_quad_without_a_pair_is_not_a_win():
    # 垅 + six triples = 22 cards: a hand with a quad needs exactly one pair
    e = ev("一一一一" + FILLER6_LESS_6, win="六")
    assert not e.complete and "多牌" in e.reason_zh


def test_pair_without_quad_is_not_a_win():
    # FILLER5_PAIR + 二七十 = 5 列 + a pair + 1 列, 20 cards, no quad
    e = ev(FILLER5_PAIR_LESS_6 + "二七十", win="六")
    assert not e.complete and "少牌" in e.reason_zh


def test_two_quads_22_cards_ba_kuai():
    # 八块: 招一 on the table 9 + 垅二 in hand 15 + 4 runs + pair 九九 (0) = 24; 4 + 4 + 12 + 2 = 22 cards
    e = ev("二二二二 三四五 四五 叁肆伍 肆伍陆 九九", win="六", melds=[meld(MeldKind.ZHAO, "一一一一")])
    assert e.complete and e.hu == 24
    assert sum(len(g.cards) for g in e.groups) == 22
    assert kinds_of(e).count(GroupKind.PAIR) == 1


def test_two_quads_with_two_pairs_is_explained_by_the_pair_rule():
    # 招九 on the table; 坎一 + 一 wins would be a second quad, but then 三三 and 四四 are two pairs
    hand = "一一一 三三 四四 壹贰叁 肆伍陆 柒捌玖"
    e = ev(hand, win="一", melds=[meld(MeldKind.ZHAO, "九九九九")])
    assert not e.complete
    assert "将" in e.reason_zh and "exactly one pair" in e.reason_en


def test_pair_rule_explanation_follows_the_ruleset_option():
    # pair_with_quad = false: a hand may never hold a pair.  坎一 + 一 wins + 九九 + 5 列: the 招 would need
    # the pair 九九, which this ruleset forbids; the explanation must not ask for a pair.
    rules = with_overrides(R, {"win.pair_with_quad": False})
    e = ev("一一一 九九 三四五 四五六 叁肆伍 肆伍陆 捌捌八", win="一", rules=rules)
    assert not e.complete
    assert "needs exactly one pair" not in e.reason_en
    assert "no pair" in e.reason_en


def test_leftover_cards_are_named():
    # 一 and 壹 can make no 列 with the rest (21 cards, no quad: the count is right)
    e = ev("一壹 四五六 七八九 肆伍陆 柒捌玖 二七十 三四 捌", win="五")
    assert not e.complete
    assert e.reason_zh.startswith("不成列") and "一" in e.reason_zh and "壹" in e.reason_zh
    assert "x1" in e.reason_en and "d1" in e.reason_en
    assert e.reason == f"{e.reason_zh} ({e.reason_en})"


def test_fifth_copy_is_refused_across_hand_melds_and_win():
    with pytest.raises(TooManyCopiesError):
        ev("一一一" + FILLER5_PAIR, win="一", melds=[meld(MeldKind.PENG, "一一一")])


def test_melds_must_fit_their_kind():
    with pytest.raises(MeldError, match="碰必须是三张相同的牌：一一二"):  # the message names the cards
        meld(MeldKind.PENG, "一一二")
    with pytest.raises(MeldError, match="招必须是四张相同的牌：一一一"):
        meld(MeldKind.ZHAO, "一一一")
    with pytest.raises(MeldError, match="吃的牌不成列：一二四"):
        meld(MeldKind.CHI, "一二四")
    with pytest.raises(MeldError):
        meld(MeldKind.CHI, "二七拾")  # 二七十 is one size only
    assert meld(MeldKind.CHI, "九九玖").group_kind is GroupKind.JIAO


# -- the winning card and the 坎 / the pair ------------------------------------------------------------------


def test_winning_card_on_a_concealed_pair_is_peng_not_kan():
    # 二二 + 二 wins: 碰 6, not 坎 9 (the card was not dealt)
    e = ev("二二" + FILLER6, win="二")
    assert e.hu == 6
    assert GroupKind.PENG in kinds_of(e) and GroupKind.KAN not in kinds_of(e)


def test_tianhu_dealt_hand_with_win_none_scores_kan():
    # the same 21 cards dealt (天胡, win=None): 二二二 is a dealt 坎, 9
    e = ev("二二二" + FILLER6)
    assert e.complete and e.hu == 9
    assert GroupKind.KAN in kinds_of(e)


def test_tianhu_dealt_hand_with_a_long_and_pair():
    e = ev("贰贰贰贰" + FILLER5_PAIR)
    assert e.complete and e.hu == 18


def test_winning_card_on_a_concealed_kan_becomes_zhao_when_worth_more():
    # 一一一 + 一 wins; 壹壹 either pairs (with the 招) or makes 绞 一壹壹 (with the 坎):
    #   招一 9 + 对壹壹 0 + 5 runs 0 = 9   vs   坎一 6 + 绞一壹壹 0 + 5 runs 0 = 6
    hand = "一一一 壹壹 三四五 四五六 叁肆伍 肆伍陆 捌捌八"
    assert ref_hus(hand, win="一") == {6, 9}
    e = ev(hand, win="一")
    assert e.hu == 9
    assert GroupKind.ZHAO in kinds_of(e)


def test_winning_card_on_a_concealed_kan_stays_elsewhere_when_worth_more():
    # 壹壹壹 + 壹 wins:
    #   坎壹 9 + 壹贰叁 6 + 绞肆四四 0 + 4 列 0 = 15   vs   招壹 12 + 贰叁肆 0 + 对四四 + 4 列 0 = 12
    hand = "壹壹壹 贰叁肆 四四 五六七 六七八 九九玖 捌捌八"
    assert ref_hus(hand, win="壹") == {12, 15}
    e = ev(hand, win="壹")
    assert e.hu == 15
    assert GroupKind.KAN in kinds_of(e) and GroupKind.ZHAO not in kinds_of(e)


def test_best_of_several_splits_is_chosen():
    # 一一二二三三壹贰叁: three 绞 (一一壹 二二贰 三三叁: 0) or 一二三 ×2 + 壹贰叁 (3 + 3 + 6 = 12);
    # the other 4 列 (四五六 肆伍陆 九九玖 捌捌八) are 0 → 12
    hand = "一一二二三三壹贰叁 四五六 肆伍陆 九九玖 捌捌八"
    assert {0, 12} <= ref_hus(hand)
    e = ev(hand)
    assert e.complete and e.hu == 12 == max(ref_hus(hand))


def test_evaluation_red_counts_all_the_winners_cards():
    # 贰柒拾 (3 red) in hand + 碰二 on the table (3 red) + 4 plain runs and 捌捌八 (0 red)
    e = ev("贰柒拾" + FILLER5_PAIR_LESS_6[:-2], win="六", melds=[meld(MeldKind.PENG, "二二二")])
    assert e.complete
    assert e.red == 6


# -- 3垅 / 5坎 instant wins -------------------------------------------------------------------------------


def test_three_long_wins_at_once_with_its_hu():
    # 垅一 12 + 垅四 12 + 垅五 12 + 壹贰叁 6 = 42 (肆伍陆 and 柒捌 score nothing)
    result = instant_win(R, parse_counts("一一一一四四四四五五五五壹贰叁肆伍陆柒捌"))
    assert result is not None
    name, hu, groups = result
    assert name == "3垅"
    assert hu == 42 == sum(g.hu for g in groups)
    assert [g.kind for g in groups].count(GroupKind.LONG) == 3


def test_five_kan_wins_at_once_with_its_hu():
    # 5 black small 坎 6 each = 30 + 壹贰叁 6 + 二七十 6 = 42
    result = instant_win(R, parse_counts("一一一三三三四四四六六六八八八壹贰叁二七十"))
    assert result is not None
    name, hu, _ = result
    assert name == "5坎"
    assert hu == 42


def test_two_long_or_four_kan_is_no_instant_win():
    assert instant_win(R, parse_counts("一一一一四四四四五五五六六六壹贰叁肆伍陆")) is None
    assert instant_win(R, parse_counts("一一一三三三四四四六六六壹贰叁肆伍陆柒捌")) is None


def test_instant_win_is_off_in_hejiang():
    assert instant_win(HEJIANG, parse_counts("一一一一四四四四五五五五壹贰叁肆伍陆柒捌")) is None
    assert instant_win(HEJIANG, parse_counts("一一一三三三四四四六六六八八八壹贰叁二七十")) is None


# The issue's hand (issue 11): 3垅 and eight loose cards, four of them red (七 十 贰 拾).
ISSUE_11_INSTANT = "一一一一三三三三六六六六七八八十贰肆玖拾"
BLACK_WINS = {"black", "wu_hu", "hei", "wu_duidui"}


@pytest.mark.parametrize("name", [n for n in preset_names() if find_rules(n).win.instant_longs])
def test_instant_win_counts_every_card_of_the_dealt_hand(name: str) -> None:
    """砌牌后有3垅或者5坎，可以直接胡牌: the loose cards are the winner's too, so a red one means no 乌/黑."""
    out = score({"rules": name, "hand": ISSUE_11_INSTANT, "seat": 1})
    assert out["ok"] and out["instant"] == "3垅" and out["red"] == 4
    assert not {m["id"] for m in out["multipliers"]} & BLACK_WINS


# -- waits (叫牌) -------------------------------------------------------------------------------------------


def test_waits_of_the_seed_run_hand():
    # 十 wins: 一二三 3 + 二七十 6 + 壹贰叁 6 = 15; 三 wins: 一二三 3 + 二三四 五六七 七八九 0 + 壹贰叁 6 = 9
    w = waits(R, parse_counts("一二三四五六七八九壹贰叁肆伍陆柒捌玖二七"))
    assert [(x.kind, x.hu) for x in w] == [(k("三"), 9), (k("十"), 15)]
    assert [str(x) for x in w] == ["三(9胡)", "十(15胡)"]


def test_waits_on_a_kan_and_a_pair():
    # 坎一 + FILLER5_PAIR: 一 → 招一 9 + 对九九 = 9; 九 → 坎一 6 + 碰九 1 = 7; 玖 → 坎一 6 + 绞九九玖 0 = 6
    w = waits(R, parse_counts("一一一" + FILLER5_PAIR))
    assert {(x.kind, x.hu) for x in w} == {(k("一"), 9), (k("九"), 7), (k("玖"), 6)}


def test_waits_list_hands_below_the_minimum_hu():
    # 六七 + FILLER6: 五 / 八 make a plain run (0 胡); 二 makes 二三四 五六七 (0); 捌 turns the 绞 捌捌八 into
    # 碰捌 3 and the 八 joins 六七八 → 3.  Every wait is listed, even under 10 胡.
    hand = "六七" + FILLER6
    w = {(x.kind, x.hu) for x in waits(R, parse_counts(hand))}
    assert w == {(k("二"), 0), (k("五"), 0), (k("八"), 0), (k("捌"), 3)}
    for card in "二五八捌":
        assert (k(card), max(ref_hus(hand, win=card))) in w


def test_waits_skip_a_kind_whose_four_copies_are_seen():
    # 一三 wait on 二 (一二三), but 招二 on the table holds all four 二: no wait at all
    hand = "一三 三四五 四五六 叁肆伍 肆伍陆 九九"
    assert waits(R, parse_counts(hand), [meld(MeldKind.ZHAO, "二二二二")]) == []
    # with 招六 on the table instead, 二 wins: 招六 9 + 一二三 3 + 对九九 + 4 runs 0 = 12
    w = waits(R, parse_counts(hand), [meld(MeldKind.ZHAO, "六六六六")])
    assert [(x.kind, x.hu) for x in w] == [(k("二"), 12)]


def test_waits_with_table_melds():
    # 碰贰 on the table (9) + 叁肆 and 5 列 of 0 胡 in hand: 贰 (贰叁肆, the 4th 贰) or 伍 (叁肆伍) → 9
    hand = "三四五 四五六 叁肆 肆伍陆 九九玖 捌捌八"
    w = {(x.kind, x.hu) for x in waits(R, parse_counts(hand), [meld(MeldKind.PENG, "贰贰贰")])}
    assert w == {(k("贰"), 9), (k("伍"), 9)}
