"""The heuristic bot's count of loose cards (no pair, neighbour, 二七十 or other-size partner), written for speed,
counts as the rule says, on random hands (so the bot's choices stay what they were)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from daer.bots.heuristic import _ALL_PARTNERS, loose
from daer.cards import N_KINDS


def loose_by_the_rule(c: list[int]) -> int:
    return sum(1 for k in range(N_KINDS) if c[k] == 1 and not any(0 < c[p] < 3 for p in _ALL_PARTNERS[k]))


@given(st.lists(st.integers(0, 4), min_size=N_KINDS, max_size=N_KINDS))
def test_loose_counts_the_cards_without_a_partner(c: list[int]) -> None:
    assert loose(c) == loose_by_the_rule(c)


def test_a_lone_card_is_loose_until_a_partner_that_is_no_kan_comes() -> None:
    for p in _ALL_PARTNERS[0]:
        for n, partnered in ((1, True), (2, True), (3, False), (4, False)):  # a 坎 (3 or 4) is no partner
            c = [0] * N_KINDS
            c[0], c[p] = 1, n
            if not partnered:
                assert loose(c) >= 1  # the card of kind 0 stays loose
            assert loose(c) == loose_by_the_rule(c)
            c[p] = 0
            assert loose(c) == 1
