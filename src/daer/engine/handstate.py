"""A hand in play as the rule helpers see it: what :mod:`daer.engine.instant`, :mod:`daer.engine.penalty` and
:mod:`daer.engine.wei` read and change of a :class:`daer.engine.state.GameState`.

The helpers are imported by the state, so they never import it: they are typed against this protocol, which
the state satisfies (mypy checks it at every call that passes ``self``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from daer.hands.groups import Group

if TYPE_CHECKING:
    from daer.engine.actions import Action
    from daer.engine.events import Event
    from daer.engine.views import Offer, Phase, Result, TableMeld
    from daer.hands import Arrival, Meld, MeldKind
    from daer.rules.model import Ruleset
    from daer.scoring import Settlement

Instant = tuple[str, int, tuple[Group, ...]]
"""(name 3垅/5坎, 胡, scored 列) of :func:`daer.hands.instant_win`."""


class HandState(Protocol):
    """The state of one hand (一局) that the rule helpers share with the turn loop."""

    rules: Ruleset
    dealer: int
    wind: int | None
    hold: bool
    players: tuple[int, ...]
    counts: list[list[int]]
    melds: list[list[TableMeld]]
    _meld_objs: list[tuple[Meld, ...]]
    quads: list[int]
    unmade: list[set[str]]
    passed_peng: list[set[int]]
    forced: str | None
    log: list[Event]
    phase: Phase
    actor: int | None
    offer: Offer | None
    options: dict[int, list[Action]]
    choices: dict[int, Action]
    result: Result | None
    instants: dict[int, Instant]
    _hu_memo: list[dict[tuple[int | None, Arrival | None], int | None]]

    def start_play(self) -> None: ...

    def finish(self, result: Result, st: Settlement) -> None: ...

    def can_hu(self, seat: int, kind: int | None, arrival: Arrival | None = None) -> int | None: ...

    def _take_kind(self, seat: int, kind: int) -> int: ...

    def _add_meld(self, seat: int, kind: MeldKind, ids: tuple[int, ...]) -> None: ...

    def _after_claim_or_deal(self, seat: int) -> None: ...
