"""SUPERSEDED — not used to build the shipped networks: the first way of training the learned bot (2026-11-30).

    pip install -e '.[train]'          # PyTorch CPU and matplotlib
    nice -n 19 python train/dmc.py --rules luzhou --minutes 100 --seed 1 --eval-minutes 8 --eval-deals 400 \
        --plot train/out/dmc/luzhou/curve.png     # writes train/out/dmc/luzhou (--run); --resume continues

Kept as the record of what did not work (docs/bots.md, "Earlier training": its networks stayed at or below the
heuristic bot) and because ``train/distill_fit.py`` uses its ``numpy_layers``; the shipped networks are distilled
from the search bot instead (train/README.md).  Its "actions" network form is still read by
``daer.bots.learned.QNet``.

Two targets for one network (features of ``daer.bots.learned``, one output per action index):

- ``--target advantage`` (the default; what shipped on 2026-11-30): the heuristic bot plays every seat (ε-greedy); at a
  share ``--fork`` of the decisions, every candidate of ``daer.bots.learned.candidates`` (the search bot's:
  the heuristic choice, the ``--width`` weakest discards, or every claim option) is played from the true
  state — the same deck, so the comparison has common random numbers — and the heuristic bot plays the
  hand out; the network regresses each candidate's points minus those of the heuristic choice.  Playing
  the best candidate is one policy-improvement step over the heuristic bot, as the search bot takes with
  its rollouts at every decision, amortised into the network (and the true deal is an exact sample of
  the hidden cards, where the search bot's worlds are approximations).
- ``--target return``: deep Monte Carlo as in DouZero — Q(s, a) regressed on the points the acting seat
  has at the end of the hand, ε-greedy over the heuristic choice, then (``--selfplay-after`` hands) over
  the network's own choice at every seat.

Every ``--eval-minutes`` minutes it exports the weights (numpy, float16), plays ``--eval-deals`` fixed
duplicate deals against the heuristic bot (the arena's own ``play_deal``: the same deals each time, so the
points of the curve are paired) and appends the result to ``curve.jsonl``; writes ``checkpoint.pt``
(model, optimiser, counters, random states: ``--resume`` continues from it) with ``buffer.npz`` (the
replay buffer), the plot (``--plot``), and ``best.npz`` (the best evaluated weights).  Seeded: deal ``h`` is
``f"train:{seed}:{h}"``, every random choice comes from ``--seed``.  One thread (torch.set_num_threads(1)):
it is meant to run niced, on one core.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from distill import OUT  # train/distill.py (the script's own directory is on sys.path)

from daer.bots.arena import Series, lineups, play_deal
from daer.bots.heuristic import HeuristicBot
from daer.bots.learned import FEATURES, QNet, candidates
from daer.engine.actions import Action, Hu
from daer.engine.encoding import N_ACTIONS, OBS_SIZE, encode_action, encode_view, legal_indices, offer_kind
from daer.engine.record import new_hand
from daer.rules import resolve_rules
from daer.rules.model import Ruleset

SCALE = 10.0
"""Points are divided by this for the regression (the exported network gives points)."""


class Net(torch.nn.Module):
    """The Q network: FEATURES → hidden → hidden → N_ACTIONS, ReLU."""

    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.body = torch.nn.Sequential(
            torch.nn.Linear(FEATURES, hidden), torch.nn.ReLU(),
            torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
            torch.nn.Linear(hidden, N_ACTIONS),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)


def numpy_layers(modules: Iterable[torch.nn.Module], scale: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """The Linear layers among ``modules`` as float32 (weights, bias) for numpy, the last one's outputs times
    ``scale`` (the network is trained on points / scale; the numpy copy answers in points)."""
    linears = [m for m in modules if isinstance(m, torch.nn.Linear)]
    layers = []
    for i, m in enumerate(linears):
        w = m.weight.detach().numpy().T.astype(np.float32).copy()
        b = m.bias.detach().numpy().astype(np.float32).copy()
        if i == len(linears) - 1:
            w, b = w * scale, b * scale
        layers.append((w, b))
    return layers


def to_qnet(net: Net, meta: dict[str, Any]) -> QNet:
    """The numpy copy of ``net`` (outputs in points)."""
    return QNet(numpy_layers(net.body, SCALE), meta)


class Buffer:
    """The most recent samples: observation (float16), heuristic choice, action taken, return."""

    def __init__(self, capacity: int) -> None:
        self.obs = np.zeros((capacity, OBS_SIZE), dtype=np.float16)
        self.heur = np.zeros(capacity, dtype=np.int16)
        self.act = np.zeros(capacity, dtype=np.int16)
        self.ret = np.zeros(capacity, dtype=np.float32)
        self.capacity, self.size, self.pos = capacity, 0, 0

    def add(self, obs: np.ndarray, heur: int, act: int, ret: float) -> None:
        i = self.pos
        self.obs[i], self.heur[i], self.act[i], self.ret[i] = obs, heur, act, ret
        self.pos = (i + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)

    def save(self, path: Path) -> None:
        """Write the samples held (the checkpoint's companion: ``--resume`` reloads them)."""
        n = self.size
        np.savez(path, obs=self.obs[:n], heur=self.heur[:n], act=self.act[:n], ret=self.ret[:n],
                 pos=np.array(self.pos))

    def load(self, path: Path) -> None:
        """Read samples written by :meth:`save` (the most recent ones, if they do not all fit)."""
        with np.load(path) as z:
            n = min(len(z["ret"]), self.capacity)
            pos = int(z["pos"])
            order = np.r_[pos:len(z["ret"]), 0:pos] if len(z["ret"]) == self.capacity else np.arange(len(z["ret"]))
            order = order[-n:]
            self.obs[:n], self.heur[:n], self.act[:n], self.ret[:n] = (z["obs"][order], z["heur"][order],
                                                                       z["act"][order], z["ret"][order])
        self.size, self.pos = n, n % self.capacity

    def batch(self, rng: np.random.Generator, n: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        idx = rng.integers(0, self.size, size=n)
        x = np.zeros((n, FEATURES), dtype=np.float32)
        x[:, :OBS_SIZE] = self.obs[idx]
        x[np.arange(n), OBS_SIZE + self.heur[idx].astype(np.int64)] = 1.0
        return (torch.from_numpy(x), torch.from_numpy(self.act[idx].astype(np.int64)),
                torch.from_numpy(self.ret[idx] / SCALE))


def play_hand(rules: Ruleset, seed: str, dealer: int, policy: HeuristicBot, qnet: QNet | None, *, eps: float,
              rng: random.Random, buf: Buffer) -> int:
    """One hand of ε-greedy play at every seat; its decisions go to ``buf``.  Returns the samples added."""
    state = new_hand(rules, seed=seed, dealer=dealer)
    taken: list[tuple[np.ndarray, int, int, int]] = []
    while not state.over:
        seat = state.to_act()[0]
        view = state.view(seat, log=False)
        legal = view.legal
        if len(legal) == 1 or any(isinstance(a, Hu) for a in legal):
            state.apply(next((a for a in legal if isinstance(a, Hu)), legal[0]))
            continue
        obs = encode_view(view)
        idx = legal_indices(view)
        h = encode_action(policy.choose(view), offer_kind(view))
        if rng.random() < eps:
            pos = rng.randrange(len(legal))
        elif qnet is None:
            pos = idx.index(h)
        else:
            x = np.zeros(FEATURES, dtype=np.float32)
            x[:OBS_SIZE] = obs
            x[OBS_SIZE + h] = 1.0
            pos = int(np.argmax(qnet.values(x)[idx]))
        taken.append((obs, h, idx[pos], seat))
        state.apply(legal[pos])
    assert state.result is not None
    for obs, h, a, seat in taken:
        buf.add(obs, h, a, float(state.result.points[seat]))
    return len(taken)


def rollout(rules: Ruleset, seed: str, dealer: int, prefix: list[Action], action: Action, *, policy: HeuristicBot,
            seat: int) -> int:
    """Points of ``seat`` when the hand replayed to ``prefix`` goes on with ``action``, then the heuristic bot."""
    state = new_hand(rules, seed=seed, dealer=dealer)
    for a in prefix:
        state.apply(a)
    state.apply(action)
    while not state.over:
        s = state.to_act()[0]
        state.apply(policy.choose(state.view(s, log=False)))
    assert state.result is not None
    return state.result.points[seat]


def play_hand_advantage(rules: Ruleset, seed: str, dealer: int, policy: HeuristicBot, *, eps: float, fork: float,
                        width: int, rng: random.Random, buf: Buffer) -> int:
    """One hand of ε-greedy heuristic play; at a fraction ``fork`` of its decisions, each candidate is rolled
    out from the true state (same deck: common random numbers) and its points minus the heuristic choice's go
    to ``buf``.  Returns the samples added."""
    state = new_hand(rules, seed=seed, dealer=dealer)
    added = 0
    while not state.over:
        seat = state.to_act()[0]
        view = state.view(seat, log=False)
        legal = view.legal
        if len(legal) == 1 or any(isinstance(a, Hu) for a in legal):
            state.apply(next((a for a in legal if isinstance(a, Hu)), legal[0]))
            continue
        cands = candidates(view, policy, width)
        if len(cands) > 1 and rng.random() < fork:
            idx = legal_indices(view)
            obs = encode_view(view)
            prefix = list(state.actions)
            base = rollout(rules, seed, dealer, prefix, legal[cands[0]], policy=policy, seat=seat)
            for i in cands[1:]:
                g = rollout(rules, seed, dealer, prefix, legal[i], policy=policy, seat=seat)
                buf.add(obs, idx[cands[0]], idx[i], float(g - base))
                added += 1
        pos = rng.randrange(len(legal)) if rng.random() < eps else cands[0]
        state.apply(legal[pos])
    return added


def evaluate(rules: Ruleset, weights: Path, deals: int) -> tuple[float, float]:
    """Learned − heuristic, points a hand, over ``deals`` fixed duplicate deals (mean, 95% CI)."""
    names = (f"learned:{weights}", "heuristic")
    lus = lineups(list(names), rules.table.players)
    s = Series()
    for d in range(deals):
        r = play_deal(rules, names, lus, "eval", d)
        s.add(r.per_hand[0] - r.per_hand[1])
    return s.mean, s.ci95


def plot_curves(out: Path, curves: dict[str, list[dict[str, Any]]], title: str) -> None:
    """Learned − heuristic with its 95% CI against CPU minutes of training, one line per run."""
    import matplotlib  # noqa: PLC0415 (the train extra; imported only to plot)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=100)
    for label, curve in curves.items():
        xs = cpu_minutes(curve)
        ax.errorbar(xs, [c["diff"] for c in curve], yerr=[c["ci95"] for c in curve], marker="o", ms=3,
                    capsize=2, lw=1.2, label=label)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("CPU minutes of training (one niced thread; evaluation included)")
    ax.set_ylabel("learned − heuristic\npoints / hand (95% CI)")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    if len(curves) > 1:
        ax.legend(fontsize=8)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    plt.close(fig)


def cpu_minutes(curve: list[dict[str, Any]]) -> list[float]:
    """Cumulative CPU minutes at each point (a resumed run's process starts its count at 0 again)."""
    out, offset, last = [], 0.0, 0.0
    for c in curve:
        if c["cpu_seconds"] < last:
            offset += last
        last = c["cpu_seconds"]
        out.append((offset + last) / 60)
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rules", default="luzhou")
    p.add_argument("--run", type=Path, default=None,
                   help="directory for checkpoints and logs (default: train/out/dmc/RULES)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--minutes", type=float, default=60.0, help="stop after this much training (wall time)")
    p.add_argument("--max-hands", type=int, default=0, help="stop after this many hands (0: no limit)")
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--reuse", type=float, default=6.0, help="times each sample is trained on, on average")
    p.add_argument("--buffer", type=int, default=300_000)
    p.add_argument("--eps", type=float, default=0.05)
    p.add_argument("--target", choices=("return", "advantage"), default="advantage",
                   help="return: Q regressed on the hand's points (DMC); advantage: candidates rolled out")
    p.add_argument("--fork", type=float, default=0.5, help="advantage: share of decisions rolled out")
    p.add_argument("--width", type=int, default=4, help="advantage: discards weighed besides the heuristic's")
    p.add_argument("--margin", type=float, default=0.0, help="advantage: points a candidate must gain to be played")
    p.add_argument("--selfplay-after", type=int, default=0, help="hands of heuristic play before self-play (0: never)")
    p.add_argument("--eval-minutes", type=float, default=5.0)
    p.add_argument("--eval-deals", type=int, default=300)
    p.add_argument("--plot", type=Path, default=None)
    p.add_argument("--resume", action="store_true")
    args = p.parse_args(argv)

    torch.set_num_threads(1)
    rules = resolve_rules(args.rules)
    run: Path = args.run if args.run is not None else OUT / "dmc" / args.rules
    run.mkdir(parents=True, exist_ok=True)
    net = Net(args.hidden)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    rng = random.Random(args.seed)
    nrng = np.random.default_rng(args.seed)
    torch.manual_seed(args.seed)
    st: dict[str, Any] = {"hands": 0, "samples": 0, "steps": 0, "minutes": 0.0, "curve": [], "best": -math.inf}
    ckpt = run / "checkpoint.pt"
    if args.resume and ckpt.exists():
        saved = torch.load(ckpt, weights_only=False)
        net.load_state_dict(saved["model"])
        opt.load_state_dict(saved["optim"])
        st = saved["state"]
        rng.setstate(saved["rng"])
        nrng.bit_generator.state = saved["nrng"]
        torch.set_rng_state(saved["torch_rng"])
    buf = Buffer(args.buffer)
    if args.resume and (run / "buffer.npz").exists():
        buf.load(run / "buffer.npz")
    policy = HeuristicBot(rules)
    meta = {"rules": rules.name, "hidden": args.hidden, "seed": args.seed, "target": args.target}
    if args.target == "advantage":
        meta |= {"width": args.width, "margin": args.margin}

    def export(path: Path) -> QNet:
        q = to_qnet(net, {**meta, "hands": st["hands"], "steps": st["steps"]})
        q.save(path)
        return q

    qnet = export(run / "latest.npz") if args.selfplay_after and st["hands"] >= args.selfplay_after else None
    last_eval = st["minutes"]
    started = time.perf_counter() - st["minutes"] * 60
    pending = 0.0
    log = (run / "train.log").open("a")

    def checkpoint() -> None:
        latest = run / "latest.npz"
        export(latest)
        diff, ci = evaluate(rules, latest, args.eval_deals)
        point = {"minutes": round(st["minutes"], 2), "hands": st["hands"], "samples": st["samples"],
                 "steps": st["steps"], "diff": round(diff, 4), "ci95": round(ci, 4),
                 "selfplay": bool(args.selfplay_after and st["hands"] >= args.selfplay_after),
                 "cpu_seconds": round(time.process_time(), 1)}
        if point["selfplay"] and not any(c["selfplay"] for c in st["curve"]):
            point["phase_start"] = True
        st["curve"].append(point)
        if diff > st["best"]:
            st["best"] = diff
            shutil.copyfile(latest, run / "best.npz")
        with (run / "curve.jsonl").open("a") as f:
            f.write(json.dumps(point) + "\n")
        print(json.dumps(point), file=log, flush=True)
        torch.save({"model": net.state_dict(), "optim": opt.state_dict(), "state": st, "rng": rng.getstate(),
                    "nrng": nrng.bit_generator.state, "torch_rng": torch.get_rng_state(), "args": vars(args)},
                   ckpt)
        buf.save(run / "buffer.npz")
        if args.plot is not None:
            plot_curves(args.plot, {args.target: st["curve"]},
                        f"{rules.name}: learned − heuristic, {args.eval_deals} fixed duplicate deals")

    while True:
        st["minutes"] = (time.perf_counter() - started) / 60
        if st["minutes"] >= args.minutes or (args.max_hands and st["hands"] >= args.max_hands):
            break
        for _ in range(8):
            h = st["hands"]
            if args.target == "advantage":
                added = play_hand_advantage(rules, f"train:{args.seed}:{h}", h % rules.table.seats, policy,
                                            eps=args.eps, fork=args.fork, width=args.width, rng=rng, buf=buf)
            else:
                added = play_hand(rules, f"train:{args.seed}:{h}", h % rules.table.seats, policy, qnet, eps=args.eps,
                                  rng=rng, buf=buf)
            st["hands"] += 1
            st["samples"] += added
            pending += added * args.reuse / args.batch
            if args.selfplay_after and st["hands"] == args.selfplay_after:
                qnet = export(run / "latest.npz")
        while pending >= 1 and buf.size >= args.batch:
            x, a, g = buf.batch(nrng, args.batch)
            q = net(x).gather(1, a[:, None]).squeeze(1)
            loss = torch.nn.functional.mse_loss(q, g)
            opt.zero_grad()
            loss.backward()
            opt.step()
            st["steps"] += 1
            pending -= 1
            if st["steps"] % 500 == 0:
                print(json.dumps({"steps": st["steps"], "hands": st["hands"], "loss": round(loss.item(), 4),
                                  "minutes": round(st["minutes"], 2)}), file=log, flush=True)
                if qnet is not None:
                    qnet = export(run / "latest.npz")
        if st["minutes"] - last_eval >= args.eval_minutes:
            last_eval = st["minutes"]
            checkpoint()
    checkpoint()
    log.close()
    return st


if __name__ == "__main__":
    main()
