"""隆昌大贰 (seed 001): its 胡 table, 烂和, 番, 胡 × 2^番 capped at 200, 彩头, dealer double, 黄5, 稳庄, 圈风."""

from __future__ import annotations

import random

import msgspec
import pytest
from engine_decks import make_deck
from variant_helpers import ctx

from daer.calculator import score
from daer.cards import format_kinds, kind_of, parse_kinds
from daer.engine import GameState, Hu, Pass
from daer.engine.match import DealerRule, Match, next_dealer
from daer.hands.groups import GroupKind, group_hu
from daer.mingtang import WINDS, matches, settle_context
from daer.rules import find_rules
from daer.scoring import WinFlags, settle_draw, settle_penalty

R = find_rules("longchang")
IDS = tuple(R.scoring.patterns)
X = {"小黑": 3, "小红": 1, "大黑": 12, "大红": 16}  # 四, 二, 叁, 柒


@pytest.mark.parametrize(
    ("kind", "row"),
    [
        (GroupKind.PENG, {"小黑": 1, "小红": 3, "大黑": 3, "大红": 6}),   # 碰小的黑字牌为1胡 …
        (GroupKind.KAN, {"小黑": 3, "小红": 6, "大黑": 6, "大红": 9}),    # 坎子
        (GroupKind.ZHAO, {"小黑": 6, "小红": 9, "大黑": 9, "大红": 12}),  # 招 (小红 = 坎 + 3)
        (GroupKind.LONG, {"小黑": 9, "小红": 12, "大黑": 12, "大红": 15}),  # 龙子
    ],
)
def test_hu_table(kind: GroupKind, row: dict[str, int]) -> None:
    for col, k in X.items():
        n = 4 if kind in (GroupKind.ZHAO, GroupKind.LONG) else 3
        assert group_hu(R.hu, kind, (k,) * n) == row[col], (kind, col)


def test_runs() -> None:
    """小字"一二三""二七十"为3胡，大字"壹贰叁""贰柒拾"为6胡."""
    assert group_hu(R.hu, GroupKind.RUN, (0, 1, 2)) == 3
    assert group_hu(R.hu, GroupKind.RUN, (1, 6, 9)) == 3
    assert group_hu(R.hu, GroupKind.RUN, (10, 11, 12)) == 6
    assert group_hu(R.hu, GroupKind.RUN, (11, 16, 19)) == 6


LAN = {"hand": "三四五六七八肆伍陆柒捌玖九九玖叁肆伍四五", "win": {"card": "六", "from": "other"}, "seat": 1}


def test_lan_hu_counts_40() -> None:
    """烂和: no 列 has 胡; it wins and counts as 40 胡 (and is 'hu' 40 in the JSON)."""
    out = score({"rules": "longchang", **LAN})
    assert out["ok"] and out["hu"] == 40 and out.get("lan") is True
    assert score({"rules": "luzhou", **LAN})["ok"] is False


def names(text: str, **kw: object) -> list[str]:
    return [p.zh for p, _ in matches(ctx(R, text, **kw), IDS)]  # type: ignore[arg-type]


BASE = "坎四四四 顺一二三 顺五六七 顺柒捌玖 顺肆伍陆 碰十十十 顺六七八"


def test_fan_patterns() -> None:
    assert names(BASE, hu=15) == []
    assert names("坎四四四 顺一二三 顺一二三 顺柒捌玖 顺肆伍陆 碰十十十 顺六七八", hu=15) == ["高"]
    assert names("碰四四四 顺一二三 顺五六七 顺柒捌玖 顺肆伍陆 碰十十十 顺六七八", hu=15) == ["飘"]
    assert "坤" in names("坎四四四 顺一二三 顺二七十 顺贰柒拾 顺壹贰叁 碰十十十 坎捌捌捌", hu=40)
    assert names(BASE, hu=20) == ["棒"]
    assert names(BASE, hu=40, lan=True) == []  # 烂和 is not also 棒
    assert "红" in names("顺二七十 顺二七十 顺贰柒拾 碰七七七 坎四四四 顺三四五 顺肆伍陆", hu=15)
    assert names("坎一一一 坎四四四 顺四五六 顺肆伍陆 坎捌捌捌 顺九九玖 顺三四五", hu=15) == ["黑"]
    assert names(BASE, hu=15, flags=WinFlags(tianhu=True)) == ["天胡"]
    assert names(BASE, hu=15, flags=WinFlags(dihu=True)) == ["地胡"]


def test_wind_and_seat_card() -> None:
    """圈风: three or more of the round's card; 位: of the seat card (庄贰、杠柒、尾拾)."""
    text = "坎贰贰贰 顺一二三 顺五六七 顺柒捌玖 顺肆伍陆 碰九九九 顺六七八"
    assert names(text, hu=15, wind=11) == ["圈风"]
    assert names(text, hu=15, seat_card=11) == ["位"]
    assert names(text, hu=15, wind=16, seat_card=19) == []


@pytest.mark.parametrize(("hu", "fan", "final", "caitou"),
                         [(10, 0, 10, 1), (15, 0, 15, 2), (20, 0, 20, 2), (21, 0, 21, 3), (15, 1, 30, 3),
                          (18, 2, 72, 8), (40, 3, 200, 20), (60, 4, 200, 20)])
def test_final_hu_and_caitou(hu: int, fan: int, final: int, caitou: int) -> None:
    """胡数乘以2的几次方，超过200胡的只算200胡; 10胡1个彩头, 11-20 2个, 21-30 3个 …"""
    sc = msgspec.structs.replace(R.scoring, patterns={"kun": fan} if fan else {},
                                 fan=msgspec.structs.replace(R.scoring.fan, dealer_double=False))
    rules = msgspec.structs.replace(R, scoring=sc)
    st = settle_context(rules, ctx(rules, "坎四四四 顺一二三 顺二七十 顺贰柒拾 顺壹贰叁 碰十十十 坎捌捌捌", hu=hu),
                        winner=1, dealer=0)
    assert (st.fan, st.final, st.deng) == (fan, final, caitou)
    assert st.points == (-caitou, 2 * caitou, 0, -caitou)


def test_bang_doubles_a_round_ten() -> None:
    st = settle_context(R, ctx(R, BASE, hu=20), winner=1, dealer=2)
    assert (st.fan, st.final, st.deng) == (1, 40, 4)


def test_dealer_pays_and_is_paid_double() -> None:
    c = ctx(R, BASE, hu=15)
    st = settle_context(R, c, winner=0, dealer=0)  # the dealer wins: both pay double
    assert st.points == (8, -4, 0, -4)
    st = settle_context(R, c, winner=1, dealer=0)  # the dealer pays double, the other player single
    assert st.points == (-4, 6, 0, -2)


def test_huang_pays_five_to_the_xiedi() -> None:
    assert settle_draw(R, dealer=0).points == (-5, -5, 15, -5)


def test_penalty_bao_10() -> None:
    assert settle_penalty(R, offender=3).points == (10, 10, 10, -30)


def test_wen_zhuang_and_winds() -> None:
    """稳庄: the dealer keeps the deal while winning; the 圈风 moves after every seat has dealt."""
    m = Match(R, seed=1)
    assert m.dealer_rule is DealerRule.KEEP_WHILE_WINNING and m.wind == WINDS[0]
    m.turns = 4
    assert m.wind == WINDS[1]
    assert next_dealer(m.dealer_rule, 2, None, 4) == 2  # 黄了…庄家稳庄
    assert next_dealer(m.dealer_rule, 2, 2, 4) == 2 and next_dealer(m.dealer_rule, 2, 1, 4) == 3
    assert Match(find_rules("luzhou")).dealer_rule is DealerRule.WINNER and Match(find_rules("luzhou")).wind is None


def test_engine_offers_lan_hu_and_counts_it_as_40() -> None:
    """In play, a 0-胡 complete hand may win (烂和) and is settled as 40 胡."""
    seat1 = LAN["hand"]
    left = [4] * 20
    for k in parse_kinds(seat1 + "六"):
        left[k] -= 1
    rest = [k for k in range(20) for _ in range(left[k])]
    hands = {0: format_kinds(rest[0::2][:21]), 1: seat1, 3: format_kinds(rest[1::2][:20])}
    st = GameState(R, make_deck(R, hands=hands, stock="六"), dealer=0)
    st.apply(st.legal_actions(0)[-1])
    while st.offer is None or st.offer.kind != parse_kinds("六")[0]:
        seat = st.to_act()[0]
        st.apply(next((a for a in st.legal_actions(seat) if isinstance(a, Pass)), st.legal_actions(seat)[0]))
    assert Hu(seat=1) in st.legal_actions(1)
    st.apply(Hu(seat=1))
    while not st.over:
        seat = st.to_act()[0]
        st.apply(next(a for a in st.legal_actions(seat) if isinstance(a, Pass)))
    assert st.result is not None and st.result.winner == 1 and st.result.hu == 40 and "lan" in st.result.flags


# -- 堂牌: the two dead bottom cards ------------------------------------------------------------------
def _deck(seed: int) -> list[int]:
    deck = list(range(80))
    random.Random(seed).shuffle(deck)
    return deck


def _play_out(st: GameState) -> None:
    """Everyone passes every claim and discards the first legal card: the hand runs to 黄 or a win."""
    while not st.over:
        seat = st.to_act()[0]
        legal = st.legal_actions(seat)
        st.apply(next((a for a in legal if isinstance(a, Pass)), legal[-1]))


def test_dead_bottom_cards_two_face_up_seventeen_used() -> None:
    """堂牌规定为19张，其中最下方2张要翻起让字面朝上，能用的为字面朝下的17张堂牌."""
    assert R.table.dead_cards == 2 and R.stock_cards == 19
    for seed in range(6):
        deck = _deck(seed)
        st = GameState(R, deck, dealer=0)
        view = st.view(1)
        shown = (kind_of(deck[-2]), kind_of(deck[-1]))  # views and events show kinds, never card ids
        assert st.dead == (deck[-2], deck[-1])
        assert view.bottoms == shown and view.dead and view.bottom == shown[-1]
        assert st.log[0].bottoms == shown  # type: ignore[union-attr]
        assert msgspec.json.decode(view.to_json())["bottoms"] == list(shown)
        assert view.stock == 17 or st.over
        _play_out(st)
        revealed = [e.kind for e in st.log if type(e).__name__ == "Revealed"]  # type: ignore[union-attr]
        in_play = {c for h in st.hands for c in h} | {c for _, c in st.discards}
        in_play |= {c for ms in st.melds for m in ms for c in m.ids}
        assert len(revealed) <= 17 and not in_play & {deck[-2], deck[-1]} and st.dead == (deck[-2], deck[-1])
        assert sorted(st.card_locations()) == list(range(80))
        if st.result is not None and st.result.how == "huang":
            assert revealed[-1] == kind_of(deck[-3]) and deck[-3] in in_play  # 海底 lies just above the dead two


def test_dead_bottom_cards_huang_after_seventeen_reveals() -> None:
    """能用的为字面朝下的17张堂牌: 黄 comes when the 17 face-down cards are used up."""
    huang = 0
    for seed in range(40):
        deck = _deck(seed)
        st = GameState(R, deck, dealer=0)
        _play_out(st)
        if st.result is not None and st.result.how == "huang":
            huang += 1
            assert sum(1 for e in st.log if type(e).__name__ == "Revealed") == 17
            assert st.view(None).stock == 0
    assert huang


def test_luzhou_keeps_one_shown_bottom_card_in_play() -> None:
    """泸州: 底牌最后一张牌必须示众 — one card shown, still the last of the 19 to be revealed."""
    luzhou = find_rules("luzhou")
    assert luzhou.table.dead_cards == 0
    deck = _deck(3)
    st = GameState(luzhou, deck, dealer=0)
    view = st.view(0)
    assert view.stock == 19 and view.bottoms == (view.bottom,) and not view.dead
    assert kind_of(st.stock[-1]) == view.bottom


def test_dead_bottom_cards_haidi_is_the_seventeenth_card() -> None:
    """能用的为字面朝下的17张堂牌: a win on the last usable card (just above the two dead ones) is 海底."""
    for seed in range(400):
        deck = _deck(seed)
        st = GameState(R, deck, dealer=seed % 4)
        while not st.over:
            seat = st.to_act()[0]
            legal = st.legal_actions(seat)
            win = next((a for a in legal if isinstance(a, Hu)), None)
            st.apply(win or next((a for a in legal if isinstance(a, Pass)), legal[-1]))
        if st.result is not None and "haidi" in st.result.flags:
            assert st.offer is not None and st.offer.card == deck[-3]
            return
    raise AssertionError("no 海底 win in 400 seeded hands")
