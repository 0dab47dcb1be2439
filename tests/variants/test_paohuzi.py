"""跑胡子 (seed 002, second part): 胡息, 15 to win, 等 per 3, 偎/提/跑, 胡 only on the stock, 花样 and 自摸."""

from __future__ import annotations

import pytest
from engine_decks import make_deck
from variant_helpers import ctx

from daer.bots import RandomBot
from daer.bots.runner import play_hand
from daer.calculator import score
from daer.cards import format_kinds, parse_kinds
from daer.engine import Discard, GameState, Hu, Pass, Zhao, new_hand
from daer.hands.groups import GroupKind, group_hu
from daer.mingtang import settle_context
from daer.rules import find_rules, with_overrides
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
                       "win": {"card": "五", "from": "self"}})
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
