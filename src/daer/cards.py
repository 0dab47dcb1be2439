"""Cards of 大贰: kinds, physical card ids, count vectors and notation.

There are 20 *kinds* of card, four copies each (80 cards):

* kinds 0-9 are the small numbers 一 … 十 (ASCII ``x1`` … ``x10``),
* kinds 10-19 are the big numbers 壹 … 拾 (ASCII ``d1`` … ``d10``).

The numbers 2, 7 and 10 of both sizes are red (红); the rest are black (乌/黑).

A *card id* (0-79) names one physical card, ``kind * 4 + copy``; it is what a deck
deals and what redaction hides.  A *count vector* (a tuple of 20 ints) is what
hand analysis works on.

>>> parse_kinds("一二三壹贰叁")
[0, 1, 2, 10, 11, 12]
>>> format_kinds(parse_kinds("x2 x7 x10"))
'二七十'
>>> format_kinds(parse_kinds("贰柒拾"), ascii=True)
'd2 d7 d10'
>>> kind_of(4), is_red(kind_of(4))
(1, True)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

N_KINDS = 20
"""Number of card kinds (10 small + 10 big)."""
COPIES = 4
"""Copies of each kind in the deck."""
N_CARDS = N_KINDS * COPIES
"""Cards in the deck (80)."""

SMALL_CHARS = "一二三四五六七八九十"
"""Chinese numerals of the small kinds (小字)."""
BIG_CHARS = "壹贰叁肆伍陆柒捌玖拾"
"""Chinese numerals of the big kinds (大字)."""
RED_NUMBERS = frozenset({2, 7, 10})
"""Numbers whose cards are red (红) in both sizes."""

Counts = tuple[int, ...]
"""A count vector: how many cards of each of the 20 kinds."""

_CHAR_TO_KIND = {c: i for i, c in enumerate(SMALL_CHARS)} | {c: 10 + i for i, c in enumerate(BIG_CHARS)}
# Common alternative glyphs seen on printed cards and in chat.
_CHAR_TO_KIND |= {"两": 1, "貮": 11, "贰": 11, "貳": 11, "参": 12, "參": 12, "陸": 15}
_ASCII = re.compile(r"([xXdD])(10|[1-9])(?![0-9])")
_SEPARATORS = frozenset(" \t\n\r\u3000,，、;；|/")  # \u3000: the full-width space of Chinese text


class NotationError(ValueError):
    """A card string that cannot be read; ``token`` is the offending piece."""

    def __init__(self, message: str, token: str) -> None:
        super().__init__(message)
        self.token = token


class TooManyCopiesError(NotationError):
    """More than four copies of one kind were given (第五张)."""


def kind_of(card_id: int) -> int:
    """The kind (0-19) of a physical card id (0-79)."""
    return card_id // COPIES


def number_of(kind: int) -> int:
    """The printed number, 1-10, of a kind."""
    return kind % 10 + 1


def is_big(kind: int) -> bool:
    """True for the big kinds 壹 … 拾 (大字)."""
    return kind >= 10


def is_red(kind: int) -> bool:
    """True for 2, 7 and 10 of either size (红)."""
    return number_of(kind) in RED_NUMBERS


def other_size(kind: int) -> int:
    """The kind with the same number in the other size (一 ↔ 壹)."""
    return kind - 10 if kind >= 10 else kind + 10


def kind_char(kind: int) -> str:
    """The Chinese character of a kind."""
    return BIG_CHARS[kind - 10] if kind >= 10 else SMALL_CHARS[kind]


def kind_ascii(kind: int) -> str:
    """The ASCII token of a kind (``x3``, ``d10``)."""
    return f"{'d' if kind >= 10 else 'x'}{number_of(kind)}"


def parse_kinds(text: str) -> list[int]:
    """Read a card string into a list of kinds, in the order written.

    Chinese characters need no separators; ASCII tokens (``x1``…``x10``,
    ``d1``…``d10``) may be glued or separated by spaces or commas, and the two
    notations mix freely.  An unknown token raises :class:`NotationError`
    naming it.

    >>> parse_kinds("x1x2 二,d10")
    [0, 1, 1, 19]
    """
    kinds: list[int] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in _SEPARATORS:
            i += 1
            continue
        if ch in _CHAR_TO_KIND:
            kinds.append(_CHAR_TO_KIND[ch])
            i += 1
            continue
        m = _ASCII.match(text, i)
        if m:
            # "x10" must not be read as "x1" followed by "0"
            base = 10 if m.group(1) in "dD" else 0
            kinds.append(base + int(m.group(2)) - 1)
            i = m.end()
            continue
        j = i + 1
        while j < len(text) and text[j] not in _SEPARATORS and text[j] not in _CHAR_TO_KIND:
            if _ASCII.match(text, j):
                break
            j += 1
        token = text[i:j]
        raise NotationError(f"未知的牌 unknown card {token!r}", token)
    return kinds


def format_kinds(kinds: Iterable[int], *, ascii: bool = False) -> str:
    """Write kinds as a card string (Chinese by default, readable back by :func:`parse_kinds`)."""
    if ascii:
        return " ".join(kind_ascii(k) for k in kinds)
    return "".join(kind_char(k) for k in kinds)


def to_counts(kinds: Iterable[int]) -> Counts:
    """Count vector of a list of kinds (copies are not checked; see :func:`check_copies`)."""
    counts = [0] * N_KINDS
    for k in kinds:
        counts[k] += 1
    return tuple(counts)


def from_counts(counts: Sequence[int]) -> list[int]:
    """Sorted kinds of a count vector."""
    return [k for k in range(N_KINDS) for _ in range(counts[k])]


def check_copies(kinds: Iterable[int]) -> None:
    """Raise :class:`TooManyCopiesError` if any kind appears more than four times."""
    counts = to_counts(kinds)
    for k, c in enumerate(counts):
        if c > COPIES:
            raise TooManyCopiesError(
                f"{kind_char(k)} 有 {c} 张，每种牌只有 4 张 ({kind_ascii(k)} appears {c} times; only 4 exist)",
                kind_char(k),
            )


def parse_counts(text: str) -> Counts:
    """Read a card string into a count vector, refusing a fifth copy of a kind."""
    kinds = parse_kinds(text)
    check_copies(kinds)
    return to_counts(kinds)


def red_count(kinds: Iterable[int]) -> int:
    """How many red cards (2, 7, 10) are among ``kinds``."""
    return sum(1 for k in kinds if is_red(k))


def full_deck() -> list[int]:
    """All 80 card ids in order."""
    return list(range(N_CARDS))
