"""Settlement (计等规则, 计分方法, 付钱计算): 等 brackets, 番 multipliers, money mode, 黄牌, zero sum.

Seats 0-3 in turn order; with the dealer at seat 0 the 底家 is seat 2 (opposite) and seats 0, 1, 3 play.
"""

from __future__ import annotations

from decimal import Decimal

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from daer.calculator import score
from daer.rules import RulesError, find_rules, with_overrides
from daer.scoring import Settlement, WinFlags, deng_of, money_text, penalty_amount, settle, settle_draw, yuan

LUZHOU = find_rules("luzhou")
MONEY = with_overrides(LUZHOU, {"scoring.mode": "money"})  # 4-5-6 with 底钱 2, 1 元 a 棒 (the defaults)
SOME_RED = 5  # 1-9 red cards: neither 红 nor 乌


def test_seed_example_red_10_hu_winner_10_dijia_2_losers_minus_6():
    # 刚好胡红10胡: (2+1)*2 = 6 from each loser; winner 2*6 - 1*2 = 10; 底家 1*2 = 2
    s = settle(LUZHOU, hu=10, red=10, winner=1, dealer=0)
    assert s.deng == 1
    assert s.factor == 2
    assert s.points == (-6, 10, 2, -6)
    assert s.dijia == 2
    assert [m.id for m in s.multipliers] == ["red"]
    assert (s.role(0), s.role(1), s.role(2), s.role(3)) == ("loser", "winner", "dijia", "loser")


@pytest.mark.parametrize(
    ("hu", "deng"), [(10, 1), (11, 2), (15, 2), (20, 2), (21, 3), (30, 3), (31, 4), (40, 4), (41, 5), (51, 6)]
)
def test_deng_brackets_10_is_1_11_to_20_is_2_21_to_30_is_3(hu, deng):
    assert deng_of(LUZHOU, hu) == deng


def test_deng_21_hu_is_3_deng():
    assert deng_of(LUZHOU, 21) == 3
    # 3 等 is 3 points: each loser pays 3 + 1 = 4, the 底家 gets 1, the winner 2*4 - 1 = 7
    assert settle(LUZHOU, hu=21, red=SOME_RED, winner=0).points == (7, -4, 1, -4)


def test_least_points_is_2_so_10_and_20_hu_pay_alike():
    # 最少计2分: 1 等 (10 胡) still counts 2 points; each loser pays 2 + 1 = 3
    ten = settle(LUZHOU, hu=10, red=SOME_RED, winner=0)
    twenty = settle(LUZHOU, hu=20, red=SOME_RED, winner=0)
    assert ten.factor == 1 and not ten.multipliers
    assert ten.points == twenty.points == (5, -3, 1, -3)


@pytest.mark.parametrize(("hu", "each"), [(10, 3), (20, 3), (21, 4), (30, 4), (31, 5), (45, 6)])
def test_each_loser_pays_deng_plus_1_and_dijia_gets_1(hu, each):
    s = settle(LUZHOU, hu=hu, red=SOME_RED, winner=1, dealer=0)
    assert s.points == (-each, 2 * each - 1, 1, -each)


def test_red_is_10_or_more_red_cards_times_2():
    assert settle(LUZHOU, hu=10, red=9, winner=0).factor == 1
    assert settle(LUZHOU, hu=10, red=10, winner=0).factor == 2
    assert settle(LUZHOU, hu=10, red=15, winner=0).factor == 2


def test_wu_no_red_card_times_4():
    s = settle(LUZHOU, hu=10, red=0, winner=0)
    assert [m.id for m in s.multipliers] == ["black"]
    assert s.factor == 4
    # (2+1)*4 = 12 from each loser, 底家 1*4, winner 24 - 4
    assert s.points == (20, -12, 4, -12)


def test_tianhu_times_2_and_dihu_times_2():
    assert settle(LUZHOU, hu=10, red=SOME_RED, winner=0, flags=WinFlags(tianhu=True)).factor == 2
    assert settle(LUZHOU, hu=10, red=SOME_RED, winner=1, flags=WinFlags(dihu=True)).factor == 2


def test_combined_multipliers_multiply():
    # 乌 ×4 and 天胡 ×2 = ×8
    s = settle(LUZHOU, hu=10, red=0, winner=0, flags=WinFlags(tianhu=True))
    assert s.factor == 8
    assert sorted(m.id for m in s.multipliers) == ["black", "tianhu"]
    assert s.points == (3 * 8 * 2 - 8, -24, 8, -24)
    # 红 ×2, 天胡 ×2, 地胡 ×2 = ×8
    s = settle(LUZHOU, hu=31, red=12, winner=0, flags=WinFlags(tianhu=True, dihu=True))
    assert s.factor == 8
    assert s.points == (2 * 5 * 8 - 8, -40, 8, -40)


def test_haidi_and_self_drawn_are_no_multiplier_in_deng_play():
    s = settle(LUZHOU, hu=10, red=SOME_RED, winner=0, flags=WinFlags(haidi=True, self_drawn=True))
    assert s.factor == 1


def test_multiplier_values_come_from_the_ruleset():
    rules = with_overrides(LUZHOU, {"scoring.deng.black": 1, "scoring.deng.red": 3})
    assert settle(rules, hu=10, red=0, winner=0).factor == 1
    assert settle(rules, hu=10, red=10, winner=0).factor == 3


# -- money mode (付钱计算), 4-5-6 with 底钱 2 ------------------------------------------------------------
def yuan_points(s: Settlement) -> tuple[int | Decimal, ...]:
    """Money play counts in 分: each seat's change in 元."""
    assert s.money
    return tuple(s.shown(p) for p in s.points)



@pytest.mark.parametrize(
    ("hu", "loser", "dijia", "winner"),
    [
        (10, 4, 2, 6),
        (20, 4, 2, 6),  # 10~20胡: 输牌的人每人付4元，数底的人得2元，赢牌的得6元
        (21, 5, 2, 8),
        (30, 5, 2, 8),  # 21~30胡: 5 / 2 / 8
        (31, 6, 2, 10),
        (40, 6, 2, 10),  # 31~40胡: 6 / 2 / 10
        (41, 7, 2, 12),
        (50, 7, 2, 12),  # 41~50胡: 7 / 2 / 12
    ],
)
def test_money_4_5_6_with_di_qian_2_brackets(hu, loser, dijia, winner):
    s = settle(MONEY, hu=hu, red=SOME_RED, winner=3, dealer=0)
    assert yuan_points(s) == (-loser, -loser, dijia, winner)


def test_money_red_times_2_and_wu_times_4():
    # 如果胡下的牌中红色牌数不小于10张，叫红，此时算钱按上述各×2; 全为黑牌 ×4
    assert yuan_points(settle(MONEY, hu=10, red=10, winner=1)) == (-8, 12, 4, -8)
    assert yuan_points(settle(MONEY, hu=25, red=0, winner=1)) == (-20, 32, 8, -20)


def test_money_unit_scales_everything():
    rules = with_overrides(MONEY, {"scoring.money.unit": 5})
    assert yuan_points(settle(rules, hu=10, red=SOME_RED, winner=1)) == (-20, 30, 10, -20)


def test_money_wu_mao_base_counts_exactly_in_fen():
    """「基数可以变，如以1块钱为基数，叫1块钱1棒，少的可以五毛钱」: a 基数 of 0.5 元, counted in 分."""
    half = with_overrides(MONEY, {"scoring.money.unit": 0.5, "scoring.money.first": 5})
    assert half.scoring.money.unit == Decimal("0.5") and half.scoring.money.unit_fen == 50
    s = settle(half, hu=15, red=SOME_RED, winner=1, dealer=0)  # 5 棒 × 0.5 元 = 2.5 元 each loser
    assert s.points == (-250, 400, 100, -250) and sum(s.points) == 0
    assert yuan_points(s) == (Decimal("-2.5"), 4, 1, Decimal("-2.5"))
    assert {p.amount for p in s.payments} == {250, 100}
    assert money_text(250) == "2.5 元" and yuan(-5) == Decimal("-0.05")
    red = settle(half, hu=15, red=10, winner=1, dealer=0)  # 红 ×2: 5 元
    assert yuan_points(red)[0] == -5
    draw = settle_draw(half, dealer=0, penalties=((1, "peng"),))  # 黄: 底钱 2 × 0.5 = 1 元; 包: 2倍底钱 = 2 元
    assert penalty_amount(half) == 200
    assert yuan_points(draw) == (-1 + 2, -1 - 6, 3 + 2, -1 + 2)


def test_money_wu_mao_through_daer_score_json():
    """少的可以五毛钱: ``daer score --json`` shows 元 exactly (2.5, not 250 分 and not 2.4999…)."""
    out = score({"rules": "luzhou", "options": {"scoring.mode": "money", "scoring.money.unit": 0.5,
                                                "scoring.money.first": 5},
                 "hand": "一二三四五六七八九壹贰叁肆伍陆柒捌玖二七", "win": {"card": "十", "from": "other"}})
    assert out["ok"] and out["unit"] == "元"
    assert out["points"]["seats"] == [4, Decimal("-2.5"), 1, Decimal("-2.5")]
    assert [p["amount"] for p in out["payments"]] == [Decimal("2.5"), Decimal("2.5"), 1]
    text = msgspec.json.Encoder(decimal_format="number").encode(out["points"])
    assert b'"seats":[4,-2.5,1,-2.5]' in text


def test_money_base_must_be_whole_fen():
    """基数 in 元 with at most two decimals (分); zero, negative or 0.001 is refused with a clear message."""
    for bad in (0.001, 0, -1):
        with pytest.raises(RulesError, match="基数"):
            with_overrides(MONEY, {"scoring.money.unit": bad})


# -- 黄牌 and the 底家 ---------------------------------------------------------------------------------------


def test_huang_each_player_pays_the_dijia():
    s = settle_draw(LUZHOU, dealer=0)
    assert s.winner is None and s.dijia == 2
    assert s.points == (-1, -1, 3, -1)
    assert {(p.payer, p.payee, p.amount) for p in s.payments} == {(0, 2, 1), (1, 2, 1), (3, 2, 1)}


def test_huang_in_money_mode_each_pays_the_di_qian():
    # 黄牌时3玩家向数底的各付2元底钱
    assert yuan_points(settle_draw(MONEY, dealer=1)) == (-2, -2, -2, 6)


def test_the_dijia_is_opposite_the_dealer():
    for dealer in range(4):
        assert settle(LUZHOU, hu=10, red=SOME_RED, winner=dealer, dealer=dealer).dijia == (dealer + 2) % 4


@pytest.mark.parametrize("dealer", range(4))
def test_the_dijia_cannot_win(dealer):
    with pytest.raises(ValueError, match="底家"):
        settle(LUZHOU, hu=10, red=SOME_RED, winner=(dealer + 2) % 4, dealer=dealer)


def test_payments_explain_the_points():
    s = settle(LUZHOU, hu=10, red=10, winner=1, dealer=0)
    points = [0, 0, 0, 0]
    for p in s.payments:
        points[p.payer] -= p.amount
        points[p.payee] += p.amount
    assert tuple(points) == s.points


@settings(max_examples=200, deadline=None)
@given(
    hu=st.integers(10, 120),
    red=st.integers(0, 24),
    seats=st.tuples(st.integers(0, 3), st.sampled_from([0, 1, 3])),
    flags=st.builds(WinFlags, tianhu=st.booleans(), dihu=st.booleans()),
    rules=st.sampled_from([LUZHOU, MONEY]),
)
def test_points_always_sum_to_zero(hu, red, seats, flags, rules):
    dealer, offset = seats
    s = settle(rules, hu=hu, red=red, winner=(dealer + offset) % 4, dealer=dealer, flags=flags)
    assert sum(s.points) == 0
    assert s.points[s.winner] > 0
    assert s.points[s.dijia] > 0
    losers = [seat for seat in range(4) if seat not in (s.winner, s.dijia)]
    assert len(losers) == 2
    assert s.points[losers[0]] == s.points[losers[1]] < 0
    assert sum(settle_draw(rules, dealer=dealer).points) == 0


@settings(max_examples=200, deadline=None)
@given(
    name=st.sampled_from(["luzhou", "luzhou-mingtang", "hejiang", "gulin", "longchang", "paohuzi"]),
    money=st.booleans(),
    unit=st.sampled_from([0.5, 1, 0.05, 3]),
    dealer=st.integers(0, 3),
    offenders=st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["peng", "zhao", "peng+zhao"])),
                       max_size=3, unique_by=lambda t: t[0]),
)
def test_huang_with_baopai_sums_to_zero_and_each_offender_pays_every_other_seat(name, money, unit, dealer, offenders):
    """包牌的向另三人各付…: at a 黄 end every offender pays each other seat the ruleset's amount; the total is 0."""
    rules = find_rules(name)
    if money:
        rules = with_overrides(rules, {"scoring.mode": "money", "scoring.money.unit": unit})
    n = rules.table.seats
    offenders = [(s, r) for s, r in offenders if s < n]
    plain = settle_draw(rules, dealer=dealer % n)
    s = settle_draw(rules, dealer=dealer % n, penalties=tuple(offenders))
    assert sum(s.points) == 0 and s.money == money
    amount = penalty_amount(rules)
    for seat in range(n):
        paid_in = sum(amount for o, _ in offenders if o != seat)
        paid_out = amount * (n - 1) if seat in {o for o, _ in offenders} else 0
        assert s.points[seat] == plain.points[seat] + paid_in - paid_out
    assert all(p.amount == amount for p in s.payments if p.zh.startswith("包牌"))
