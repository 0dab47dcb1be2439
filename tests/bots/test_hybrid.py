"""The hybrid bot: the search bot's rollouts with the learned network as a prior (and filter) over its candidates.

It is the search bot when the network counts for nothing, the network's choice when it counts for everything,
legal on every preset, deterministic for a seed, and known to the registry and to rooms."""

from __future__ import annotations

import random

import pytest
from walking import every_choice_is_legal

from daer.bots import HybridBot, LearnedBot, SearchBot, is_bot, make_bot
from daer.bots.arena import lineups, play_deal
from daer.engine import new_hand
from daer.engine.views import View
from daer.rules import find_rules, preset_names
from daer.server.safety.bounds import RoomConfig, bot_for, check_bot, check_config


def searched_views(n: int, seed: int = 0) -> list[View]:
    """Views of 泸州 hands where the search bot has more than one candidate (heuristic and random play)."""
    rules = find_rules()
    probe = SearchBot(rules, 0, worlds=1, seconds=None)
    rng = random.Random(seed)
    out: list[View] = []
    hand = 0
    while len(out) < n:
        state = new_hand(rules, seed=f"hybrid:{seed}:{hand}", dealer=hand % rules.table.seats)
        hand += 1
        while not state.over:
            seat = state.to_act()[0]
            view = state.view(seat, log=False)
            if len(view.legal) > 1 and len(probe.candidates(view)) > 1 and not any(
                    type(a).__name__ == "Hu" for a in view.legal):
                out.append(view)
            state.apply(probe._policy.choose(view) if rng.random() < 0.8 else rng.choice(view.legal))
    return out[:n]


def test_without_the_prior_it_is_the_search_bot() -> None:
    rules = find_rules()
    for i, view in enumerate(searched_views(12)):
        hybrid = HybridBot(rules, f"s{i}", worlds=3, seconds=None, prior=0.0, keep=0)
        search = SearchBot(rules, f"s{i}", worlds=3, seconds=None)
        assert hybrid.choose(view) == search.choose(view)


def test_with_an_overwhelming_prior_it_plays_the_networks_choice() -> None:
    rules = find_rules()
    learned = LearnedBot(rules)
    differs = 0
    for i, view in enumerate(searched_views(30, seed=1)):
        hybrid = HybridBot(rules, i, worlds=1, seconds=None, prior=1e6)
        choice = hybrid.choose(view)
        assert choice == learned.choose(view)
        differs += choice != learned.policy.choose(view)
    assert differs > 0  # the network does leave the heuristic choice in these views


def test_it_searches_only_the_candidates_it_keeps(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = find_rules()
    searched: list[int] = []
    real = SearchBot._search

    def spy(self: SearchBot, view: View, cands: list[object], per_world: object = None) -> list[float]:
        searched.append(len(cands))
        return real(self, view, cands, per_world)  # type: ignore[arg-type]

    monkeypatch.setattr(SearchBot, "_search", spy)
    views = [v for v in searched_views(40, seed=2) if len(SearchBot(rules).candidates(v)) > 2]
    assert views
    for i, view in enumerate(views):
        bot = HybridBot(rules, i, worlds=2, seconds=None, keep=2)
        first = bot._policy.choose(view)
        assert bot.choose(view) in view.legal
        assert searched[-1] == 2
        adv = bot.advantages(view, bot.candidates(view))
        best_other = max(range(1, len(adv)), key=lambda j: (adv[j], -j))
        assert bot.choose(view) in (first, bot.candidates(view)[best_other])


@pytest.mark.parametrize("rules_name", preset_names())
def test_every_choice_is_legal_on_every_preset(rules_name: str) -> None:
    rules = find_rules(rules_name)
    every_choice_is_legal(HybridBot(rules, 1, worlds=1, seconds=None, keep=2), rules, 150, "hybrid-legal")


def test_the_same_seed_plays_the_same_deals() -> None:
    rules = find_rules()
    names = ("hybrid:2", "heuristic")
    lus = lineups(list(names), rules.table.players)
    a = [play_deal(rules, names, lus, 5, d) for d in range(2)]
    b = [play_deal(rules, names, lus, 5, d) for d in range(2)]
    assert [r.points for r in a] == [r.points for r in b]


def test_the_registry_and_rooms_know_it() -> None:
    bot = make_bot("hybrid:7", 1)
    assert isinstance(bot, HybridBot) and bot.worlds == 7 and bot.seconds is None
    assert make_bot("hybrid", 1).seconds == SearchBot().seconds  # the search bot's clock
    assert is_bot("hybrid") and is_bot("hybrid:7") and not is_bot("hybrid:0") and not is_bot("hybrid:x")
    check_bot("hybrid")
    check_config(RoomConfig(bot="hybrid"))
    room_bot = bot_for("hybrid", find_rules(), "s")
    assert isinstance(room_bot, HybridBot) and room_bot.seconds is not None  # a room's thinking stays capped
