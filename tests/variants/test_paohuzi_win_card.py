"""跑胡子: the winning card is scored as what the rules force it to become — 偎胡, 提胡, 跑胡.

「偎小牌3胡息，大牌6胡息，跑…小牌6胡息，大牌9胡息，提小牌9胡息，大牌12胡息」; 「当别人从墩上摸的牌，是自己已经碰牌的牌，
则同样可以跑牌」; 「跑牌或提牌时，必须有一对将」; 「可以胡过张，胡自己或其他人要碰，跑的牌。不能胡任何人提或偎的牌」.
Each example is checked in the calculator and in the engine (a scripted deal bringing the card by that route).
"""

from __future__ import annotations

import random

from test_win_card_brute import Situation, scripted_deal

from daer.calculator import score
from daer.cards import parse_counts, parse_kinds
from daer.engine import GameState, Hu, Pass, Zhao

K = {ch: parse_kinds(ch)[0] for ch in "一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾"}

WEI_HU = "一二二三三四五五七七八八八贰伍陆柒柒捌拾"
"""A pair 七七 in the hand (the issue's example, less one 捌: as written it has 21 cards, one too many)."""
TI_HU = "三四六六七七十十十贰贰贰叁叁肆肆陆柒玖玖"
"""A 坎 贰贰贰 in the hand."""
PAO_HU = "二二五七七十十壹壹贰贰叁叁伍伍捌捌"
"""17 concealed cards beside a 碰 (or 偎) 陆陆陆 on the table."""


def _calc(hand: str, card: str, source: str, melds: list[dict[str, str]] | None = None) -> dict[str, object]:
    req: dict[str, object] = {"rules": "paohuzi", "hand": hand, "win": {"card": card, "from": source}}
    if melds:
        req["melds"] = melds
    return score(req)


def _engine(hand: str, card: str, arrival: str, meld: str = "") -> tuple[GameState, int]:
    """A deal in which the hand's seat is brought ``card`` as ``arrival``, at the window of that card."""
    counts = list(parse_counts(hand))
    melds = [(meld, (K[card],) * 3)] if meld else []
    sit: Situation = (counts, melds, K[card])
    for seed in range(100):
        built = scripted_deal(sit, arrival, random.Random(seed))
        if built is not None:
            return built[0], built[1]
    raise AssertionError("no deal found")


def _win(st: GameState, seat: int) -> GameState:
    st.apply(Hu(seat=seat))
    for other in st.to_act():
        legal = st.legal_actions(other)
        st.apply(Pass(seat=other) if Pass(seat=other) in legal else legal[0])
    assert st.result is not None and st.result.winner == seat
    return st


def test_wei_hu_a_pair_and_ones_own_revealed_card_is_a_wei() -> None:
    """偎胡: a pair in the hand + one's own revealed card is a 偎 (小 3 胡息), not a 碰 (1): 15 胡息, a win."""
    own = _calc(WEI_HU, "七", "self")
    assert own["ok"] and own["hu"] == 15 and own["win_as"] == {"how": "wei", "name": "偎胡"}
    assert {"kind": "kan", "cards": "七七七", "hu": 3} in [
        {k: g[k] for k in ("kind", "cards", "hu")} for g in own["groups"]]  # type: ignore[attr-defined]
    other = _calc(WEI_HU, "七", "other")  # another's 七 may be 碰'd or used freely: 13 胡息
    assert other["complete"] and not other["ok"] and other["hu"] == 13
    st, seat = _engine(WEI_HU, "七", "self")
    assert st.forced == "wei" and st.legal_actions(seat) == [Hu(seat=seat), Pass(seat=seat)]
    assert _win(st, seat).result.hu == 15  # type: ignore[union-attr]
    st, seat = _engine(WEI_HU, "七", "other")
    assert Hu(seat=seat) not in st.legal_actions(seat)


def test_ti_hu_a_kan_and_ones_own_fourth_card_is_a_ti() -> None:
    """提胡: a 坎 in the hand + one's own revealed fourth is a 提 (大 12 胡息), not a 跑 (9): 15 胡息, a win."""
    own = _calc(TI_HU, "贰", "self")
    assert own["ok"] and own["hu"] == 15 and own["win_as"] == {"how": "ti", "name": "提胡"}
    other = _calc(TI_HU, "贰", "other")  # another's 贰 is a 跑: 12 胡息
    assert other["complete"] and not other["ok"] and other["hu"] == 12
    st, seat = _engine(TI_HU, "贰", "self")
    assert st.forced == "ti" and Hu(seat=seat) in st.legal_actions(seat)
    assert _win(st, seat).result.hu == 15  # type: ignore[union-attr]
    st, seat = _engine(TI_HU, "贰", "other")
    assert st.legal_actions(seat) == [Zhao(seat=seat)]  # 跑, compulsory, and no 胡 at 12 胡息


def test_pao_hu_a_peng_takes_the_fourth_card_whoever_reveals_it() -> None:
    """跑胡 on the table: a 碰 + a revealed fourth (anyone's) is a 跑 (大 9), with 将 捌捌: 27 胡息."""
    melds = [{"kind": "peng", "cards": "陆陆陆"}]
    for source in ("other", "self"):
        out = _calc(PAO_HU, "陆", source, melds)
        assert out["ok"] and out["hu"] == 27 and out["win_as"] == {"how": "pao", "name": "跑胡"}, out
        st, seat = _engine(PAO_HU, "陆", source, "peng")
        assert Hu(seat=seat) in st.legal_actions(seat) and Zhao(seat=seat) in st.legal_actions(seat)
        assert _win(st, seat).result.hu == 27  # type: ignore[union-attr]
    assert not _calc(PAO_HU, "陆", "discard", melds)["ok"]  # 胡牌必须胡墩上的牌


def test_pao_hu_and_ti_hu_on_a_face_down_wei() -> None:
    """One's face-down 偎 takes one's own fourth card as a 提 (12: 30 胡息) and another's as a 跑 (9: 27)."""
    melds = [{"kind": "wei", "cards": "陆陆陆"}]
    for source, how, hu in (("self", "ti", 30), ("other", "pao", 27)):
        out = _calc(PAO_HU, "陆", source, melds)
        assert out["ok"] and out["hu"] == hu and out["win_as"]["how"] == how  # type: ignore[index]
        st, seat = _engine(PAO_HU, "陆", source, "wei")
        assert _win(st, seat).result.hu == hu  # type: ignore[union-attr]


def test_unknown_meld_kind_lists_wei() -> None:
    out = score({"rules": "paohuzi", "hand": "二二", "melds": [{"kind": "pen", "cards": "陆陆陆"}]})
    assert "wei" in str(out["error"]) and "peng" in str(out["error"])
