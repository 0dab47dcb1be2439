"""train/ppo.py in small: a few hundred MaskablePPO steps on DaerSingleEnv, evaluated, checkpointed, resumed; the
exported numpy policy plays exactly the model's deterministic masked choice.  Skipped without the rl extra."""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO

from daer.bots import make_bot
from daer.bots.policy import PolicyBot, PolicyNet
from daer.engine.encoding import encode_action, offer_kind
from daer.env import DaerSingleEnv

SCRIPT = Path(__file__).resolve().parents[2] / "train" / "ppo.py"


@pytest.fixture(scope="module")
def ppo() -> ModuleType:
    spec = importlib.util.spec_from_file_location("train_ppo", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def small(out: Path, steps: int, **changed: str) -> list[str]:
    opts = {"--steps": str(steps), "--envs": "2", "--n-steps": "64", "--batch": "64", "--epochs": "2",
            "--hidden": "32,32", "--eval-every": "128", "--eval-deals": "2", "--final-deals": "3",
            "--minutes": "10", "--seed": "3", "--out": str(out), **changed}
    return [x for kv in opts.items() for x in kv]


def test_train_evaluate_resume(ppo: ModuleType, tmp_path: Path) -> None:
    curve = ppo.main(small(tmp_path, 256))
    reference, *evals = curve
    assert reference["kind"] == "reference" and reference["bot"] == "random"
    assert [e["steps"] for e in evals] == [0, 128, 256]
    assert [e["deals"] for e in evals] == [2, 2, 3]  # the last evaluation plays --final-deals
    assert all(math.isfinite(e["diff"]) and e["ci95"] > 0 for e in evals)
    assert all(e["train_cpu_s"] <= f["train_cpu_s"] for e, f in itertools.pairwise(evals))
    assert (tmp_path / "curve.png").stat().st_size > 0
    assert json.loads((tmp_path / "state.json").read_text())["steps"] == 256

    with pytest.raises(SystemExit, match="hidden"):
        ppo.main(small(tmp_path, 384, **{"--hidden": "16"}))
    resumed = ppo.main(small(tmp_path, 384))
    assert resumed[: len(curve)] == curve  # the curve goes on from where it stopped
    assert [e["steps"] for e in resumed[len(curve):]] == [384]
    model = MaskablePPO.load(tmp_path / "model.zip", device="cpu")
    assert model.num_timesteps == 384


def test_the_exported_policy_is_the_models_choice(ppo: ModuleType, tmp_path: Path) -> None:
    ppo.main([*small(tmp_path, 128), "--no-plot"])
    model = MaskablePPO.load(tmp_path / "model.zip", device="cpu")
    net = PolicyNet.load(tmp_path / "policy.npz")
    assert net.meta["steps"] == 128
    bot = make_bot(f"policy:{tmp_path / 'policy.npz'}", 1)
    assert isinstance(bot, PolicyBot)
    env = DaerSingleEnv("luzhou")
    obs, _ = env.reset(seed=4)
    checked = 0
    for _ in range(60):
        mask = env.action_masks()
        chosen, _ = model.predict(obs["observation"], action_masks=mask, deterministic=True)
        assert env.state is not None
        view = env.state.view(env.seat, log=False)
        if mask.sum() > 1:
            assert encode_action(bot.choose(view), offer_kind(view)) == int(chosen)
            checked += 1
        obs, _, done, _, _ = env.step(int(chosen))
        if done:
            obs, _ = env.reset()
    assert checked > 20
    ours = net.logits(obs["observation"])
    theirs = model.policy.get_distribution(model.policy.obs_to_tensor(obs["observation"])[0]).distribution.logits
    # the same distribution, not only the same argmax (torch keeps the logits normalized: log-probabilities)
    np.testing.assert_allclose(ours - np.log(np.exp(ours - ours.max()).sum()) - ours.max(),
                               theirs.detach().numpy()[0], rtol=1e-4, atol=1e-4)
