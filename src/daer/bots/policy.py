"""A policy bot: a multilayer perceptron over the environment's observation, one logit per action index.

This is the format a reinforcement-learning library's policy is exported to so that it plays anywhere a bot
plays (``daer arena --bots policy:FILE.npz,heuristic``) without that library: ``train/ppo.py`` writes its
MaskablePPO policy this way.  The network reads :func:`daer.engine.encoding.encode_view` (the same 286 numbers
as :class:`daer.env.DaerSingleEnv`'s observation), gives :data:`~daer.engine.encoding.N_ACTIONS` logits, and
the bot plays the legal index with the highest one (the mask of :func:`~daer.engine.encoding.action_mask`): the
policy's deterministic action, nothing added — unlike the learned bot it is not told to take every 胡, so what
it plays is what it learned.

The file is a numpy ``.npz``: ``w0, b0, w1, b1, …`` (layer ``i`` computes ``h @ w{i} + b{i}``), the activation
between layers named in ``meta`` (a JSON string: ``{"activation": "tanh" | "relu", ...}``; anything else the
writer wants to record may sit beside it).  No weights of this kind ship in the package.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from daer.bots.learned import read_layers, write_layers
from daer.engine.actions import Action
from daer.engine.encoding import N_ACTIONS, OBS_SIZE, action_mask, decode_action, encode_view
from daer.engine.views import View

Array = npt.NDArray[np.float32]

ACTIVATIONS = ("tanh", "relu")
"""Activations between layers a policy file may name."""


class PolicyNet:
    """The network of a policy file: ``logits(obs)`` for one observation vector (or a batch, one row each)."""

    def __init__(self, layers: list[tuple[Array, Array]], meta: dict[str, Any] | None = None) -> None:
        self.meta = meta or {}
        activation = self.meta.get("activation", "tanh")
        if activation not in ACTIVATIONS:
            raise ValueError(f"unknown activation {activation!r} (choose from {', '.join(ACTIVATIONS)})")
        if not layers or layers[0][0].shape[0] != OBS_SIZE or layers[-1][0].shape[1] != N_ACTIONS:
            raise ValueError(f"a policy needs {OBS_SIZE} inputs and {N_ACTIONS} outputs")
        for (w, b), (w2, _) in zip(layers, [*layers[1:], (None, None)], strict=True):
            if b.shape != (w.shape[1],) or (w2 is not None and w2.shape[0] != w.shape[1]):
                raise ValueError(f"layer shapes do not chain: {w.shape}, {b.shape}")
        self.layers = layers
        self.activation = activation

    def logits(self, obs: Array) -> Array:
        """One logit per action index (masking is the caller's)."""
        h = obs.astype(np.float32, copy=False)
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < last:
                h = np.tanh(h) if self.activation == "tanh" else np.maximum(h, 0.0)
        return h

    def save(self, path: str | Path) -> None:
        """Write the layers (float32) and the metadata (JSON) as a compressed npz."""
        write_layers(path, self.layers, {**self.meta, "activation": self.activation}, np.float32)

    @classmethod
    def load(cls, path: str | Path) -> PolicyNet:
        """Read a file written by :meth:`save` (or by any writer of the same arrays)."""
        return cls(*read_layers(path))


@functools.cache
def _load(path: str, mtime_ns: int, size: int) -> PolicyNet:
    """One read of a file per process and version of the file (the arena makes a bot per deal; a file rewritten
    since, with another time or size, is read again)."""
    return PolicyNet.load(path)


class PolicyBot:
    """Plays the legal action index with the highest logit of a :class:`PolicyNet` (``seed`` is unused: it is
    deterministic; accepted so it is made like every other bot)."""

    name = "policy"

    def __init__(self, weights: str | Path, seed: int | str | None = None) -> None:
        stat = Path(weights).stat()
        self.net = _load(str(weights), stat.st_mtime_ns, stat.st_size)
        self.seed = seed

    def choose(self, view: View) -> Action:
        """The masked argmax of the network's logits for this view."""
        if len(view.legal) == 1:
            return view.legal[0]
        logits = self.net.logits(encode_view(view))
        logits[action_mask(view) == 0] = -np.inf
        return decode_action(int(np.argmax(logits)), view)
