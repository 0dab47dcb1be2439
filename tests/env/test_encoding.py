"""The action encoding is a bijection on legal actions, and observations come from the view alone."""

from __future__ import annotations

import inspect
import random

import numpy as np
import pytest

from daer.bots import RandomBot
from daer.cards import COPIES, N_KINDS
from daer.engine import View, new_hand
from daer.engine.encoding import (
    N_ACTIONS,
    OBS_SIZE,
    EncodingError,
    action_mask,
    decode_action,
    encode_action,
    encode_view,
    legal_indices,
)
from daer.engine.world import sample_hidden, world_from_view
from daer.rules import find_rules, preset_names


def _views(rules_name: str, hands: int, seed: int = 0) -> list[View]:
    rules = find_rules(rules_name)
    bot = RandomBot(seed)
    out = []
    for i in range(hands):
        state = new_hand(rules, seed=f"enc:{seed}:{i}", dealer=i % rules.table.seats)
        while not state.over:
            seat = state.to_act()[0]
            view = state.view(seat, log=False)
            out.append(view)
            state.apply(bot.choose(view))
    return out


@pytest.mark.parametrize("rules_name", preset_names())
def test_every_legal_action_has_a_distinct_index_that_decodes_back(rules_name: str) -> None:
    views = _views(rules_name, 60)
    assert len(views) > 1000
    for view in views:
        idx = legal_indices(view)
        assert len(set(idx)) == len(idx)
        assert all(0 <= i < N_ACTIONS for i in idx)
        for i, action in zip(idx, view.legal, strict=True):
            assert decode_action(i, view) == action
        mask = action_mask(view)
        assert mask.sum() == len(idx) and all(mask[i] for i in idx)


def test_chi_with_bi_groups_round_trip() -> None:
    seen_bi = 0
    for name in preset_names():
        for view in _views(name, 150, seed=1):
            for a in view.legal:
                if getattr(a, "bi", ()):
                    seen_bi += 1
                    assert view.offer is not None
                    assert decode_action(encode_action(a, view.offer.kind), view) == a
    assert seen_bi > 0


def test_meaningless_indices_are_errors() -> None:
    view = _views("luzhou", 1)[0]
    with pytest.raises(EncodingError):
        decode_action(N_ACTIONS, view)


def test_observation_is_a_function_of_the_view_only() -> None:
    assert list(inspect.signature(encode_view).parameters) == ["view"]
    rules = find_rules()
    rng = random.Random(3)
    checked = 0
    for view in _views("luzhou", 20, seed=3)[::5]:
        obs = encode_view(view)
        assert obs.shape == (OBS_SIZE,) and obs.dtype == np.float32
        hidden, stock = sample_hidden(view, rng)
        other = world_from_view(view, rules, hidden, stock).view(view.seat, log=False)
        np.testing.assert_array_equal(encode_view(other), obs)
        checked += 1
    assert checked > 50


def test_both_dead_bottom_cards_of_longchang_are_encoded_and_counted_as_seen() -> None:
    """隆昌's two dead bottom cards (table.dead_cards) are face up: both kinds are in the bottom block, and
    neither kind can have all four copies still unseen."""
    unseen_o = OBS_SIZE - 3 - 1 - N_KINDS  # after them: stock count (1), phase (3)
    bottom_o = unseen_o - N_KINDS
    checked = 0
    for view in _views("longchang", 3):
        if not view.dead:
            continue
        obs = encode_view(view)
        assert set(np.flatnonzero(obs[bottom_o:unseen_o])) == set(view.bottoms)
        for k in view.bottoms:
            assert obs[unseen_o + k] <= (COPIES - view.bottoms.count(k)) / COPIES
        checked += 1
    assert checked > 0
