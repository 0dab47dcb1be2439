"""亲友圈 clubs in the store: clubs, members and their roles, bans, invites, join requests, standing tables
(templates), the rooms that belong to a club, and seat invites (docs/clubs.md).

Every secret arrives hashed (like :mod:`daer.store.players`).  Club writes are rare (a join, an invite, a
role), so each is one short SQLAlchemy Core transaction of its own.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Table, and_, delete, func, insert, select, update
from sqlalchemy.engine import Connection, Engine

from daer.store.models import (
    ClubBanTable,
    ClubInviteTable,
    ClubMemberTable,
    ClubRequestTable,
    ClubRoomTable,
    ClubSeatInviteTable,
    ClubTable,
    ClubTemplateTable,
    PlayerSeatTable,
    PlayerTable,
    RoomTable,
    SeatTable,
)

_CLUBS = cast(Table, ClubTable.__table__)
_MEMBERS = cast(Table, ClubMemberTable.__table__)
_BANS = cast(Table, ClubBanTable.__table__)
_INVITES = cast(Table, ClubInviteTable.__table__)
_REQUESTS = cast(Table, ClubRequestTable.__table__)
_TEMPLATES = cast(Table, ClubTemplateTable.__table__)
_CROOMS = cast(Table, ClubRoomTable.__table__)
_SEAT_INVITES = cast(Table, ClubSeatInviteTable.__table__)
_PLAYERS = cast(Table, PlayerTable.__table__)
_ROOMS = cast(Table, RoomTable.__table__)
_SEATS = cast(Table, SeatTable.__table__)
_PSEATS = cast(Table, PlayerSeatTable.__table__)

ROLES = ("owner", "admin", "member")
"""群主, 管理员, 成员 — strongest first."""
RANK = {"owner": 3, "admin": 2, "member": 1}


@dataclass(frozen=True, slots=True)
class ClubRow:
    """A live (not dissolved) club."""

    id: int
    number: str
    name: str
    notice: str
    config: str
    owner_id: int
    created_at: float
    member_cap: int
    min_hands: int


def _club(row: Any) -> ClubRow:
    return ClubRow(int(row.id), str(row.number), str(row.name), str(row.notice or ""), str(row.config),
                   int(row.owner_id), float(row.created_at), int(row.member_cap), int(row.min_hands))


def _standing(conn: Connection, club_id: int, player_id: int) -> str | None:
    """``already`` (a member), ``banned``, or None (free to join or ask)."""
    if conn.execute(select(_MEMBERS.c.role).where(_MEMBERS.c.club_id == club_id,
                                                  _MEMBERS.c.player_id == player_id)).first() is not None:
        return "already"
    if conn.execute(select(_BANS.c.at).where(_BANS.c.club_id == club_id,
                                             _BANS.c.player_id == player_id)).first() is not None:
        return "banned"
    return None


class ClubStore:
    """The club tables of one database (``ClubStore(store.engine)``)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # -- clubs ----------------------------------------------------------------------------------------
    def create(self, owner_id: int, name: str, notice: str, config: str, member_cap: int) -> ClubRow:
        """A new club with its owner as its first member; a fresh random 6-digit number."""
        t = time.time()
        with self.engine.begin() as conn:
            for _ in range(50):
                number = f"{secrets.randbelow(900000) + 100000}"
                if conn.execute(select(_CLUBS.c.id).where(_CLUBS.c.number == number)).first() is None:
                    break
            cid = int(conn.execute(insert(_CLUBS).values(
                number=number, name=name, notice=notice, config=config, owner_id=owner_id, created_at=t,
                member_cap=member_cap, min_hands=10).returning(_CLUBS.c.id)).scalar_one())
            conn.execute(insert(_MEMBERS).values(club_id=cid, player_id=owner_id, role="owner", joined_at=t))
        got = self.by_id(cid)
        assert got is not None
        return got

    def by_number(self, number: str) -> ClubRow | None:
        """A live club by its number."""
        with self.engine.connect() as conn:
            row = conn.execute(select(_CLUBS).where(_CLUBS.c.number == number,
                                                    _CLUBS.c.dissolved_at.is_(None))).first()
        return None if row is None else _club(row)

    def by_id(self, club_id: int) -> ClubRow | None:
        """A live club by its id."""
        with self.engine.connect() as conn:
            row = conn.execute(select(_CLUBS).where(_CLUBS.c.id == club_id, _CLUBS.c.dissolved_at.is_(None))).first()
        return None if row is None else _club(row)

    def edit(self, club_id: int, **values: Any) -> None:
        """Change a club's name, notice, config or min_hands."""
        values = {k: v for k, v in values.items() if v is not None}
        if values:
            with self.engine.begin() as conn:
                conn.execute(update(_CLUBS).where(_CLUBS.c.id == club_id).values(**values))

    def dissolve(self, club_id: int) -> None:
        """Dissolve a club: it is gone for everyone (its records stay, for its members' own 战绩)."""
        t = time.time()
        with self.engine.begin() as conn:
            conn.execute(update(_CLUBS).where(_CLUBS.c.id == club_id).values(dissolved_at=t))
            conn.execute(update(_INVITES).where(_INVITES.c.club_id == club_id, _INVITES.c.revoked_at.is_(None))
                         .values(revoked_at=t))
            conn.execute(delete(_SEAT_INVITES).where(_SEAT_INVITES.c.club_id == club_id))

    def clubs_of(self, player_id: int) -> list[dict[str, Any]]:
        """The live clubs a player belongs to, with their role, member count and members online."""
        online_since = time.time() - ONLINE_SECONDS
        with self.engine.connect() as conn:
            mine = conn.execute(select(_CLUBS.c.id, _CLUBS.c.number, _CLUBS.c.name, _MEMBERS.c.role)
                                .join(_MEMBERS, _MEMBERS.c.club_id == _CLUBS.c.id)
                                .where(_MEMBERS.c.player_id == player_id, _CLUBS.c.dissolved_at.is_(None))
                                .order_by(_MEMBERS.c.joined_at)).all()
            out = []
            for cid, number, name, role in mine:
                n = conn.execute(select(func.count()).where(_MEMBERS.c.club_id == cid)).scalar_one()
                on = conn.execute(select(func.count()).where(_MEMBERS.c.club_id == cid,
                                                             _MEMBERS.c.seen_at > online_since)).scalar_one()
                out.append({"number": str(number), "name": str(name), "role": str(role), "members": int(n),
                            "online": int(on)})
        return out

    def count_owned(self, player_id: int) -> int:
        """Live clubs a player owns (the cap of clubs per player)."""
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).where(_CLUBS.c.owner_id == player_id,
                                                               _CLUBS.c.dissolved_at.is_(None))).scalar_one())

    # -- members and roles ---------------------------------------------------------------------------
    def role_of(self, club_id: int, player_id: int) -> str | None:
        """``owner`` / ``admin`` / ``member``, or None for anyone else."""
        with self.engine.connect() as conn:
            role = conn.execute(select(_MEMBERS.c.role).where(_MEMBERS.c.club_id == club_id,
                                                              _MEMBERS.c.player_id == player_id)).scalar()
        return None if role is None else str(role)

    def banned(self, club_id: int, player_id: int) -> bool:
        """Whether a player is banned from a club."""
        with self.engine.connect() as conn:
            return conn.execute(select(_BANS.c.at).where(_BANS.c.club_id == club_id,
                                                         _BANS.c.player_id == player_id)).first() is not None

    def members(self, club_id: int) -> list[dict[str, Any]]:
        """A club's members: id, nickname, avatar, role, online; the owner first, then admins, then by joining."""
        online_since = time.time() - ONLINE_SECONDS
        with self.engine.connect() as conn:
            rows = conn.execute(select(_MEMBERS.c.player_id, _PLAYERS.c.nickname, _PLAYERS.c.avatar,
                                       _MEMBERS.c.role, _MEMBERS.c.seen_at, _MEMBERS.c.joined_at)
                                .join(_PLAYERS, _PLAYERS.c.id == _MEMBERS.c.player_id)
                                .where(_MEMBERS.c.club_id == club_id)).all()
        out = [{"id": int(r[0]), "nickname": str(r[1] or ""), "avatar": str(r[2] or ""), "role": str(r[3]),
                "online": r[4] is not None and float(r[4]) > online_since, "_joined": float(r[5])} for r in rows]
        out.sort(key=lambda m: (-RANK.get(str(m["role"]), 0), m["_joined"]))
        for m in out:
            del m["_joined"]
        return out

    def member_count(self, club_id: int, conn: Connection | None = None) -> int:
        """How many members a club has."""
        q = select(func.count()).where(_MEMBERS.c.club_id == club_id)
        if conn is not None:
            return int(conn.execute(q).scalar_one())
        with self.engine.connect() as c:
            return int(c.execute(q).scalar_one())

    def add_member(self, club_id: int, player_id: int, cap: int, conn: Connection | None = None) -> str:
        """Add a member (role ``member``): ``joined``, ``already`` (a member), ``banned`` or ``full``."""
        if conn is None:
            with self.engine.begin() as c:
                return self.add_member(club_id, player_id, cap, c)
        standing = _standing(conn, club_id, player_id)
        if standing is not None:
            return standing
        if self.member_count(club_id, conn) >= cap:
            return "full"
        conn.execute(insert(_MEMBERS).values(club_id=club_id, player_id=player_id, role="member",
                                             joined_at=time.time()))
        return "joined"

    def set_role(self, club_id: int, player_id: int, role: str) -> None:
        """Make a member an admin or a plain member again."""
        with self.engine.begin() as conn:
            conn.execute(update(_MEMBERS).where(_MEMBERS.c.club_id == club_id, _MEMBERS.c.player_id == player_id)
                         .values(role=role))

    def remove(self, club_id: int, player_id: int, *, ban_by: int | None = None) -> None:
        """A member leaves or is removed; with ``ban_by``, banned too (a ban of a non-member bans all the same)."""
        with self.engine.begin() as conn:
            conn.execute(delete(_MEMBERS).where(_MEMBERS.c.club_id == club_id, _MEMBERS.c.player_id == player_id))
            conn.execute(delete(_SEAT_INVITES).where(_SEAT_INVITES.c.club_id == club_id,
                                                     _SEAT_INVITES.c.to_id == player_id))
            if ban_by is not None and conn.execute(select(_BANS.c.at).where(
                    _BANS.c.club_id == club_id, _BANS.c.player_id == player_id)).first() is None:
                conn.execute(insert(_BANS).values(club_id=club_id, player_id=player_id, at=time.time(), by_id=ban_by))

    def unban(self, club_id: int, player_id: int) -> None:
        """Lift a ban (the player may be invited again)."""
        with self.engine.begin() as conn:
            conn.execute(delete(_BANS).where(_BANS.c.club_id == club_id, _BANS.c.player_id == player_id))

    def bans(self, club_id: int) -> list[dict[str, Any]]:
        """A club's banned players."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(_BANS.c.player_id, _PLAYERS.c.nickname, _BANS.c.at)
                                .join(_PLAYERS, _PLAYERS.c.id == _BANS.c.player_id)
                                .where(_BANS.c.club_id == club_id).order_by(_BANS.c.at)).all()
        return [{"player": int(r[0]), "nickname": str(r[1] or ""), "at": float(r[2])} for r in rows]

    def transfer(self, club_id: int, old: int, new: int) -> None:
        """The owner hands the club to a member (and becomes an admin)."""
        with self.engine.begin() as conn:
            conn.execute(update(_MEMBERS).where(_MEMBERS.c.club_id == club_id, _MEMBERS.c.player_id == new)
                         .values(role="owner"))
            conn.execute(update(_MEMBERS).where(_MEMBERS.c.club_id == club_id, _MEMBERS.c.player_id == old)
                         .values(role="admin"))
            conn.execute(update(_CLUBS).where(_CLUBS.c.id == club_id).values(owner_id=new))

    def seen(self, club_id: int, player_id: int) -> None:
        """The member's club page is open now (members online)."""
        with self.engine.begin() as conn:
            conn.execute(update(_MEMBERS).where(_MEMBERS.c.club_id == club_id, _MEMBERS.c.player_id == player_id)
                         .values(seen_at=time.time()))

    def left_everywhere(self, player_id: int) -> list[int]:
        """A deleted account leaves every club (an owner's club passes to its oldest admin, else member, else
        is dissolved); the clubs it left."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(_MEMBERS.c.club_id, _MEMBERS.c.role)
                                .where(_MEMBERS.c.player_id == player_id)).all()
        for cid, role in rows:
            if role == "owner":
                heir = self._heir(int(cid), player_id)
                if heir is None:
                    self.dissolve(int(cid))
                else:
                    self.transfer(int(cid), player_id, heir)
            self.remove(int(cid), player_id)
        return [int(r[0]) for r in rows]

    def _heir(self, club_id: int, owner: int) -> int | None:
        with self.engine.connect() as conn:
            rows = conn.execute(select(_MEMBERS.c.player_id, _MEMBERS.c.role, _MEMBERS.c.joined_at)
                                .where(_MEMBERS.c.club_id == club_id, _MEMBERS.c.player_id != owner)).all()
        if not rows:
            return None
        return int(min(rows, key=lambda r: (-RANK.get(str(r[1]), 0), float(r[2])))[0])

    # -- invites ---------------------------------------------------------------------------------------
    def new_invite(self, club_id: int, by: int, secret_hash: str, ttl: float, max_uses: int) -> int:
        """An invite link (its secret hashed); its id."""
        t = time.time()
        with self.engine.begin() as conn:
            return int(conn.execute(insert(_INVITES).values(
                club_id=club_id, secret_hash=secret_hash, created_by=by, created_at=t, expires_at=t + ttl,
                max_uses=max_uses, uses=0).returning(_INVITES.c.id)).scalar_one())

    def invites(self, club_id: int) -> list[dict[str, Any]]:
        """A club's live invites (not revoked, not expired, not used up)."""
        t = time.time()
        with self.engine.connect() as conn:
            rows = conn.execute(select(_INVITES.c.id, _INVITES.c.expires_at, _INVITES.c.max_uses, _INVITES.c.uses)
                                .where(_INVITES.c.club_id == club_id, _INVITES.c.revoked_at.is_(None),
                                       _INVITES.c.expires_at > t, _INVITES.c.uses < _INVITES.c.max_uses)
                                .order_by(_INVITES.c.id)).all()
        return [{"id": int(r[0]), "expires_at": float(r[1]), "max_uses": int(r[2]), "uses": int(r[3])} for r in rows]

    def revoke_invite(self, club_id: int, invite_id: int) -> bool:
        """Revoke an invite of this club; False when there is none."""
        with self.engine.begin() as conn:
            res = conn.execute(update(_INVITES).where(_INVITES.c.id == invite_id, _INVITES.c.club_id == club_id,
                                                      _INVITES.c.revoked_at.is_(None)).values(revoked_at=time.time()))
        return bool(res.rowcount)

    def invite_club(self, secret_hash: str) -> ClubRow | None:
        """The live club a live invite leads to (nothing is spent)."""
        t = time.time()
        with self.engine.connect() as conn:
            cid = conn.execute(select(_INVITES.c.club_id).where(
                _INVITES.c.secret_hash == secret_hash, _INVITES.c.revoked_at.is_(None), _INVITES.c.expires_at > t,
                _INVITES.c.uses < _INVITES.c.max_uses)).scalar()
        return None if cid is None else self.by_id(int(cid))

    def use_invite(self, secret_hash: str, player_id: int) -> tuple[str, ClubRow | None]:
        """Join by an invite: (``joined`` / ``already`` / ``banned`` / ``full`` / ``bad``, the club).  One use is
        spent by a join only, by a compare-and-set, so a link of N uses lets in N players at most."""
        t = time.time()
        with self.engine.begin() as conn:
            row = conn.execute(select(_INVITES.c.id, _INVITES.c.club_id, _CLUBS.c.member_cap)
                               .join(_CLUBS, _CLUBS.c.id == _INVITES.c.club_id)
                               .where(_INVITES.c.secret_hash == secret_hash, _INVITES.c.revoked_at.is_(None),
                                      _INVITES.c.expires_at > t, _INVITES.c.uses < _INVITES.c.max_uses,
                                      _CLUBS.c.dissolved_at.is_(None))).first()
            if row is None:
                return "bad", None
            iid, cid, cap = int(row[0]), int(row[1]), int(row[2])
            status = self.add_member(cid, player_id, cap, conn)
            if status == "joined":
                spent = conn.execute(update(_INVITES).where(_INVITES.c.id == iid,
                                                            _INVITES.c.uses < _INVITES.c.max_uses)
                                     .values(uses=_INVITES.c.uses + 1))
                if spent.rowcount != 1:
                    conn.rollback()
                    return "bad", None
        return status, self.by_id(cid)

    # -- join requests ---------------------------------------------------------------------------------
    def request(self, club_id: int, player_id: int) -> str:
        """Ask to join: ``pending`` (asked now or before), ``already``, ``banned``."""
        with self.engine.begin() as conn:
            standing = _standing(conn, club_id, player_id)
            if standing is not None:
                return standing
            if conn.execute(select(_REQUESTS.c.id).where(_REQUESTS.c.club_id == club_id,
                                                         _REQUESTS.c.player_id == player_id,
                                                         _REQUESTS.c.status == "pending")).first() is None:
                conn.execute(insert(_REQUESTS).values(club_id=club_id, player_id=player_id, at=time.time(),
                                                      status="pending"))
        return "pending"

    def requests(self, club_id: int) -> list[dict[str, Any]]:
        """A club's pending requests."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(_REQUESTS.c.id, _REQUESTS.c.player_id, _PLAYERS.c.nickname, _REQUESTS.c.at)
                                .join(_PLAYERS, _PLAYERS.c.id == _REQUESTS.c.player_id)
                                .where(_REQUESTS.c.club_id == club_id, _REQUESTS.c.status == "pending",
                                       _PLAYERS.c.deleted_at.is_(None))
                                .order_by(_REQUESTS.c.id)).all()
        return [{"id": int(r[0]), "player": int(r[1]), "nickname": str(r[2] or ""), "at": float(r[3])} for r in rows]

    def answer_request(self, club: ClubRow, request_id: int, approve: bool) -> tuple[str, int | None]:
        """Approve or refuse a pending request: (``joined`` / ``refused`` / ``banned`` / ``full`` / ``already``
        / ``bad``, the player)."""
        with self.engine.begin() as conn:
            pid = conn.execute(select(_REQUESTS.c.player_id).where(
                _REQUESTS.c.id == request_id, _REQUESTS.c.club_id == club.id, _REQUESTS.c.status == "pending")).scalar()
            if pid is None:
                return "bad", None
            status = self.add_member(club.id, int(pid), club.member_cap, conn) if approve else "refused"
            if status == "full":
                return status, int(pid)
            conn.execute(update(_REQUESTS).where(_REQUESTS.c.id == request_id)
                         .values(status="approved" if status in ("joined", "already") else "refused"))
        return status, int(pid)

    # -- standing tables and club rooms ----------------------------------------------------------------
    def add_template(self, club_id: int, name: str, config: str) -> int:
        """A standing table's template; its id."""
        with self.engine.begin() as conn:
            return int(conn.execute(insert(_TEMPLATES).values(club_id=club_id, name=name, config=config,
                                                              created_at=time.time())
                                    .returning(_TEMPLATES.c.id)).scalar_one())

    def templates(self, club_id: int) -> list[dict[str, Any]]:
        """A club's live templates: id, name, config (JSON text), room (its open table's code)."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(_TEMPLATES.c.id, _TEMPLATES.c.name, _TEMPLATES.c.config,
                                       _TEMPLATES.c.room_code)
                                .where(_TEMPLATES.c.club_id == club_id, _TEMPLATES.c.deleted_at.is_(None))
                                .order_by(_TEMPLATES.c.id)).all()
        return [{"id": int(r[0]), "name": str(r[1]), "config": str(r[2]), "room": r[3]} for r in rows]

    def count_templates(self, club_id: int) -> int:
        """Live templates of a club."""
        return len(self.templates(club_id))

    def delete_template(self, club_id: int, template_id: int) -> bool:
        """Retire a template (its open table plays on; no next one opens)."""
        with self.engine.begin() as conn:
            res = conn.execute(update(_TEMPLATES).where(_TEMPLATES.c.id == template_id,
                                                        _TEMPLATES.c.club_id == club_id,
                                                        _TEMPLATES.c.deleted_at.is_(None))
                               .values(deleted_at=time.time()))
        return bool(res.rowcount)

    def open_table(self, template_id: int, expected: str | None, code: str) -> bool:
        """Make ``code`` the template's open table if its open table is still ``expected`` (a compare-and-set:
        two workers noticing the same finished match open one next table, not two)."""
        cond = [_TEMPLATES.c.id == template_id, _TEMPLATES.c.deleted_at.is_(None)]
        cond.append(_TEMPLATES.c.room_code.is_(None) if expected is None else _TEMPLATES.c.room_code == expected)
        with self.engine.begin() as conn:
            return bool(conn.execute(update(_TEMPLATES).where(and_(*cond)).values(room_code=code)).rowcount)

    def add_room(self, code: str, club_id: int, template_id: int | None, opened_by: int | None) -> None:
        """A room now belongs to a club."""
        with self.engine.begin() as conn:
            conn.execute(insert(_CROOMS).values(room_code=code, club_id=club_id, template_id=template_id,
                                                opened_by=opened_by, opened_at=time.time()))

    def club_of_room(self, code: str) -> tuple[int, int | None] | None:
        """(club id, template id) of a club's room; None for a room of no club."""
        with self.engine.connect() as conn:
            row = conn.execute(select(_CROOMS.c.club_id, _CROOMS.c.template_id)
                               .where(_CROOMS.c.room_code == code)).first()
        return None if row is None else (int(row[0]), None if row[1] is None else int(row[1]))

    def rooms_of(self, club_id: int, statuses: tuple[str, ...] = ("waiting", "playing", "between")) -> list[str]:
        """The codes of a club's live rooms, oldest first."""
        rooms = _ROOMS
        with self.engine.connect() as conn:
            rows = conn.execute(select(_CROOMS.c.room_code).join(rooms, rooms.c.code == _CROOMS.c.room_code)
                                .where(_CROOMS.c.club_id == club_id, rooms.c.status.in_(statuses))
                                .order_by(_CROOMS.c.opened_at)).all()
        return [str(r[0]) for r in rows]

    # -- seat invites ------------------------------------------------------------------------------------
    def invite_to_seat(self, club_id: int, room: str, from_id: int, to_id: int) -> None:
        """A member invites another to sit at a club table (an older invite to the same table is replaced)."""
        with self.engine.begin() as conn:
            conn.execute(delete(_SEAT_INVITES).where(_SEAT_INVITES.c.to_id == to_id,
                                                     _SEAT_INVITES.c.room_code == room))
            conn.execute(insert(_SEAT_INVITES).values(club_id=club_id, room_code=room, from_id=from_id, to_id=to_id,
                                                      at=time.time()))

    def drop_seat_invites(self, club_id: int, player_id: int, room: str) -> None:
        """A player sat down at a table: their invites to it are spent."""
        with self.engine.begin() as conn:
            conn.execute(delete(_SEAT_INVITES).where(_SEAT_INVITES.c.club_id == club_id,
                                                     _SEAT_INVITES.c.to_id == player_id,
                                                     _SEAT_INVITES.c.room_code == room))

    def seat_invites(self, club_id: int, player_id: int) -> list[dict[str, Any]]:
        """The seat invites a player has in a club (the last hour's), newest first."""
        since = time.time() - 3600
        with self.engine.connect() as conn:
            rows = conn.execute(select(_SEAT_INVITES.c.id, _SEAT_INVITES.c.room_code, _PLAYERS.c.nickname)
                                .join(_PLAYERS, _PLAYERS.c.id == _SEAT_INVITES.c.from_id)
                                .where(_SEAT_INVITES.c.club_id == club_id, _SEAT_INVITES.c.to_id == player_id,
                                       _SEAT_INVITES.c.at > since)
                                .order_by(_SEAT_INVITES.c.id.desc())).all()
        return [{"id": int(r[0]), "room": str(r[1]), "from": str(r[2] or "")} for r in rows]


ONLINE_SECONDS = 75.0
"""A member whose club page said it was open within this many seconds counts as online."""


def tables_view(engine: Engine, codes: list[str]) -> list[dict[str, Any]]:
    """The rooms ``codes`` as a club page lists them (status, rules, hands, seats with their players), in the
    order given; a code of no room is left out.  Three reads, whatever the number of rooms."""
    rooms, seats, pseats = _ROOMS, _SEATS, _PSEATS
    if not codes:
        return []
    with engine.connect() as conn:
        rrows = {str(r[0]): r for r in conn.execute(select(rooms.c.code, rooms.c.status, rooms.c.config,
                                                           rooms.c.hands_played)
                                                    .where(rooms.c.code.in_(codes))).all()}
        srows = conn.execute(select(seats.c.room_code, seats.c.seat, seats.c.kind, seats.c.name)
                             .where(seats.c.room_code.in_(codes)).order_by(seats.c.room_code, seats.c.seat)).all()
        latest = conn.execute(select(pseats.c.room_code, pseats.c.seat, pseats.c.player_id)
                              .where(pseats.c.room_code.in_(codes)).order_by(pseats.c.id)).all()
    who = {(str(c), int(s)): int(p) for c, s, p in latest}  # the newest row of a seat wins
    by_room: dict[str, list[dict[str, Any]]] = {}
    for code, seat, kind, name in srows:
        by_room.setdefault(str(code), []).append(
            {"seat": int(seat), "kind": str(kind), "name": str(name),
             "player": who.get((str(code), int(seat))) if kind == "human" else None})
    return [{"code": c, "status": str(rrows[c][1]), "config": str(rrows[c][2]), "hands_played": int(rrows[c][3]),
             "seats": by_room.get(c, [])} for c in codes if c in rrows]
