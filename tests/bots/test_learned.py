"""The learned bot: its shipped weights load, every choice is legal on every preset, it is deterministic,
it decides from the view only, and the training script runs (when torch is installed)."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest
from walking import every_choice_is_legal

from daer.bots import is_bot, make_bot
from daer.bots.arena import lineups, play_deal
from daer.bots.learned import (
    DEFAULT_WEIGHTS,
    FEATURES,
    MORE_FEATURES,
    PAIR_FEATURES,
    WEIGHTS_DIR,
    LearnedBot,
    QNet,
    load_net,
    weights_path,
)
from daer.engine import new_hand
from daer.engine.encoding import N_ACTIONS
from daer.rules import find_rules, preset_names
from daer.server.safety.bounds import RoomConfig, RoomError, bot_for, check_bot, check_config

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_weights_load_with_the_encoding_sizes() -> None:
    shipped = sorted(p.stem for p in WEIGHTS_DIR.glob("*.npz"))
    assert {DEFAULT_WEIGHTS, "paohuzi", "gulin"} <= set(shipped) <= set(preset_names())  # one file a preset at most
    for name in shipped:
        net = QNet.load(WEIGHTS_DIR / f"{name}.npz")
        shape = (net.layers[0][0].shape[0], net.layers[-1][0].shape[1])
        # one value per action, or per candidate (with the candidates' 听 numbers or without)
        assert shape in {(FEATURES, N_ACTIONS), (PAIR_FEATURES, 1), (MORE_FEATURES, 1)}
        assert net.meta["rules"] == name
        assert (WEIGHTS_DIR / f"{name}.npz").stat().st_size < 1_000_000
        x = np.zeros((3, shape[0]), dtype=np.float32)
        assert net.values(x).shape == (3, shape[1]) and np.isfinite(net.values(x)).all()
    assert QNet.load(WEIGHTS_DIR / f"{DEFAULT_WEIGHTS}.npz").meta["form"] == "pair"  # the distilled network


def test_weights_round_trip_through_a_file(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    layers = [(rng.normal(size=(FEATURES, 8)).astype(np.float32), rng.normal(size=8).astype(np.float32)),
              (rng.normal(size=(8, N_ACTIONS)).astype(np.float32), rng.normal(size=N_ACTIONS).astype(np.float32))]
    QNet(layers, {"rules": "x"}).save(tmp_path / "w.npz")
    back = load_net(tmp_path / "w.npz")
    assert back.meta == {"rules": "x"}
    x = rng.normal(size=FEATURES).astype(np.float32)
    want = QNet(layers).values(x)
    assert np.allclose(back.values(x), want, rtol=1e-2, atol=0.05 * float(np.abs(want).max()))


def test_a_network_of_the_wrong_shape_is_refused() -> None:
    with pytest.raises(ValueError, match="inputs"):
        QNet([(np.zeros((10, N_ACTIONS), np.float32), np.zeros(N_ACTIONS, np.float32))])


def test_a_preset_without_weights_of_its_own_uses_the_luzhou_weights() -> None:
    for name in preset_names():
        path = weights_path(find_rules(name))
        assert path.exists()
        assert path.name in {f"{name}.npz", f"{DEFAULT_WEIGHTS}.npz"}
    assert weights_path(find_rules("gulin")).name == "gulin.npz"  # 古蔺's own network (docs/bots.md)
    assert weights_path(find_rules("hejiang")).name == f"{DEFAULT_WEIGHTS}.npz"  # its own was no stronger


@pytest.mark.parametrize("rules_name", preset_names())
def test_every_choice_is_legal_over_thousands_of_random_states(rules_name: str) -> None:
    rules = find_rules(rules_name)
    every_choice_is_legal(LearnedBot(rules, 1), rules, 2000, "learned")


def test_the_same_seed_plays_the_same_hands() -> None:
    rules = find_rules()
    names = ("learned", "heuristic")
    lus = lineups(list(names), rules.table.players)
    a = [play_deal(rules, names, lus, 5, d) for d in range(3)]
    b = [play_deal(rules, names, lus, 5, d) for d in range(3)]
    assert [r.points for r in a] == [r.points for r in b]
    assert [r.decisions for r in a] == [r.decisions for r in b]


def test_it_always_takes_a_hu_and_decides_from_the_view_alone() -> None:
    rules = find_rules()
    bot = LearnedBot(rules)
    rng = random.Random(3)
    hus = 0
    for hand in range(40):
        state = new_hand(rules, seed=f"hu:{hand}", dealer=hand % rules.table.seats)
        while not state.over:
            seat = state.to_act()[0]
            view = state.view(seat, log=False)
            choice = bot.choose(view)
            if any(type(a).__name__ == "Hu" for a in view.legal):
                assert type(choice).__name__ == "Hu"
                hus += 1
            state.apply(choice if rng.random() < 0.7 else rng.choice(view.legal))
    assert hus > 0


def test_the_registry_the_command_line_and_rooms_know_it(tmp_path: Path) -> None:
    assert make_bot("learned", 1).name == "learned"
    assert is_bot("learned")
    weights = tmp_path / "w.npz"
    QNet.load(WEIGHTS_DIR / f"{DEFAULT_WEIGHTS}.npz").save(weights)
    assert is_bot(f"learned:{weights}") and not is_bot(f"learned:{tmp_path / 'none.npz'}")
    assert not is_bot(f"learned:{tmp_path}")
    assert isinstance(make_bot(f"learned:{weights}", 1), LearnedBot)
    check_bot("learned")
    assert isinstance(bot_for("learned", find_rules(), "s"), LearnedBot)
    check_config(RoomConfig(bot="learned"))
    with pytest.raises(RoomError):  # a room never names a file
        check_bot(f"learned:{weights}")


def test_the_training_script_runs_a_few_hands_and_resumes(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    import importlib.util  # noqa: PLC0415

    sys.path.insert(0, str(ROOT / "train"))
    try:
        spec = importlib.util.spec_from_file_location("dmc", ROOT / "train" / "dmc.py")
        assert spec is not None and spec.loader is not None
        dmc = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(dmc)
    finally:
        sys.path.remove(str(ROOT / "train"))
    run = tmp_path / "run"
    args = ["--run", str(run), "--max-hands", "8", "--eval-deals", "2", "--hidden", "16", "--batch", "32",
            "--seed", "4", "--plot", str(tmp_path / "curve.png")]
    st = dmc.main(args)
    assert st["hands"] == 8 and st["steps"] > 0 and (tmp_path / "curve.png").stat().st_size > 0
    curve = [json.loads(line) for line in (run / "curve.jsonl").read_text().splitlines()]
    assert len(curve) == 1 and curve[0]["hands"] == 8
    net = QNet.load(run / "latest.npz")
    assert net.layers[0][0].shape == (FEATURES, 16) and net.meta["target"] == "advantage"
    assert (run / "buffer.npz").exists()
    st2 = dmc.main([*args[:3], "16", *args[4:], "--resume"])
    assert st2["hands"] == 16 and st2["steps"] > st["steps"] and len(st2["curve"]) == 2
    # the DMC variant (returns, then self-play) runs too
    st3 = dmc.main(["--run", str(tmp_path / "dmc"), "--target", "return", "--max-hands", "16", "--eval-deals", "2",
                    "--hidden", "16", "--batch", "32", "--selfplay-after", "8"])
    assert st3["hands"] == 16 and st3["curve"][0]["selfplay"]


@pytest.mark.parametrize("meta", [{"target": "return"}, {"target": "return", "margin": 0.5},
                                  {"target": "advantage", "margin": 0.0}])
def test_every_kind_of_network_chooses_legally(meta: dict[str, object]) -> None:
    rng = np.random.default_rng(1)
    layers = [(rng.normal(size=(FEATURES, 8)).astype(np.float32), rng.normal(size=8).astype(np.float32)),
              (rng.normal(size=(8, N_ACTIONS)).astype(np.float32), rng.normal(size=N_ACTIONS).astype(np.float32))]
    rules = find_rules()
    bot = LearnedBot(rules, net=QNet(layers, meta))
    deviations = decisions = 0
    for hand in range(12):
        state = new_hand(rules, seed=f"kinds:{hand}", dealer=hand % rules.table.seats)
        while not state.over:
            view = state.view(state.to_act()[0], log=False)
            choice = bot.choose(view)
            assert choice in view.legal
            if len(view.legal) > 1:
                decisions += 1
                deviations += choice != bot.policy.choose(view)
            state.apply(choice)
    assert 0 < deviations < decisions  # random weights: it neither always nor never leaves the heuristic choice
