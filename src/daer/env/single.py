"""Gymnasium single-agent environment: one learning seat, the other playing seats are bots.

Each episode is one hand.  The learner plays the playing position ``position``
(0 = dealer, 1 = next, 2 = last; ``None``: drawn at each reset); the other seats
are bots from :func:`daer.bots.make_bot` (``opponents``: a name or strength).  The
observation is the same dict as the AEC environment's; the reward is the learner's
points, given when the hand ends.  A hand that ends before the learner's first
decision (an instant win, a bot's 天胡) is dealt again.  :meth:`DaerSingleEnv.action_masks` returns the
mask (the convention of sb3-contrib's ``MaskablePPO``).  An illegal index raises
:class:`~daer.engine.errors.IllegalActionError` (or an
:class:`~daer.engine.encoding.EncodingError`), unless ``illegal_penalty`` is given: the
episode then ends with that reward.
"""

from __future__ import annotations

import random
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
import numpy.typing as npt

from daer.bots import make_bot
from daer.bots.base import Bot
from daer.engine.encoding import N_ACTIONS, action_mask, decode_action, encode_view
from daer.engine.record import new_hand
from daer.engine.state import GameState
from daer.env.aec import ObsDict, observation_space
from daer.rules import resolve_rules
from daer.rules.model import Ruleset


class DaerSingleEnv(gym.Env[ObsDict, int]):
    """One hand against bots, from one seat."""

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012  # gymnasium declares it an instance variable

    def __init__(
        self,
        rules: str | Ruleset = "luzhou",
        *,
        opponents: str = "heuristic",
        position: int | None = None,
        render_mode: str | None = None,
        illegal_penalty: float | None = None,
    ) -> None:
        self.rules = rules if not isinstance(rules, str) else resolve_rules(rules)
        self.opponents = opponents
        self.position = position
        self.render_mode = render_mode
        self.illegal_penalty = illegal_penalty
        self.observation_space = observation_space()
        self.action_space: gym.spaces.Space[Any] = gym.spaces.Discrete(N_ACTIONS)
        self._rng = random.Random()
        self.state: GameState | None = None
        self.seat = 0
        self._bots: dict[int, Bot] = {}
        self._illegal = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsDict, dict[str, Any]]:
        """Deal a new hand and let the bots play until the learner must decide."""
        super().reset(seed=seed)
        self._illegal = False
        if seed is not None:
            self._rng = random.Random(seed)
        while True:  # a hand that ends before the learner's first decision is dealt again
            dealer = self._rng.randrange(self.rules.table.seats)
            self.state = new_hand(self.rules, seed=self._rng.getrandbits(64), dealer=dealer)
            pos = self.position if self.position is not None else self._rng.randrange(len(self.state.players))
            self.seat = self.state.players[pos]
            self._bots = {s: make_bot(self.opponents, self._rng.getrandbits(32), rules=self.rules)
                          for s in self.state.players if s != self.seat}
            self._run_bots()
            if not self.state.over:
                return self._obs(), self._info()

    def _run_bots(self) -> None:
        st = self.state
        assert st is not None
        while not st.over and st.to_act()[0] != self.seat:
            s = st.to_act()[0]
            st.apply(self._bots[s].choose(st.view(s, log=False)))

    def _obs(self) -> ObsDict:
        assert self.state is not None
        view = self.state.view(self.seat, log=False)
        return {"observation": encode_view(view), "action_mask": action_mask(view)}

    def _info(self) -> dict[str, Any]:
        assert self.state is not None
        return {"seat": self.seat, "dealer": self.state.dealer}

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """Legal indices now, as booleans."""
        return self._obs()["action_mask"].astype(bool)  # type: ignore[no-any-return]

    def step(self, action: int) -> tuple[ObsDict, SupportsFloat, bool, bool, dict[str, Any]]:
        """Play the learner's action, then the bots until the learner decides again or the hand ends."""
        st = self.state
        assert st is not None
        if st.over or self._illegal:
            raise RuntimeError("the hand is over: call reset()")
        view = st.view(self.seat, log=False)
        if self.illegal_penalty is not None and not action_mask(view)[int(action)]:
            self._illegal = True
            return self._obs(), self.illegal_penalty, True, False, {**self._info(), "illegal": True}
        st.apply(decode_action(int(action), view))
        self._run_bots()
        reward = 0.0
        if st.over:
            assert st.result is not None
            reward = float(st.result.points[self.seat])
        return self._obs(), reward, st.over, False, self._info()

    def render(self) -> str | None:
        """A one-line text summary (ansi)."""
        if self.state is None:
            return None
        return f"seat={self.seat} phase={self.state.phase} stock={len(self.state.stock)} result={self.state.result}"
