"""The dissolve vote (解散投票): any seated person proposes, every other seated person agrees or refuses within
a countdown; one refusal ends it, silence counts as agreeing once the countdown is over (as in the apps), bots
and 托管 seats agree.  A plain record: :class:`daer.server.table.match.Match` decides with it, the store keeps
it (``rooms.vote``, migration 0006) so a vote survives a restart.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import msgspec

VOTE_SECONDS = 60.0
"""Default countdown of a vote (``daer serve --vote-seconds``)."""
PROPOSE_EVERY = 60.0
"""Seconds a seat must wait between two proposals of its own."""


def _wall(mono: float) -> float:
    """A ``time.monotonic()`` instant as seconds since the epoch (what is stored: a restart resets the first)."""
    return mono + time.time() - time.monotonic()


def _mono(wall: float) -> float:
    return wall - time.time() + time.monotonic()


@dataclass
class Vote:
    """One vote to dissolve the room: who proposed it, when it ends, who agreed, who refused."""

    by: int
    ends: float
    """When the countdown runs out (the caller's ``time.monotonic()`` clock)."""
    at: int
    """The room's version when it was proposed (its name on the wire: the page tells two votes apart by it)."""
    agreed: set[int] = field(default_factory=set)
    refused: int | None = None
    passed: bool = False

    @property
    def open(self) -> bool:
        return self.refused is None and not self.passed

    def asked(self, people: set[int]) -> list[int]:
        """The seats still to answer: the people (humans not in 托管) other than the proposer who have not agreed."""
        return sorted(s for s in people if s != self.by and s not in self.agreed)


def dump(vote: Vote | None, proposed: dict[int, float]) -> str:
    """The stored form of a room's vote and of when each seat last proposed (wall-clock times)."""
    doc: dict[str, Any] = {"proposed": {str(s): round(_wall(t), 3) for s, t in proposed.items()}}
    if vote is not None:
        doc.update(by=vote.by, at=vote.at, ends=round(_wall(vote.ends), 3), agreed=sorted(vote.agreed),
                   refused=vote.refused, passed=vote.passed)
    return msgspec.json.encode(doc).decode()


class _Stored(msgspec.Struct, frozen=True):
    proposed: dict[str, float] = {}
    by: int | None = None
    at: int = 0
    ends: float = 0.0
    agreed: list[int] = []
    refused: int | None = None
    passed: bool = False


def load(text: str | None) -> tuple[Vote | None, dict[int, float]]:
    """What :func:`dump` stored (times back on this process's monotonic clock); nothing for None or bad text."""
    if not text:
        return None, {}
    try:
        doc = msgspec.json.decode(text, type=_Stored)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None, {}
    proposed = {int(s): _mono(t) for s, t in doc.proposed.items() if s.isdigit()}
    if doc.by is None:
        return None, proposed
    return Vote(by=doc.by, ends=_mono(doc.ends), at=doc.at, agreed=set(doc.agreed), refused=doc.refused,
                passed=doc.passed), proposed
