"""Learning environments: a PettingZoo AEC game, a Gymnasium single-seat wrapper, fixed encodings.

Needs the ``env`` extra (``pip install daer[env]``: pettingzoo, gymnasium, numpy).
"""

from daer.env.aec import DaerAECEnv, env
from daer.env.encoding import N_ACTIONS, OBS_SIZE, action_mask, decode_action, encode_action, encode_view
from daer.env.single import DaerSingleEnv

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
