"""Views (视图): what one seat — or a spectator — may see of a hand, as frozen structs.

A view holds the seat's own concealed cards (as card ids) and everything public:
table melds, discards, the shown bottom card, the card on offer, counts — all as
*kinds*, never ids (an id would carry the deal's order).  It never holds the stock
order, another seat's concealed card, another seat's 过张 or whether another seat
has an option, in memory or in JSON: it is built from copies, not from the live
state, and its log is the seat's audience of the events (``Event.seen_by``).

Like events and actions, these structs are ``gc=False``: frozen records of ints, strings and tuples of them
can close no reference cycle, so the garbage collector does not track them (a server builds one view per
seat per step: fewer tracked objects, shorter collections; docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import msgspec

from daer.cards import COPIES
from daer.engine.actions import Action
from daer.engine.events import Event

Phase = Literal["discard", "claim", "over"]


class TableMeld(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A 列 on the table: how it came (peng/zhao/long/chi/wei), its kinds and its card ids.

    ``down``: laid face down (跑胡子's 偎 under ``play.wei_hidden``) — only its owner sees its kinds.
    """

    kind: str
    kinds: tuple[int, ...]
    ids: tuple[int, ...]
    down: bool = False

    def seen_by(self, owner: int, seat: int | None) -> ShownMeld:
        """This meld of ``owner`` as ``seat`` (None: a spectator) sees it: its kinds, no ids.

        A meld laid face down hides its kinds from every seat but its owner.
        """
        if not self.down:
            return ShownMeld(kind=self.kind, kinds=self.kinds)
        return ShownMeld(kind=self.kind, kinds=self.kinds if seat == owner else (), down=len(self.ids))


class TableSeen:
    """The table's public parts as the views show them, kept between views of one hand (a server builds a view
    for every update and every bot's move, and most of the table is the same as at the last one).

    Each part is checked against the live state at every view, never trusted: the shown melds are kept with the
    melds they were made from (frozen: compared by identity first), and the shown discards with the list they
    were made from, which the engine only appends to.
    """

    __slots__ = ("_discards", "_down", "_melds", "_shown", "_shown_discards")

    def __init__(self) -> None:
        self._melds: tuple[tuple[TableMeld, ...], ...] | None = None
        self._down = False
        self._shown: dict[tuple[bool, ...] | None, tuple[tuple[ShownMeld, ...], ...]] = {}
        self._discards: list[tuple[int, int]] | None = None
        self._shown_discards: tuple[tuple[int, int], ...] = ()

    def melds(self, melds: list[list[TableMeld]], viewer_of: Callable[[int], int | None]
              ) -> tuple[tuple[ShownMeld, ...], ...]:
        """Every seat's melds as :meth:`TableMeld.seen_by` shows them, ``viewer_of(owner)`` looking (whose eyes
        a seat sees ``owner``'s melds with).  A face-up meld looks the same to everyone; a face-down one depends
        on its viewer only through ``viewer == owner``: the melds are shown once per such pattern."""
        now = tuple(map(tuple, melds))
        if now != self._melds:
            self._melds, self._shown = now, {}
            self._down = any(m.down for ms in now for m in ms)
        viewers = [viewer_of(o) for o in range(len(now))] if self._down else None
        key = None if viewers is None else tuple([v == o for o, v in enumerate(viewers)])
        shown = self._shown.get(key)
        if shown is None:
            shown = self._shown[key] = tuple([
                tuple([m.seen_by(o, None if viewers is None else viewers[o]) for m in ms]) for o, ms in enumerate(now)])
        return shown

    def discards(self, discards: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
        """(seat, kind) of every discard (card ids as kinds), extended by the ones added since the last view."""
        shown = self._shown_discards
        if discards is not self._discards or len(shown) > len(discards):
            self._discards, shown = discards, ()
        if len(shown) < len(discards):
            shown += tuple([(s, c // COPIES) for s, c in discards[len(shown):]])  # c // COPIES: kind_of(c)
            self._shown_discards = shown
        return shown


class ShownMeld(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """A 列 on the table as a seat sees it: how it came (peng/zhao/long/chi/…) and its kinds.

    ``down`` counts the cards of a meld laid face down (0: face up); another seat's face-down meld shows
    no kinds.
    """

    kind: str
    kinds: tuple[int, ...]
    down: int = 0


class Offer(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """The card on offer (engine-internal): its id and kind, ``source`` (reveal/discard), and its seat."""

    card: int
    kind: int
    source: Literal["reveal", "discard"]
    owner: int


class ShownOffer(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """The card on offer as a seat sees it: its kind, ``source`` (reveal/discard), and the seat it came from."""

    kind: int
    source: Literal["reveal", "discard"]
    owner: int


class Result(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """How the hand ended: ``how`` is hu / instant / huang (黄牌)."""

    winner: int | None
    how: str
    hu: int
    name: str = ""
    """名堂 of an instant win (3垅 / 5坎)."""
    win_kind: int | None = None
    groups: tuple[tuple[str, tuple[int, ...], int], ...] = ()
    """The winner's 列 as (shape, kinds, 胡)."""
    red: int = 0
    flags: tuple[str, ...] = ()
    multipliers: tuple[str, ...] = ()
    factor: int = 1
    deng: int = 0
    points: tuple[int, ...] = ()
    fan: int = 0
    """番 of 名堂 / 番 play (see :class:`~daer.scoring.Settlement`)."""
    final: int = 0
    """番 play: 胡 × 2^番, capped."""
    penalties: tuple[tuple[int, str], ...] = ()
    """包牌 paid at a 黄 end: (seat, what it passed up: ``peng``, ``zhao`` or ``peng+zhao``)."""
    money: bool = False
    """Money play (付钱): ``points`` are 分 (show 元: 250 → 2.5 元)."""
    hands: tuple[tuple[int, ...], ...] = ()
    """亮牌, the end-of-hand reveal: every seat's concealed cards when the hand ended, as sorted kinds (the
    winner's included).  Public because the hand is over: a result exists only then.  Face-down melds
    (跑胡子's 偎) of other seats than the winner stay face down."""


class View(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One seat's observation (``seat`` None: a spectator, who sees no concealed card)."""

    seat: int | None
    rules: str
    dealer: int
    dijia: int | None
    players: tuple[int, ...]
    phase: Phase
    actor: int | None
    """Seat that must discard (phase discard)."""
    to_act: bool
    """True when this seat has something to decide now."""
    hand: tuple[int, ...]
    """Own concealed card ids, sorted (empty for a spectator)."""
    hand_sizes: tuple[int, ...]
    melds: tuple[tuple[ShownMeld, ...], ...]
    discards: tuple[tuple[int, int], ...]
    """(seat, kind) in order."""
    bottom: int | None
    """Kind of the shown bottom card (the stock's last while ``stock`` > 0), or of the last dead card."""
    stock: int
    """Cards left to reveal (dead cards not counted)."""
    offer: ShownOffer | None
    guo: tuple[int, ...]
    """Own 过张 kinds."""
    legal: tuple[Action, ...]
    result: Result | None
    log: tuple[Event, ...]
    """This seat's audience of the events (``Event.seen_by``)."""
    bottoms: tuple[int, ...] = ()
    """Kinds of every face-up bottom card, last one last: the dead cards (隆昌: two), else ``(bottom,)``."""
    dead: bool = False
    """The ``bottoms`` are out of play (``table.dead_cards``): never revealed, not in ``stock``."""

    def to_json(self) -> bytes:
        """The view as JSON."""
        return msgspec.json.encode(self)
