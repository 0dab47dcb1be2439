"""The settlement's working (daer.settlement_work): every step named, and the formula it shows gives exactly the
payments the engine made — for random hands of every preset (wins, instant wins, 黄 with 包牌) and money play."""

from __future__ import annotations

import pytest

from daer.bots import HeuristicBot, RandomBot
from daer.bots.base import Bot
from daer.engine import GameState, new_hand
from daer.rules import find_rules, preset_names, with_overrides
from daer.rules.model import Ruleset
from daer.scoring import settle, settle_draw
from daer.settlement_work import worked


def finished(rules: Ruleset, i: int) -> GameState:
    n = rules.table.seats
    wind = rules.table.winds[i % len(rules.table.winds)] if rules.table.winds else None
    st = new_hand(rules, seed=f"work:{rules.name}:{i}", dealer=i % n, wind=wind)
    bots: list[Bot] = [HeuristicBot(rules) if (i + s) % 4 else RandomBot(i * 3 + s) for s in range(n)]
    while not st.over:
        s = st.to_act()[0]
        st.apply(bots[s].choose(st.view(s, log=False)))
    return st


def work_of(rules: Ruleset, st: GameState) -> dict[str, object]:
    assert st.result is not None and st.settlement is not None
    return worked(rules, st.settlement, how=st.result.how, penalties=st.result.penalties, dealer=st.dealer,
                  self_drawn="self_drawn" in st.result.flags)


RULESETS = [*preset_names(), "luzhou+money"]


@pytest.mark.parametrize("name", RULESETS)
def test_the_working_of_random_hands_adds_up_to_the_engines_payments(name: str) -> None:
    rules = find_rules(name.split("+", maxsplit=1)[0])
    if name.endswith("+money"):
        rules = with_overrides(rules, {"scoring.mode": "money", "scoring.money.unit": "0.5"})
    hows: set[str] = set()
    for i in range(30):
        st = finished(rules, i)
        w = work_of(rules, st)
        assert w["checked"], (name, i, w, st.settlement)
        assert w["chain"] and w["lines"]
        for line in [*w["chain"], *w["lines"]]:  # type: ignore[misc]
            assert line["zh"] and line["en"]
        assert st.result is not None
        hows.add(st.result.how)
    assert "hu" in hows, hows


@pytest.mark.parametrize("hu", [10, 11, 19, 20, 21, 35, 48, 60])
@pytest.mark.parametrize("red", [0, 5, 10, 14])
def test_deng_play_names_every_term_of_its_formula(hu: int, red: int) -> None:
    """000_…: a loser pays (等 + the 底家's 1) × the multipliers; the winner gives the 底家 1 × the multipliers."""
    rules = find_rules("luzhou")
    s = settle(rules, hu=hu, red=red, winner=1, dealer=0)
    w = worked(rules, s, how="hu", dealer=0)
    assert w["checked"]
    base = max(s.deng, 2)
    each = (base + 1) * s.factor
    assert f"每个输家付 ({base}等 + 底家 1) × {s.factor} = {each}" in [x["zh"] for x in w["lines"]]  # type: ignore[union-attr]
    assert w["chain"][0]["zh"] == f"{hu}胡" and w["chain"][-1]["zh"] == f"每家付 {each}"  # type: ignore[index]
    assert -s.points[0] == each


def test_a_draw_with_a_penalty_explains_the_dijia_payments_and_the_baopai() -> None:
    rules = find_rules("luzhou")
    s = settle_draw(rules, dealer=0, penalties=((1, "peng+zhao"),))
    w = worked(rules, s, how="huang", penalties=((1, "peng+zhao"),), dealer=0)
    assert w["checked"]
    text = " ".join(x["zh"] for x in w["lines"])  # type: ignore[union-attr]
    assert "黄牌" in text and "每个玩家付底家 1" in text and "2号位 包牌" in text and "未碰牌" in text


def test_a_formula_that_does_not_give_the_payments_is_never_shown() -> None:
    rules = find_rules("luzhou")
    s = settle(rules, hu=25, red=3, winner=1, dealer=0)
    # the working read under other rules than the payment's (a 等 floor of 5): it would not add up
    wrong = worked(with_overrides(rules, {"scoring.deng.min_points": 5}), s, how="hu", dealer=0)
    assert not wrong["checked"] and wrong["chain"] == []
    assert worked(rules, s, how="hu", dealer=0)["checked"]


def test_the_working_reads_in_english_with_the_multipliers_named_in_english() -> None:
    rules = find_rules("luzhou")
    w = worked(rules, settle(rules, hu=27, red=12, winner=1, dealer=0), how="hu", dealer=0)
    assert [x["en"] for x in w["chain"]] == ["27 hu", "deng 3", "+1 dijia", "red ×2", "each pays 8"]  # type: ignore[index]
    assert [x["zh"] for x in w["chain"]] == ["27胡", "3等", "+底家1", "红×2", "每家付 8"]  # type: ignore[index]
    assert "each loser pays (deng 3 + 1 for the dijia) × 2 = 8" in [x["en"] for x in w["lines"]]  # type: ignore[union-attr]
