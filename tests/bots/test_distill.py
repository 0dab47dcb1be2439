"""The distillation data (train/distill.py): its targets are the search bot's own rollout means for the same
decision, the shards resume where they stopped, and the fit (train/distill_fit.py, when torch is installed)
writes weights the learned bot plays legally with."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from daer.bots.heuristic import HeuristicBot
from daer.bots.learned import FEATURES, LearnedBot, QNet
from daer.bots.search import SearchBot
from daer.engine import new_hand
from daer.env.encoding import encode_action, encode_view, offer_kind
from daer.rules import find_rules

ROOT = Path(__file__).resolve().parents[2]


def script(name: str) -> ModuleType:
    sys.path.insert(0, str(ROOT / "train"))
    try:
        spec = importlib.util.spec_from_file_location(name, ROOT / "train" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(ROOT / "train"))
    return mod


@pytest.fixture(scope="module")
def distill() -> ModuleType:
    return script("distill")


def test_the_targets_are_the_search_bots_means_for_that_decision(distill: ModuleType) -> None:
    rules = find_rules("luzhou")
    samples = distill.hand_samples(rules, "t", 3, worlds=3)
    assert len(samples) >= 5
    heuristic = HeuristicBot(rules)
    claims = {s["claim"] for s in samples}
    assert claims == {0, 1}  # both kinds of decision are searched
    for s in samples[:: max(1, len(samples) // 4)]:
        view = s["view"]
        bot = SearchBot(rules, f"distill:t:3:{s['decision']}", worlds=3, seconds=None)
        cands = bot.candidates(view)
        assert cands[0] == heuristic.choose(view)
        assert s["cand"] == [encode_action(a, offer_kind(view)) for a in cands]
        assert s["mean"] == pytest.approx([t / 3 for t in bot._search(view, cands)])
        assert np.array_equal(s["obs"], encode_view(view))
    # the same hand gives the same samples (seeded by hand and decision)
    again = distill.hand_samples(rules, "t", 3, worlds=3)
    assert [s["mean"] for s in again] == [s["mean"] for s in samples]


def test_shards_are_written_resumed_and_loaded(distill: ModuleType, tmp_path: Path) -> None:
    out = tmp_path / "data"
    base = ["--out", str(out), "--workers", "1", "--worlds", "2", "--seed", "s", "--shard-minutes", "0"]
    distill.main([*base, "--hands", "2"])
    distill.main([*base, "--hands", "3"])  # resumes at hand 2
    names = sorted(p.name for p in out.glob("w*.npz"))
    assert names == ["w0-0000000-0000000.npz", "w0-0000001-0000001.npz", "w0-0000002-0000002.npz"]
    d = distill.load(out)
    assert sorted(set(d["hand"].tolist())) == [0, 1, 2]
    assert (d["cand"][:, 0] == d["heur"]).all() and (d["cand"][:, 1] >= 0).all()
    direct = distill.pack(distill.hand_samples(find_rules("luzhou"), "s", 2, worlds=2))
    assert np.array_equal(d["mean"][d["hand"] == 2], direct["mean"])
    with pytest.raises(SystemExit):  # other settings in the same directory are refused
        distill.main([*base, "--hands", "4", "--worlds", "3"])


def test_the_fit_writes_weights_the_learned_bot_plays_with(distill: ModuleType, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    fit = script("distill_fit")
    out = tmp_path / "data"
    distill.main(["--out", str(out), "--workers", "1", "--worlds", "2", "--hands", "11", "--shard-minutes", "0"])
    log = fit.main([str(out), "--out", str(tmp_path / "w.npz"), "--hidden", "16", "--epochs", "2", "--batch", "32"])
    assert len(log) == 2 and log[-1]["heldout_mse"] > 0
    net = QNet.load(tmp_path / "w.npz")
    assert net.layers[0][0].shape == (FEATURES, 16) and net.meta["target"] == "advantage"
    rules = find_rules("luzhou")
    bot = LearnedBot(rules, net=net)
    state = new_hand(rules, seed="fit", dealer=0)
    while not state.over:
        view = state.view(state.to_act()[0], log=False)
        choice = bot.choose(view)
        assert choice in view.legal
        state.apply(choice)
