"""The 叫牌 hint of a seat's update (which cards would win now), remembered between updates.

A seat's waits depend only on the ruleset's 胡 table and win shape (its :func:`~daer.hands.evaluate.evaluator_for`),
its concealed cards and its own melds, which change at most once per action of that seat, while the seat's
update is rebuilt on every step of the table (each discard, each claim window): the hint is looked up, not
searched again (it was ~5% of the server's CPU per action, docs/benchmarks.md "Measuring issue 12's targets").
The table holds only ints, strings and tuples (the collector stops tracking them), in two generations of at most
:data:`LIMIT` entries and :data:`AGE` seconds: the current one, and the one before it, whose entries move back to
the current one when asked for; when the current one is full or old, it becomes the one before (the older one is
dropped).  So what is in use stays, the table never holds more than twice :data:`LIMIT`, and what a quiet server
holds follows the hands of the last few minutes: it reaches its size in minutes, not in the hour a soak runs.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from daer.cards import N_KINDS, kind_of
from daer.engine.views import ShownMeld, View
from daer.hands import Meld, MeldKind, waits
from daer.hands.evaluate import evaluator_for
from daer.rules.model import Ruleset

Hint = tuple[tuple[int, int], ...]
"""(kind, 胡) of every card that would win now, at least the ruleset's minimum 胡."""
LIMIT = 20_000
"""Entries of a generation (a few hundred bytes each; every seat of 2,000 tables fits in one).  Before, one table
of up to 100,000 entries was emptied only when full: at a soak's pace it took hours to fill, and its tens of MiB
were a steady part of the workers' memory growth (docs/benchmarks.md, "Chaos soak")."""

AGE = 300.0
"""Seconds a generation takes new entries before it becomes the one before.  Before, a generation ended only when
full: at a chaos soak's pace (100 tables on two workers) the first one filled after ~27 minutes and the second
after ~55, so the table's few MiB grew through a whole hour and read as a leak (docs/benchmarks.md)."""

Key = tuple[int, int, bytes]
"""The evaluator's id, the minimum 胡, and the seat's concealed counts then its own melds as bytes (:func:`_packed`).
As tuples of ints the same key took ~600 bytes an entry with its hint, so the two generations below could hold
~24 MiB (measured: 20,014 entries made by 1,601 heuristic hands)."""
_KIND = {k.value: i for i, k in enumerate(MeldKind)}
_known: dict[Key, Hint] = {}
_older: dict[Key, Hint] = {}
_clock: Callable[[], float] = time.monotonic
_born: list[float] = [0.0]
"""When the current generation took its first entry (a list: changed in place, not rebound)."""


def waits_hint(rules: Ruleset, view: View) -> Hint:
    """叫牌 hint for the seat of ``view`` holding one card short of a complete hand (none while it must discard,
    for a spectator, or once the hand is over)."""
    if view.seat is None or view.phase == "over" or not view.hand or view.actor == view.seat:
        return ()
    counts = [0] * N_KINDS
    for cid in view.hand:
        counts[kind_of(cid)] += 1
    own = view.melds[view.seat]
    # evaluators are kept for good (daer.hands.evaluate): an evaluator's id is never reused
    key = (id(evaluator_for(rules)), rules.win.min_hu, _packed(counts, own))
    hit = _known.get(key)
    if hit is not None:
        return hit
    hit = _older.get(key)
    if hit is not None:
        _remember(key, hit)
        return hit
    try:
        found = waits(rules, tuple(counts), tuple(Meld(MeldKind(m.kind), m.kinds) for m in own))
    except ValueError:
        found = []
    hint = tuple((w.kind, w.hu) for w in found if w.hu >= rules.win.min_hu)
    _remember(key, hint)
    return hint


def _packed(counts: list[int], own: tuple[ShownMeld, ...]) -> bytes:
    """The counts (one byte a kind, fixed length), then each meld as its kind's index, its length and its kinds:
    two hands and meld lists pack alike only if they are alike."""
    out = bytearray(counts)
    for m in own:
        out += bytes((_KIND.get(m.kind, 255), len(m.kinds), *m.kinds))
    return bytes(out)


def _remember(key: Key, hint: Hint) -> None:
    global _known, _older  # the two generations are this module's state
    now = _clock()
    if not _known:
        _born[0] = now
    elif len(_known) >= LIMIT or now - _born[0] >= AGE:
        _older, _known = _known, {}
        _born[0] = now
    _known[key] = hint


def forget() -> None:
    """Empty both generations (tests)."""
    _known.clear()
    _older.clear()
