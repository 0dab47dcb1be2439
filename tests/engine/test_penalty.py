"""包牌 in play (seed 000 【包牌规则】): a 碰 or 招 passed up is paid when nobody wins; amounts per ruleset."""

from __future__ import annotations

import random

from engine_decks import make_deck

from daer.cards import parse_kinds
from daer.engine import Discard, GameState, Pass, Peng, Zhao
from daer.engine.actions import Action
from daer.rules import find_rules, with_overrides
from daer.scoring import penalty_amount, settle_draw, settle_penalty

R = find_rules()
MONEY = with_overrides(R, {"scoring.mode": "money"})
K = {ch: parse_kinds(ch)[0] for ch in "一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾"}
GUO = {
    0: "五十十壹壹贰贰肆肆伍伍陆陆捌捌玖玖拾拾八九",
    1: "五五一一三三六六八八叁叁柒柒二二四四七七",
    3: "一一三三六六八九九十十壹叁肆伍陆捌玖拾贰",
}


def _pass_everything(st: GameState) -> dict[int, set[str]]:
    """Pass every claim, discard the last legal card; returns what each seat passed up (peng / zhao)."""
    passed: dict[int, set[str]] = {}
    while not st.over:
        seat = st.to_act()[0]
        legal = st.legal_actions(seat)
        act: Action = next((a for a in legal if isinstance(a, Pass)), legal[-1])
        if isinstance(act, Pass) and st.offer is not None:
            for cls, name in ((Peng, "peng"), (Zhao, "zhao")):
                if any(isinstance(a, cls) for a in legal):
                    passed.setdefault(seat, set()).add(name)
        st.apply(act)
    return passed


def _expected(rules: object, st: GameState, passed: dict[int, set[str]]) -> list[int]:
    """黄牌 points plus 2 (泸州 points) from each offender to each other seat, worked out by hand."""
    pts = [0] * 4
    for seat in st.players:  # 黄牌时3玩家向数底的各付底钱 (1 point)
        pts[seat] -= 1
        assert st.dijia is not None
        pts[st.dijia] += 1
    for offender in passed:
        for seat in range(4):
            if seat != offender:
                pts[seat] += 2
                pts[offender] -= 2
    return pts


def test_baopai_unmade_peng_paid_when_nobody_wins() -> None:
    """「没人胡的情况下，未碰牌」: seat 1 passes the 碰 of 五 and the hand ends 黄: seat 1 pays 包."""
    st = GameState(R, make_deck(R, dealer=0, hands=GUO, stock="五"), dealer=0)
    st.apply(Discard(seat=0, kind=K["五"]))
    assert Peng(seat=1) in st.legal_actions(1) and Pass(seat=1) in st.legal_actions(1)  # passing stays legal
    st.apply(Pass(seat=1))
    assert st.unmade[1] == {"peng"}
    passed = _pass_everything(st)
    passed.setdefault(1, set()).add("peng")
    assert st.result is not None and st.result.how == "huang"
    assert dict(st.result.penalties) == {s: "+".join(r for r in ("peng", "zhao") if r in v) for s, v in passed.items()}
    assert list(st.result.points) == _expected(R, st, passed)
    assert sum(st.result.points) == 0
    assert st.settlement is not None
    bao = [p for p in st.settlement.payments if p.payer == 1 and p.zh.startswith("包牌")]
    assert {p.payee for p in bao} == {0, 2, 3} and all(p.amount == 2 for p in bao)
    assert "未碰牌" in bao[0].zh and "passed up a 碰" in bao[0].en


def test_baopai_unmade_zhao_paid_when_nobody_wins() -> None:
    """「没人胡的情况下，未招牌」: a 招 passed up is paid on 黄 too."""
    for seed in range(60):
        deck = list(range(80))
        random.Random(seed).shuffle(deck)
        st = GameState(R, deck, dealer=0)
        passed = _pass_everything(st)
        if any("zhao" in v for v in passed.values()):
            assert st.result is not None and st.result.how == "huang"
            assert any("zhao" in r for _, r in st.result.penalties)
            assert list(st.result.points) == _expected(R, st, passed)
            return
    raise AssertionError("no seed with a 招 passed up")


def test_baopai_not_charged_when_someone_wins() -> None:
    """没人胡的情况下: when the hand is won, a passed 碰 costs nothing."""
    for seed in range(80):
        deck = list(range(80))
        random.Random(seed).shuffle(deck)
        st = GameState(R, deck, dealer=0)
        passed_any = False
        while not st.over:
            seat = st.to_act()[0]
            legal = st.legal_actions(seat)
            win = next((a for a in legal if type(a).__name__ == "Hu"), None)
            act = win or next((a for a in legal if isinstance(a, Pass)), legal[-1])
            passed_any |= isinstance(act, Pass) and any(isinstance(a, Peng) for a in legal)
            st.apply(act)
        if passed_any and st.result is not None and st.result.winner is not None:
            assert st.result.penalties == ()
            assert st.settlement is not None and not any(p.zh.startswith("包牌") for p in st.settlement.payments)
            return
    raise AssertionError("no seed where a passed 碰 was followed by a win")


def test_baopai_off_in_longchang_and_by_option() -> None:
    """隆昌 fines 「碰后对」 (passing then taking), not the pass itself; ``penalty.unmade_peng = false`` too."""
    for rules in (with_overrides(R, {"penalty.unmade_peng": False, "penalty.unmade_zhao": False}),):
        st = GameState(rules, make_deck(rules, dealer=0, hands=GUO, stock="五"), dealer=0)
        st.apply(Discard(seat=0, kind=K["五"]))
        st.apply(Pass(seat=1))
        _pass_everything(st)
        assert st.result is not None and st.result.penalties == ()
        assert st.result.points == settle_draw(rules, dealer=0).points
    lc = find_rules("longchang")
    assert not lc.penalty.unmade_peng and not lc.penalty.unmade_zhao


def test_baopai_impossible_when_peng_is_compulsory() -> None:
    """有碰必碰 (古蔺, ``play.peng_mandatory``): no 过 is offered, so no 未碰 包 can arise."""
    rules = with_overrides(R, {"play.peng_mandatory": True})
    st = GameState(rules, make_deck(rules, dealer=0, hands=GUO, stock="五"), dealer=0)
    st.apply(Discard(seat=0, kind=K["五"]))
    assert Pass(seat=1) not in st.legal_actions(1)


def test_baopai_money_two_di_qian_to_each_of_the_other_three() -> None:
    """「黄牌时3玩家向数底的各付2元底钱，包牌的向另三人各付2倍底钱」: with 底钱 2 the offender pays 4 each."""
    assert penalty_amount(MONEY) == 400  # 分: 4 元
    assert settle_penalty(MONEY, offender=1).points == (400, -1200, 400, 400)
    st = settle_draw(MONEY, dealer=0, penalties=((1, "peng"),))
    assert st.money and tuple(st.shown(p) for p in st.points) == (-2 + 4, -2 - 12, 6 + 4, -2 + 4)
    doubled = with_overrides(MONEY, {"scoring.money.unit": 2})
    assert penalty_amount(doubled) == 800


def test_baopai_longchang_bao_10() -> None:
    """隆昌「会受到给其他三家10个彩头的处罚」(包10) is unchanged."""
    assert settle_penalty(find_rules("longchang"), offender=1).points == (10, -30, 10, 10)
