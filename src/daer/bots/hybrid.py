"""The hybrid bot (混合机器人): the search bot's rollouts, guided by the learned bot's network.

At a decision with more than one candidate (the search bot's candidates: the heuristic choice first) it

1. values every candidate with the learned network (:class:`daer.bots.learned.QNet`, the shipped weights
   of the ruleset): an advantage over the heuristic choice, in points;
2. keeps the ``keep`` candidates the network values most (the heuristic choice always; ``keep=0``: all),
   so that the search's worlds go to the options worth telling apart;
3. rolls them out in sampled worlds exactly as :class:`daer.bots.search.SearchBot` does (common random
   numbers, heuristic rollouts), and plays the best of

       (sum over the worlds of the candidate's points − the heuristic choice's) + prior × (network advantage)

   — the search's mean advantage shrunk toward the network's, the network counting as ``prior`` worlds.
   With few worlds the network's judgement settles close calls the rollouts cannot; with many it fades.

Like the other bots it sees only its view; it is deterministic for a seed (the worlds come from its
generator, the network is deterministic).  ``worlds``/``seconds`` are the search bot's budget.
"""

from __future__ import annotations

from pathlib import Path

from daer.bots.base import obvious
from daer.bots.features import candidate_more
from daer.bots.learned import QNet, load_net, weights_path
from daer.bots.search import SearchBot
from daer.engine.actions import Action
from daer.engine.encoding import encode_action, encode_view, offer_kind
from daer.engine.views import View
from daer.rules.model import Ruleset

PRIOR = 16.0
"""Worlds the network's advantage counts for, by default (chosen by ``train/hybrid_eval.py``)."""
KEEP = 0
"""Candidates searched, by default (0: all of the search bot's)."""


class HybridBot(SearchBot):
    """The search bot with the learned network as a prior over its candidates (and optionally a filter)."""

    name = "hybrid"

    def __init__(
        self,
        rules: Ruleset | None = None,
        seed: int | str | None = None,
        *,
        worlds: int = 400,
        seconds: float | None = 0.8,
        width: int = 4,
        prior: float = PRIOR,
        keep: int = KEEP,
        net: QNet | None = None,
        weights: str | Path | None = None,
    ) -> None:
        super().__init__(rules, seed, worlds=worlds, seconds=seconds, width=width)
        if net is None:
            net = load_net(weights if weights is not None else weights_path(self.rules), self.rules.name)
        if net.layers[-1][0].shape[1] != 1:
            raise ValueError("the hybrid bot needs a pair network (one value a candidate)")
        self.net = net
        self.prior = prior
        self.keep = keep

    def advantages(self, view: View, cands: list[Action]) -> list[float]:
        """The network's value of each candidate minus the first's (the heuristic choice), in points."""
        k = offer_kind(view)
        more = candidate_more(view, cands, self._policy, self.net.more) if self.net.more else None
        v = self.net.candidate_values(encode_view(view), [encode_action(a, k) for a in cands], more)
        return [float(x - v[0]) for x in v]

    def choose(self, view: View) -> Action:
        """Pick an action for this view."""
        self.last_worlds = 0
        if (sure := obvious(view)) is not None:
            return sure
        cands = self.candidates(view)
        if len(cands) == 1:
            return cands[0]
        adv = self.advantages(view, cands)
        order = list(range(len(cands)))
        if 0 < self.keep < len(cands):
            rest = sorted(range(1, len(cands)), key=lambda i: (-adv[i], i))
            order = [0, *sorted(rest[: self.keep - 1])]
        totals = self._search(view, [cands[i] for i in order])
        score = [totals[r] - totals[0] + self.prior * adv[i] for r, i in enumerate(order)]
        best = max(range(len(order)), key=lambda r: (score[r], -r))
        return cands[order[best]]


__all__ = ["KEEP", "PRIOR", "HybridBot"]
