"""A reinforcement-learning baseline: sb3-contrib's MaskablePPO on DaerSingleEnv, against the heuristic bot.

    nice -n 19 python train/ppo.py --rules luzhou --minutes 25 --seed 1
        # writes train/out/ppo/luzhou (--out); run the same command again to resume after the last checkpoint

Needs the ``rl`` extra (``pip install -e '.[rl]'``: torch CPU, stable-baselines3, sb3-contrib, matplotlib).

The learner holds one seat of :class:`daer.env.DaerSingleEnv` (its playing position drawn every hand) with
``--opponents`` (the heuristic bot) in the other playing seats; its observation is the environment's 286
numbers and MaskablePPO reads the environment's legal-action mask (``action_masks()``), so it never tries an
illegal action.  The reward is the hand's points times ``--reward-scale``.  Training stops after ``--minutes``
of the process's CPU time spent training (environment steps and updates; the evaluations are counted apart),
after ``--steps`` environment steps, or after ``--wall-minutes``, whichever comes first; torch runs on one
thread.

Every ``--eval-every`` steps (and at step 0 and at the end) the policy is exported to a numpy file
(:class:`daer.bots.policy.PolicyNet`, its deterministic masked argmax) and played in the duplicate arena
(:func:`daer.bots.arena.arena`) against the heuristic bot over the same ``--eval-deals`` deals of seed
``--eval-seed`` every time: each deal is replayed with the policy in each playing position and heuristic bots
in the others, and the arena's paired difference per deal (policy − heuristic, points a hand) gives the mean
and its 95% interval.  The last evaluation plays ``--final-deals`` deals (the same seed: the first ones are the
curve's deals).  ``random − heuristic`` on the same deals is measured once, as the curve's floor.

Writes into ``--out`` (default ``train/out/ppo/{rules}``): ``config.json`` (the settings; a resumed run with
other settings is refused), ``model.zip`` (the MaskablePPO checkpoint with its optimizer, written at every
evaluation), ``state.json`` (steps and CPU seconds so far), ``curve.jsonl`` (one line an evaluation),
``curve.png``, ``policies/policy-{steps}.npz`` and ``policy.npz`` (the latest policy: play it with
``daer arena --bots policy:train/out/ppo/luzhou/policy.npz,heuristic``).  A resumed run continues the same
model and counts its budget from the saved CPU seconds; its environment is reseeded from ``(seed, steps)``,
so a run interrupted and resumed deals other hands than one run straight through.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from daer.bots.arena import arena
from daer.bots.policy import PolicyNet
from daer.env import DaerSingleEnv
from daer.rules import resolve_rules

OUT = Path(__file__).resolve().parent / "out"
"""``train/out``: where the training scripts write by default (ignored by git)."""

SETTINGS = ("rules", "opponents", "seed", "envs", "n_steps", "batch", "epochs", "lr", "gamma", "gae_lambda",
            "ent_coef", "clip", "hidden", "reward_scale", "eval_every", "eval_deals", "eval_seed")
"""The options a resumed run must share with the run it continues (the budgets may change)."""


class FlatObs(gym.ObservationWrapper[Any, int, Any]):
    """DaerSingleEnv with the observation vector alone (the mask is read through :meth:`action_masks`)."""

    def __init__(self, env: DaerSingleEnv) -> None:
        super().__init__(env)
        self.observation_space = env.observation_space["observation"]

    def observation(self, observation: Any) -> Any:
        """The 286 numbers of the dict observation."""
        return observation["observation"]

    def action_masks(self) -> np.ndarray:
        """The legal indices now (MaskablePPO asks every environment of the vector for them)."""
        inner = self.env.unwrapped
        assert isinstance(inner, DaerSingleEnv)
        return inner.action_masks()


class ScaledReward(gym.RewardWrapper[Any, int]):
    """The points times a constant (keeps the value targets near 1 in size)."""

    def __init__(self, env: gym.Env[Any, int], scale: float) -> None:
        super().__init__(env)
        self.scale = scale

    def reward(self, reward: Any) -> float:
        """The scaled reward."""
        return float(reward) * self.scale

    def action_masks(self) -> np.ndarray:
        """Passed through from :class:`FlatObs`."""
        assert isinstance(self.env, FlatObs)
        return self.env.action_masks()


def make_vec_env(args: argparse.Namespace, seed: int) -> Any:
    """``--envs`` environments stepped in this process (one thread), with episode statistics."""
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    def one() -> gym.Env[Any, int]:
        return ScaledReward(FlatObs(DaerSingleEnv(args.rules, opponents=args.opponents)), args.reward_scale)

    vec = VecMonitor(DummyVecEnv([one] * args.envs))
    vec.seed(seed)
    return vec


def new_model(args: argparse.Namespace, env: Any) -> Any:
    """A fresh MaskablePPO with a tanh MLP of ``--hidden`` units for the policy and the same for the value."""
    import torch
    from sb3_contrib import MaskablePPO

    hidden = [int(h) for h in str(args.hidden).split(",")]
    return MaskablePPO(
        "MlpPolicy", env, n_steps=args.n_steps, batch_size=args.batch, n_epochs=args.epochs, learning_rate=args.lr,
        gamma=args.gamma, gae_lambda=args.gae_lambda, ent_coef=args.ent_coef, clip_range=args.clip,
        policy_kwargs={"net_arch": {"pi": hidden, "vf": hidden}, "activation_fn": torch.nn.Tanh},
        seed=args.seed, device="cpu", verbose=0,
    )


def export_policy(model: Any, meta: dict[str, Any] | None = None) -> PolicyNet:
    """The policy's network (its MLP and action head) as a numpy :class:`PolicyNet`: the same logits, no torch.

    MaskablePPO's MlpPolicy on a flat observation feeds it unchanged (a flatten) to ``mlp_extractor.policy_net``
    (linear layers with tanh between and after them) and then ``action_net`` (linear): exactly
    ``PolicyNet``'s ``h @ w + b`` with tanh after every layer but the last.
    """
    import torch

    linears = [m for m in model.policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    linears.append(model.policy.action_net)
    layers = [(m.weight.detach().cpu().numpy().T.copy(), m.bias.detach().cpu().numpy().copy()) for m in linears]
    return PolicyNet(layers, {**(meta or {}), "activation": "tanh", "source": "sb3-contrib MaskablePPO"})


def evaluate(args: argparse.Namespace, policy_file: Path, deals: int, bot: str | None = None) -> dict[str, Any]:
    """``bot`` (default: the policy file) − the heuristic bot over the duplicate deals, as the arena counts it."""
    name = bot or f"policy:{policy_file}"
    stats = arena(resolve_rules(args.rules), [name, "heuristic"], deals, seed=args.eval_seed, workers=args.workers)
    diff = stats.diffs[(0, 1)]
    me = stats.bots[0]
    return {"deals": stats.deals, "diff": round(diff.mean, 4), "ci95": round(diff.ci95, 4),
            "points_per_hand": round(me.score.mean, 4), "win_rate": round(me.win_rate, 4)}


def plot(curve: list[dict[str, Any]], path: Path, title: str) -> None:
    """The curve: policy − heuristic with its 95% interval at each evaluation, the random bot's level dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = [c for c in curve if c.get("kind") == "eval"]
    floor = [c for c in curve if c.get("kind") == "reference"]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.errorbar([c["steps"] for c in points], [c["diff"] for c in points], yerr=[c["ci95"] for c in points],
                marker="o", capsize=3, label="MaskablePPO − heuristic")
    ax.axhline(0.0, color="black", linewidth=0.8, label="heuristic")
    if floor:
        ax.axhline(floor[-1]["diff"], color="grey", linestyle="--", linewidth=0.8, label="random − heuristic")
    if points:
        ax.set_title(f"{title}: {points[-1]['train_cpu_s'] / 60:.1f} CPU minutes of training")
    ax.set_xlabel("environment steps (the learner's decisions)")
    ax.set_ylabel("points a hand, paired over duplicate deals")
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def read_curve(path: Path) -> list[dict[str, Any]]:
    """The lines of ``curve.jsonl`` so far (none before the first evaluation)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def parse(argv: list[str] | None) -> argparse.Namespace:
    """The command line."""
    p = argparse.ArgumentParser(prog="ppo.py", description=__doc__.split("\n")[0])
    p.add_argument("--rules", default="luzhou", help="preset (or house-rule TOML)")
    p.add_argument("--opponents", default="heuristic", help="the bots in the other playing seats")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--minutes", type=float, default=25.0, help="CPU minutes of training (evaluations apart)")
    p.add_argument("--steps", type=int, default=0, help="stop after this many environment steps (0: no limit)")
    p.add_argument("--wall-minutes", type=float, default=0.0, help="stop after this much wall time (0: no limit)")
    p.add_argument("--envs", type=int, default=8, help="environments stepped in turn, in this process")
    p.add_argument("--n-steps", type=int, default=512, help="steps per environment per rollout")
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=1.0, help="1: the reward is the hand's points at its end")
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--hidden", default="256,256", help="hidden units of the policy (and of the value) network")
    p.add_argument("--reward-scale", type=float, default=0.1)
    p.add_argument("--eval-every", type=int, default=100_000, help="environment steps between evaluations")
    p.add_argument("--eval-deals", type=int, default=300)
    p.add_argument("--final-deals", type=int, default=1000, help="deals of the last evaluation")
    p.add_argument("--eval-seed", default="ppo-eval")
    p.add_argument("--workers", type=int, default=1, help="processes for the evaluations' arena")
    p.add_argument("--out", type=Path, default=None, help="default train/out/ppo/{rules}")
    p.add_argument("--no-plot", action="store_true", help="skip the PNG (matplotlib)")
    args = p.parse_args(argv)
    if args.out is None:
        args.out = OUT / "ppo" / Path(args.rules).stem
    return args


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    """Train (or resume), evaluating as it goes; returns the curve's lines."""
    args = parse(argv)
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    out: Path = args.out
    (out / "policies").mkdir(parents=True, exist_ok=True)
    config = {k: getattr(args, k) for k in SETTINGS}
    config_file, state_file, model_file, curve_file = (out / n for n in ("config.json", "state.json", "model.zip",
                                                                          "curve.jsonl"))
    resume = model_file.exists() and state_file.exists()
    if resume:
        old = json.loads(config_file.read_text())
        if old != config:
            changed = sorted(k for k in config if old.get(k) != config[k])
            raise SystemExit(f"{out} holds a run with other settings ({', '.join(changed)}): choose another --out")
        state = json.loads(state_file.read_text())
    else:
        config_file.write_text(json.dumps(config, indent=1, sort_keys=True) + "\n")
        curve_file.write_text("")
        state = {"steps": 0, "train_cpu_s": 0.0, "eval_cpu_s": 0.0}

    env = make_vec_env(args, args.seed + state["steps"])
    if resume:
        model = MaskablePPO.load(model_file, env=env, device="cpu")
        model.set_random_seed(args.seed + state["steps"])
    else:
        model = new_model(args, env)
    random.seed(args.seed)

    budget = args.minutes * 60
    wall_start = time.monotonic()
    train_cpu0, eval_cpu0 = state["train_cpu_s"], state["eval_cpu_s"]
    cpu0 = time.process_time()
    eval_cpu = 0.0

    def train_cpu() -> float:
        return train_cpu0 + time.process_time() - cpu0 - eval_cpu

    def out_of_budget() -> bool:
        wall = args.wall_minutes and time.monotonic() - wall_start >= args.wall_minutes * 60
        return bool(train_cpu() >= budget or (args.steps and model.num_timesteps >= args.steps) or wall)

    def record(line: dict[str, Any]) -> None:
        with curve_file.open("a") as f:
            f.write(json.dumps(line, sort_keys=True) + "\n")
        print(json.dumps(line, sort_keys=True), flush=True)

    def checkpoint_and_evaluate(deals: int) -> None:
        nonlocal eval_cpu
        t = time.process_time()
        steps = int(model.num_timesteps)
        net = export_policy(model, {"rules": args.rules, "steps": steps, "seed": args.seed})
        policy_file = out / "policies" / f"policy-{steps:09d}.npz"
        net.save(policy_file)
        net.save(out / "policy.npz")
        result = evaluate(args, policy_file, deals)
        rewards = [e["r"] / args.reward_scale for e in model.ep_info_buffer or ()]
        model.save(model_file)
        eval_cpu += time.process_time() - t
        state.update(steps=steps, train_cpu_s=round(train_cpu(), 2), eval_cpu_s=round(eval_cpu0 + eval_cpu, 2))
        state_file.write_text(json.dumps(state, sort_keys=True) + "\n")
        record({"kind": "eval", "steps": steps, "train_cpu_s": state["train_cpu_s"],
                "eval_cpu_s": state["eval_cpu_s"], "wall_s": round(time.monotonic() - wall_start, 1),
                "train_points_per_hand": round(float(np.mean(rewards)), 4) if rewards else None, **result})

    if not resume:
        t = time.process_time()
        record({"kind": "reference", "bot": "random", **evaluate(args, out / "policy.npz", args.eval_deals,
                                                                  bot="random")})
        eval_cpu += time.process_time() - t
        checkpoint_and_evaluate(args.eval_deals)

    stop: Callable[[dict[str, Any], dict[str, Any]], bool] = lambda _l, _g: not out_of_budget()  # noqa: E731
    while not out_of_budget():
        before = model.num_timesteps
        chunk = args.eval_every - before % args.eval_every
        if args.steps:
            chunk = min(chunk, args.steps - before)
        model.learn(total_timesteps=chunk, reset_num_timesteps=False, callback=stop)
        if model.num_timesteps == before:
            break
        last = out_of_budget()
        checkpoint_and_evaluate(args.final_deals if last else args.eval_deals)
    curve = read_curve(curve_file)
    if not args.no_plot:
        plot(curve, out / "curve.png", f"MaskablePPO on {args.rules}")
    return curve


if __name__ == "__main__":
    main()
