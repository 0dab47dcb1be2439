"""Scripted tests, each named after the rule it checks, on injected decks."""

from __future__ import annotations

import pytest
from engine_decks import make_deck

from daer.cards import kind_of, parse_kinds
from daer.engine import (
    AlreadyChoseError,
    Chi,
    Discard,
    GameState,
    HandOverError,
    Hu,
    NotAllowedError,
    NotYourTurnError,
    Pass,
    Peng,
    Zhao,
)
from daer.engine.claims import chi_options, resolve
from daer.engine.events import Claimed, Dealt, Discarded, LongDeclared, NotTaken, Revealed
from daer.engine.match import DealerRule, next_dealer
from daer.rules import find_rules, with_overrides

R = find_rules()
K = {ch: parse_kinds(ch)[0] for ch in "一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾"}
WAIT_TEN = "一二三四五六七八九壹贰叁肆伍陆柒捌玖二七"  # waits on 十 for 15 胡 (and 三 for 9)
DEALER_PLAIN = "一一三三四四五五六六八八九九壹壹贰贰叁叁十"


def counts(text: str) -> list[int]:
    c = [0] * 20
    for k in parse_kinds(text):
        c[k] += 1
    return c


# -- 比牌 -----------------------------------------------------------------------------------------
def test_bi_pai_eating_a_kind_still_held_lays_it_down() -> None:
    # the seed's example: 三四四五五, eat 三 with 四五 -> the held 三 goes down as 三四五
    opts = chi_options(1, counts("三四四五五八"), K["三"], bi_pai=True, need_left=1)
    runs = [o for o in opts if o.hand == (K["四"], K["五"])]
    assert runs == [Chi(seat=1, hand=(K["四"], K["五"]), bi=((K["三"], K["四"], K["五"]),))]
    assert all(o.bi for o in opts if o.hand != (K["三"], K["叁"]))


def test_bi_pai_not_needed_for_jiao() -> None:
    opts = chi_options(1, counts("三叁叁八九"), K["三"], bi_pai=True, need_left=1)
    assert Chi(seat=1, hand=(K["叁"], K["叁"]), bi=()) in opts


def test_bi_pai_impossible_means_no_chi() -> None:
    # 三 held but no 列 can take it once 四五 are used: no run 吃
    opts = chi_options(1, counts("三四五九"), K["三"], bi_pai=True, need_left=1)
    assert all(o.hand != (K["四"], K["五"]) for o in opts)
    off = chi_options(1, counts("三四五九"), K["三"], bi_pai=False, need_left=1)
    assert Chi(seat=1, hand=(K["四"], K["五"]), bi=()) in off


def test_chi_never_splits_a_kan() -> None:
    assert chi_options(1, counts("四四四五六"), K["四"], bi_pai=True, need_left=1) == []
    opts = chi_options(1, counts("四四四五六"), K["三"], bi_pai=True, need_left=1)
    assert all(K["四"] not in o.hand for o in opts)


# -- claim priority and ties ---------------------------------------------------------------------
def test_claim_priority_hu_zhao_peng_chi() -> None:
    order = [1, 3, 0]
    assert resolve(order, {1: Chi(seat=1, hand=(0, 1)), 3: Peng(seat=3)}) == Peng(seat=3)
    assert resolve(order, {1: Peng(seat=1), 3: Zhao(seat=3)}) == Zhao(seat=3)
    assert resolve(order, {1: Zhao(seat=1), 0: Hu(seat=0)}) == Hu(seat=0)
    assert resolve(order, {1: Pass(seat=1), 3: Pass(seat=3)}) is None


def test_claim_ties_go_upstream_first() -> None:
    assert resolve([1, 3], {1: Hu(seat=1), 3: Hu(seat=3)}) == Hu(seat=1)
    assert resolve([3, 0, 1], {1: Hu(seat=1), 3: Hu(seat=3)}) == Hu(seat=3)


def _two_waiters() -> GameState:
    deck = make_deck(R, dealer=0, hands={0: DEALER_PLAIN, 1: WAIT_TEN, 3: WAIT_TEN}, stock="十")
    return GameState(R, deck, dealer=0)


def test_claim_tie_on_a_discard_nearest_upstream_wins_and_dihu() -> None:
    st = _two_waiters()
    st.apply(Discard(seat=0, kind=K["十"]))
    assert Hu(seat=1) in st.legal_actions(1)
    assert Hu(seat=3) in st.legal_actions(3)
    st.apply(Hu(seat=3))
    assert not st.over  # seat 2's choice waits for seat 1
    st.apply(Hu(seat=1))
    assert st.result is not None and st.result.winner == 1
    assert st.result.hu == 15 and "dihu" in st.result.flags and "地胡" in st.result.multipliers


def test_claim_tie_on_a_revealed_card_revealer_first() -> None:
    st = _two_waiters()
    st.apply(Discard(seat=0, kind=K["一"]))
    for seat in st.to_act():  # nobody wants the 一 (seat 1 and 2 may 吃/碰 it)
        st.apply(Pass(seat=seat))
    assert isinstance(st.log[-1], Revealed) and st.log[-1].seat == 1
    assert st.offer is not None and st.offer.kind == K["十"]
    st.apply(Hu(seat=3))
    st.apply(Hu(seat=1))
    assert st.result is not None and st.result.winner == 1 and "self_drawn" in st.result.flags


def test_hu_beats_peng() -> None:
    deck = make_deck(R, dealer=0, hands={0: DEALER_PLAIN, 1: WAIT_TEN, 3: "十十" + WAIT_TEN[2:]}, stock="")
    st = GameState(R, deck, dealer=0)
    st.apply(Discard(seat=0, kind=K["十"]))
    assert Peng(seat=3) in st.legal_actions(3)
    st.apply(Peng(seat=3))
    st.apply(Hu(seat=1))
    assert st.result is not None and st.result.winner == 1


# -- 过张 ---------------------------------------------------------------------------------------
GUO = {
    0: "五十十壹壹贰贰肆肆伍伍陆陆捌捌玖玖拾拾八九",
    1: "五五一一三三六六八八叁叁柒柒二二四四七七",
    3: "一一三三六六八九九十十壹叁肆伍陆捌玖拾贰",
}


def test_guo_zhang_passed_peng_kind_cannot_be_taken_again() -> None:
    st = GameState(R, make_deck(R, dealer=0, hands=GUO, stock="五"), dealer=0)
    st.apply(Discard(seat=0, kind=K["五"]))
    assert Peng(seat=1) in st.legal_actions(1)
    assert any(isinstance(a, Chi) for a in st.legal_actions(1))
    st.apply(Pass(seat=1))
    assert K["五"] in st.guo[1]
    # seat 1 reveals the last 五: neither 碰 nor 吃 is offered, so nobody takes it
    revealed = [e for e in st.log if isinstance(e, Revealed)]
    assert revealed[0].seat == 1 and revealed[0].kind == K["五"]
    assert any(isinstance(e, NotTaken) and e.kind == revealed[0].kind for e in st.log)


def test_guo_zhang_still_allows_hu_on_the_passed_kind() -> None:
    hands = {0: DEALER_PLAIN, 1: WAIT_TEN, 3: "拾拾肆肆伍伍陆陆柒柒捌捌玖玖二二七七一三"}
    st = GameState(R, make_deck(R, dealer=0, hands=hands, stock="十"), dealer=0)
    st.apply(Discard(seat=0, kind=K["十"]))
    legal = st.legal_actions(1)
    assert Hu(seat=1) in legal and any(isinstance(a, Chi) for a in legal)
    st.apply(Pass(seat=1))  # passes both the 吃 and the 胡
    assert K["十"] in st.guo[1]
    assert st.offer is not None and st.offer.kind == K["十"] and st.offer.source == "reveal"
    legal = st.legal_actions(1)
    assert Hu(seat=1) in legal and not any(isinstance(a, Chi) for a in legal)
    st.apply(Hu(seat=1))
    assert st.result is not None and st.result.winner == 1 and "self_drawn" in st.result.flags


def test_guo_zhang_off() -> None:
    rules = with_overrides(R, {"play.guo_zhang": False})
    st = GameState(rules, make_deck(rules, dealer=0, hands=GUO, stock="五"), dealer=0)
    st.apply(Discard(seat=0, kind=K["五"]))
    st.apply(Pass(seat=1))
    assert Peng(seat=1) in st.legal_actions(1)


# -- 垅 timing, 八块 --------------------------------------------------------------------------------
SEAT1_LONG = "一一一一三三三六六八八九九壹壹叁叁陆陆捌"
PAIRS = "二二四四五五七七十十贰贰肆肆伍伍柒柒拾拾"


def test_long_timing_dealer_before_first_discard_others_after_first_card() -> None:
    hands = {0: "拾拾拾拾十二二四四五五七七贰贰肆肆伍伍柒柒", 1: SEAT1_LONG,
             3: "二三四五六七八九壹贰叁肆伍陆柒捌玖玖六八"}
    st = GameState(R, make_deck(R, dealer=0, hands=hands, stock="捌"), dealer=0)
    assert [e.seat for e in st.log if isinstance(e, LongDeclared)] == [0]
    assert st.view(3).melds[1] == ()  # seat 1's 垅 is not on the table yet
    assert st.view(3).hand_sizes[1] == 20
    st.apply(Discard(seat=0, kind=K["十"]))
    assert [e.seat for e in st.log if isinstance(e, LongDeclared)] == [0]  # not at the dealer's discard
    st.apply(Pass(seat=1))  # seat 1 could 吃 八九十 but passes
    # seat 1 reveals its first card, and its 垅 goes down
    assert [e.seat for e in st.log if isinstance(e, LongDeclared)] == [0, 1]
    assert st.view(3).melds[1][0].kind == "long"


BA_KUAI = {0: "三" + PAIRS, 1: SEAT1_LONG, 3: "二四五六七八九十壹贰叁肆伍陆柒捌玖玖六八"}


def test_ba_kuai_second_quad_needs_no_discard() -> None:
    st = GameState(R, make_deck(R, dealer=0, hands=BA_KUAI), dealer=0)
    st.apply(Discard(seat=0, kind=K["三"]))
    assert Zhao(seat=1) in st.legal_actions(1)
    st.apply(Zhao(seat=1))
    claimed = [e for e in st.log if isinstance(e, Claimed)]
    assert claimed[0].seat == 1 and claimed[0].how == "zhao"
    assert st.quads[1] == 2
    after = st.log[st.log.index(claimed[0]) + 1 :]
    assert any(isinstance(e, Revealed) and e.seat == 3 for e in after)  # next seat reveals, no discard
    assert not any(isinstance(e, Discarded) and e.seat == 1 for e in st.log)


def test_ba_kuai_off_still_discards() -> None:
    rules = with_overrides(R, {"play.ba_kuai": False})
    st = GameState(rules, make_deck(rules, dealer=0, hands=BA_KUAI), dealer=0)
    st.apply(Discard(seat=0, kind=K["三"]))
    st.apply(Zhao(seat=1))
    assert st.phase == "discard" and st.actor == 1


# -- instant wins, 天胡 ----------------------------------------------------------------------------
DEALER_PAIRS = PAIRS + "捌"


THREE_LONGS = {0: DEALER_PAIRS, 1: "二四五七八九十壹贰叁肆伍陆柒捌玖二四五七",
               3: "一一一一三三三三六六六六八八九九壹壹叁叁"}


def test_instant_win_three_longs() -> None:
    """砌牌后有3垅或者5坎，可以直接胡牌: seat 3 is asked 胡 or 过 at the deal and takes it."""
    st = GameState(R, make_deck(R, dealer=0, hands=THREE_LONGS), dealer=0)
    assert st.phase == "claim" and st.offer is None and st.to_act() == [3]
    assert st.legal_actions(3) == [Hu(seat=3), Pass(seat=3)] and st.legal_actions(0) == []
    with pytest.raises(NotYourTurnError):
        st.apply(Discard(seat=0, kind=K["一"]))
    st.apply(Hu(seat=3))
    assert st.over and st.result is not None
    assert st.result.winner == 3 and st.result.how == "instant" and st.result.name == "3垅"
    assert sum(st.result.points) == 0


def test_instant_win_may_be_declined() -> None:
    """可以直接胡牌 — *may*: a declined 3垅 plays on normally (the dealer discards; the 垅 come out as usual)."""
    st = GameState(R, make_deck(R, dealer=0, hands=THREE_LONGS), dealer=0)
    st.apply(Pass(seat=3))
    assert not st.over and st.phase == "discard" and st.actor == 0
    assert not st.melds[3]  # seat 3's 垅 are declared after his first card comes in
    view = st.view(3)
    assert view.legal == () and len(view.hand) == 20


def test_instant_win_compulsory_when_not_optional() -> None:
    """``win.instant_optional = false``: the 3垅 wins at once, nobody is asked."""
    rules = with_overrides(R, {"win.instant_optional": False})
    st = GameState(rules, make_deck(rules, dealer=0, hands=THREE_LONGS), dealer=0)
    assert st.over and st.result is not None and st.result.winner == 3


def test_instant_win_off_in_hejiang() -> None:
    rules = find_rules("hejiang")
    hands = {0: DEALER_PAIRS, 1: "二四五七八九十壹贰叁肆伍陆柒捌玖二四五七",
             3: "一一一一三三三三六六六六八八九九壹壹叁叁"}
    assert not GameState(rules, make_deck(rules, dealer=0, hands=hands), dealer=0).over


def test_instant_win_five_kans() -> None:
    hands = {0: DEALER_PAIRS, 1: "一一一三三三六六六八八八九九九壹叁陆捌玖",
             3: "一三六八九二四五七十壹贰叁肆伍陆柒捌玖拾"}
    st = GameState(R, make_deck(R, dealer=0, hands=hands), dealer=0)
    st.apply(Hu(seat=1))
    assert st.result is not None and st.result.winner == 1 and st.result.name == "5坎"


def test_tianhu_dealer_dealt_complete_hand() -> None:
    hands = {0: WAIT_TEN + "十", 1: DEALER_PLAIN[:-1], 3: "拾拾肆肆伍伍陆陆柒柒捌捌玖玖二二七七一三"}
    st = GameState(R, make_deck(R, dealer=0, hands=hands), dealer=0)
    assert Hu(seat=0) in st.legal_actions(0)
    st.apply(Hu(seat=0))
    assert st.result is not None and st.result.winner == 0 and "tianhu" in st.result.flags
    assert "天胡" in st.result.multipliers


# -- the red bottom card ---------------------------------------------------------------------------
def test_red_bottom_card_moves_to_the_top_and_a_black_one_is_shown() -> None:
    deck = make_deck(R, dealer=0, hands={0: DEALER_PLAIN, 1: WAIT_TEN, 3: WAIT_TEN}, bottom="柒")
    red = deck[-1]
    st = GameState(R, deck, dealer=0)
    dealt = st.log[0]
    assert isinstance(dealt, Dealt) and dealt.red_moved >= 1
    assert st.stock[dealt.red_moved - 1] == red  # the first red card moved is on top of those moved after it
    assert st.bottom is not None and kind_of(st.bottom) % 10 + 1 not in (2, 7, 10)
    assert dealt.bottom == kind_of(st.bottom) and st.bottom == st.stock[-1]


def test_red_bottom_card_kept_when_swap_is_off() -> None:
    rules = with_overrides(R, {"table.swap_red_bottom": False})
    deck = make_deck(rules, dealer=0, hands={0: DEALER_PLAIN, 1: WAIT_TEN, 3: WAIT_TEN}, bottom="柒")
    st = GameState(rules, deck, dealer=0)
    assert st.bottom == deck[-1]


# -- 黄牌 ------------------------------------------------------------------------------------------
def test_huang_pai_when_the_stock_runs_out() -> None:
    deck = make_deck(R, dealer=0, hands={0: DEALER_PLAIN, 1: WAIT_TEN, 3: WAIT_TEN})
    st = GameState(R, deck, dealer=0)
    while not st.over:
        seat = st.to_act()[0]
        legal = st.legal_actions(seat)
        passes = [a for a in legal if isinstance(a, Pass)]
        st.apply(passes[0] if passes else next(a for a in legal if isinstance(a, Discard)))
    assert st.result is not None and st.result.how == "huang" and st.result.winner is None
    assert st.result.points == (-1, -1, 3, -1)
    assert not st.stock


# -- illegal actions -----------------------------------------------------------------------------------
def test_illegal_actions_raise_typed_errors_and_change_nothing() -> None:
    st = _two_waiters()
    before = st.view(None).to_json()
    with pytest.raises(NotYourTurnError):
        st.apply(Discard(seat=1, kind=K["一"]))
    with pytest.raises(NotAllowedError):
        st.apply(Discard(seat=0, kind=K["七"]))
    with pytest.raises(NotAllowedError):
        st.apply(Hu(seat=0))
    assert st.view(None).to_json() == before and st.actions == []
    st.apply(Discard(seat=0, kind=K["十"]))
    st.apply(Pass(seat=3))
    with pytest.raises(AlreadyChoseError):
        st.apply(Hu(seat=3))
    st.apply(Hu(seat=1))
    with pytest.raises(HandOverError) as err:
        st.apply(Pass(seat=3))
    assert isinstance(err.value, ValueError) and "结束" in str(err.value)


def test_a_claim_choice_stays_hidden_until_resolution() -> None:
    st = _two_waiters()
    st.apply(Discard(seat=0, kind=K["十"]))
    before = st.view(1, log=False).to_json()
    st.apply(Hu(seat=3))
    after = st.view(1, log=False).to_json()
    assert before == after
    assert b'"hu"' not in st.view(1).to_json().split(b'"log"')[1]


# -- the deal moving between hands (an engine option) ----------------------------------------------
def test_dealer_rules_of_a_match() -> None:
    assert next_dealer(DealerRule.WINNER, 0, 3, 4) == 3
    assert next_dealer(DealerRule.WINNER, 0, None, 4) == 0  # 黄牌 keeps the dealer
    assert next_dealer(DealerRule.ROTATE, 3, 3, 4) == 0
    assert next_dealer(DealerRule.KEEP_WHILE_WINNING, 1, 1, 4) == 1
    assert next_dealer(DealerRule.KEEP_WHILE_WINNING, 1, 0, 4) == 2
