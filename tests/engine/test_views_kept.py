"""A view built with the table's parts kept from earlier views (``GameState._seen``, views.TableSeen) is the view
built from scratch: at every step of random hands of every preset, for every seat and a spectator, in a random
order of viewers — face-down 偎 (跑胡子), melds upgraded in place (偎 → 提/跑), the winner's reveal at the end —
and for the states the search bot makes from a view (``world_from_view``: new lists of melds and discards)."""

from __future__ import annotations

import random

import pytest

from daer.bots import HeuristicBot, RandomBot
from daer.bots.base import Bot
from daer.engine import GameState, new_hand
from daer.engine.views import TableSeen, View
from daer.engine.world import sample_hidden, world_from_view
from daer.rules import find_rules, preset_names


def fresh(st: GameState, seat: int | None) -> View:
    """``seat``'s view with nothing kept from earlier views."""
    kept = st._seen
    st._seen = TableSeen()
    try:
        return st.view(seat)
    finally:
        st._seen = kept


def check_every_viewer(st: GameState, rng: random.Random) -> None:
    viewers: list[int | None] = [None, *range(st.rules.table.seats)]
    rng.shuffle(viewers)
    for seat in viewers:
        assert st.view(seat) == fresh(st, seat), (seat, st.phase, len(st.log))


@pytest.mark.parametrize("name", preset_names())
def test_views_with_kept_parts_equal_views_from_scratch(name: str) -> None:
    rules = find_rules(name)
    n = rules.table.seats
    rng = random.Random(name)
    for i in range(6):
        st = new_hand(rules, seed=f"kept:{name}:{i}", dealer=i % n, hold=i % 2 == 0)
        bots: list[Bot] = [HeuristicBot(rules) if (i + s) % 2 else RandomBot(i * 5 + s) for s in range(n)]
        while not st.over:
            check_every_viewer(st, rng)
            if st.window_complete():
                st.close_window()
                continue
            s = st.to_act()[0]
            st.apply(bots[s].choose(st.view(s, log=False)))
        check_every_viewer(st, rng)  # the end: the winner's face-down melds are shown


@pytest.mark.parametrize("name", ["luzhou", "paohuzi"])
def test_a_world_made_from_a_view_shows_its_own_table(name: str) -> None:
    rules = find_rules(name)
    rng = random.Random(name)
    st = new_hand(rules, seed=f"world:{name}")
    bots = [HeuristicBot(rules) for _ in range(rules.table.seats)]
    worlds = 0
    while not st.over:
        s = st.to_act()[0]
        view = st.view(s, log=False)
        if len(st.discards) > 2 and worlds < 10:
            hidden, stock = sample_hidden(view, rng)
            world = world_from_view(view, rules, hidden, stock)
            world.view(s)  # parts kept, then the world plays on
            world.apply(view.legal[0])
            check_every_viewer(world, rng)
            worlds += 1
        st.apply(bots[s].choose(view))


def test_a_discards_list_replaced_whole_is_shown_afresh() -> None:
    rules = find_rules("luzhou")
    bot = HeuristicBot(rules)
    for i in range(20):  # a hand that gets to three discards
        st = new_hand(rules, seed=f"replaced:{i}")
        while len(st.discards) < 3 and not st.over:
            s = st.to_act()[0]
            st.apply(bot.choose(st.view(s, log=False)))
        if len(st.discards) >= 3:
            break
    assert len(st.discards) >= 3
    st.view(0)  # kept
    st.discards = [(seat, (card + 8) % 80) for seat, card in st.discards] + [(1, 0)]  # another list, longer
    assert st.view(0).discards == fresh(st, 0).discards
