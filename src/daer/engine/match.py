"""A match (一场): several hands with running scores and the deal passing on.

How the deal moves is an engine option, not a rule of a town: the texts differ
(隆昌 keeps the dealer while he wins; 古蔺 rotates six times), so
:class:`DealerRule` names the choices and ``winner`` is the default — the winner
deals next and 黄牌 keeps the dealer.
"""

from __future__ import annotations

from enum import StrEnum

from daer.engine.record import new_hand
from daer.engine.state import GameState
from daer.rules.model import Ruleset


class DealerRule(StrEnum):
    """Who deals the next hand."""

    WINNER = "winner"
    """The winner deals next; 黄牌 keeps the dealer (赢家坐庄)."""
    ROTATE = "rotate"
    """The deal passes to the next seat after every hand (轮庄)."""
    KEEP_WHILE_WINNING = "keep"
    """The dealer keeps the deal while he wins, and on 黄牌; another's win passes it to the next seat
    (稳庄, 隆昌: 「黄了…庄家稳庄」)."""


def next_dealer(rule: DealerRule, dealer: int, winner: int | None, seats: int) -> int:
    """The dealer of the next hand."""
    if rule is DealerRule.WINNER:
        return dealer if winner is None else winner
    if rule is DealerRule.KEEP_WHILE_WINNING and winner in (dealer, None):
        return dealer
    return (dealer + 1) % seats


class Match:
    """Hands one after another with running scores per seat."""

    def __init__(self, rules: Ruleset, *, dealer: int = 0, dealer_rule: DealerRule | None = None,
                 seed: int | str | None = None) -> None:
        self.rules = rules
        self.dealer = dealer
        self.dealer_rule = DealerRule(rules.table.dealer_rule) if dealer_rule is None else dealer_rule
        """Who deals next; by default the ruleset's ``table.dealer_rule``."""
        self.seed = seed
        self.scores = [0] * rules.table.seats
        self.hands: list[GameState] = []
        self.turns = 0
        """Dealer turns completed (a kept deal is one turn)."""

    @property
    def wind(self) -> int | None:
        """The 圈风 card of the coming hand (``table.winds``), or None."""
        winds = self.rules.table.winds
        if not winds:
            return None
        return winds[(self.turns // max(1, self.rules.table.wind_turns)) % len(winds)]

    @property
    def over(self) -> bool:
        """True when the ruleset's ``table.match_hands`` dealer turns are played (古蔺: 一圈, six)."""
        return 0 < self.rules.table.match_hands <= self.turns

    def deal(self) -> GameState:
        """Deal the next hand (seeded as ``f"{seed}:{n}"`` when the match has a seed)."""
        seed = None if self.seed is None else f"{self.seed}:{len(self.hands)}"
        state = new_hand(self.rules, seed=seed, dealer=self.dealer, wind=self.wind)
        self.hands.append(state)
        return state

    def finish(self, state: GameState) -> None:
        """Book a finished hand: add its points and move the deal."""
        assert state.result is not None
        for seat, p in enumerate(state.result.points):
            self.scores[seat] += p
        before = self.dealer
        self.dealer = next_dealer(self.dealer_rule, self.dealer, state.result.winner, self.rules.table.seats)
        if self.dealer != before or self.dealer_rule is DealerRule.ROTATE:
            self.turns += 1
