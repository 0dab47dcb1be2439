"""The learned bot (学习机器人): a small network valuing the candidate actions, in numpy, from a seat's view.

The network is a multilayer perceptron in one of two forms (docs/bots.md):

- **pair** (the shipped 泸州 weights, distilled from the search bot by ``train/distill.py`` and
  ``train/distill_fit.py``): one value per candidate from :data:`PAIR_FEATURES` numbers — the observation of
  :func:`daer.engine.encoding.encode_view`, the candidate's own numbers (:func:`candidate_extra`: the hand after
  it, its orphans, "is the heuristic choice") and a one-hot of its action index (:func:`candidate_rows`);
  the values are advantages over the heuristic choice in points.
- **actions** (``train/dmc.py``): one value per action index from :data:`FEATURES` numbers — the
  observation followed by a one-hot of the heuristic bot's choice (:func:`features`).

The candidates are the search bot's (:func:`candidates`); the bot plays the best one valued above the
heuristic choice by more than ``meta["margin"]``.  Nothing but the view is read.

Two rules are not learned: a 胡 is always taken (as by the heuristic and search bots), and a
decision with one legal action is not computed.  The weights ship in the package
(``daer/bots/weights/<preset>.npz``, float16); a ruleset without weights of its own uses the
泸州 weights (the encodings are the same for every preset).  Playing needs numpy only.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from daer.bots.base import obvious
from daer.bots.features import MORE, candidate_more
from daer.bots.heuristic import HeuristicBot, connections
from daer.cards import N_KINDS, is_big, number_of
from daer.engine.actions import Action, Bao, Discard
from daer.engine.claims import CHI_PAIRS, orphans
from daer.engine.encoding import _BI_COMBOS as BI_GROUPS
from daer.engine.encoding import (
    BI_COMBOS,
    CHI_BASE,
    N_ACTIONS,
    OBS_SIZE,
    PENG,
    SEATS,
    ZHAO,
    encode_action,
    encode_view,
    legal_indices,
    offer_kind,
)
from daer.engine.views import View
from daer.rules import find_rules
from daer.rules.model import Ruleset

WEIGHTS_DIR = Path(__file__).with_name("weights")
"""Where the shipped weights live, one ``<preset>.npz`` each."""
DEFAULT_WEIGHTS = "luzhou"
"""The preset whose weights a ruleset without its own uses."""
FEATURES = OBS_SIZE + N_ACTIONS
"""Length of the network's input (498)."""

PAIR_EXTRA = 2 * N_KINDS + 6
"""Numbers a candidate adds to the view's (the "pair" form): the hand after it, that hand's orphans, counts
of its kinds held once, twice, three and four times, its number of orphans, and "is the heuristic choice"."""
PAIR_FEATURES = OBS_SIZE + PAIR_EXTRA + N_ACTIONS
"""Length of one candidate's input in the "pair" form (544): view, candidate numbers, action one-hot."""
MORE_FEATURES = PAIR_FEATURES + MORE
"""Length of one candidate's input in the "pair" form with the 听 numbers (562): view, candidate numbers,
:func:`daer.bots.features.candidate_more`, action one-hot."""
_OFFER = 2 * N_KINDS + SEATS * (2 * N_KINDS + 4)
"""Where the kind on offer starts in an observation vector."""

Array = npt.NDArray[np.float32]


def features(view: View, policy: HeuristicBot) -> tuple[Array, list[int]]:
    """The network input for ``view`` and the action indices of ``view.legal`` (same order)."""
    x = np.zeros(FEATURES, dtype=np.float32)
    x[:OBS_SIZE] = encode_view(view)
    x[OBS_SIZE + heuristic_index(view, policy)] = 1.0
    return x, legal_indices(view)


def heuristic_index(view: View, policy: HeuristicBot) -> int:
    """Action index of the heuristic bot's choice for ``view``."""
    return encode_action(policy.choose(view), offer_kind(view))


def after_hand(hand: list[int], index: int, offer: int | None) -> list[int]:
    """Counts per kind of the concealed hand after the action of ``index`` (kinds removed, clipped at 0)."""
    out = list(hand)

    def take(k: int, n: int = 1) -> None:
        out[k] = max(0, out[k] - n)

    if index < N_KINDS:
        take(index)
    elif index >= N_ACTIONS - N_KINDS:  # 报牌 and 打
        take(index - (N_ACTIONS - N_KINDS))
    elif offer is not None and index == PENG:
        take(offer, 2)
    elif offer is not None and index == ZHAO:
        take(offer, 3)
    elif offer is not None and CHI_BASE <= index < N_ACTIONS - N_KINDS:
        p, b = divmod(index - CHI_BASE, BI_COMBOS)
        pairs = CHI_PAIRS[offer]
        for k in pairs[p][0] if p < len(pairs) else ():
            take(k)
        for q in BI_GROUPS[b]:
            if q < len(pairs):
                take(offer)
                for k in pairs[q][0]:
                    take(k)
    return out


def candidate_rows(obs: Array, cands: list[int]) -> Array:
    """The "pair" form's input, one row a candidate (action indices, the heuristic choice first)."""
    hand = [round(float(v)) for v in obs[:N_KINDS]]
    offer = offer_of(obs)
    rows = np.zeros((len(cands), PAIR_FEATURES), dtype=np.float32)
    rows[:, :OBS_SIZE] = obs
    for r, a in enumerate(cands):
        rows[r, OBS_SIZE : OBS_SIZE + PAIR_EXTRA] = candidate_extra(hand, a, offer, first=r == 0)
        rows[r, OBS_SIZE + PAIR_EXTRA + a] = 1.0
    return rows


def offer_of(obs: Array) -> int | None:
    """The kind on offer in an observation vector."""
    shown = obs[_OFFER : _OFFER + N_KINDS]
    return int(np.argmax(shown)) if shown.any() else None


def candidate_extra(hand: list[int], index: int, offer: int | None, *, first: bool) -> Array:
    """The :data:`PAIR_EXTRA` numbers of one candidate (``hand``: counts per kind before it)."""
    out = np.zeros(PAIR_EXTRA, dtype=np.float32)
    after = after_hand(hand, index, offer)
    lone = orphans(after)
    out[:N_KINDS] = after
    out[[N_KINDS + k for k in lone]] = 1.0
    o = 2 * N_KINDS
    for n in range(1, 5):
        out[o + n - 1] = sum(1 for c in after if c == n)
    out[o + 4] = len(lone)
    out[o + 5] = first
    return out


def candidates(view: View, policy: HeuristicBot, width: int = 4) -> list[int]:
    """Positions in ``view.legal`` worth weighing, the heuristic bot's choice first (as the search bot's).

    A discard: the heuristic choice and the ``width`` discards the heuristic likes least to keep (and 报牌
    with each of them where the rules have it); a claim: every option.
    """
    legal = view.legal
    first = legal.index(policy.choose(view))
    out = [first]
    if isinstance(legal[first], Discard):
        c = [0] * N_KINDS
        for cid in view.hand:
            c[cid // 4] += 1
        discards = [(i, a.kind) for i, a in enumerate(legal) if isinstance(a, Discard)]
        ranked = sorted(discards, key=lambda t: (connections(c, t[1]) + is_big(t[1]) + (number_of(t[1]) in (2, 7, 10)),
                                                  t[1]))
        out += [i for i, _ in ranked[:width] if i != first]
        kinds = {k for i, k in discards if i in out}
        out += [i for i, a in enumerate(legal) if isinstance(a, Bao) and a.kind in kinds]
    else:
        out += [i for i in range(len(legal)) if i != first]
    return out


def write_layers(path: str | Path, layers: list[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any],
                 dtype: type[np.floating[Any]]) -> None:
    """A network's dense layers (``w0, b0, w1, …`` in ``dtype``) and its metadata (JSON) as a compressed npz."""
    arrays: dict[str, Any] = {}
    for i, (w, b) in enumerate(layers):
        arrays[f"w{i}"], arrays[f"b{i}"] = w.astype(dtype), b.astype(dtype)
    arrays["meta"] = np.array(json.dumps(meta, sort_keys=True))
    np.savez_compressed(path, **arrays)


def read_layers(path: str | Path) -> tuple[list[tuple[np.ndarray, np.ndarray]], dict[str, Any]]:
    """(layers as float32, metadata) of a file written by :func:`write_layers`."""
    with np.load(path, allow_pickle=False) as z:
        n = sum(1 for k in z.files if k.startswith("w"))
        layers = [(z[f"w{i}"].astype(np.float32), z[f"b{i}"].astype(np.float32)) for i in range(n)]
        meta = json.loads(str(z["meta"])) if "meta" in z.files else {}
    return layers, meta


class QNet:
    """A ReLU multilayer perceptron in numpy: ``values(x)`` gives one value per action index."""

    def __init__(self, layers: list[tuple[Array, Array]], meta: dict[str, Any] | None = None) -> None:
        told_of = len((meta or {}).get("presets", ()))  # not folded yet (:func:`told`): only to be saved
        shape = (layers[0][0].shape[0] - told_of, layers[-1][0].shape[1]) if layers else None
        if shape != (FEATURES, N_ACTIONS) and not (shape and shape[1] == 1
                                                    and PAIR_FEATURES <= shape[0] <= MORE_FEATURES):
            raise ValueError(f"a network needs {FEATURES} inputs and {N_ACTIONS} outputs "
                             f"(or {PAIR_FEATURES} to {MORE_FEATURES} inputs and 1 output)")
        self.layers = layers
        self.meta = meta or {}
        self._told_of = told_of
        self._cache: dict[tuple[str, int], list[tuple[int, int]]] = {}

    def values(self, x: Array) -> Array:
        """Action values for one feature vector (or a batch, one row each)."""
        h = x
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < last:
                np.maximum(h, 0.0, out=h)
        return h

    @property
    def more(self) -> int:
        """How many of the candidates' 听 numbers (:func:`daer.bots.features.candidate_more`, the first ones)
        this "pair" network reads: 0 for :data:`PAIR_FEATURES` inputs, up to :data:`MORE` for
        :data:`MORE_FEATURES` (networks fitted before the last numbers were added read fewer)."""
        n = self.layers[0][0].shape[0] - self._told_of
        return int(n - PAIR_FEATURES) if n <= MORE_FEATURES and self.layers[-1][0].shape[1] == 1 else 0

    def candidate_values(self, obs: Array, cands: list[int], more: Array | None = None) -> Array:
        """The "pair" form's value of each candidate (action indices, the heuristic choice first): the same
        numbers as ``values(candidate_rows(obs, cands))[:, 0]``, computed with less work — the view's part of
        the first layer once, the action one-hot as a row lookup, and an ensemble's block-diagonal hidden
        weights block by block (few enough operations that numpy runs them on one thread).  A network with
        :attr:`more` needs ``more``: the rows of :func:`daer.bots.features.candidate_more`."""
        if self._told_of:
            raise ValueError("a network told the preset plays once made one preset's (QNet.load(path, preset))")
        w0, b0 = self.layers[0]
        base = obs @ w0[:OBS_SIZE] + b0
        hand, offer = [round(float(v)) for v in obs[:N_KINDS]], offer_of(obs)
        extra = np.stack([candidate_extra(hand, a, offer, first=r == 0) for r, a in enumerate(cands)])
        if self.more:
            if more is None:
                raise ValueError("this network reads the candidates' 听 numbers: pass more=candidate_more(...)")
            extra = np.concatenate([extra, more[:, : self.more]], axis=1)
        n = extra.shape[1]
        h = extra @ w0[OBS_SIZE : OBS_SIZE + n] + w0[[OBS_SIZE + n + a for a in cands]] + base
        np.maximum(h, 0.0, out=h)
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers[1:], start=1):
            blocks = self._blocks(i)
            if blocks and i < last:
                h = np.concatenate([h[:, lo:hi] @ w[lo:hi, lo:hi] for lo, hi in blocks], axis=1) + b
            else:
                h = h @ w + b
            if i < last:
                np.maximum(h, 0.0, out=h)
        out: Array = h[:, 0]
        return out

    def _blocks(self, i: int) -> list[tuple[int, int]]:
        """The diagonal blocks of hidden layer ``i``'s weights when they are block-diagonal (a merged
        ensemble, ``meta["ensemble"]`` networks), else []."""
        key = ("blocks", i)
        if key not in self._cache:
            k = int(self.meta.get("ensemble", 1))
            w = self.layers[i][0]
            n = w.shape[0]
            blocks: list[tuple[int, int]] = []
            if k > 1 and w.shape[0] == w.shape[1] and n % k == 0:
                size = n // k
                blocks = [(j * size, (j + 1) * size) for j in range(k)]
                mask = np.ones_like(w, dtype=bool)
                for lo, hi in blocks:
                    mask[lo:hi, lo:hi] = False
                if np.any(w[mask]):
                    blocks = []
            self._cache[key] = blocks
        return self._cache[key]

    @property
    def parameters(self) -> int:
        """Number of weights and biases."""
        return sum(w.size + b.size for w, b in self.layers)

    def save(self, path: str | Path) -> None:
        """Write the weights as float16 (compressed npz) with the metadata as JSON."""
        write_layers(path, self.layers, self.meta, np.float16)

    @classmethod
    def load(cls, path: str | Path, preset: str | None = None) -> QNet:
        """Read weights written by :meth:`save`; a network told the preset (:func:`told`) is made the plain
        network of ``preset``."""
        layers, meta = read_layers(path)
        if meta.get("presets"):
            layers, meta = told(layers, meta, preset)
        return cls(layers, meta)


def told(layers: list[tuple[Array, Array]], meta: dict[str, Any],
         preset: str | None) -> tuple[list[tuple[Array, Array]], dict[str, Any]]:
    """A network **told the preset** made the plain network of one preset.

    Fitted on the data of several presets (``train/distill_fit.py --told``), such a "pair" network reads, after a
    candidate's numbers, a one-hot of the preset its data came from (``meta["presets"]``, in that order), before
    the action one-hot.  For one preset the one-hot is a constant: its row of the first layer's weights is added
    to the bias and the preset rows dropped, which leaves a network of the usual shape computing the same values
    at no extra cost a decision.  ``preset``: the ruleset's name; a ruleset the network was not told of (a house
    rule file) plays as 泸州 when it was told of 泸州, else as its first preset."""
    names: list[str] = list(meta["presets"])
    name = preset if preset in names else DEFAULT_WEIGHTS if DEFAULT_WEIGHTS in names else names[0]
    w0, b0 = layers[0]
    start = w0.shape[0] - N_ACTIONS - len(names)  # the one-hot sits just before the action one-hot
    if start < OBS_SIZE + PAIR_EXTRA:
        raise ValueError(f"a network told {len(names)} presets needs more inputs than {w0.shape[0]}")
    row = start + names.index(name)
    keep = np.r_[0:start, start + len(names) : w0.shape[0]]
    folded = (np.ascontiguousarray(w0[keep]), (b0 + w0[row]).astype(b0.dtype))
    plain = {k: v for k, v in meta.items() if k != "presets"}
    return [folded, *layers[1:]], {**plain, "told": name, "told_of": names}


def weights_path(rules: Ruleset) -> Path:
    """The shipped weights for ``rules``: its preset's own, else the 泸州 weights."""
    own = WEIGHTS_DIR / f"{rules.name}.npz"
    return own if own.exists() else WEIGHTS_DIR / f"{DEFAULT_WEIGHTS}.npz"


def load_net(path: str | Path, preset: str | None = None) -> QNet:
    """The network stored at ``path`` (for ``preset``, if it was told the preset: :func:`told`), loaded once per
    process, file version and preset (bots only read it)."""
    p = Path(path)
    return _load(str(p), p.stat().st_mtime_ns, preset)


@functools.lru_cache(maxsize=8)
def _load(path: str, _version: int, preset: str | None = None) -> QNet:
    return QNet.load(path, preset)


class LearnedBot:
    """Plays the action the network values most (always 胡 when it can).

    Weights trained on advantages (``meta["target"] == "advantage"``, see ``train/dmc.py``) value each
    candidate against the heuristic bot's choice, which counts 0: the bot leaves the heuristic choice
    only for a candidate valued above ``meta["margin"]`` points.  Weights trained on returns
    (``"return"``) value every legal action: with a margin, the same rule on the values minus the
    heuristic choice's; without one, the bot plays the highest.
    """

    name = "learned"

    def __init__(self, rules: Ruleset | None = None, seed: int | str | None = None, *,
                 net: QNet | None = None, weights: str | Path | None = None) -> None:
        self.rules = rules or find_rules()
        if net is None:
            net = load_net(weights if weights is not None else weights_path(self.rules), self.rules.name)
        self.net = net
        self.policy = HeuristicBot(self.rules)
        self.seed = seed
        """Unused: the bot is deterministic (ties go to the first legal action)."""

    def choose(self, view: View) -> Action:
        """Pick an action for this view."""
        if (sure := obvious(view)) is not None:
            return sure
        legal = view.legal
        meta = self.net.meta
        if self.net.layers[-1][0].shape[1] == 1:
            return self._choose_pair(view)
        advantage = meta.get("target") == "advantage"
        if not advantage and "margin" not in meta:
            x, idx = features(view, self.policy)
            return legal[int(np.argmax(self.net.values(x)[idx]))]
        cands = candidates(view, self.policy, int(meta.get("width", 4)))
        if len(cands) == 1:
            return legal[cands[0]]
        idx = legal_indices(view)
        x = np.zeros(FEATURES, dtype=np.float32)
        x[:OBS_SIZE] = encode_view(view)
        x[OBS_SIZE + idx[cands[0]]] = 1.0
        q = self.net.values(x)
        if not advantage:
            q = q - q[idx[cands[0]]]
        best, value = cands[0], float(meta.get("margin", 0.0))
        for i in cands[1:]:
            if q[idx[i]] > value:
                best, value = i, float(q[idx[i]])
        return legal[best]

    def _choose_pair(self, view: View) -> Action:
        """The "pair" form: one value a candidate; the heuristic choice's is subtracted."""
        return self.best_of(view, candidates(view, self.policy, int(self.net.meta.get("width", 4))))

    def best_of(self, view: View, cands: list[int]) -> Action:
        """The candidate (indices into ``view.legal``, the heuristic choice first) the network values most; the
        heuristic choice keeps the lead unless another beats it by the network's margin."""
        legal = view.legal
        if len(cands) == 1:
            return legal[cands[0]]
        idx = legal_indices(view)
        more = candidate_more(view, [legal[i] for i in cands], self.policy, self.net.more) if self.net.more else None
        v = self.net.candidate_values(encode_view(view), [idx[i] for i in cands], more)
        best, value = 0, float(v[0]) + float(self.net.meta.get("margin", 0.0))
        for r in range(1, len(cands)):
            if v[r] > value:
                best, value = r, float(v[r])
        return legal[cands[best]]


__all__ = [
    "DEFAULT_WEIGHTS",
    "FEATURES",
    "MORE_FEATURES",
    "PAIR_FEATURES",
    "WEIGHTS_DIR",
    "LearnedBot",
    "QNet",
    "after_hand",
    "candidate_extra",
    "candidate_rows",
    "candidates",
    "features",
    "load_net",
    "offer_of",
    "weights_path",
]
