"""Fit an advantage network offline on the samples a training run saved (``buffer.npz``), with a held-out set.

    python train/fit.py train/runs/luzhou/buffer.npz --out train/runs/luzhou/fit.npz --hidden 64 --epochs 30

The last ``--holdout`` share of the samples (the most recent hands: samples of one hand are correlated, so
the split is by position, not at random) is held out; the weights of the epoch with the lowest held-out
error are written, with the ``meta`` of an advantage network (see ``train/dmc.py``).  Then choose the
margin with ``train/margin.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from dmc import SCALE, Net, to_qnet

from daer.bots.learned import FEATURES
from daer.engine.encoding import OBS_SIZE


def inputs(obs: np.ndarray, heur: np.ndarray) -> torch.Tensor:
    x = np.zeros((len(obs), FEATURES), dtype=np.float32)
    x[:, :OBS_SIZE] = obs
    x[np.arange(len(obs)), OBS_SIZE + heur.astype(np.int64)] = 1.0
    return torch.from_numpy(x)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("buffer", type=Path)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--rules", default="luzhou")
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--wd", type=float, default=1e-4, help="weight decay (AdamW)")
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--holdout", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    with np.load(args.buffer) as z:
        n = len(z["ret"])
        pos = int(z["pos"])
        order = np.r_[pos:n, 0:pos] if pos and n > pos else np.arange(n)  # oldest first
        obs, heur, act, ret = (z[k][order] for k in ("obs", "heur", "act", "ret"))
    cut = int(n * (1 - args.holdout))
    x_tr, x_te = inputs(obs[:cut], heur[:cut]), inputs(obs[cut:], heur[cut:])
    a_tr, a_te = (torch.from_numpy(act[s].astype(np.int64)) for s in (slice(0, cut), slice(cut, n)))
    g_tr, g_te = (torch.from_numpy(ret[s] / SCALE) for s in (slice(0, cut), slice(cut, n)))
    net = Net(args.hidden)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=args.wd)
    base = float(torch.mean(g_te**2))
    best = (float("inf"), -1)
    for epoch in range(args.epochs):
        perm = torch.randperm(cut)
        net.train()
        for i in range(0, cut, args.batch):
            b = perm[i:i + args.batch]
            q = net(x_tr[b]).gather(1, a_tr[b][:, None]).squeeze(1)
            loss = torch.nn.functional.mse_loss(q, g_tr[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            q = net(x_te).gather(1, a_te[:, None]).squeeze(1)
            mse = float(torch.mean((q - g_te) ** 2))
            corr = float(np.corrcoef(q.numpy(), g_te.numpy())[0, 1])
        print(json.dumps({"epoch": epoch, "heldout_mse": round(mse, 5), "zero_mse": round(base, 5),
                          "corr": round(corr, 4)}), flush=True)
        if mse < best[0]:
            best = (mse, epoch)
            to_qnet(net, {"rules": args.rules, "hidden": args.hidden, "seed": args.seed, "target": "advantage",
                          "width": 4, "margin": 0.0, "samples": n, "fit_epoch": epoch}).save(args.out)
    print(f"best epoch {best[1]} (held-out MSE {best[0]:.5f}, predicting 0: {base:.5f}) → {args.out}")


if __name__ == "__main__":
    main()
