"""Random complete hands and one-short positions, for tests, benchmarks and bots' self-play checks."""

from __future__ import annotations

import random
from dataclasses import dataclass

from daer.cards import N_KINDS, Counts, number_of
from daer.hands.groups import Meld, MeldKind


@dataclass(frozen=True, slots=True)
class Sample:
    """A hand as the calculator takes it: concealed counts, table melds, winning card."""

    hand: Counts
    melds: tuple[Meld, ...]
    win: int | None


def _triple_shapes(k: int) -> list[tuple[str, tuple[int, ...]]]:
    out: list[tuple[str, tuple[int, ...]]] = [("same", (k, k, k))]
    n = number_of(k)
    if n <= 8:
        out.append(("run", (k, k + 1, k + 2)))
    if n == 2:
        out.append(("run", (k, k + 5, k + 8)))
    other = k + 10 if k < 10 else k - 10
    out.append(("jiao", tuple(sorted((k, k, other)))))
    return out


def random_complete(rng: random.Random, *, quads: int | None = None, meld_rate: float = 0.3) -> Sample:
    """A random hand that is complete under the 7-列 rules (the pair iff a quad, 坎 never split)."""
    while True:
        sample = _try_complete(rng, quads, meld_rate)
        if sample is not None:
            return sample


def _try_complete(rng: random.Random, quads: int | None, meld_rate: float) -> Sample | None:
    used = [0] * N_KINDS
    n_quads = quads if quads is not None else rng.choices((0, 1, 2), (70, 25, 5))[0]
    hand = [0] * N_KINDS
    melds: list[Meld] = []
    concealed: list[tuple[str, tuple[int, ...]]] = []

    def take(cards: tuple[int, ...]) -> bool:
        extra = [0] * N_KINDS
        for c in cards:
            extra[c] += 1
        if any(used[k] + extra[k] > 4 for k in range(N_KINDS)):
            return False
        for c in cards:
            used[c] += 1
        return True

    for _ in range(n_quads):
        k = rng.randrange(N_KINDS)
        if not take((k,) * 4):
            return None
        roll = rng.random()
        if roll < meld_rate:
            melds.append(Meld(MeldKind.ZHAO, (k,) * 4))
        elif roll < 2 * meld_rate:
            melds.append(Meld(MeldKind.LONG, (k,) * 4))
        else:
            concealed.append(("long", (k,) * 4))
    if n_quads:
        k = rng.randrange(N_KINDS)
        if not take((k, k)):
            return None
        concealed.append(("pair", (k, k)))
    while len(melds) + len(concealed) < 7:
        shape, cards = rng.choice(_triple_shapes(rng.randrange(N_KINDS)))
        if not take(cards):
            continue
        if rng.random() < meld_rate:
            melds.append(Meld(MeldKind.PENG if shape == "same" else MeldKind.CHI, cards))
        else:
            concealed.append(("kan" if shape == "same" else shape, cards))
    for _, cards in concealed:
        for c in cards:
            hand[c] += 1
    # a concealed three or four of a kind must be exactly one dealt 坎 / 垅
    for k in range(N_KINDS):
        if hand[k] >= 3 and (("kan" if hand[k] == 3 else "long"), (k,) * hand[k]) not in concealed:
            return None
    win: int | None = None
    if concealed:
        _, cards = rng.choice(concealed)
        win = rng.choice(cards)
        hand[win] -= 1
        if hand[win] == 3:  # a 垅 cannot give up its card to be the winning card
            return None
    return Sample(tuple(hand), tuple(melds), win)


def random_one_short(rng: random.Random, **kw: object) -> Sample:
    """A random position one card short of complete (a complete hand minus its winning card)."""
    s = random_complete(rng, **kw)  # type: ignore[arg-type]
    return Sample(s.hand, s.melds, None)
