"""Helpers for scripted engine tests: build a deck from the hands and stock a test wants."""

from __future__ import annotations

from daer.cards import N_CARDS, kind_of, parse_kinds
from daer.rules.model import Ruleset
from daer.scoring import seats_of


def make_deck(rules: Ruleset, *, dealer: int = 0, hands: dict[int, str], stock: str = "",
              bottom: str | None = None) -> list[int]:
    """A deck dealing ``hands`` (seat -> cards, complete) with ``stock`` on top of the stock.

    The rest of the stock is filled with the unused cards in id order, except that
    ``bottom`` (default: the first black unused card) is put last, so the shown
    bottom card is known.
    """
    pool = list(range(N_CARDS))

    def take(kind: int) -> int:
        for cid in pool:
            if kind_of(cid) == kind:
                pool.remove(cid)
                return cid
        raise ValueError(f"no card of kind {kind} left")

    players, _ = seats_of(rules, dealer)
    deck: list[int] = []
    for seat in players:
        cards = [take(k) for k in parse_kinds(hands[seat])]
        want = rules.table.dealer_cards if seat == dealer else rules.table.other_cards
        assert len(cards) == want, (seat, len(cards), want)
        deck += cards
    top = [take(k) for k in parse_kinds(stock)]
    if bottom is not None:
        last = take(parse_kinds(bottom)[0])
    else:
        last = next(c for c in pool if kind_of(c) % 10 + 1 not in (2, 7, 10))
        pool.remove(last)
    return deck + top + pool + [last]
