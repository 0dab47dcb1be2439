"""The oracle (全知机器人): a bot that sees every card, to measure how far the others are from the ceiling.

**For measurement only.**  It is given the true state — every concealed hand and the stock in the order it
will be revealed — by the duplicate arena (:func:`daer.bots.arena.play_deal`), through the
:class:`~daer.bots.base.Omniscient` protocol; it has no ``choose(view)``, :func:`daer.bots.make_bot` makes it
only when asked with ``allow_oracle=True``, and no room, tournament or ``daer play`` seat can name it.

At each decision with more than one option (a 胡 is always taken) it tries **every legal action** in the true
world: it rebuilds the hand from its deck and actions (a copy: the arena's state is never touched), plays the
candidate, and plays the hand out with the heuristic policy at every other seat.  Its own later moves follow
``plans`` continuations, and a candidate's value is the best of them:

- the heuristic bot's own moves;
- the plan it chose at its previous decision (its own moves of the best continuation found then, each played
  while it is still legal, then the heuristic): a plan found once is never lost;
- ``plans - 2`` perturbed continuations, where each own move is, with probability ``explore``, one of the
  search bot's candidates at random (the heuristic choice, the 4 discards it likes least to keep, or every
  claim option) — seeded, the same perturbations for every candidate (common random numbers).

With the stock known and the other seats playing the heuristic bot (as in the arena's ``oracle,heuristic``
line-up, and in its rollouts), a continuation's points are exact, not a sample, and the best continuation is a
plan the oracle can really follow: its margin over the heuristic bot is what near-perfect information and
look-ahead are worth, the anchor the other bots' margins are read against (docs/bots.md, "The ceiling").
Against other bots its model of their play is the heuristic's, so it is a strong player there too, not an exact
one.
"""

from __future__ import annotations

import random

from daer.bots.base import obvious
from daer.bots.heuristic import HeuristicBot
from daer.bots.search import SearchBot
from daer.engine.actions import Action
from daer.engine.state import GameState
from daer.rules import find_rules
from daer.rules.model import Ruleset

ORACLE = "oracle"
"""The oracle's registry name (:func:`daer.bots.make_bot` with ``allow_oracle=True`` only)."""

ORACLE_REFUSED_ZH = "全知机器人 oracle 看得见所有人的牌，只用于复式比赛的测量，不能上桌"
ORACLE_REFUSED_EN = "the oracle sees every card: it is for measurement in the duplicate arena only, never at a table"
ORACLE_REFUSED = f"{ORACLE_REFUSED_ZH} ({ORACLE_REFUSED_EN})"
"""What a table, a room or ``daer play`` answers when asked for the oracle."""


class OracleBot:
    """Rollouts of every legal action in the true world, the best of several own continuations."""

    name = ORACLE

    def __init__(self, rules: Ruleset | None = None, seed: int | str | None = None, *, plans: int = 4,
                 explore: float = 0.25) -> None:
        if plans < 1:
            raise ValueError(f"plans 至少 1 (at least one continuation), got {plans}")
        self.rules = rules or find_rules()
        self.rng = random.Random(seed)
        self.plans = plans
        self.explore = explore
        self._policy = HeuristicBot(self.rules)
        self._cands = SearchBot(self.rules, worlds=0)  # its candidate list only (shares no state with a search)
        self._plan: list[Action] = []
        """Own moves after the last choice, of the best continuation found then."""
        self.last_rollouts = 0
        """Rollouts played at the last decision (0 when it did not deliberate)."""

    def choose_full(self, state: GameState, seat: int) -> Action:
        """Pick an action for ``seat`` in the true ``state`` (read only: every rollout plays on a rebuilt copy)."""
        self.last_rollouts = 0
        view = state.view(seat, log=False)
        if (sure := obvious(view)) is not None:
            self._advance(sure)
            return sure
        cands = list(view.legal)
        heur = self._policy.choose(view)
        cands.sort(key=lambda a: a != heur)  # the heuristic choice first: it wins ties
        seeds = [self.rng.getrandbits(32) for _ in range(max(0, self.plans - 2))]
        head = self._plan[0] if self._plan and self.plans > 1 else None
        best: tuple[float, int, list[Action]] | None = None
        for i, act in enumerate(cands):
            conts: list[tuple[list[Action], random.Random | None]] = [([], None)]
            if act == head:
                conts.append((self._plan[1:], None))
            conts += [([], random.Random(s)) for s in seeds]
            for scripted, rng in conts:
                points, own = self._rollout(state, seat, act, scripted, rng)
                self.last_rollouts += 1
                if best is None or (points, -i) > (best[0], -best[1]):
                    best = (points, i, own)
        assert best is not None
        self._plan = best[2]
        return cands[best[1]]

    def _advance(self, played: Action) -> None:
        """Keep the plan in step after a move made without deliberating."""
        if self._plan and self._plan[0] == played:
            self._plan = self._plan[1:]
        else:
            self._plan = []

    def _rollout(self, state: GameState, seat: int, act: Action, scripted: list[Action],
                 rng: random.Random | None) -> tuple[float, list[Action]]:
        """This seat's points when ``act`` is played in a copy of ``state`` and the hand played out; and the seat's
        own moves after ``act`` (its plan).  Own moves: ``scripted`` ones while legal, else the heuristic's (a
        search candidate at random with probability ``explore`` when ``rng`` is given); other seats: the
        heuristic's."""
        world = replica(state)
        world.apply(act)
        own: list[Action] = []
        script = iter(scripted)
        nxt = next(script, None)
        policy = self._policy
        while not world.over:
            s = world.to_act()[0]
            view = world.view(s, log=False)
            if s != seat:
                world.apply(policy.choose(view))
                continue
            if nxt is not None and nxt in view.legal:
                move = nxt
                nxt = next(script, None)
            else:
                nxt = None
                move = policy.choose(view)
                if rng is not None and len(view.legal) > 1 and obvious(view) is None and rng.random() < self.explore:
                    move = rng.choice(self._cands.candidates(view))
            own.append(move)
            world.apply(move)
        assert world.result is not None
        return float(world.result.points[seat]), own


def replica(state: GameState) -> GameState:
    """A new state at the same point of the same hand: the deck dealt again and every action applied again.

    Exact (the engine is a function of its deck, dealer, wind and actions) and independent of ``state``.
    """
    world = GameState(state.rules, state.deck, dealer=state.dealer, wind=state.wind)
    for a in state.actions:
        world.apply(a)
    return world


__all__ = ["ORACLE", "ORACLE_REFUSED", "ORACLE_REFUSED_EN", "ORACLE_REFUSED_ZH", "OracleBot", "replica"]
