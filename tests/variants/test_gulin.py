"""古蔺大贰: 有碰必碰、有招必招, 报牌, a match of six dealer turns, 名堂 红坤圈黑报天地."""

from __future__ import annotations

from engine_decks import make_deck

from daer.calculator import score
from daer.cards import format_kinds, parse_kinds
from daer.engine import Bao, Discard, GameState, Hu, Pass, Peng, Zhao, dumps, loads, record_of, replay
from daer.engine.match import DealerRule, Match
from daer.mingtang import WINDS
from daer.rules import find_rules

R = find_rules("gulin")
SMALL_PAIRS = "一一二二三三四四五五六六七七八八九九十十"


def test_preset_options() -> None:
    p = R.play
    assert p.peng_mandatory and p.zhao_mandatory and p.bao
    assert set(R.scoring.patterns) == {"hong", "kun", "quan", "hei", "bao", "tianhu", "dihu"}
    assert R.table.dealer_rule == "rotate" and R.table.match_hands == 6


def test_you_peng_bi_peng() -> None:
    """有碰必碰: a seat that can 碰 may neither pass nor 吃 instead."""
    hands = {0: SMALL_PAIRS + "壹", 1: "壹壹贰贰叁叁肆肆伍伍陆陆柒柒捌捌玖玖拾拾", 3: SMALL_PAIRS}
    st = GameState(R, make_deck(R, hands=hands), dealer=0)
    st.apply(Discard(seat=0, kind=parse_kinds("壹")[0]))
    assert st.legal_actions(1) == [Peng(seat=1)]
    luzhou = find_rules("luzhou")
    st = GameState(luzhou, make_deck(luzhou, hands=hands), dealer=0)
    st.apply(Discard(seat=0, kind=parse_kinds("壹")[0]))
    assert Pass(seat=1) in st.legal_actions(1)


def test_you_zhao_bi_zhao() -> None:
    """有招必招: a 坎 takes the fourth card, no choice."""
    hands = {0: SMALL_PAIRS + "壹", 1: "壹壹壹贰贰叁叁肆肆伍伍陆陆柒柒捌捌玖玖拾", 3: SMALL_PAIRS}
    st = GameState(R, make_deck(R, hands=hands), dealer=0)
    st.apply(Discard(seat=0, kind=parse_kinds("壹")[0]))
    assert Zhao(seat=1) in st.legal_actions(1) and Pass(seat=1) not in st.legal_actions(1)


def _bao_deck(stock: str) -> list[int]:
    dealer = "一二三四五六七八九壹贰叁肆伍陆柒捌玖二七拾"
    left = [4] * 20
    for k in parse_kinds(dealer + stock):
        left[k] -= 1
    ten, big_ten = parse_kinds("十拾")
    rest = [k for k in range(20) if k not in (ten, big_ten) for _ in range(left[k])]
    hands = {0: dealer, 1: format_kinds(rest[0::2][:20]), 3: format_kinds(rest[1::2][:20])}
    return make_deck(R, hands=hands, stock=stock)


def _play(st: GameState, prefer: type) -> None:
    while not st.over:
        seat = st.to_act()[0]
        legal = st.legal_actions(seat)
        pick = next((a for a in legal if isinstance(a, prefer)), None)
        pick = pick or next((a for a in legal if isinstance(a, Hu | Pass)), legal[0])
        st.apply(pick)


def test_bao_declares_and_scores_one_fan() -> None:
    st = GameState(R, _bao_deck("十"), dealer=0)
    bao = Bao(seat=0, kind=parse_kinds("拾")[0])
    assert bao in st.legal_actions(0)
    assert Bao(seat=0, kind=parse_kinds("一")[0]) not in st.legal_actions(0)  # not ready after that discard
    st.apply(bao)
    assert st.bao[0]
    _play(st, Hu)
    assert st.result is not None and st.result.winner == 0 and "bao" in st.result.flags
    assert "报" in st.result.multipliers and st.result.fan == 1 and st.result.final == 30
    again = replay(loads(dumps(record_of(st))))
    assert again.result == st.result


def test_bao_locks_the_hand() -> None:
    """After 报牌 the hand takes nothing but 胡: a mandatory 碰 is not even offered."""
    st = GameState(R, _bao_deck("二十"), dealer=0)
    st.apply(Bao(seat=0, kind=parse_kinds("拾")[0]))
    while st.offer is None or st.offer.kind != parse_kinds("二")[0]:
        seat = st.to_act()[0]
        st.apply(next((a for a in st.legal_actions(seat) if isinstance(a, Pass)), st.legal_actions(seat)[0]))
    assert 0 not in st.options
    plain = GameState(R, _bao_deck("二十"), dealer=0)
    plain.apply(Discard(seat=0, kind=parse_kinds("拾")[0]))
    while plain.offer is None or plain.offer.kind != parse_kinds("二")[0]:
        seat = plain.to_act()[0]
        plain.apply(next((a for a in plain.legal_actions(seat) if isinstance(a, Pass)),
                         plain.legal_actions(seat)[0]))
    assert plain.options[0] == [Peng(seat=0)]


def test_a_match_is_six_dealer_turns_one_wind_each() -> None:
    m = Match(R, seed="gulin")
    assert m.dealer_rule is DealerRule.ROTATE
    winds = []
    while not m.over:
        winds.append(m.wind)
        st = m.deal()
        _play(st, Hu)
        m.finish(st)
    assert winds == list(WINDS) and len(m.hands) == 6


# -- instant wins (3垅 / 5坎) count every card of the dealt hand -----------------------------------
ISSUE_HAND = "一一一一三三三三六六六六七八八十贰肆玖拾"
"""The issue's hand: 3垅 and eight loose cards, four of them red (七 十 贰 拾)."""


def test_instant_win_three_long_counts_loose_red_cards() -> None:
    """砌牌后有3垅或者5坎，可以直接胡牌; 黑：和牌时玩家的牌列全部是黑字 — the loose 七十贰拾 are red: no 黑."""
    out = score({"rules": "gulin", "hand": ISSUE_HAND, "seat": 1})
    assert out["ok"] and out["instant"] == "3垅" and out["red"] == 4
    assert [m["id"] for m in out["multipliers"]] == ["kun"]
    assert out["final"] == 36 * 4 == 144
    assert out["points"]["seats"] == [-30, 45, 0, -15]  # 15 彩头, the dealer (seat 0) pays double


def test_instant_win_all_black_hand_is_hei() -> None:
    """黑：和牌时玩家的牌列全部是黑字称为黑，为三番 — a 3垅 hand with no red card at all is 黑."""
    out = score({"rules": "gulin", "hand": "一一一一三三三三六六六六四五八八九壹肆伍", "seat": 1})
    assert out["ok"] and out["red"] == 0
    assert "hei" in [m["id"] for m in out["multipliers"]]


def test_engine_instant_win_counts_loose_red_cards() -> None:
    """砌牌后有3垅或者5坎，可以直接胡牌: the engine pays the issue's hand 坤 only (15 彩头), not 坤+黑."""
    others = [k for k in range(20) for _ in range(4)]
    for k in parse_kinds(ISSUE_HAND):
        others.remove(k)
    hands = {0: format_kinds(others[0::2][:21]), 1: ISSUE_HAND, 3: format_kinds(others[1::2][:20])}
    st = GameState(R, make_deck(R, hands=hands), dealer=0)
    assert st.legal_actions(1) == [Hu(seat=1), Pass(seat=1)]
    st.apply(Hu(seat=1))
    assert st.result is not None and st.result.how == "instant" and st.result.red == 4
    assert st.result.multipliers == ("坤",) and st.result.final == 144
    assert st.result.points == (-30, 45, 0, -15)
