"""PettingZoo AEC environment of one hand of 大贰 (see ``docs/env.md``).

Agents are ``seat_0`` … ``seat_3``; each hand the playing seats are the live agents
(the 底家 sits out).  The agent selected is the seat that must decide now: the
discarder, or one of the seats asked about a card on offer (their answers stay
hidden until all are in, as in the engine).  Observations are ``{"observation",
"action_mask"}`` from :mod:`daer.engine.encoding`, built from the seat's view only.
The reward comes at the end of the hand: each seat's points.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]  # no py.typed in pettingzoo 1.27
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from daer.engine.encoding import N_ACTIONS, OBS_SIZE, action_mask, decode_action, encode_view
from daer.engine.record import new_hand
from daer.engine.state import GameState
from daer.rules import resolve_rules
from daer.rules.model import Ruleset

ObsDict = dict[str, Any]


def observation_space() -> spaces.Dict:
    """The space of one observation (the same for every seat and ruleset)."""
    return spaces.Dict({
        "observation": spaces.Box(low=0.0, high=4.0, shape=(OBS_SIZE,), dtype=np.float32),
        "action_mask": spaces.Box(low=0, high=1, shape=(N_ACTIONS,), dtype=np.int8),
    })


def agent_name(seat: int) -> str:
    """The agent id of a seat."""
    return f"seat_{seat}"


class DaerAECEnv(AECEnv[str, ObsDict, int]):  # type: ignore[misc]  # pettingzoo ships no type stubs
    """One hand per episode; ``reset(seed=…)`` makes the deal and the dealer reproducible.

    ``reset(options={"dealer": d})`` fixes the dealer (otherwise drawn from the seed).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "daer_v0", "is_parallelizable": False}

    def __init__(self, rules: str | Ruleset = "luzhou", render_mode: str | None = None) -> None:
        super().__init__()
        self.rules = rules if not isinstance(rules, str) else resolve_rules(rules)
        self.render_mode = render_mode
        seats = self.rules.table.seats
        self.possible_agents = [agent_name(s) for s in range(seats)]
        self._obs_space = observation_space()
        self._act_space = spaces.Discrete(N_ACTIONS)
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._act_space)
        self._rng = random.Random()
        self.state: GameState | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """Observation space of ``agent``."""
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """Action space of ``agent`` (212 discrete indices)."""
        return self._act_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new hand."""
        if seed is not None:
            self._rng = random.Random(seed)
        dealer = (options or {}).get("dealer")
        if dealer is None:
            dealer = self._rng.randrange(self.rules.table.seats)
        self.state = new_hand(self.rules, seed=self._rng.getrandbits(64), dealer=int(dealer))
        self.agents = [agent_name(s) for s in self.state.players]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._advance()

    def _seat(self, agent: str) -> int:
        return int(agent.removeprefix("seat_"))

    def _advance(self) -> None:
        """Select the next seat to decide, or hand out the rewards at the end."""
        st = self.state
        assert st is not None
        if st.over:
            assert st.result is not None
            for a in self.agents:
                self.rewards[a] = float(st.result.points[self._seat(a)])
                self.terminations[a] = True
            self.agent_selection = self.agents[0]
            self._accumulate_rewards()
            return
        self.agent_selection = agent_name(st.to_act()[0])

    def observe(self, agent: str) -> ObsDict:
        """What ``agent`` sees now (its view only)."""
        assert self.state is not None
        view = self.state.view(self._seat(agent), log=False)
        return {"observation": encode_view(view), "action_mask": action_mask(view)}

    def step(self, action: int | None) -> None:
        """Apply the selected agent's action (an index; ``None`` for an agent whose hand is over)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self.state is not None and action is not None
        view = self.state.view(self._seat(agent), log=False)
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = 0.0
        self.state.apply(decode_action(int(action), view))
        self._advance()

    def render(self) -> str | None:
        """A one-line text summary (ansi)."""
        if self.state is None:
            return None
        st = self.state
        return f"phase={st.phase} stock={len(st.stock)} to_act={st.to_act()} result={st.result}"

    def close(self) -> None:
        """Nothing to release."""


def env(rules: str | Ruleset = "luzhou", render_mode: str | None = None) -> AECEnv[str, ObsDict, int]:
    """The AEC environment inside PettingZoo's order-enforcing wrapper."""
    return wrappers.OrderEnforcingWrapper(DaerAECEnv(rules, render_mode))
