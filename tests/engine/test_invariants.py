"""Random-simulation invariants over many seeded hands (OpenSpiel style).

Every step: the 80 cards are all somewhere exactly once, the applied action was
among the legal ones, and no view (serialized) holds a card id its seat may not
see.  Every hand: points sum to zero and the record replays to the same state.
"""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from daer.bots import HeuristicBot, RandomBot
from daer.bots.base import Bot
from daer.bots.runner import simulate
from daer.cards import N_CARDS
from daer.engine import GameState, dumps, loads, new_hand, record_of, replay
from daer.rules import Ruleset, find_rules, preset_names

R = find_rules()
ID_KEYS = {"hand", "ids", "card", "bottom", "cards", "melds", "discards"}


def card_ids(node: Any, key: str = "") -> list[int]:
    """Card ids in a decoded view: values under id-bearing keys (actions hold kinds only)."""
    out: list[int] = []
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("legal", "kinds", "groups", "result"):
                continue
            if k in ID_KEYS or key in ID_KEYS:
                out += card_ids(v, k if k in ID_KEYS else key)
            elif isinstance(v, dict | list):
                out += card_ids(v, "")
    elif isinstance(node, list):
        if key == "discards":
            for _, cid in node:
                out.append(cid)
            return out
        for v in node:
            out += card_ids(v, key)
    elif isinstance(node, int) and key in ID_KEYS:
        out.append(node)
    return out


def hidden_from(state: GameState, seat: int | None) -> set[int]:
    """Card ids ``seat`` may not see now: other concealed hands and the stock (bar the shown bottom)."""
    hidden = {c for s, h in enumerate(state.hands) if s != seat for c in h}
    hidden |= set(state.stock) - {state.bottom}
    return hidden


def run_hand(i: int, bots: list[Bot], *, check_views: bool, rules: Ruleset = R) -> GameState:
    seats = rules.table.seats
    dealer = i % seats
    wind = rules.table.winds[i % len(rules.table.winds)] if rules.table.winds else None
    st = new_hand(rules, seed=i, dealer=dealer, wind=wind)
    while not st.over:
        assert sorted(st.card_locations()) == list(range(N_CARDS))
        if check_views:
            for seat in (None, *range(seats)):
                view = st.view(seat)
                leaked = set(card_ids(msgspec.json.decode(view.to_json()))) & hidden_from(st, seat)
                assert not leaked, (i, seat, leaked)
        seat = st.to_act()[0]
        action = bots[seat].choose(st.view(seat, log=False))
        assert action in st.legal_actions(seat)
        st.apply(action)
    assert st.result is not None and sum(st.result.points) == 0
    assert sorted(st.card_locations()) == list(range(N_CARDS))
    again = replay(loads(dumps(record_of(st, seed=i))))
    assert again.result == st.result
    assert again.view(None).to_json() == st.view(None).to_json()
    assert again.hands == st.hands and again.stock == st.stock
    return st


def test_card_id_finder_sees_ids() -> None:
    st = new_hand(R, seed=1)
    seen = set(card_ids(msgspec.json.decode(st.view(st.dealer).to_json())))
    assert seen >= set(st.hands[st.dealer])
    assert seen & hidden_from(st, (st.dealer + 1) % 4)  # the check would catch a leak


@pytest.mark.parametrize("kind", ["random", "heuristic"])
def test_invariants_with_views(kind: str) -> None:
    for i in range(60):
        bots: list[Bot] = [RandomBot(random.Random(i).random()) if kind == "random" else HeuristicBot(R)
                           for _ in range(4)]
        run_hand(i, bots, check_views=True)


@pytest.mark.parametrize("name", preset_names())
def test_invariants_every_preset(name: str) -> None:
    rules = find_rules(name)
    n = rules.table.seats
    for i in range(40):
        bots: list[Bot] = [HeuristicBot(rules) if (i + s) % 2 else RandomBot(i * 4 + s) for s in range(n)]
        run_hand(i, bots, check_views=i % 4 == 0, rules=rules)
    for i in range(300, 500):
        run_hand(i, [RandomBot(i * 4 + s) for s in range(n)], check_views=False, rules=rules)


def test_invariants_many_random_hands() -> None:
    for i in range(1000, 1600):
        run_hand(i, [RandomBot(i * 4 + s) for s in range(4)], check_views=False)


@pytest.mark.slow
def test_invariants_thousands_of_hands() -> None:
    for i in range(5000, 8000):
        bots: list[Bot] = [RandomBot(i * 4 + s) if (i + s) % 2 else HeuristicBot(R) for s in range(4)]
        run_hand(i, bots, check_views=i % 10 == 0)


def test_heuristic_beats_random_over_2000_hands() -> None:
    stats = simulate(R, ["heuristic", "random", "random"], 2000, seed=7)
    h, r1, r2 = stats.seats[:3]
    assert h.wins > 3 * max(r1.wins, r2.wins)
    assert h.points > 0 > max(r1.points, r2.points)
    assert sum(s.points for s in stats.seats) == 0
