"""Learning environments: a PettingZoo AEC game, a Gymnasium single-seat wrapper, fixed encodings.

Needs the ``env`` extra (``pip install daer[env]``: pettingzoo, gymnasium) for the environments;
the encodings live in :mod:`daer.engine.encoding` (numpy only; the learned bots read them too) and are
exported here, so this package imports the environments lazily: ``from daer.env import encode_view``
works without the extra.
"""

from __future__ import annotations

import importlib
from typing import Any

from daer.engine.encoding import N_ACTIONS, OBS_SIZE, action_mask, decode_action, encode_action, encode_view

_LAZY = {"DaerAECEnv": "daer.env.aec", "env": "daer.env.aec", "DaerSingleEnv": "daer.env.single"}


def __getattr__(name: str) -> Any:
    """The environments, imported on first use (they need pettingzoo and gymnasium)."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'daer.env' has no attribute {name!r}")


__all__ = [
    "N_ACTIONS",
    "OBS_SIZE",
    "DaerAECEnv",
    "DaerSingleEnv",
    "action_mask",
    "decode_action",
    "encode_action",
    "encode_view",
    "env",
]
