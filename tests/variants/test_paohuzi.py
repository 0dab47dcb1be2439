"""跑胡子 (seed 002, second part): 胡息, 15 to win, 等 per 3, 偎/提/跑, 胡 only on the stock, 花样 and 自摸."""

from __future__ import annotations

import random

import msgspec
import pytest
from engine_decks import make_deck
from redeal import course_of, play_course, redeal
from test_audiences import played, seen
from typer.testing import CliRunner
from variant_helpers import ctx

from daer.bots import RandomBot
from daer.bots.runner import play_hand
from daer.calculator import score
from daer.cards import format_kinds, parse_kinds
from daer.cli.main import app
from daer.cli.render import render_view
from daer.engine import Chi, Discard, GameState, Hu, Pass, Peng, Zhao, new_hand
from daer.engine.claims import chi_options
from daer.engine.events import Claimed, FaceDown, Revealed
from daer.engine.views import ShownMeld
from daer.engine.world import sample_hidden, world_from_view
from daer.hands.groups import GroupKind, group_hu
from daer.mingtang import settle_context
from daer.rules import Ruleset, find_rules, with_overrides
from daer.scoring import WinFlags, deng_of

R = find_rules("paohuzi")
K = {c: parse_kinds(c)[0] for c in "一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾"}


def test_table_and_seats() -> None:
    assert (R.table.seats, R.table.players, R.table.dijia, R.stock_cards) == (3, 3, False, 19)
    assert R.win.min_hu == 15 and not R.win.on_discard
    assert R.play.wei and R.play.ti and R.play.pao and R.play.zhao_mandatory


@pytest.mark.parametrize(
    ("kind", "small", "big"),
    [(GroupKind.PENG, 1, 3), (GroupKind.KAN, 3, 6), (GroupKind.ZHAO, 6, 9), (GroupKind.LONG, 9, 12)],
)
def test_huxi_table(kind: GroupKind, small: int, big: int) -> None:
    """碰小1大3, 偎小3大6, 跑小6大9, 提小9大12 — red or black alike."""
    n = 4 if kind in (GroupKind.ZHAO, GroupKind.LONG) else 3
    for k, want in ((K["四"], small), (K["二"], small), (K["肆"], big), (K["柒"], big)):
        assert group_hu(R.hu, kind, (k,) * n) == want


def test_runs_huxi() -> None:
    """一句话 小1、2、3或2、7、10 3胡息, 大 6胡息; 绞牌没有息."""
    assert group_hu(R.hu, GroupKind.RUN, (K["一"], K["二"], K["三"])) == 3
    assert group_hu(R.hu, GroupKind.RUN, (K["二"], K["七"], K["十"])) == 3
    assert group_hu(R.hu, GroupKind.RUN, (K["贰"], K["柒"], K["拾"])) == 6
    assert group_hu(R.hu, GroupKind.JIAO, (K["九"], K["九"], K["玖"])) == 0


@pytest.mark.parametrize(("hu", "deng"), [(15, 1), (17, 1), (18, 2), (20, 2), (21, 3), (30, 6)])
def test_deng(hu: int, deng: int) -> None:
    """15胡息为1等, 每增加3胡息增加1等, 不满3胡不算等: 18 → 2, 20 → 2, 21 → 3."""
    assert deng_of(R, hu) == deng


PLAIN = "坎四四四 顺一二三 顺五六七 顺柒捌玖 顺肆伍陆 碰十十十 顺六七八"


@pytest.mark.parametrize(
    ("text", "names", "factor"),
    [
        (PLAIN, [], 1),
        ("顺二七十 顺二七十 顺贰柒拾 碰七七七 坎四四四 顺三四五 顺肆伍陆", ["红胡"], 2),
        ("顺一二三 坎四四四 顺四五六 顺肆伍陆 坎捌捌捌 顺三四五 坎九九九", ["点胡"], 3),
        ("顺二七十 顺二七十 顺贰柒拾 碰七七七 顺五六七 坎四四四 顺肆伍陆", ["红乌"], 4),
        ("坎一一一 坎四四四 顺四五六 顺肆伍陆 坎捌捌捌 顺九九玖 顺三四五", ["乌胡"], 5),
        ("坎一一一 坎四四四 碰五五五 坎肆肆肆 坎捌捌捌 碰九九九 碰三三三", ["乌对对"], 10),
        ("坎二二二 坎四四四 碰五五五 坎肆肆肆 坎捌捌捌 碰九九九 碰三三三", ["对对胡"], 4),
    ],
)
def test_huayang(text: str, names: list[str], factor: int) -> None:
    st = settle_context(R, ctx(R, text, hu=15), winner=1, dealer=0)
    assert [m.zh for m in st.multipliers] == names
    assert st.factor == factor and st.points == (-factor, 2 * factor, -factor)


def test_haidi_and_zimo() -> None:
    """海底 2番 beside another 花样, 1 alone (平胡海底算1番); 自摸 adds one 等."""
    red = "顺二七十 顺二七十 顺贰柒拾 碰七七七 坎四四四 顺三四五 顺肆伍陆"
    assert settle_context(R, ctx(R, red, hu=15, flags=WinFlags(haidi=True)), winner=1).factor == 4
    assert settle_context(R, ctx(R, PLAIN, hu=15, flags=WinFlags(haidi=True)), winner=1).factor == 1
    st = settle_context(R, ctx(R, PLAIN, hu=18, flags=WinFlags(self_drawn=True)), winner=1)
    assert st.deng == 3 and st.points == (-3, 6, -3)


def test_fifteen_huxi_minimum_in_the_calculator() -> None:
    hand = {"hand": "一二三四五六七八九壹贰叁肆伍陆柒捌玖二七", "win": {"card": "十", "from": "self"}}
    assert score({"rules": "paohuzi", **hand})["ok"] is False  # 12 胡息
    out = score({"rules": "paohuzi", "hand": "一二三四五六七八九壹贰叁肆伍陆贰柒拾二七",
                 "win": {"card": "十", "from": "self"}})
    assert out["ok"] and out["hu"] == 18 and out["deng"] == 3  # 2 等 + 自摸


def _deck(hands: dict[int, str], stock: str) -> list[int]:
    used = [0] * 20
    for text in (*hands.values(), stock):
        for k in parse_kinds(text):
            used[k] += 1
    rest = [k for k in range(20) for _ in range(4 - used[k])]
    missing = [s for s in (0, 1, 2) if s not in hands]
    for s in missing:
        want = R.table.dealer_cards if s == 0 else R.table.other_cards
        hands[s] = format_kinds(rest[:want])
        rest = rest[want:]
    return make_deck(R, hands=hands, stock=stock)


def _spread(hands: dict[int, str], stock: str, bottom: str | None = None) -> list[int]:
    """Like :func:`_deck`, but the seats not given get the unused cards spread over the kinds (no 坎, no 天胡)."""
    used = [0] * 20
    for text in (*hands.values(), stock, bottom or ""):
        for k in parse_kinds(text):
            used[k] += 1
    rest = [k for layer in range(4) for k in range(20) if used[k] + layer < 4]
    for s in (0, 1, 2):
        if s not in hands:
            want = R.table.dealer_cards if s == 0 else R.table.other_cards
            hands[s] = format_kinds(sorted(rest[:want]))
            rest = rest[want:]
    return make_deck(R, hands=hands, stock=stock, bottom=bottom)


def _until(st: GameState, done: object) -> None:
    while not st.over and not done(st):  # type: ignore[operator]
        seat = st.to_act()[0]
        legal = st.legal_actions(seat)
        st.apply(next((a for a in legal if isinstance(a, Pass)), legal[-1]))


D0 = "一一二二三三六六七七八八九九壹壹贰贰叁叁拾"  # the dealer's 21 (no 坎), discards 拾


def test_wei_takes_ones_own_reveal_of_a_pair() -> None:
    st = GameState(R, _deck({0: D0, 1: "五五肆肆伍伍陆陆柒柒捌捌玖玖十十四四壹贰"}, "五"), dealer=0)
    st.apply(Discard(seat=0, kind=K["拾"]))
    _until(st, lambda s: s.melds[1])
    assert [(m.kind, m.kinds) for m in st.melds[1]] == [("wei", (K["五"],) * 3)]
    assert st.phase == "discard" and st.actor == 1  # 偎 then discard; nobody could claim or 胡 it


def test_ti_takes_the_fourth_card_of_a_kan() -> None:
    st = GameState(R, _deck({0: D0, 1: "五五五肆肆伍伍陆陆柒柒捌捌玖玖十十四四壹"}, "五"), dealer=0)
    st.apply(Discard(seat=0, kind=K["拾"]))
    _until(st, lambda s: s.melds[1])
    assert [(m.kind, m.kinds) for m in st.melds[1]] == [("long", (K["五"],) * 4)]


def test_pao_onto_a_wei_from_another_players_reveal() -> None:
    st = GameState(R, _deck({0: D0, 1: "五五肆肆伍伍陆陆柒柒捌捌玖玖十十四四壹贰"}, "五拾五"), dealer=0)
    st.apply(Discard(seat=0, kind=K["拾"]))
    _until(st, lambda s: s.melds[1])
    _until(st, lambda s: s.offer is not None and s.offer.kind == K["五"])
    assert st.offer is not None and st.offer.owner != 1
    assert Zhao(seat=1) in st.legal_actions(1) and Pass(seat=1) not in st.legal_actions(1)  # 跑 is compulsory
    st.apply(Zhao(seat=1))
    _until(st, lambda s: any(m.kind == "zhao" for m in s.melds[1]))
    assert [(m.kind, len(m.ids)) for m in st.melds[1] if m.kinds[0] == K["五"]] == [("zhao", 4)]


def test_no_hu_on_a_discard() -> None:
    """胡牌必须胡墩上的、示众后的牌: a discard that completes a hand offers no 胡."""
    hands = {0: "一二三四五六七八九壹贰叁肆伍陆贰柒拾二七五", 1: "一二三四五六七八九壹贰叁肆伍陆贰柒拾二七"}
    st = GameState(R, _deck(hands, ""), dealer=0)
    assert st.can_hu(1, K["十"]) is not None
    st.apply(Discard(seat=0, kind=K["五"]))
    assert all(not isinstance(a, Hu) for a in st.legal_actions(1))


def test_tianhu_on_three_ti_or_five_kan() -> None:
    """砌牌后有3提或者5坎，称为天胡."""
    out = score({"rules": "paohuzi", "hand": "一一一一二二二二三三三三四五六七八九十壹"})
    assert out["ok"] and out["instant"] == "3垅"
    out = score({"rules": "paohuzi", "hand": "一一一二二二三三三四四四五五五六七八九十壹"})
    assert out["ok"] and out["instant"] == "5坎"


def test_a_ti_needs_a_pair_jiang() -> None:
    """跑牌或提牌时，必须有一对将: a hand with a 提 and no pair is not complete."""
    melds = [{"kind": "long", "cards": "肆肆肆肆"}]
    with_pair = score({"rules": "paohuzi", "hand": "一二三四五六贰柒拾二七十七八九五", "melds": melds,
                       "win": {"card": "五", "from": "other"}})  # one's own 五 onto the pair 五五 would be a 偎
    assert with_pair["complete"]
    no_pair = score({"rules": "paohuzi", "hand": "一二三四五六贰柒拾二七十七八九三四", "melds": melds,
                     "win": {"card": "五", "from": "self"}})
    assert not no_pair["complete"]


def test_a_fourth_player_may_count() -> None:
    """「也可四个人（一人数牌）」: table.seats = 4 with a 底家 who sits out; hands still play out and sum to zero."""
    four = with_overrides(R, {"table.seats": 4, "table.dijia": True})
    for i in range(40):
        st = new_hand(four, seed=i, dealer=i % 4)
        assert len(st.players) == 3 and st.dijia == (i + 2) % 4
        play_hand(st, {s: RandomBot(i * 4 + s) for s in range(4)})
        assert st.result is not None and sum(st.result.points) == 0


# -- 吃 of a revealed card (「吃：上家或自己摸起的牌能够使你手中的牌凑成顺子,一二三,二七十, 大小三搭。吃牌全亮。」) --

CHI0 = "一六六七七八八九九壹壹贰贰叁叁拾拾捌捌玖玖"  # the dealer's 21: discards 一, which nobody can take
CHI1 = "十十肆肆伍伍陆陆柒柒四六捌玖拾贰叁七八九"  # seat 1: cannot take 一 nor the 三 it reveals
CHI2 = "四四五五十十伍伍壹壹陆陆柒柒捌玖拾贰叁肆"  # seat 2: 四五 make a 列 with 三


def _chi_hand(rules: Ruleset = R) -> GameState:
    st = GameState(rules, make_deck(R, hands={0: CHI0, 1: CHI1, 2: CHI2}, stock="三"), dealer=0)
    st.apply(Discard(seat=0, kind=K["一"]))
    assert [type(e).__name__ for e in st.log[-3:]] == ["Discarded", "NotTaken", "Revealed"]
    return st


def test_chi_of_the_previous_players_revealed_card() -> None:
    """「吃：上家或自己摸起的牌能够使你手中的牌凑成顺子」: seat 1 reveals 三, seat 2 (its 下家) eats it with 四五."""
    st = _chi_hand()
    assert st.offer is not None and (st.offer.kind, st.offer.owner, st.offer.source) == (K["三"], 1, "reveal")
    assert st.to_act() == [2]
    legal = st.legal_actions(2)
    assert Chi(seat=2, hand=(K["四"], K["五"]), bi=()) in legal and Pass(seat=2) in legal
    st.apply(Chi(seat=2, hand=(K["四"], K["五"]), bi=()))
    ev = st.log[-1]
    assert isinstance(ev, Claimed) and ev.seat == 2 and ev.how == "chi"
    assert [(m.kind, m.kinds) for m in st.melds[2]] == [("chi", (K["三"], K["四"], K["五"]))]
    assert st.phase == "discard" and st.actor == 2  # 任何吃碰等动作后都要打牌


def test_chi_of_a_revealed_card_is_an_option_of_the_ruleset() -> None:
    """The 大贰 presets keep their rule: only the revealer eats his own revealed card (the issue's reproduction)."""
    st = GameState(with_overrides(R, {"play.chi_next_reveal": False}),
                   make_deck(R, hands={0: CHI0, 1: CHI1, 2: CHI2}, stock="三"), dealer=0)
    st.apply(Discard(seat=0, kind=K["一"]))
    names = [type(e).__name__ for e in st.log]
    i = names.index("Revealed")
    assert names[i + 1] == "NotTaken"  # the 三 went by: seat 2 was never asked
    assert not find_rules("luzhou").play.chi_next_reveal and R.play.chi_next_reveal


def test_chi_of_a_revealed_card_only_by_the_next_seat() -> None:
    """「上家或自己摸起的牌」: the revealer's 上家 (seat 0, holding 四五 too) may not eat seat 1's revealed 三."""
    st = GameState(R, make_deck(R, hands={0: CHI0.replace("拾拾", "四五"), 1: CHI1, 2: CHI2}, stock="三"), dealer=0)
    st.apply(Discard(seat=0, kind=K["一"]))
    assert st.offer is not None and st.offer.kind == K["三"]
    assert 2 in st.options and 0 not in st.options


def test_chi_revealers_own_eat_goes_first() -> None:
    """「上家或自己摸起的牌」: both the revealer and his 下家 may eat; the revealer's 吃 wins (自摸优先)."""
    hands = {0: CHI0, 1: CHI1.replace("十十", "四五"), 2: CHI2}
    st = GameState(R, make_deck(R, hands=hands, stock="三"), dealer=0)
    st.apply(Discard(seat=0, kind=K["一"]))
    assert set(st.to_act()) == {1, 2}
    st.apply(Chi(seat=2, hand=(K["四"], K["五"]), bi=()))
    st.apply(next(a for a in st.legal_actions(1) if isinstance(a, Chi)))
    ev = st.log[-1]
    assert isinstance(ev, Claimed) and ev.seat == 1 and ev.how == "chi"


def test_bi_after_chi_no_copy_of_the_eaten_kind_stays() -> None:
    """吃牌全亮, and the common Hunan 比 (下比): every copy of the eaten kind left in the hand is laid down with the
    吃, even after a 绞 (大小三搭) — unlike 大贰, where a 绞 needs no 比."""
    hand = [0] * 20
    for k in parse_kinds("一二三三叁九"):
        hand[k] += 1
    jiao = (K["三"], K["叁"])
    hunan = chi_options(1, hand, K["三"], bi_pai=True, need_left=1, bi_jiao=True)
    daer = chi_options(1, hand, K["三"], bi_pai=True, need_left=1)
    assert Chi(seat=1, hand=jiao, bi=()) in daer and Chi(seat=1, hand=jiao, bi=()) not in hunan
    assert Chi(seat=1, hand=jiao, bi=((K["一"], K["二"], K["三"]),)) in hunan
    assert all(c.bi for c in hunan)  # one 三 always stays to be 比'd


def test_bi_in_play_for_a_revealed_card() -> None:
    """The 下家's 吃 of a revealed 三 while holding a 三 must 比 it (no copy of the eaten kind stays in the hand)."""
    hands = {0: CHI0, 1: CHI1, 2: CHI2.replace("十十", "三二")}
    st = GameState(R, make_deck(R, hands=hands, stock="三"), dealer=0)
    st.apply(Discard(seat=0, kind=K["一"]))
    chis = [a for a in st.legal_actions(2) if isinstance(a, Chi)]
    assert chis and all(K["三"] in sum(c.bi, ()) or K["三"] in c.hand for c in chis)
    assert Chi(seat=2, hand=(K["四"], K["五"]), bi=((K["二"], K["三"], K["四"]),)) in chis
    assert Chi(seat=2, hand=(K["四"], K["五"]), bi=()) not in chis


# -- 偎胡: 「不能胡任何人提或偎的牌」; 偎 / 提 go before every other claim -------------------------------------

WEI1 = "五五一二三贰柒拾壹贰叁二七十肆伍陆七八九"  # seat 1: 五 makes 五五五 and a 19 胡息 hand
WEI2 = "四六十十伍伍陆陆捌捌玖玖拾拾叁叁肆肆九九"  # seat 2 (its 下家): 四六 could eat 五
WEI0 = "一一二二三三四四六六七七八八九壹壹捌伍陆十"


def _wei_hand() -> GameState:
    st = GameState(R, make_deck(R, hands={0: WEI0, 1: WEI1, 2: WEI2}, stock="五"), dealer=0)
    st.apply(Discard(seat=0, kind=K["九"]))
    _until(st, lambda s: s.offer is not None and s.offer.kind == K["五"])
    assert st.offer is not None and st.offer.owner == 1
    return st


def test_wei_hu_the_revealer_alone_is_asked() -> None:
    """「不能胡任何人提或偎的牌」: a card its revealer must 偎 is offered to nobody else (not for 吃, 跑 or 胡);
    the revealer may 胡 on it (偎胡)."""
    st = _wei_hand()
    assert st.to_act() == [1] and st.legal_actions(1) == [Hu(seat=1), Pass(seat=1)]
    assert st.legal_actions(2) == [] and st.legal_actions(0) == []
    st.apply(Hu(seat=1))
    assert st.result is not None and st.result.winner == 1 and "self_drawn" in st.result.flags


def test_wei_hu_passed_still_weis() -> None:
    """偎 is compulsory: a revealer who does not 胡 on the card 偎s it all the same, then discards."""
    st = _wei_hand()
    st.apply(Pass(seat=1))
    ev = st.log[-1]
    assert isinstance(ev, Claimed) and (ev.seat, ev.how) == (1, "wei")
    assert [(m.kind, m.kinds) for m in st.melds[1]] == [("wei", (K["五"],) * 3)]
    assert st.phase == "discard" and st.actor == 1


# -- 臭偎 ------------------------------------------------------------------------------------------------

def test_chou_wei_after_passing_a_peng() -> None:
    """臭偎 (the seed is cut before it; common Hunan rule): a seat that passed up a 碰 of a kind and later reveals
    the third card of that pair must 偎 it, as a 臭偎 (laid face up: the others saw the 碰 passed)."""
    st = GameState(R, make_deck(R, hands={0: CHI0.replace("拾拾", "五拾"), 1: CHI1, 2: CHI2}, stock="三五"), dealer=0)
    st.apply(Discard(seat=0, kind=K["五"]))
    assert Peng(seat=2) in st.legal_actions(2)
    _until(st, lambda s: any(isinstance(e, Claimed) for e in s.log))
    ev = next(e for e in st.log if isinstance(e, Claimed))
    assert (ev.seat, ev.how) == (2, "chou_wei")
    assert [(m.kind, m.kinds) for m in st.melds[2]] == [("wei", (K["五"],) * 3)]


def test_chou_wei_is_an_option() -> None:
    rules = with_overrides(R, {"play.chou_wei": False})
    st = GameState(rules, make_deck(R, hands={0: CHI0.replace("拾拾", "五拾"), 1: CHI1, 2: CHI2}, stock="三五"),
                   dealer=0)
    st.apply(Discard(seat=0, kind=K["五"]))
    _until(st, lambda s: any(isinstance(e, Claimed) for e in s.log))
    assert [e.how for e in st.log if isinstance(e, Claimed)] == ["wei"]


# -- 天胡为自摸 -------------------------------------------------------------------------------------------

ISSUE_HAND = "一一一一三三三三六六六六七八八十贰肆玖拾"  # the issue's 3提 hand (seat 1)
ISSUE_DECK = {0: "二二四四五五七八九九十壹壹叁叁伍伍陆陆柒柒", 1: ISSUE_HAND,
              2: "二二四四五五七八九九十壹壹叁叁伍伍陆陆柒"}


def test_tianhu_is_self_drawn_three_ti() -> None:
    """「天胡为自摸」「自摸在实际底数上加1等」: 3提 at the deal scores the 自摸 +1 等."""
    st = GameState(R, make_deck(R, hands=ISSUE_DECK), dealer=0)
    st.apply(Hu(seat=1))  # 可以直接胡牌: the engine asks 胡 or 过 (win.instant_optional)
    assert st.result is not None and st.result.how == "instant" and st.result.winner == 1
    assert st.result.hu == 27 and st.result.deng == deng_of(R, 27) + 1 == 6
    assert "self_drawn" in st.result.flags
    plain = GameState(with_overrides(R, {"win.tianhu_self_drawn": False}),
                      make_deck(R, hands=ISSUE_DECK), dealer=0)
    plain.apply(Hu(seat=1))
    assert plain.result is not None and plain.result.deng == 5
    out = score({"rules": "paohuzi", "hand": ISSUE_HAND, "seat": 1})
    assert out["ok"] and out["instant"] == "3垅" and out["deng"] == 6


def test_instant_win_with_red_loose_cards_is_no_wu_duidui() -> None:
    """The issue's hand: 3提 and eight loose cards, four red (七 十 贰 拾). 「乌胡：即胡牌时手中没有红牌」 — it has
    red cards; 「对对胡：即胡牌时手中的牌全部为跑起，提起，碰起，偎起」 — the loose cards are in no 列. So 平胡:
    27 胡息 = 5 等, +1 自摸 (天胡为自摸) = 6, each loser pays 6."""
    out = score({"rules": "paohuzi", "hand": ISSUE_HAND, "seat": 1})
    assert out["red"] == 4 and out["hu"] == 27 and out["mingtang"] == [] and out["fan"] == 1
    assert out["points"]["seats"] == [-6, 12, -6]
    st = GameState(R, make_deck(R, hands=ISSUE_DECK), dealer=0)
    st.apply(Hu(seat=1))
    assert st.result is not None and st.result.points == (-6, 12, -6)
    # 3提, 2 坎 and a pair (the 将): every card is in a 提/坎 or the 将, so 对对胡 (4番) stays
    full = score({"rules": "paohuzi", "hand": "一一一一三三三三六六六六二二二贰贰贰九九", "seat": 1})
    assert full["instant"] == "3垅" and {m["id"] for m in full["mingtang"]} == {"duidui"}


def test_tianhu_is_self_drawn_dealers_hand() -> None:
    """「天胡为自摸」: the dealer's complete dealt hand (天胡) gets the 自摸 +1 等 too."""
    dealer = "一二三贰柒拾壹贰叁二七十肆伍陆七八九五五五"  # 21 胡息: 3 等, +1 自摸
    hands = {0: dealer, 1: "一一二三三四四六六七八八九九十壹壹贰叁叁", 2: "一二三四四五六六七八九十壹贰叁肆肆伍伍陆"}
    st = GameState(R, make_deck(R, hands=hands), dealer=0)
    assert Hu(seat=0) in st.legal_actions(0)
    st.apply(Hu(seat=0))
    assert st.result is not None and st.result.hu == 21 and st.result.deng == 4
    assert {"tianhu", "self_drawn"} <= set(st.result.flags)


# -- 掉将 (吊将) -------------------------------------------------------------------------------------------

DIAO1 = "肆肆肆肆一二三贰柒拾二七十七八九壹贰叁五"  # a 提 (dealt), five 列 and a lone 五: no pair


def test_diao_jiang_a_ti_without_a_pair_waits_on_its_lone_card() -> None:
    """「跑牌或提牌时，必须有一对将，否则就要掉将」: with a 提 and no 将, the hand waits on a card that pairs its
    lone card (掉将 read as 吊将): it wins on 五 from the stock (30 胡息) and on nothing that leaves no 将."""
    st = GameState(R, _spread({1: DIAO1}, "拾"), dealer=0)
    st.apply(Discard(seat=0, kind=st.legal_actions(0)[-1].kind))  # type: ignore[union-attr]
    _until(st, lambda s: bool(s.melds[1]))
    assert [m.kind for m in st.melds[1]] == ["long"]  # the dealt 提 is laid down at seat 1's first reveal
    assert st.can_hu(1, K["五"]) == 30
    assert [k for k in range(20) if st.can_hu(1, k) is not None] == [K["五"]]


def test_daer_play_paohuzi_plays_a_whole_hand() -> None:
    """``daer play --rules paohuzi`` still plays: a whole hand through the terminal, 吃 and 比 offered."""
    res = CliRunner().invoke(app, ["play", "--rules", "paohuzi", "--seed", "1"], input="1\n" * 300)
    assert res.exit_code == 0, res.output
    assert "吃" in res.output and "谁付谁" in res.output


# -- 偎 face down (play.wei_hidden) ---------------------------------------------------------------------

WEI_H1 = "五五肆肆伍伍陆陆柒柒捌捌玖玖十十四四壹贰"  # seat 1: 五 and 十 are both pairs


def _relabel(deck: list[int], a: int, b: int) -> list[int]:
    """The same deck with kinds ``a`` and ``b`` swapped, copy for copy."""
    def one(cid: int) -> int:
        k, c = divmod(cid, 4)
        return (b if k == a else a if k == b else k) * 4 + c
    return [one(cid) for cid in deck]


WEI_H2 = "一二三四六七八九十十叁肆伍陆柒捌玖拾壹贰"  # seat 2; the fourth 五 stays in the stock
WEI_DECK = {0: D0, 1: WEI_H1, 2: WEI_H2}


def _steps(deck: list[int]) -> tuple[GameState, list[tuple[bytes, ...]]]:
    """Seat 1 偎s the 五 it reveals (face down), then discards 壹; everyone passes until seat 2 reveals.

    The final state, and the views of seats 0, 1 and a spectator after each step.
    """
    st = GameState(R, deck, dealer=0)
    frames = []

    def snap() -> None:
        frames.append(tuple(st.view(s).to_json() for s in (0, None, 1)))

    snap()
    st.apply(Discard(seat=0, kind=K["拾"]))
    snap()
    while not any(isinstance(e, Revealed) and e.seat == 2 for e in st.log):
        seat = st.to_act()[0]
        st.apply(Discard(seat=1, kind=K["壹"]) if st.phase == "discard" else Pass(seat=seat))
        snap()
    return st, frames


def _to_wei() -> GameState:
    st = GameState(R, make_deck(R, hands=dict(WEI_DECK), stock="五"), dealer=0)
    st.apply(Discard(seat=0, kind=K["拾"]))
    _until(st, lambda s: bool(s.melds[1]))
    return st


def test_wei_is_face_down_only_its_owner_sees_it() -> None:
    """偎 is laid face down (the seed is cut before it; the common Hunan rule, ``play.wei_hidden``): its owner
    sees its kinds, the others see three card backs and that he drew a card, not which."""
    st = _to_wei()
    assert st.melds[1][0].down and st.phase == "discard" and st.actor == 1
    own, other, spectator = st.view(1), st.view(0), st.view(None)
    assert own.melds[1] == (ShownMeld(kind="wei", kinds=(K["五"],) * 3, down=3),)
    assert other.melds[1] == spectator.melds[1] == (ShownMeld(kind="wei", kinds=(), down=3),)
    assert FaceDown(seat=1, how="draw", left=18) in other.log and FaceDown(seat=1, how="wei") in other.log
    assert not any(isinstance(e, Revealed | Claimed) and e.seat == 1 for e in other.log)
    assert any(isinstance(e, Revealed) and e.kind == K["五"] and e.down for e in own.log)
    assert "偎(扣3张)" in render_view(other) and "wei (drawn pong) (3 face down)" in render_view(other, lang="en")
    assert "偎五五五(扣)" in render_view(own)


def test_wei_face_down_kinds_redealt_change_nothing_the_others_see() -> None:
    """A re-deal of what seat 0 cannot see — the kind of seat 1's face-down 偎 (五 ↔ 十, both pairs in its hand) —
    changes none of seat 0's (nor a spectator's) views, step by step."""
    deck = make_deck(R, hands=dict(WEI_DECK), stock="五")
    (sa, a), (sb, b) = _steps(deck), _steps(_relabel(deck, K["五"], K["十"]))
    assert sa.melds[1][0].kinds == (K["五"],) * 3 and sb.melds[1][0].kinds == (K["十"],) * 3
    assert len(a) == len(b) > 4
    for x, y in zip(a, b, strict=True):
        assert x[:2] == y[:2]  # seat 0 and a spectator
    assert a[-1][2] != b[-1][2]  # its owner does see the difference


def test_ti_of_a_face_down_wei_shows_it() -> None:
    """A later 提 of the 偎 (its owner reveals the fourth card) lays it face up: everyone sees the 提."""
    st = GameState(R, make_deck(R, hands=dict(WEI_DECK), stock="五一二五"), dealer=0)
    st.apply(Discard(seat=0, kind=K["拾"]))
    _until(st, lambda s: any(m.kind == "long" for m in s.melds[1]))
    assert st.view(0).melds[1] == (ShownMeld(kind="long", kinds=(K["五"],) * 4),)
    assert not st.melds[1][0].down


def test_chou_wei_is_face_up() -> None:
    """臭偎 is laid face up: the others saw the 碰 passed."""
    st = GameState(R, make_deck(R, hands={0: CHI0.replace("拾拾", "五拾"), 1: CHI1, 2: CHI2}, stock="三五"), dealer=0)
    st.apply(Discard(seat=0, kind=K["五"]))
    _until(st, lambda s: bool(s.melds[2]))
    assert st.view(0).melds[2] == (ShownMeld(kind="wei", kinds=(K["五"],) * 3),)


def test_face_down_wei_search_worlds_deal_its_kind() -> None:
    """A search bot's possible worlds (from seat 0's view) deal three cards of one unseen kind to the 偎."""
    view = _to_wei().view(0)
    rng = random.Random(3)
    kinds = set()
    for _ in range(30):
        hidden, stock = sample_hidden(view, rng)
        world = world_from_view(view, R, hidden, stock)
        meld = world.melds[1][0]
        assert meld.down and len(set(meld.kinds)) == 1 and len(meld.ids) == 3
        assert sorted(world.card_locations()) == list(range(80))
        assert world.view(0, log=False) == msgspec.structs.replace(view, log=())
        kinds.add(meld.kinds[0])
    assert len(kinds) > 1  # the true kind is not given away


def test_face_down_wei_re_deal_property() -> None:
    """The re-deal property (tests/engine/redeal.py) on paohuzi hands with another seat's face-down 偎: re-deals
    that give that 偎 another kind (and keep the public course) change none of the seat's views."""
    moved = 0
    for i in range(30):
        st, deck = played("paohuzi", i)
        for seat in (i % 3, None):
            winner = st.result.winner if st.result is not None else None
            downs = [m.kinds for s, ms in enumerate(st.melds) if s not in (seat, winner) for m in ms if m.down]
            if not downs:
                continue
            course = course_of(R, deck, dealer=st.dealer, wind=st.wind, actions=st.actions, seat=seat)
            base = seen(course, deck)
            rng = random.Random(f"wei:{i}:{seat}")
            for _ in range(16):
                other_deck = redeal(course, rng)
                other = seen(course, other_deck)
                if other is None:
                    continue
                assert other == base, (i, seat)
                again = play_course(course, other_deck, hold=False)
                assert again is not None
                kinds = [m.kinds for s, ms in enumerate(again.melds) if s not in (seat, winner) for m in ms if m.down]
                moved += kinds != downs
    assert moved >= 3, moved


def test_held_window_does_not_tell_a_wei_hu_was_possible() -> None:
    """On the online table (held windows) a forced 偎 opens a window whether or not its revealer could 胡 on it
    (偎胡): seat 0 and a spectator see the same, and nobody sees the card."""
    frames = []
    for hand1 in (WEI1, WEI_H1):  # WEI1 can 胡 on the 五 it 偎s, WEI_H1 cannot
        st = GameState(R, _spread({0: D0, 1: hand1}, "五", bottom="四"), dealer=0, hold=True)
        while not any(isinstance(e, Revealed) and e.seat == 1 for e in st.log):
            if st.window_complete():
                st.close_window()
            elif st.phase == "discard":
                st.apply(Discard(seat=0, kind=K["拾"]))
            else:
                st.apply(Pass(seat=st.to_act()[0]))
        assert st.phase == "claim" and st.offer is not None and st.offer.kind == K["五"]
        assert st.view(0).offer is None and st.view(1).offer is not None
        frames.append((st.view(0).to_json(), st.view(None).to_json()))
        if Hu(seat=1) in st.legal_actions(1):
            st.apply(Pass(seat=1))
        st.close_window()
        assert st.melds[1][-1].down and st.phase == "discard" and st.actor == 1
    assert frames[0] == frames[1]
