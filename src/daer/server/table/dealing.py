"""The next hand's verifiable deal (公平发牌) as a room holds it: a secret seed, committed to, and seat entropy.

The seed is drawn (from :mod:`secrets`) and stored when the previous hand ends (or the room is made);
only its commitment is published until the hand is over.  The scheme is :mod:`daer.engine.fairness`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import msgspec

from daer.engine.fairness import Fairness, commitment, derive_deck, is_entropy, is_seed, new_seed
from daer.store import HandRow


@dataclass
class PendingDeal:
    """The seed of the hand to be dealt next and what each seat added."""

    seed: str
    entropy: list[str]

    @classmethod
    def fresh(cls, seats: int) -> PendingDeal:
        """A new secret seed, no entropy yet."""
        return cls(new_seed(), [""] * seats)

    @classmethod
    def stored(cls, seed: str | None, entropy: str | None, seats: int) -> PendingDeal | None:
        """As stored in a room row (None when there is none)."""
        if seed is None or not is_seed(seed):
            return None
        added = msgspec.json.decode(entropy, type=list[str]) if entropy else []
        added = [e if is_entropy(e) else "" for e in added[:seats]]
        return cls(seed, added + [""] * (seats - len(added)))

    @functools.cached_property
    def commitment(self) -> str:
        """SHA-256 of the seed: published before the deal (computed once: it is in every update between two
        hands, and the seed never changes)."""
        return commitment(self.seed)

    def add(self, seat: int, entropy: str) -> bool:
        """A seat's entropy, kept if it is its first; True when it was kept."""
        if not 0 <= seat < len(self.entropy) or self.entropy[seat]:
            return False
        self.entropy[seat] = entropy
        return True

    def entropy_json(self) -> str:
        """The entropies as stored."""
        return msgspec.json.encode(self.entropy).decode()

    def fairness(self) -> Fairness:
        """What the hand's record reveals."""
        return Fairness(commitment=self.commitment, seed=self.seed, entropy=tuple(self.entropy))

    def deck(self) -> list[int]:
        """The deck that follows from the seed and the entropy."""
        return derive_deck(self.seed, self.entropy)


def fairness_of(hand: HandRow) -> Fairness | None:
    """The commit–reveal data of a stored hand (None for a hand dealt before verifiable deals)."""
    if hand.seed is None or hand.commitment is None:
        return None
    entropy = msgspec.json.decode(hand.entropy, type=list[str]) if hand.entropy else []
    return Fairness(commitment=hand.commitment, seed=hand.seed, entropy=tuple(entropy))
