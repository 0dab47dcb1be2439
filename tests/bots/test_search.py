"""The search bot: legal choices, worlds that agree with the view, and no way back to the state."""

from __future__ import annotations

import gc
import random
import time

import pytest

from daer.bots import SEARCH_CPU, HeuristicBot, SearchBot, is_bot, make_bot
from daer.cards import kind_of
from daer.engine import GameState, View, new_hand
from daer.engine.world import sample_hidden, unseen_cards, world_from_view
from daer.rules import find_rules, preset_names
from daer.server.safety.bounds import RoomError, check_bot


def _reachable(root: object, limit: int = 200_000) -> list[object]:
    """Every object reachable from ``root`` through references (a bounded walk)."""
    seen: dict[int, object] = {}
    todo = [root]
    while todo and len(seen) < limit:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, type):
            continue
        seen[id(obj)] = obj
        todo.extend(gc.get_referents(obj))
    return list(seen.values())


def _views(rules_name: str, hands: int) -> list[tuple[GameState, View]]:
    rules = find_rules(rules_name)
    bot = HeuristicBot(rules)
    out = []
    for i in range(hands):
        state = new_hand(rules, seed=f"world:{i}", dealer=i % rules.table.seats)
        while not state.over:
            seat = state.to_act()[0]
            view = state.view(seat, log=False)
            out.append((state, view))
            state.apply(bot.choose(view))
    return out


def test_no_state_is_reachable_from_a_view() -> None:
    state = new_hand(find_rules(), seed=3)
    view = state.view(state.to_act()[0])
    assert not any(isinstance(o, GameState) for o in _reachable(view))


def test_the_search_bot_keeps_no_reference_to_the_real_state() -> None:
    rules = find_rules()
    state = new_hand(rules, seed=4)
    bot = SearchBot(rules, 1, worlds=3, seconds=None)
    for _ in range(12):
        if state.over:
            break
        seat = state.to_act()[0]
        state.apply(bot.choose(state.view(seat, log=False)))
    assert all(o is not state for o in _reachable(bot))


@pytest.mark.parametrize("rules_name", preset_names())
def test_worlds_agree_with_the_view(rules_name: str) -> None:
    rules = find_rules(rules_name)
    rng = random.Random(0)
    for state, view in _views(rules_name, 8)[::3]:
        assert view.seat is not None
        pool = unseen_cards(view)
        hidden, stock = sample_hidden(view, rng)
        assert len(stock) == view.stock
        dealt = [c for ids in hidden.values() for c in ids] + stock
        if view.bottom is not None and view.stock and not view.dead:  # the shown bottom stays last, not unseen
            assert kind_of(stock[-1]) == view.bottom and stock[-1] not in pool and stock[-1] not in view.hand
            dealt.remove(stock[-1])
        assert sorted(dealt) == sorted(pool)
        world = world_from_view(view, rules, hidden, stock)
        again = world.view(view.seat, log=False)
        for field in ("hand", "hand_sizes", "melds", "discards", "bottom", "stock", "offer", "phase", "actor",
                      "legal", "guo"):
            assert getattr(again, field) == getattr(view, field), field
        assert sorted(world.card_locations()) == list(range(80))
        # the hidden cards are not the real ones (most of the time): nothing real leaks in
        assert world is not state


@pytest.mark.parametrize("rules_name", preset_names())
def test_search_bot_plays_legal_actions(rules_name: str) -> None:
    rules = find_rules(rules_name)
    bots = {s: SearchBot(rules, s, worlds=2, seconds=None) for s in range(rules.table.seats)}
    for i in range(2):
        state = new_hand(rules, seed=f"s:{i}", dealer=i)
        while not state.over:
            seat = state.to_act()[0]
            view = state.view(seat, log=False)
            action = bots[seat].choose(view)
            assert action in view.legal
            state.apply(action)


def test_search_bot_always_wins_when_it_can() -> None:
    rules = find_rules()
    bot = SearchBot(rules, 0, worlds=2, seconds=None)
    for _state, view in _views("luzhou", 30):
        if any(type(a).__name__ == "Hu" for a in view.legal):
            assert type(bot.choose(view)).__name__ == "Hu"


def test_time_budget_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search stops at its deadline, not at its world count: a fake clock that moves 0.02 s a reading
    (no wall-clock measure, so a loaded machine cannot fail it) ends a 0.05 s search after its third world."""
    rules = find_rules()
    bot = SearchBot(rules, 0, worlds=10_000, seconds=0.05)
    views = _views("luzhou", 1)[:10]
    ticks = iter(range(10**9))
    monkeypatch.setattr(time, "perf_counter", lambda: next(ticks) * 0.02)
    searched = 0
    for _state, view in views:
        assert bot.choose(view) in view.legal
        assert bot.last_worlds in (0, 3)  # 0: nothing to search (one sensible option)
        searched += bot.last_worlds == 3
    assert searched > 0


@pytest.mark.parametrize("rules_name", preset_names())
def test_a_world_with_the_true_hidden_cards_plays_out_like_the_real_hand(rules_name: str) -> None:
    rules = find_rules(rules_name)
    bot = HeuristicBot(rules)
    checked = 0
    for i in range(6):
        real = new_hand(rules, seed=f"true:{i}", dealer=i % rules.table.seats)
        steps = 0
        while not real.over:
            seat = real.to_act()[0]
            view = real.view(seat, log=False)
            if steps % 9 == 4:
                # the ids of a face-down 偎 (跑胡子) follow the concealed ones (world_from_view's convention)
                hidden = {s: list(real.hands[s]) + [c for m in real.melds[s] if m.down for c in m.ids]
                          for s in real.players if s != seat}
                world = world_from_view(view, rules, hidden, list(real.stock))
                twin = replay_state(real)
                for g in (world, twin):
                    while not g.over:
                        s = g.to_act()[0]
                        g.apply(bot.choose(g.view(s, log=False)))
                assert world.result is not None and twin.result is not None
                assert world.result.points == twin.result.points
                checked += 1
            real.apply(bot.choose(view))
            steps += 1
    assert checked >= 6


def replay_state(state: GameState) -> GameState:
    """An independent copy of ``state`` (its deck and actions replayed)."""
    copy = GameState(state.rules, list(state.deck), dealer=state.dealer, wind=state.wind)
    for action in state.actions:
        copy.apply(action)
    return copy


def test_the_cpu_clock_counts_only_the_searching_threads_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """``search:cpu`` is the clocked search timed on its thread's CPU time: its deadline moves with
    ``time.thread_time`` (here a fake one, 0.02 s a reading: the third world ends a 0.05 s search) and never
    with the wall clock, which a busy machine runs past while the thread waits for a core."""
    bot = make_bot(SEARCH_CPU, 0, rules=find_rules())
    assert isinstance(bot, SearchBot) and bot.clock == "cpu" and (bot.worlds, bot.seconds) == (400, 0.8)
    bot.seconds = 0.05
    ticks = iter(range(10**9))
    monkeypatch.setattr(time, "thread_time", lambda: next(ticks) * 0.02)
    monkeypatch.setattr(time, "perf_counter", lambda: pytest.fail("the wall clock was read"))
    searched = 0
    for _state, view in _views("luzhou", 1)[:10]:
        assert bot.choose(view) in view.legal
        assert bot.last_worlds in (0, 3)
        searched += bot.last_worlds == 3
    assert searched > 0
    assert is_bot(SEARCH_CPU)
    with pytest.raises(RoomError):  # a measurement variant: no room asks for it
        check_bot(SEARCH_CPU)
