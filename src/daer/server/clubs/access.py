"""Who asks, and what their role in a club lets them do: checked on every request (docs/clubs.md, "Roles").

:meth:`Clubs.member` is the one gate of every club endpoint: the asking player (the cookie), the club (by its
number), the player's role in it, and the answer to give instead when the role is short of what is needed —
``401 no_player``, ``404 no_club``, ``403 banned``, ``403 not_member``, ``403 not_admin``, ``403 not_owner``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from daer.server.players.identity import Players, err
from daer.store.clubs import RANK, ClubRow, ClubStore
from daer.store.players import PlayerRow

if TYPE_CHECKING:
    from daer.store import Store

NUMBER_LEN = 6
"""Digits of a club number."""


@dataclass(frozen=True, slots=True)
class Asked:
    """A request that passed the gate: who asks, the club, their role."""

    player: PlayerRow
    club: ClubRow
    role: str


NEED_ZH = {"member": "你不是这个亲友圈的成员", "admin": "您不是群主或管理员", "owner": "只有群主可以这样做"}
NEED_EN = {"member": "you are not a member of this club", "admin": "only the owner or an admin may do this",
           "owner": "only the owner may do this"}


def path_int(request: Request, name: str) -> int | None:
    """A path parameter that must be a (bounded) non-negative integer; None otherwise."""
    raw = str(request.path_params.get(name, ""))
    return int(raw) if raw.isdigit() and len(raw) <= 12 else None


def with_cookie(cookie: Response, data: dict[str, Any], status: int = 200) -> JSONResponse:
    """An answer carrying the cookie ``cookie`` was given (a player made by this request)."""
    res = JSONResponse(data, status_code=status)
    res.raw_headers.extend((k, v) for k, v in cookie.raw_headers if k == b"set-cookie")
    return res


class Clubs:
    """The clubs of a server: ``Clubs(store_of, players)``."""

    def __init__(self, store_of: Callable[[], Store], players: Players) -> None:
        self.store_of = store_of
        self.players = players
        self._stores: dict[int, ClubStore] = {}

    @property
    def db(self) -> ClubStore:
        """The club tables of the server's store."""
        store = self.store_of()
        got = self._stores.get(id(store))
        if got is None:
            got = self._stores[id(store)] = ClubStore(store.engine)
        return got

    def club(self, number: str) -> ClubRow | None:
        """A live club by its number (None for anything that is not a live club's number)."""
        if len(number) != NUMBER_LEN or not number.isdigit():
            return None
        return self.db.by_number(number)

    def acting(self, request: Request, at_least: str) -> Asked | JSONResponse:
        """The gate of a change: the ``club_act`` rate of the address first, then :meth:`member`."""
        refused = self.players.limits.check("club_act", request)
        return refused if refused is not None else self.member(request, at_least)

    def member(self, request: Request, at_least: str = "member") -> Asked | JSONResponse:
        """The gate: the asking player's role in the club ``{n}`` of the path, if it is ``at_least`` (``member``,
        ``admin`` or ``owner``); else the answer to give (the module's docstring)."""
        player = self.players.asking(request, self.players.limits)
        if isinstance(player, JSONResponse):
            return player
        club = self.club(str(request.path_params.get("n", "")))
        if club is None:
            return err(404, "no_club", "没有这个亲友圈（或已解散）", "no such club (or it was dissolved)")
        role = self.db.role_of(club.id, player.id)
        if role is None:
            if self.db.banned(club.id, player.id):
                return err(403, "banned", "你已被移出并禁止加入这个亲友圈", "you are banned from this club")
            return err(403, "not_member", NEED_ZH["member"], NEED_EN["member"])
        if RANK[role] < RANK[at_least]:
            return err(403, f"not_{at_least}", NEED_ZH[at_least], NEED_EN[at_least])
        return Asked(player, club, role)
