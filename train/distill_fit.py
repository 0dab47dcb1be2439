"""Fit the learned bot's network to the search bot's rollout means (the shards of ``train/distill.py``).

    nice -n 19 python train/distill_fit.py train/out/luzhou/data --more --ensemble 3 --hidden 192 --dropout 0.3 \\
        --epochs 15 --patience 3 --margin 0 --seed 1   # writes train/out/luzhou/fit.npz (--out) and fit.jsonl

Step 2 of the pipeline in train/README.md (then ``train/margin.py`` picks the margin).  Needs torch (the
``train`` extra).

The network is the learned bot's (``daer.bots.learned``: encode_view + a one-hot of the heuristic choice → one
value per action index, in points) and learns each candidate's **advantage** over the heuristic choice: the
masked mean squared error, over the candidates of a decision, between its outputs and the candidate's mean
rollout points minus the heuristic choice's (0 for the heuristic choice itself).  ``--ce W`` adds W times the
cross-entropy of a softmax over the candidates against the search bot's choice (the best mean).

Samples are split by hand: hands with ``hand % 10 == 0`` are held out.  AdamW (``--wd``), the held-out loss
is computed after each epoch and the best epoch's weights are kept (early stopping, ``--patience``).  It
prints, per epoch, the held-out loss, the loss of predicting 0 everywhere (the heuristic bot), and for
margins 0, 0.25, 0.5 and 1 the held-out **gain**: the mean, over held-out decisions, of the chosen candidate's
rollout mean minus the heuristic choice's, where the bot plays the best candidate valued above the margin —
an unbiased estimate of what one decision gains against heuristic rollouts (the targets of held-out samples
are independent of the network), where the search bot's own gain, measured on the same noisy means it
chose by, is not.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from distill import OUT, load
from dmc import numpy_layers

from daer.bots.learned import FEATURES, PAIR_EXTRA, QNet, candidate_extra, offer_of
from daer.engine.encoding import N_ACTIONS, OBS_SIZE

SCALE = 4.0
"""Advantages are divided by this for the regression (the exported network gives points)."""
MARGINS = (0.0, 0.25, 0.5, 1.0)


def make_net(hidden: int, layers: int = 2) -> torch.nn.Sequential:
    """FEATURES → hidden (× ``layers``) → 212, ReLU."""
    mods: list[torch.nn.Module] = []
    width = FEATURES
    for _ in range(layers):
        mods += [torch.nn.Linear(width, hidden), torch.nn.ReLU()]
        width = hidden
    mods.append(torch.nn.Linear(width, 212))
    return torch.nn.Sequential(*mods)


def to_qnet(net: torch.nn.Sequential, meta: dict[str, Any]) -> QNet:
    """The numpy copy of ``net`` (outputs in points)."""
    return QNet(numpy_layers(net, SCALE), meta)


class PairNet(torch.nn.Module):
    """The "pair" form: (view, candidate numbers, action one-hot) → one value; the one-hot is an embedding."""

    def __init__(self, hidden: int, layers: int = 2, dropout: float = 0.0, more: int = 0) -> None:
        super().__init__()
        self.drop = torch.nn.Dropout(dropout)
        self.first = torch.nn.Linear(OBS_SIZE + PAIR_EXTRA + more, hidden)
        self.action = torch.nn.Embedding(N_ACTIONS, hidden)
        torch.nn.init.normal_(self.action.weight, std=0.01)
        mods: list[torch.nn.Module] = []
        for _ in range(layers - 1):
            mods += [torch.nn.Linear(hidden, hidden), torch.nn.ReLU(), torch.nn.Dropout(dropout)]
        mods.append(torch.nn.Linear(hidden, 1))
        self.rest = torch.nn.Sequential(*mods)

    def forward(self, obs: torch.Tensor, extra: torch.Tensor, act: torch.Tensor) -> torch.Tensor:
        h = self.drop(torch.relu(self.first(torch.cat([obs, extra], dim=1)) + self.action(act)))
        return self.rest(h)[:, 0]


def pair_qnet(net: PairNet, meta: dict[str, Any]) -> QNet:
    """The numpy copy of a :class:`PairNet` (input: view, candidate numbers, action one-hot; output in points)."""
    w0 = torch.cat([net.first.weight.T, net.action.weight], dim=0).detach().numpy().astype(np.float32).copy()
    layers = [(w0, net.first.bias.detach().numpy().astype(np.float32).copy()), *numpy_layers(net.rest, SCALE)]
    return QNet(layers, {**meta, "form": "pair"})


def pair_rows(d: dict[str, np.ndarray], more: bool = False, presets: int = 0) -> dict[str, np.ndarray]:
    """One row a candidate: its sample, candidate numbers (and with ``more`` its 听 numbers, the shards'
    ``more``; with ``presets`` a one-hot of its sample's preset, ``d["preset"]``, after them), action index, the
    row of its sample's heuristic choice, and its advantage (points)."""
    sample, extra, act, base, adv = [], [], [], [], []
    for i in range(len(d["hand"])):
        obs = d["obs"][i].astype(np.float32)
        hand = [round(float(v)) for v in obs[:20]]
        offer = offer_of(obs)
        first = len(act)
        for j, a in enumerate(d["cand"][i]):
            if a < 0:
                break
            sample.append(i)
            e = candidate_extra(hand, int(a), offer, first=j == 0)
            if more:
                e = np.concatenate([e, d["more"][i, j].astype(np.float32)])
            if presets:
                e = np.concatenate([e, np.eye(presets, dtype=np.float32)[int(d["preset"][i])]])
            extra.append(e)
            act.append(int(a))
            base.append(first)
            adv.append(float(d["mean"][i, j] - d["mean"][i, 0]))
    return {"sample": np.array(sample), "extra": np.array(extra, dtype=np.float32), "act": np.array(act),
            "base": np.array(base), "adv": np.array(adv, dtype=np.float32)}


def fit_pair(args: argparse.Namespace, d: dict[str, np.ndarray], held: np.ndarray) -> tuple[QNet, list[dict[str, Any]]]:
    """Train a :class:`PairNet` on f(candidate) − f(heuristic choice) ≈ advantage; early stopping on held out."""
    t0 = time.process_time()
    names = list(args.presets)
    rows = pair_rows(d, args.more, len(names))
    obs_all = torch.from_numpy(d["obs"].astype(np.float32))
    extra_all = torch.from_numpy(rows["extra"])
    act_all = torch.from_numpy(rows["act"].astype(np.int64))
    sample_all = torch.from_numpy(rows["sample"].astype(np.int64))
    print(f"{len(rows['act'])} candidate rows in {time.process_time() - t0:.0f} CPU s", flush=True)
    row_held = held[rows["sample"]]
    other = rows["base"] != np.arange(len(rows["base"]))
    tr = np.flatnonzero(other & ~row_held)
    ho_rows = np.flatnonzero(row_held)

    def f(net: PairNet, r: np.ndarray) -> torch.Tensor:
        rt = torch.from_numpy(r)
        return net(obs_all[sample_all[rt]], extra_all[rt], act_all[rt])

    # held-out decisions as padded (sample, candidate) tables for the gain
    ho_samples = np.flatnonzero(held)
    mean_ho = d["mean"][ho_samples]
    mask_ho = d["cand"][ho_samples] >= 0
    claim_ho = d["claim"][ho_samples]
    pos = np.full(len(d["hand"]), -1)
    pos[ho_samples] = np.arange(len(ho_samples))
    slot = np.arange(len(rows["base"])) - rows["base"]
    adv_t = torch.from_numpy(rows["adv"] / SCALE)
    ho_pairs = np.flatnonzero(other & row_held)
    zero = float((adv_t[torch.from_numpy(ho_pairs)] ** 2).mean())
    base_ho = np.searchsorted(ho_rows, rows["base"][ho_rows])
    other_ho = other[ho_rows]
    target_ho = rows["adv"][ho_rows][other_ho] / SCALE

    def heldout(v: np.ndarray) -> tuple[float, np.ndarray]:
        """Held-out MSE and predicted advantages [decision, candidate] from values of the held-out rows."""
        vb = v - v[base_ho]
        q = np.zeros(mean_ho.shape, dtype=np.float32)
        q[pos[rows["sample"][ho_rows]], slot[ho_rows]] = vb * SCALE
        return float(((vb[other_ho] - target_ho) ** 2).mean()), q

    log: list[dict[str, Any]] = []
    members: list[QNet] = []
    values: list[np.ndarray] = []
    for member in range(args.ensemble):
        torch.manual_seed(args.seed + member)
        net = PairNet(args.hidden, args.layers, args.dropout, (d["more"].shape[2] if args.more else 0) + len(names))
        opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=args.wd)
        rng = np.random.default_rng(args.seed + member)
        best: tuple[float, dict[str, Any], np.ndarray] | None = None
        bad = 0
        for epoch in range(1, args.epochs + 1):
            t0 = time.process_time()
            net.train()
            order = rng.permutation(tr)
            for i in range(0, len(order), args.batch):
                r = order[i : i + args.batch]
                pred = f(net, r) - f(net, rows["base"][r])
                loss = ((pred - adv_t[torch.from_numpy(r)]) ** 2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
            net.eval()
            with torch.no_grad():
                v = f(net, ho_rows).numpy()
            mse, q = heldout(v)
            log.append({"member": member, **report(epoch, mse, zero, q, mean=mean_ho, mask=mask_ho, claim=claim_ho,
                                                   cpu=time.process_time() - t0)})
            if best is None or mse < best[0]:
                best = (mse, {k: t.clone() for k, t in net.state_dict().items()}, v)
                bad = 0
            else:
                bad += 1
                if bad >= args.patience:
                    break
        assert best is not None
        net.load_state_dict(best[1])
        members.append(pair_qnet(net, {"presets": names} if names else {}))
        values.append(best[2])
    mse, q = heldout(np.mean(values, axis=0))
    if args.ensemble > 1:
        print("ensemble of", args.ensemble, flush=True)
        log.append({"member": "ensemble", **report(0, mse, zero, q, mean=mean_ho, mask=mask_ho, claim=claim_ho, cpu=0)})
    meta = {"rules": args.rules, "target": "advantage", "margin": args.margin, "width": 4, "method": "distill",
            "form": "pair", "more": int(d["more"].shape[2]) if args.more else 0, "hidden": args.hidden,
            "ensemble": args.ensemble, "samples": int((~held).sum()),
            "heldout_mse": mse, "zero_mse": zero, **({"presets": names} if names else {})}
    return merge(members, meta), log


def test_gain(net: QNet, t: dict[str, np.ndarray]) -> dict[str, Any]:
    """The exported network's gain a decision on other hands' samples (their means as the yardstick), all
    decisions and discards / claims apart, at each margin, with a 95% interval."""
    mask = t["cand"] >= 0
    q = np.zeros(t["mean"].shape, dtype=np.float32)
    for i in range(len(t["hand"])):
        cands = [int(a) for a in t["cand"][i][mask[i]]]
        more = t["more"][i, : len(cands)].astype(np.float32) if net.more else None
        v = net.candidate_values(t["obs"][i].astype(np.float32), cands, more)
        q[i, : len(cands)] = v - v[0]
    out: dict[str, Any] = {}
    for name, sel in (("all", np.ones(len(q), dtype=bool)), ("discard", t["claim"] == 0), ("claim", t["claim"] == 1)):
        qm = np.where(mask[sel], q[sel], -np.inf)
        qm[:, 0] = -np.inf
        j = qm.argmax(axis=1)
        top = qm[np.arange(len(qm)), j]
        for m in MARGINS:
            pick = np.where(top > m, j, 0)
            g = t["mean"][sel][np.arange(len(qm)), pick] - t["mean"][sel][:, 0]
            out[f"{name}:m{m}"] = (float(g.mean()), float(1.96 * g.std() / np.sqrt(len(g))), float((pick != 0).mean()))
    print("test gain/decision: " + "; ".join(f"{k} {v[0]:+.3f} ± {v[1]:.3f} ({100 * v[2]:.0f}%)"
                                             for k, v in out.items()), flush=True)
    return out


def merge(members: list[QNet], meta: dict[str, Any]) -> QNet:
    """One network computing the mean of several of the same shape: their hidden units side by side
    (block-diagonal weights between hidden layers), the outputs averaged."""
    if len(members) == 1:
        return QNet(members[0].layers, meta)
    layers = []
    n = len(members[0].layers)
    for i in range(n):
        ws = [m.layers[i][0] for m in members]
        bs = [m.layers[i][1] for m in members]
        if i == 0:
            w = np.concatenate(ws, axis=1)
            b = np.concatenate(bs)
        elif i < n - 1:
            w = np.zeros((sum(x.shape[0] for x in ws), sum(x.shape[1] for x in ws)), dtype=np.float32)
            r = c = 0
            for x in ws:
                w[r : r + x.shape[0], c : c + x.shape[1]] = x
                r, c = r + x.shape[0], c + x.shape[1]
            b = np.concatenate(bs)
        else:
            w = np.concatenate(ws, axis=0) / len(members)
            b = np.mean(bs, axis=0)
        layers.append((w.astype(np.float32), b.astype(np.float32)))
    return QNet(layers, meta)


def report(epoch: int, mse: float, zero: float, q: np.ndarray, *, mean: np.ndarray, mask: np.ndarray,
           claim: np.ndarray, cpu: float) -> dict[str, Any]:
    """Print and return one epoch's held-out figures (``q``: predicted advantages, [decision, candidate])."""
    g = gains(q, mean, mask)
    by_kind = {name: gains(q[claim == c], mean[claim == c], mask[claim == c])
               for name, c in (("discard", 0), ("claim", 1)) if (claim == c).any()}
    print(f"epoch {epoch}: held-out mse {mse:.4f} (zero {zero:.4f}); gain/decision "
          + ", ".join(f"m{m}: {v[0]:+.3f} ({100 * v[1]:.0f}%)" for m, v in g.items()) + f"; {cpu:.0f} CPU s",
          flush=True)
    print("    " + "; ".join(f"{k}: " + ", ".join(f"m{m}: {v[0]:+.3f} ({100 * v[1]:.0f}%)" for m, v in gk.items())
                             for k, gk in by_kind.items()), flush=True)
    return {"epoch": epoch, "heldout_mse": mse, "zero_mse": zero, "cpu_s": cpu,
            "gain": {str(m): v for m, v in g.items()},
            **{f"gain_{k}": {str(m): v for m, v in gk.items()} for k, gk in by_kind.items()}}


def tensors(d: dict[str, np.ndarray], rows: np.ndarray) -> tuple[torch.Tensor, ...]:
    """Inputs, candidate indices (−1 → 0, masked), mask, advantages (÷ SCALE), search choice."""
    n = len(rows)
    x = np.zeros((n, FEATURES), dtype=np.float32)
    x[:, :OBS_SIZE] = d["obs"][rows]
    x[np.arange(n), OBS_SIZE + d["heur"][rows].astype(np.int64)] = 1.0
    cand = d["cand"][rows].astype(np.int64)
    mask = cand >= 0
    adv = (d["mean"][rows] - d["mean"][rows, :1]) * mask
    best = np.where(mask, d["mean"][rows], -np.inf).argmax(axis=1)
    return (torch.from_numpy(x), torch.from_numpy(np.maximum(cand, 0)), torch.from_numpy(mask.astype(np.float32)),
            torch.from_numpy((adv / SCALE).astype(np.float32)), torch.from_numpy(best))


def losses(net: torch.nn.Module, batch: tuple[torch.Tensor, ...], ce: float) -> tuple[torch.Tensor, torch.Tensor]:
    """(training loss, masked MSE) of a batch."""
    x, cand, mask, adv, best = batch
    q = net(x).gather(1, cand)
    mse = (((q - adv) ** 2) * mask).sum() / mask.sum()
    if ce <= 0:
        return mse, mse
    logits = q * SCALE - (1 - mask) * 1e9
    return mse + ce * torch.nn.functional.cross_entropy(logits, best), mse


def gains(q: np.ndarray, mean: np.ndarray, mask: np.ndarray) -> dict[float, tuple[float, float]]:
    """For each margin: (mean gain a decision over the heuristic choice, share of decisions changed)."""
    out = {}
    qm = np.where(mask, q, -np.inf)
    qm[:, 0] = -np.inf
    j = qm.argmax(axis=1)
    top = qm[np.arange(len(q)), j]
    for m in MARGINS:
        pick = np.where(top > m, j, 0)
        g = mean[np.arange(len(q)), pick] - mean[:, 0]
        out[m] = (float(g.mean()), float((pick != 0).mean()))
    return out


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("data", nargs="+", type=Path, help="directories of shards")
    p.add_argument("--out", type=Path, default=None, help="the weights to write (default: train/out/RULES/fit.npz)")
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--patience", type=int, default=5)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--wd", type=float, default=0.01)
    p.add_argument("--ce", type=float, default=0.0, help="(actions form) weight of the cross-entropy")
    p.add_argument("--dropout", type=float, default=0.0, help="(pair form) dropout after each hidden layer")
    p.add_argument("--ensemble", type=int, default=1, help="(pair form) networks averaged, merged into one")
    p.add_argument("--margin", type=float, default=0.5, help="written in the weights (train/margin.py picks one)")
    p.add_argument("--form", choices=("pair", "actions"), default="pair",
                   help="pair: one value a candidate from its own numbers; actions: one output per action index")
    p.add_argument("--max-samples", type=int, default=None, help="use only the first N samples (a data curve)")
    p.add_argument("--more", action="store_true",
                   help="(pair form) also read the candidates' 听 numbers (shards with more: distill.py --more, "
                        "or distill_more.py)")
    p.add_argument("--test", type=Path, default=None,
                   help="shards of other hands (e.g. 48 worlds a decision) to measure the fitted network's gain on")
    p.add_argument("--rules", default="luzhou", help="the preset the data was made for (written in the weights)")
    p.add_argument("--told", action="store_true",
                   help="(pair form) one network for the presets of all the data given, told the preset: a one-hot "
                        "of each sample's preset (its data's config.json) is an input (daer.bots.learned.told)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args(argv)
    if args.out is None:
        args.out = OUT / args.rules / "fit.npz"
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    parts = [load(d) for d in args.data]
    args.presets = []
    if args.told:
        if args.form != "pair" or args.test is not None:
            raise SystemExit("--told fits the pair form, without --test")
        of = [json.loads((Path(d) / "config.json").read_text())["rules"] for d in args.data]
        args.presets = sorted(set(of))
        for part, name in zip(parts, of, strict=True):
            part["preset"] = np.full(len(part["hand"]), args.presets.index(name))
        args.rules = ",".join(args.presets)
    d = {k: np.concatenate([q[k] for q in parts]) for k in parts[0]}
    if args.max_samples is not None:
        d = {k: v[: args.max_samples] for k, v in d.items()}
    held = d["hand"] % 10 == 0
    tr, ho = np.flatnonzero(~held), np.flatnonzero(held)
    print(f"{len(d['hand'])} samples ({len(tr)} train, {len(ho)} held out), "
          f"{len(np.unique(d['hand']))} hands", flush=True)
    if args.form == "pair":
        qnet, log = fit_pair(args, d, held)
        if args.test is not None:
            log.append({"test": test_gain(qnet, load(args.test))})
        save(args.out, qnet, log)
        return log
    ho_t = tensors(d, ho)
    mask_ho = d["cand"][ho] >= 0
    mean_ho = d["mean"][ho]
    claim_ho = d["claim"][ho]
    zero = float(((ho_t[3] ** 2) * ho_t[2]).sum() / ho_t[2].sum())
    net = make_net(args.hidden, args.layers)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=args.wd)
    rng = np.random.default_rng(args.seed)
    best: tuple[float, dict[str, Any]] | None = None
    bad = 0
    log: list[dict[str, Any]] = []
    for epoch in range(1, args.epochs + 1):
        t0 = time.process_time()
        net.train()
        order = rng.permutation(tr)
        for i in range(0, len(order), args.batch * 16):
            chunk = tensors(d, order[i : i + args.batch * 16])
            for j in range(0, len(chunk[0]), args.batch):
                loss, _ = losses(net, tuple(t[j : j + args.batch] for t in chunk), args.ce)
                opt.zero_grad()
                loss.backward()
                opt.step()
        net.eval()
        with torch.no_grad():
            _, mse = losses(net, ho_t, 0.0)
            q = net(ho_t[0]).gather(1, ho_t[1]).numpy() * SCALE
        g = gains(q, mean_ho, mask_ho)
        by_kind = {name: gains(q[claim_ho == c], mean_ho[claim_ho == c], mask_ho[claim_ho == c])
                   for name, c in (("discard", 0), ("claim", 1)) if (claim_ho == c).any()}
        row = {"epoch": epoch, "heldout_mse": float(mse), "zero_mse": zero, "cpu_s": time.process_time() - t0,
               "gain": {str(m): v for m, v in g.items()},
               **{f"gain_{k}": {str(m): v for m, v in gk.items()} for k, gk in by_kind.items()}}
        log.append(row)
        print(f"epoch {epoch}: held-out mse {float(mse):.4f} (zero {zero:.4f}); gain/decision "
              + ", ".join(f"m{m}: {v[0]:+.3f} ({100 * v[1]:.0f}%)" for m, v in g.items())
              + f"; {row['cpu_s']:.0f} CPU s", flush=True)
        print("    " + "; ".join(f"{k}: " + ", ".join(f"m{m}: {v[0]:+.3f} ({100 * v[1]:.0f}%)" for m, v in gk.items())
                                 for k, gk in by_kind.items()), flush=True)
        if best is None or float(mse) < best[0]:
            best = (float(mse), {k: v.clone() for k, v in net.state_dict().items()})
            bad = 0
        else:
            bad += 1
            if bad >= args.patience:
                break
    assert best is not None
    net.load_state_dict(best[1])
    meta = {"rules": args.rules, "target": "advantage", "margin": args.margin, "width": 4, "method": "distill",
            "hidden": args.hidden, "samples": len(tr), "heldout_mse": best[0], "zero_mse": zero}
    save(args.out, to_qnet(net, meta), log)
    return log


def save(out: Path, net: QNet, log: list[dict[str, Any]]) -> None:
    """Write the weights and the epochs' figures beside them (``.jsonl``)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    net.save(out)
    out.with_suffix(".jsonl").write_text("".join(json.dumps(r) + "\n" for r in log))
    print(f"wrote {out} (best held-out mse {net.meta['heldout_mse']:.4f})")


if __name__ == "__main__":
    main()
