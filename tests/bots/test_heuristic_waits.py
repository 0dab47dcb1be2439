"""The heuristic bot's winning kinds, found with the evaluator's one-search waits, are those of one evaluation per
kind behind the cheap necessary conditions (as the bot found them before): so its choices stay what they were."""

from __future__ import annotations

import random

import pytest

from daer.bots.heuristic import HeuristicBot
from daer.cards import N_KINDS
from daer.engine.claims import PARTNERS, may_fit, orphans
from daer.hands import Meld
from daer.hands.samples import random_complete, random_one_short
from daer.rules import find_rules, preset_names


def winning_kinds_one_by_one(bot: HeuristicBot, c: list[int], melds: tuple[Meld, ...]) -> tuple[tuple[int, float], ...]:
    wins: list[tuple[int, float]] = []
    lone = orphans(c)
    for k in range(N_KINDS) if len(lone) <= 2 else ():
        if c[k] >= 4 or not may_fit(c, k) or any(o not in PARTNERS[k] for o in lone):
            continue
        best = bot._ev.best(tuple(c), melds, k)
        if best is not None and best[0] >= bot.rules.win.min_hu:
            wins.append((k, 1.0 + best[0] / 20.0))
    return tuple(wins)


@pytest.mark.parametrize("name", preset_names())
def test_the_bots_winning_kinds_are_one_evaluation_per_kind(name: str) -> None:
    rules = find_rules(name)
    rng = random.Random(name)
    found = 0
    for i in range(400):
        s = random_one_short(rng) if i % 3 else random_complete(rng)
        c = list(s.hand)
        if i % 2:  # a card more or less: hands that wait for nothing, or for several kinds
            k = rng.randrange(N_KINDS)
            if c[k]:
                c[k] -= 1
                c[rng.randrange(N_KINDS)] += 1
        if max(c) > 4:
            continue
        want = winning_kinds_one_by_one(HeuristicBot(rules), c, s.melds)
        assert HeuristicBot(rules)._winning_kinds(c, s.melds) == want, (c, s.melds)
        found += bool(want)
    assert found > 50  # most checks were of hands that do wait


def test_a_bot_playing_keeps_no_cache_of_its_hands() -> None:
    """Its own hands almost never repeat (0 hits in 200 hands): a cache would only grow (up to 50,000 entries a
    bot, for every bot of every room of a server) and give the collector more to walk."""
    from daer.engine import new_hand  # noqa: PLC0415

    rules = find_rules("luzhou")
    bots = [HeuristicBot(rules) for _ in range(4)]
    for seed in range(10):
        st = new_hand(rules, seed=seed, hold=True)
        while not st.over:
            if st.window_complete():
                st.close_window()
                continue
            s = st.to_act()[0]
            st.apply(bots[s].choose(st.view(s, log=False)))
    assert all(not b._wait_cache for b in bots)
    c = [0] * N_KINDS
    for k in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12):
        c[k] += 1
    assert bots[0]._winning_kinds(c, ()) == bots[0]._find_winning_kinds(c, ())  # the cached form, for features
    assert bots[0]._wait_cache
