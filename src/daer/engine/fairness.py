"""A deal players can verify (公平发牌, commit–reveal): the deck as a function of a server seed and seat entropy.

Before a hand is dealt the server draws a secret *seed* (32 bytes from :mod:`secrets`, written as 64
lowercase hex digits), stores it, and publishes its *commitment* ``SHA-256(seed bytes)``.  Each seat may
then add *entropy* of its own (up to 64 lowercase hex digits; the page sends random bytes).  The deck is

1. ``key = SHA-256(ASCII "daer-deal-v1|" + seed + "|" + e0 + "|" + e1 + ... )`` with one ``e`` per seat
   in seat order (an empty string for a seat that sent none);
2. a stream of 32-bit words: block ``k`` = ``SHA-256(key + k as 4 bytes big-endian)`` for k = 0, 1, ...,
   each block read as 8 big-endian unsigned 32-bit words;
3. a Fisher–Yates shuffle of the card ids ``0..79``: for ``i`` from 79 down to 1, ``m = i + 1``, take
   the next word ``w`` that is below ``floor(2^32 / m) * m`` (rejection sampling: no bias), swap
   ``deck[i]`` with ``deck[w mod m]``.

After the hand the seed and the entropies are revealed; anyone can check that the seed hashes to the
commitment and that the deck follows.  ``docs/fairness.md`` explains it for players; ``web/fairness.js``
is the same function in the browser.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterator, Sequence

import msgspec

from daer.cards import N_CARDS

SCHEME = "daer-deal-v1"
"""Name of the derivation above (written into records, so a later scheme can coexist)."""
MAX_ENTROPY = 64
"""Longest entropy a seat may add: 64 lowercase hex digits (32 bytes)."""
_SEED = re.compile(r"[0-9a-f]{64}")
_ENTROPY = re.compile(r"[0-9a-f]{1,64}")


class Fairness(msgspec.Struct, kw_only=True, frozen=True):
    """The commit–reveal data of one hand (revealed in its record after the hand)."""

    scheme: str = SCHEME
    commitment: str
    """SHA-256 of the seed's 32 bytes, hex; published before the deal."""
    seed: str
    """The server's secret seed, 64 hex digits."""
    entropy: tuple[str, ...] = ()
    """What each seat added, in seat order ("" for none)."""


def new_seed() -> str:
    """A fresh secret seed from :mod:`secrets`."""
    return secrets.token_hex(32)


def commitment(seed: str) -> str:
    """The commitment published before the deal: SHA-256 of the seed's bytes, hex."""
    return hashlib.sha256(bytes.fromhex(seed)).hexdigest()


def is_seed(text: str) -> bool:
    """A well-formed seed: exactly 64 lowercase hex digits."""
    return _SEED.fullmatch(text) is not None


def is_entropy(text: str) -> bool:
    """Well-formed seat entropy: 1 to 64 lowercase hex digits."""
    return _ENTROPY.fullmatch(text) is not None


def deal_key(seed: str, entropy: Sequence[str]) -> bytes:
    """The 32-byte key the shuffle is driven by."""
    return hashlib.sha256("|".join([SCHEME, seed, *entropy]).encode("ascii")).digest()


def _words(key: bytes) -> Iterator[int]:
    counter = 0
    while True:
        block = hashlib.sha256(key + counter.to_bytes(4, "big")).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i:i + 4], "big")
        counter += 1


def derive_deck(seed: str, entropy: Sequence[str], n: int = N_CARDS) -> list[int]:
    """The deck (card ids in dealing order) of a seed and the seats' entropy."""
    words = _words(deal_key(seed, entropy))
    deck = list(range(n))
    for i in range(n - 1, 0, -1):
        m = i + 1
        limit = (1 << 32) // m * m
        w = next(words)
        while w >= limit:
            w = next(words)
        j = w % m
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def check(fair: Fairness, deck: Sequence[int]) -> tuple[str, str] | None:
    """Why ``deck`` is not the verifiable deal ``fair`` describes (Chinese, English), or None when it is."""
    if fair.scheme != SCHEME:
        return f"未知的发牌方案 {fair.scheme}", f"unknown scheme {fair.scheme!r}"
    if not is_seed(fair.seed):
        return "种子格式不对（须是 64 位十六进制）", "the seed is not 64 lowercase hex digits"
    if any(e and not is_entropy(e) for e in fair.entropy):
        return "玩家随机数格式不对", "a seat's entropy is not 1-64 lowercase hex digits"
    if commitment(fair.seed) != fair.commitment:
        return ("种子与发牌前公布的承诺不符：服务器换过种子",
                "the seed does not hash to the commitment published before the deal")
    if list(deck) != derive_deck(fair.seed, fair.entropy, len(deck)):
        return ("牌堆不是由种子和玩家随机数算出的：牌被动过",
                "the deck is not the one derived from the seed and the seats' entropy")
    return None
