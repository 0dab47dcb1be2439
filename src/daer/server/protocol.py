"""The WebSocket protocol: typed messages (msgspec), tagged by ``t``.  Described in ``docs/protocol.md``.

The transport only checks the shape of a message; whether an action is allowed is the engine's call.
The messages are ``gc=False`` structs (frozen, and nothing refers back to one: no reference cycle), so the
collector does not track the updates the server builds on every step (issue 12, fewer tracked objects).
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from daer.engine.actions import Action
from daer.engine.events import Event
from daer.engine.fairness import Fairness
from daer.engine.views import View

MAX_MESSAGE = 4096
"""Largest client message accepted, in bytes."""
RECONNECT = 4001
"""WebSocket close code: this server no longer serves the room (it moved to another worker, or this one is
shutting down); reconnect (through the balancer) and resume with ``hello`` at the last version seen."""
MAX_ID = 64
"""Longest client id and token (one limit on every database: the id column is 64 wide)."""

Id = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ID)]
Code = Annotated[str, msgspec.Meta(min_length=1, max_length=16)]
Token = Annotated[str, msgspec.Meta(max_length=MAX_ID)]
Version = Annotated[int, msgspec.Meta(ge=0, le=2**53)]
Private = Annotated[int, msgspec.Meta(ge=0, le=1024)]
CommandName = Annotated[str, msgspec.Meta(max_length=16)]
Entropy = Annotated[str, msgspec.Meta(max_length=64)]
WatchName = Annotated[str, msgspec.Meta(max_length=24)]


class _Msg(msgspec.Struct, frozen=True, kw_only=True, tag_field="t", forbid_unknown_fields=True, gc=False):
    pass


# -- client to server ---------------------------------------------------------------------------
class Hello(_Msg, frozen=True, tag="hello"):
    """First message: which room, the seat's secret token (none: spectator), the last version seen."""

    room: Code
    token: Token | None = None
    v: Version | None = None
    p: Private | None = None
    """The seat's own private steps seen at version ``v`` (``update.p``; omitted: all of them)."""
    name: WatchName = ""
    """A spectator's name, shown to the table (a seat's name is its seat's)."""


class Act(_Msg, frozen=True, tag="act"):
    """A game action (one of ``view.legal``) made against version ``v``."""

    id: Id
    v: Version
    action: Action


class Command(_Msg, frozen=True, tag="cmd"):
    """A room command: ``start`` (host), ``next`` (ready for the next hand), ``resume`` (end 托管),
    ``leave``, ``dissolve`` (the host before the first deal: at once; afterwards any seat: proposes a vote),
    ``agree`` / ``refuse`` (answer the vote), ``watch`` / ``nowatch`` (host: allow or forbid spectators),
    ``entropy`` (only add ``entropy`` to the next deal).

    ``entropy`` (with ``start``, ``next`` or ``entropy``): up to 64 lowercase hex digits the seat mixes into
    the next hand's deal (``docs/fairness.md``); a seat's first one counts."""

    id: Id
    name: CommandName
    v: Version | None = None
    entropy: Entropy | None = None


class Sync(_Msg, frozen=True, tag="sync"):
    """Ask for what was missed since version ``v`` (None: a full state) and private step ``p`` (as in hello)."""

    v: Version | None = None
    p: Private | None = None


class Say(_Msg, frozen=True, tag="say"):
    """A quick phrase or emote (``what``: an id of ``GET /api/options``' ``phrases`` / ``emotes``), to the table."""

    id: Id
    what: CommandName


class Ping(_Msg, frozen=True, tag="ping"):
    """Keep-alive; answered by ``pong``."""


ClientMessage = Hello | Act | Command | Sync | Say | Ping
COMMANDS = ("start", "next", "resume", "leave", "dissolve", "agree", "refuse", "watch", "nowatch", "entropy")

client_decoder = msgspec.json.Decoder(ClientMessage)


# -- server to client ---------------------------------------------------------------------------
class SeatInfo(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A seat as everyone sees it."""

    seat: int
    kind: str
    """human / bot / empty"""
    name: str
    online: bool
    auto: bool
    """托管: a bot plays this seat until its player acts again."""
    score: int


class Payment(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """Who pays whom at the end of a hand."""

    payer: int
    payee: int
    amount: int
    zh: str
    en: str


class VoteInfo(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A vote to dissolve the room (解散投票), as everyone sees it."""

    at: int
    """The version at which it was proposed (tells two votes apart)."""
    by: int
    agreed: tuple[int, ...]
    """Seats that agreed (bots and 托管 seats at once)."""
    asked: tuple[int, ...]
    """Seats still to answer: silence counts as agreeing when ``left`` reaches 0."""
    left: float
    """Seconds of the countdown left."""
    refused: int | None = None
    """The seat whose refusal ended the vote (the room plays on)."""
    passed: bool = False


class RoomInfo(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """The room around the hand: options, seats, scores, the turn deadline."""

    code: str
    status: str
    """waiting / playing / between (a hand is over, the next not started) / finished / dissolved"""
    rules: str
    overrides: dict[str, Any]
    hands: int
    hand_no: int
    timer: float
    bot: str
    host: int
    seats: tuple[SeatInfo, ...]
    deadline: float | None
    """Seconds left for this connection's seat to act (None: no timer running)."""
    ready: tuple[int, ...] = ()
    payments: tuple[Payment, ...] = ()
    hand_id: int | None = None
    last_hand_id: int | None = None
    commit: str | None = None
    """Commitment (SHA-256 of the secret seed) of the hand being played, or of the next one before its deal."""
    reveal: Fairness | None = None
    """When a hand is over: its seed, the seats' entropy and the commitment, to check the deal."""
    money: bool = False
    """Money play (付钱): scores, points and amounts are 分; the page shows them as 元 (2.5 元)."""
    work: dict[str, Any] | None = None
    """When a hand is over: the settlement's working (:func:`daer.settlement_work.worked`), 胡 → 等 → amounts."""
    vote: VoteInfo | None = None
    """The last vote to dissolve the room (open, refused or passed), if any."""
    watchers: int = 0
    """How many spectators are connected now ..."""
    watching: tuple[str, ...] = ()
    """... and the names of those who gave one."""
    watch: bool = True
    """False once the host forbids watching (``nowatch``)."""
    near: tuple[tuple[int, ...], ...] = ()
    """Before the first deal: groups of seats connecting from one network (the same IPv4 address or /24, the
    same IPv6 /64); never an address."""
    pace: str = "normal"
    """节奏: the room's pace, ``fast`` / ``normal`` / ``slow`` (:data:`daer.server.safety.bounds.PACES`)."""
    hint: bool = False
    """提示: the seat to act is shown the bot's suggestion (``update.hint``)."""


class Welcome(_Msg, frozen=True, tag="welcome"):
    """Answer to ``hello``: the seat of this connection (None: spectator)."""

    seat: int | None
    v: int


class Hint(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """提示: the bot's suggestion for the seat to act (a room with ``hint``), and why, Chinese first."""

    action: Action
    """One of the seat's ``view.legal``."""
    zh: str
    en: str


class Update(_Msg, frozen=True, tag="update"):
    """The state at version ``v`` for this connection: new events since ``since``, the view, the room.

    ``full`` is true when ``events`` is the whole log of the hand (the client missed too much).
    """

    v: int
    since: int | None
    full: bool
    events: tuple[Event, ...]
    view: View | None
    room: RoomInfo
    waits: tuple[tuple[int, int], ...] = ()
    """叫牌 hint for this seat: (kind, 胡) of every card that would win now (at least the minimum 胡)."""
    p: int = 0
    """This seat's own private steps (its claim choices) at version ``v`` so far: they do not change ``v``."""
    hint: Hint | msgspec.UnsetType = msgspec.UNSET
    """提示 (rooms with ``hint`` only): the suggestion for this seat while it has something to decide; never sent to
    another seat or a spectator.  Left out of the frame otherwise (unset)."""


class Ack(_Msg, frozen=True, tag="ack"):
    """Action or command ``id`` was accepted at version ``v``."""

    id: str
    v: int


class Error(_Msg, frozen=True, tag="error"):
    """A refused message: ``code``, then the reason in Chinese and English; ``v`` the current version."""

    code: str
    zh: str
    en: str
    id: str | None = None
    v: int | None = None


class Said(_Msg, frozen=True, tag="said"):
    """A seat's quick phrase or emote, to every seat and spectator of the room (not stored, no version)."""

    seat: int
    what: str


class Pong(_Msg, frozen=True, tag="pong"):
    """Answer to ``ping``."""


class Closed(_Msg, frozen=True, tag="closed"):
    """The room is closed (dissolved by its host, or finished)."""

    zh: str
    en: str


ServerMessage = Welcome | Update | Ack | Error | Said | Pong | Closed

encoder = msgspec.json.Encoder()


def encode(msg: ServerMessage) -> str:
    """A server message as JSON text."""
    return encoder.encode(msg).decode()


def encode_frame(msg: ServerMessage) -> bytes:
    """A server message as the UTF-8 bytes of its JSON text: what a text frame carries, so an update goes from the
    encoder to the socket without being decoded into a ``str`` and encoded back (two copies of ~1 kB a frame)."""
    return encoder.encode(msg)


def error(code: str, zh: str, en: str, *, id: str | None = None, v: int | None = None) -> Error:
    """An error message."""
    return Error(code=code, zh=zh, en=en, id=id, v=v)
