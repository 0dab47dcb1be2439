"""The learned bot (学习机器人): a small network's action values, computed in numpy from a seat's view.

The network is a multilayer perceptron trained by deep Monte Carlo (``train/dmc.py``, docs/bots.md):
it maps the seat's features to one value per action index of :mod:`daer.env.encoding` — the points
this seat expects at the end of the hand if it plays that action now and plays on as in training.
The bot plays the legal action of highest value.

**Features** (:func:`features`, :data:`FEATURES` numbers): the observation vector of
:func:`daer.env.encoding.encode_view` (286) followed by a one-hot of the heuristic bot's choice for
the same view (212): a function of the view like the rest, and the baseline the network learns to
correct.  Nothing but the view is read.

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
from daer.bots.heuristic import HeuristicBot, connections
from daer.cards import N_KINDS, is_big, number_of
from daer.engine.actions import Action, Bao, Discard
from daer.engine.views import View
from daer.env.encoding import N_ACTIONS, OBS_SIZE, encode_action, encode_view, legal_indices, offer_kind
from daer.rules import find_rules
from daer.rules.model import Ruleset

WEIGHTS_DIR = Path(__file__).with_name("weights")
"""Where the shipped weights live, one ``<preset>.npz`` each."""
DEFAULT_WEIGHTS = "luzhou"
"""The preset whose weights a ruleset without its own uses."""
FEATURES = OBS_SIZE + N_ACTIONS
"""Length of the network's input (498)."""

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


class QNet:
    """A ReLU multilayer perceptron in numpy: ``values(x)`` gives one value per action index."""

    def __init__(self, layers: list[tuple[Array, Array]], meta: dict[str, Any] | None = None) -> None:
        if not layers or layers[0][0].shape[0] != FEATURES or layers[-1][0].shape[1] != N_ACTIONS:
            raise ValueError(f"a network needs {FEATURES} inputs and {N_ACTIONS} outputs")
        self.layers = layers
        self.meta = meta or {}

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
    def parameters(self) -> int:
        """Number of weights and biases."""
        return sum(w.size + b.size for w, b in self.layers)

    def save(self, path: str | Path) -> None:
        """Write the weights as float16 (compressed npz) with the metadata as JSON."""
        arrays: dict[str, Any] = {}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"] = w.astype(np.float16)
            arrays[f"b{i}"] = b.astype(np.float16)
        arrays["meta"] = np.array(json.dumps(self.meta, sort_keys=True))
        np.savez_compressed(path, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> QNet:
        """Read weights written by :meth:`save`."""
        with np.load(path, allow_pickle=False) as z:
            n = sum(1 for k in z.files if k.startswith("w"))
            layers = [(z[f"w{i}"].astype(np.float32), z[f"b{i}"].astype(np.float32)) for i in range(n)]
            meta = json.loads(str(z["meta"])) if "meta" in z.files else {}
        return cls(layers, meta)


def weights_path(rules: Ruleset) -> Path:
    """The shipped weights for ``rules``: its preset's own, else the 泸州 weights."""
    own = WEIGHTS_DIR / f"{rules.name}.npz"
    return own if own.exists() else WEIGHTS_DIR / f"{DEFAULT_WEIGHTS}.npz"


def load_net(path: str | Path) -> QNet:
    """The network stored at ``path``, loaded once per process and file version (bots only read it)."""
    p = Path(path)
    return _load(str(p), p.stat().st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _load(path: str, _version: int) -> QNet:
    return QNet.load(path)


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
            net = load_net(weights if weights is not None else weights_path(self.rules))
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


__all__ = ["DEFAULT_WEIGHTS", "FEATURES", "WEIGHTS_DIR", "LearnedBot", "QNet", "candidates", "features", "load_net",
           "weights_path"]
