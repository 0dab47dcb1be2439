"""Orphans (free cards that can share no 列 with the other free cards), written out for speed, are those of the
definition: a single card none of whose chi pairs the other free cards supply.  And a complete hand has none."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from daer.cards import N_KINDS
from daer.engine.claims import CHI_PAIRS, _free_pair, orphans
from daer.hands.samples import random_complete


def orphans_by_definition(hand: list[int]) -> list[int]:
    return [x for x in range(N_KINDS)
            if hand[x] == 1 and not any(_free_pair(hand, x, a, b) for (a, b), _ in CHI_PAIRS[x])]


@given(st.lists(st.integers(0, 4), min_size=N_KINDS, max_size=N_KINDS))
def test_orphans_are_the_single_cards_without_a_free_pair(hand: list[int]) -> None:
    assert orphans(hand) == orphans_by_definition(hand)


def test_a_complete_hand_has_no_orphans() -> None:
    rng = random.Random(4)
    for _ in range(300):
        s = random_complete(rng)
        hand = list(s.hand)
        if s.win is not None:  # the winning card completes it
            hand[s.win] += 1
        assert orphans(hand) == []
