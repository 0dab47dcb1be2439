"""The search bot (搜索机器人): determinized Monte Carlo rollouts with the heuristic policy (PIMC).

At each decision with more than one sensible option it repeats, within its budget:

1. **Determinize.**  Deal the cards its seat has not seen (other concealed hands,
   the unrevealed stock) at random, consistently with its view — own hand, melds,
   discards, the card on offer, the shown bottom card, hand sizes and stock count
   (:mod:`daer.engine.world`).
2. **Roll out.**  In that world, play each candidate action, then let the heuristic
   bot play every seat to the end of the hand; score the candidate by this seat's
   points.  All candidates share the same worlds (common random numbers), so their
   difference is measured with much less noise than their values.

It plays the candidate with the best mean; the heuristic bot's own choice is listed
first and wins ties.  Candidates: always 胡; otherwise the heuristic choice plus
the ``width`` discards the heuristic likes least to keep (and 报牌 with each of them
where the rules have it), or every claim option and 过.  It never sees the state:
it is given a view, and builds its worlds from it.

The budget is ``worlds`` determinizations per decision, stopped early after
``seconds`` of wall time (defaults: 400 worlds, 0.8 s: under one second a decision).  With
``clock="cpu"`` the seconds are the CPU time of the thread that searches (``time.thread_time``): the
bot then searches as far as it would on a core of its own, however busy the machine — how the arena
measures the clocked bot over runs of many hours beside other work (``search:cpu``).
"""

from __future__ import annotations

import random
import time
from typing import Literal

from daer.bots.base import obvious
from daer.bots.heuristic import HeuristicBot, connections
from daer.cards import N_KINDS, is_big, number_of
from daer.engine.actions import Action, Bao, Discard
from daer.engine.views import View
from daer.engine.world import sample_hidden, world_from_view
from daer.rules import find_rules
from daer.rules.model import Ruleset


class SearchBot:
    """Perfect-information Monte Carlo over sampled worlds, heuristic rollouts."""

    name = "search"

    def __init__(
        self,
        rules: Ruleset | None = None,
        seed: int | str | None = None,
        *,
        worlds: int = 400,
        seconds: float | None = 0.8,
        width: int = 4,
        clock: Literal["wall", "cpu"] = "wall",
    ) -> None:
        self.rules = rules or find_rules()
        self.rng = random.Random(seed)
        self.worlds = worlds
        self.seconds = seconds
        self.width = width
        self.clock = clock
        """What ``seconds`` counts: wall time (a table's bot must answer in time) or the thread's CPU time."""
        self._policy = HeuristicBot(self.rules)
        self.last_worlds = 0
        """Worlds sampled at the last decision (0 when it did not search)."""

    def choose(self, view: View) -> Action:
        """Pick an action for this view."""
        self.last_worlds = 0
        if (sure := obvious(view)) is not None:
            return sure
        cands = self.candidates(view)
        if len(cands) == 1:
            return cands[0]
        totals = self._search(view, cands)
        best = max(range(len(cands)), key=lambda i: (totals[i], -i))
        return cands[best]

    def candidates(self, view: View) -> list[Action]:
        """The actions worth searching, the heuristic bot's choice first."""
        first = self._policy.choose(view)
        out = [first]
        if isinstance(first, Discard):
            c = [0] * N_KINDS
            for cid in view.hand:
                c[cid // 4] += 1
            ranked = sorted(
                (a for a in view.legal if isinstance(a, Discard)),
                key=lambda a: (connections(c, a.kind) + is_big(a.kind) + (number_of(a.kind) in (2, 7, 10)), a.kind),
            )
            out += [a for a in ranked[: self.width] if a != first]
            kinds = {a.kind for a in out if isinstance(a, Discard)}
            out += [a for a in view.legal if isinstance(a, Bao) and a.kind in kinds]  # 报牌 on the same discards
        else:
            out += [a for a in view.legal if a != first]
        return out

    def _search(self, view: View, cands: list[Action], per_world: list[list[float]] | None = None) -> list[float]:
        """Total rollout points of each candidate over the sampled worlds (each world's points appended to
        ``per_world`` when given, one list a world)."""
        assert view.seat is not None
        me = view.seat
        totals = [0.0] * len(cands)
        clock = time.perf_counter if self.clock == "wall" else time.thread_time
        deadline = None if self.seconds is None else clock() + self.seconds
        policy = self._policy
        n = 0
        while n < self.worlds:
            hidden, stock = sample_hidden(view, self.rng)
            points = [0.0] * len(cands)
            for i, act in enumerate(cands):
                world = world_from_view(view, self.rules, hidden, stock)
                world.apply(act)
                while not world.over:
                    seat = world.to_act()[0]
                    world.apply(policy.choose(world.view(seat, log=False)))
                assert world.result is not None
                points[i] = world.result.points[me]
                totals[i] += points[i]
            if per_world is not None:
                per_world.append(points)
            n += 1
            if deadline is not None and clock() > deadline:
                break
        self.last_worlds = n
        return totals
