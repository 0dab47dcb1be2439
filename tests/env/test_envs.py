"""PettingZoo and Gymnasium API conformance, seeding, and a played hand per ruleset."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from daer.env import DaerSingleEnv, env
from daer.rules import preset_names


@pytest.mark.parametrize("rules_name", preset_names())
def test_pettingzoo_api(rules_name: str) -> None:
    api_test(env(rules_name), num_cycles=200, verbose_progress=False)


def test_pettingzoo_seed() -> None:
    seed_test(lambda: env("luzhou"), num_cycles=100)


def _observations(seed: int) -> list[np.ndarray]:
    e = env("luzhou")
    e.reset(seed=seed)
    out = []
    for _agent in e.agent_iter(max_iter=200):
        obs, _, term, trunc, _ = e.last()
        out.append(obs["observation"])
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[-1]))
    return out


def test_same_seed_same_observations() -> None:
    a, b = _observations(5), _observations(5)
    assert len(a) == len(b)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_rewards_are_the_points() -> None:
    e = env("luzhou")
    for seed in range(5):
        e.reset(seed=seed)
        total = dict.fromkeys(e.possible_agents, 0.0)
        for agent in e.agent_iter():
            obs, reward, term, trunc, _ = e.last()
            total[agent] += float(reward)
            e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        state = e.unwrapped.state
        assert state.over and state.result is not None
        for agent, pts in total.items():
            seat = int(agent.removeprefix("seat_"))
            if seat in state.players:
                assert pts == state.result.points[seat]


def test_gymnasium_checker() -> None:
    check_env(DaerSingleEnv("luzhou", illegal_penalty=-10.0), skip_render_check=True)


@pytest.mark.parametrize("rules_name", preset_names())
def test_single_seat_hands_end_with_the_points(rules_name: str) -> None:
    e = DaerSingleEnv(rules_name, opponents="heuristic")
    rng = np.random.default_rng(0)
    for ep in range(5):
        obs, info = e.reset(seed=ep)
        done = False
        reward = 0.0
        while not done:
            assert obs["action_mask"].any()
            action = int(rng.choice(np.flatnonzero(e.action_masks())))
            obs, r, done, _, info = e.step(action)
            reward = float(r)
        assert e.state is not None and e.state.result is not None
        assert reward == e.state.result.points[info["seat"]]


def test_illegal_index_raises_without_a_penalty() -> None:
    e = DaerSingleEnv("luzhou")
    obs, _ = e.reset(seed=1)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(ValueError):
        e.step(bad)
