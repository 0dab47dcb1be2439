"""泸州名堂 (高级玩法): every 名堂 of seed 000 §二, the 平胡 rule, the cap, the points table."""

from __future__ import annotations

import pytest
from engine_decks import make_deck
from variant_helpers import arr, ctx

from daer.calculator import score
from daer.cards import format_kinds, parse_counts, parse_kinds
from daer.engine import Discard, GameState, Hu, Pass, Peng
from daer.hands import evaluate
from daer.mingtang import PATTERNS, best_win, matches, settle_context
from daer.rules import find_rules
from daer.scoring import WinFlags

R = find_rules("luzhou-mingtang")
IDS = tuple(R.scoring.patterns)

# A plain seven 列 with five red cards spread over four 列 and a 坎: no 名堂 at all.
PLAIN = "坎四四四 顺一二三 顺五六七 顺柒捌玖 顺肆伍陆 碰十十十 顺六七八"


def names(text: str, **kw: object) -> list[str]:
    return [p.zh for p, _ in matches(ctx(R, text, **kw), IDS)]  # type: ignore[arg-type]


def test_seed_values_are_data() -> None:
    v = R.scoring.patterns
    assert (v["red_hu"], v["zhen_zhu"], v["jia_zhu"]) == (8, 16, 8)
    assert (v["zhao_yin"], v["long_yin"], v["he_yin"], v["san_yin"], v["pian"]) == (8, 16, 8, 8, 4)
    assert (v["hua"], v["bian_di_jin"], v["shisan_taibao"], v["shiwu_guandeng"], v["wu_hu"]) == (8, 32, 32, 32, 32)
    assert (v["zimei_peng"], v["zimei_zhao"], v["zimei_long"], v["qia"], v["qing"]) == (2, 8, 32, 2, 8)
    assert (v["shuang_piaodai"], v["da_xiao_18"], v["tianhu"], v["dihu"], v["huilong"]) == (32, 16, 8, 8, 4)
    assert (v["haidilao"], v["xi_24"], v["hu_30"], v["hu_33"], v["hu_36"]) == (2, 32, 8, 16, 32)
    assert all(i in PATTERNS for i in v)


def test_plain_hand_has_no_mingtang() -> None:
    assert names(PLAIN, hu=15) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # 红胡: ≥ 10 red cards
        ("顺二七十 顺二七十 顺贰柒拾 碰七七七 坎四四四 顺三四五 顺肆伍陆", ["红胡"]),
        # 真珠: the only red card in a 一二三; 假珠 elsewhere
        ("顺一二三 坎四四四 顺四五六 顺肆伍陆 坎捌捌捌 顺三四五 坎九九九", ["真珠"]),
        ("顺三四五 坎四四四 顺五六七 顺肆伍陆 坎捌捌捌 坎九九九 顺壹叁叁", ["假珠"]),
        # 印: four red cards
        ("招柒柒柒柒 坎四四四 顺四五六 顺肆伍陆 坎捌捌捌 对九九 顺三四五", ["招印"]),
        ("垅柒柒柒柒 坎四四四 顺四五六 顺肆伍陆 坎捌捌捌 对九九 顺三四五", ["垅印"]),
        ("坎柒柒柒 顺五六七 坎四四四 顺肆伍陆 坎捌捌捌 顺九九玖 顺三四五", ["合印"]),
        ("顺五六七 顺陆柒捌 顺六七八 顺壹贰叁 坎四四四 坎九九九 顺三四五", ["散印"]),
        # 偏: three red cards in one 列
        ("坎柒柒柒 坎四四四 顺四五六 顺肆伍陆 坎捌捌捌 顺九九玖 顺三四五", ["偏"]),
        # 乌胡
        ("坎一一一 坎四四四 顺四五六 顺肆伍陆 坎捌捌捌 顺九九玖 顺三四五", ["乌胡"]),
        # 十三太保 / 十五观灯 replace 红胡
        ("顺二七十 顺二七十 顺贰柒拾 碰七七七 顺五六七 坎四四四 顺肆伍陆", ["十三太保"]),
        ("顺二七十 顺二七十 顺贰柒拾 碰七七七 碰贰贰贰 坎四四四 顺肆伍陆", ["十五观灯"]),
    ],
)
def test_red_mingtang(text: str, expected: list[str]) -> None:
    got = names(text, hu=15)
    assert [n for n in got if n != "青"] == expected


def test_hua_and_bian_di_jin() -> None:
    six = "顺一二三 顺五六七 顺陆柒捌 顺十九玖 顺六七八 顺壹贰叁 坎四四四"
    assert "花" in names(six, hu=15)
    seven = "顺一二三 顺五六七 顺陆柒捌 顺十九玖 顺六七八 顺壹贰叁 顺十十拾"
    assert "遍地金" in names(seven, hu=15)


def test_shape_mingtang() -> None:
    assert "姊妹碰" in names("碰四四四 碰五五五 坎一一一 顺一二三 顺肆伍陆 顺二七十 顺捌玖拾", hu=15)
    assert "姊妹招" in names("招四四四四 招五五五五 对一一 坎三三三 顺肆伍陆 顺二七十 顺捌玖拾", hu=15)
    assert "姊妹垅" in names("垅四四四四 垅五五五五 对一一 坎三三三 顺肆伍陆 顺二七十 顺捌玖拾", hu=15)
    assert "恰" in names(PLAIN, hu=20)
    assert "飘" in names("碰四四四 顺一二三 顺五六七 顺柒捌玖 顺肆伍陆 碰十十十 顺六七八", hu=15)
    assert "双飘带" in names("顺一二三 顺一二三 顺二七十 顺二七十 坎四四四 顺肆伍陆 顺捌玖拾", hu=15)
    assert "18大18小" in names("坎肆肆肆 顺壹贰叁 顺伍陆柒 顺柒捌玖 顺肆伍陆 碰拾拾拾 顺四四肆", hu=15)
    assert "24喜" in names("招四四四四 招五五五五 招六六六六 招八八八八 对一一 顺肆伍陆 顺捌玖拾", hu=60)


def test_qing_means_no_123_or_2710() -> None:
    assert "青" in names("坎四四四 顺二三四 顺五六七 顺柒捌玖 顺肆伍陆 碰十十十 顺六七八", hu=15)
    assert "青" not in names("坎四四四 顺一二三 顺五六七 顺柒捌玖 顺肆伍陆 碰十十十 顺六七八", hu=15)


def test_hu_count_mingtang_take_the_highest_only() -> None:
    assert "30胡" in names(PLAIN, hu=31)
    assert names(PLAIN, hu=34).count("33胡") == 1 and "30胡" not in names(PLAIN, hu=34)
    assert "36胡" in names(PLAIN, hu=36) and "33胡" not in names(PLAIN, hu=36)


@pytest.mark.parametrize(("flag", "zh"), [("tianhu", "天胡"), ("dihu", "地胡"), ("huilong", "回龙地胡"),
                                          ("haidi", "海底捞")])
def test_how_won(flag: str, zh: str) -> None:
    assert names(PLAIN, hu=15, flags=WinFlags(**{flag: True})) == [zh]


@pytest.mark.parametrize(("fan", "each", "dijia"), [(2, 5, 2), (4, 8, 4), (8, 12, 6), (16, 16, 8), (32, 24, 12)])
def test_points_table(fan: int, each: int, dijia: int) -> None:
    """2番 5分, 4番 8分, 8番 12分, 16番 16分, 32番 24分; the 底家 2/4/6/8/12 from the winner."""
    rows = dict(R.scoring.mingtang.points), dict(R.scoring.mingtang.dijia)
    assert rows[0][fan] == each and rows[1][fan] == dijia


def test_pinghu_is_two_fan_and_four_from_27() -> None:
    st = settle_context(R, ctx(R, PLAIN, hu=15), winner=1)
    assert (st.fan, st.points) == (2, (-5, 8, 2, -5))
    st = settle_context(R, ctx(R, PLAIN, hu=27), winner=1)
    assert (st.fan, st.points) == (4, (-8, 12, 4, -8))
    assert [m.zh for m in st.multipliers] == ["平胡"]


def test_seed_example_is_capped_at_32() -> None:
    """花红青飘恰 = 8*8*8*8*2 = 8192 (the seed's 10572 is a slip), capped at 32 番: 24 points."""
    text = "碰二二二 碰七七七 顺六七八 顺柒捌玖 顺陆柒捌 碰拾拾拾 碰四四四"
    got = names(text, hu=30)
    assert {"花", "红胡", "青", "飘", "恰"} <= set(got)
    assert 8 * 8 * 8 * 8 * 2 == 8192
    st = settle_context(R, ctx(R, text, hu=30), winner=1)
    assert st.fan == 32 and st.points[1] == 2 * 24 - 12


def test_best_arrangement_is_the_best_paying_not_the_most_hu() -> None:
    hand, win = parse_counts("一一壹二二贰三三叁四四四五五五六六六捌捌"), parse_kinds("捌")[0]
    assert evaluate(R, hand, (), win).hu == 33
    won = best_win(R, hand, (), win, winner=1)
    assert won is not None
    assert won.hu == 21 and {m.zh for m in won.settlement.multipliers} == {"偏", "青"}
    assert won.settlement.fan == 32


def test_calculator_reports_fan_and_mingtang() -> None:
    out = score({"rules": "luzhou-mingtang", "hand": "一一壹二二贰三三叁四四四五五五六六六捌捌",
                 "win": {"card": "捌", "from": "other"}, "seat": 1})
    assert out["ok"] and out["hu"] == 21 and out["fan"] == 32
    assert {m["name"] for m in out["mingtang"]} == {"偏", "青"}
    assert out["points"]["seats"] == [-24, 36, 12, -24]
    assert arr(R, "顺一二三")[0].hu == 3


def test_engine_tianhu_is_paid_by_mingtang() -> None:
    """A dealt winning hand (天胡) in play: the engine settles it with the 名堂 (天胡 8番 …)."""
    dealer = "一二三四五六七八九壹贰叁肆伍陆柒捌玖二七十"
    left = [4] * 20
    for k in parse_kinds(dealer):
        left[k] -= 1
    rest = [k for k in range(20) for _ in range(left[k])]
    hands = {0: dealer, 1: format_kinds(rest[0::2][:20]), 3: format_kinds(rest[1::2][:20])}
    st = GameState(R, make_deck(R, hands=hands), dealer=0)
    assert Hu(seat=0) in st.legal_actions(0)
    st.apply(Hu(seat=0))
    assert st.result is not None and st.result.winner == 0 and "tianhu" in st.result.flags
    assert "天胡" in st.result.multipliers and st.result.fan >= 8
    assert sum(st.result.points) == 0


def test_engine_huilong_dihu() -> None:
    """回龙地胡: the dealer wins on the first discard of another player (4番 here, with the hand's own 名堂)."""
    dealer = "一二三四五六七八九壹贰叁肆伍陆柒捌玖二七拾"
    left = [4] * 20
    for k in parse_kinds(dealer + "拾拾十"):
        left[k] -= 1
    ten, big_ten = parse_kinds("十拾")
    rest = [k for k in range(20) if k not in (ten, big_ten) for _ in range(left[k])]
    hands = {0: dealer, 1: "拾拾十" + format_kinds(rest[0::2][:17]), 3: format_kinds(rest[1::2][:20])}
    st = GameState(R, make_deck(R, hands=hands), dealer=0)
    st.apply(Discard(seat=0, kind=big_ten))
    assert Peng(seat=1) in st.legal_actions(1)
    st.apply(Peng(seat=1))
    while st.phase == "claim":
        seat = st.to_act()[0]
        st.apply(next(a for a in st.legal_actions(seat) if isinstance(a, Pass)))
    st.apply(Discard(seat=1, kind=ten))
    assert Hu(seat=0) in st.legal_actions(0)
    for seat in st.to_act():
        st.apply(Hu(seat=0) if seat == 0 else next(a for a in st.legal_actions(seat) if isinstance(a, Pass)))
    assert st.result is not None and st.result.winner == 0 and "huilong" in st.result.flags
    assert "回龙地胡" in st.result.multipliers
