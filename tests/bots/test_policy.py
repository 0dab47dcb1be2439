"""The policy bot (``policy:FILE.npz``): a network file read back exactly, legal play, the masked argmax."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from daer.bots import is_bot, make_bot
from daer.bots.arena import arena
from daer.bots.policy import PolicyBot, PolicyNet
from daer.engine.encoding import N_ACTIONS, OBS_SIZE, action_mask, encode_action, encode_view, offer_kind
from daer.engine.record import new_hand
from daer.rules import find_rules
from daer.server.safety.bounds import RoomError, check_bot


def random_net(seed: int, hidden: int = 16, activation: str = "tanh") -> PolicyNet:
    rng = np.random.default_rng(seed)
    sizes = [OBS_SIZE, hidden, hidden, N_ACTIONS]
    layers = [(rng.normal(0, 0.3, (a, b)).astype(np.float32), rng.normal(0, 0.1, b).astype(np.float32))
              for a, b in itertools.pairwise(sizes)]
    return PolicyNet(layers, {"activation": activation, "note": "test"})


def test_a_saved_network_reads_back_with_the_same_logits(tmp_path: Path) -> None:
    net = random_net(1, activation="relu")
    net.save(tmp_path / "p.npz")
    back = PolicyNet.load(tmp_path / "p.npz")
    x = np.random.default_rng(2).random((5, OBS_SIZE), dtype=np.float32)
    assert back.activation == "relu" and back.meta["note"] == "test"
    np.testing.assert_array_equal(back.logits(x), net.logits(x))


def test_shapes_and_activation_are_checked() -> None:
    w = np.zeros((OBS_SIZE, N_ACTIONS), dtype=np.float32)
    PolicyNet([(w, np.zeros(N_ACTIONS, dtype=np.float32))])
    with pytest.raises(ValueError, match="inputs"):
        PolicyNet([(w[:10], np.zeros(N_ACTIONS, dtype=np.float32))])
    with pytest.raises(ValueError, match="chain"):
        PolicyNet([(w, np.zeros(3, dtype=np.float32))])
    with pytest.raises(ValueError, match="activation"):
        PolicyNet([(w, np.zeros(N_ACTIONS, dtype=np.float32))], {"activation": "sigmoid"})


def test_the_bot_plays_the_legal_action_with_the_highest_logit(tmp_path: Path) -> None:
    net = random_net(3)
    net.save(tmp_path / "p.npz")
    bot = make_bot(f"policy:{tmp_path / 'p.npz'}", 1)
    assert isinstance(bot, PolicyBot)
    rules = find_rules()
    checked = 0
    for seed in range(4):
        state = new_hand(rules, seed=seed, dealer=0)
        while not state.over:
            seat = state.to_act()[0]
            view = state.view(seat, log=False)
            action = bot.choose(view)
            assert action in view.legal
            if len(view.legal) > 1:
                logits = net.logits(encode_view(view))
                legal = np.flatnonzero(action_mask(view))
                assert encode_action(action, offer_kind(view)) == legal[np.argmax(logits[legal])]
                checked += 1
            state.apply(action)
    assert checked > 20


def test_the_name_needs_an_existing_npz_file(tmp_path: Path) -> None:
    random_net(4).save(tmp_path / "p.npz")
    assert is_bot(f"policy:{tmp_path / 'p.npz'}")
    assert not is_bot(f"policy:{tmp_path / 'missing.npz'}")
    assert not is_bot("policy")
    with pytest.raises(RoomError):  # the command line's and the arena's: a room never names a file
        check_bot(f"policy:{tmp_path / 'p.npz'}")
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot(f"policy:{tmp_path / 'missing.npz'}", 1)


def test_a_rewritten_file_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "p.npz"
    random_net(5).save(path)
    first = make_bot(f"policy:{path}", 1)
    random_net(6, hidden=8).save(path)
    second = make_bot(f"policy:{path}", 1)
    assert isinstance(first, PolicyBot) and isinstance(second, PolicyBot)
    assert first.net.layers[0][0].shape[1] == 16 and second.net.layers[0][0].shape[1] == 8


def test_it_plays_in_the_arena(tmp_path: Path) -> None:
    random_net(7).save(tmp_path / "p.npz")
    stats = arena(find_rules(), [f"policy:{tmp_path / 'p.npz'}", "heuristic"], 3, seed=1)
    assert stats.hands == 9 and stats.bots[0].hands == 9
