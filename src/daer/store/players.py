"""Players in the store: accounts, signed-in devices, single-use secrets, passkeys and the seats they took.

Every secret arrives here already hashed (SHA-256 hex, :func:`daer.server.players.identity.secret_hash`): the
store never sees a cookie, a link or a challenge in the clear.  Player writes are rare (a first seat, a
nickname, a sign-in), so each is one short SQLAlchemy Core transaction of its own, on the event loop's thread
like the room writer's (whose transactions never stay open between two calls, so the two never wait on each
other).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Table, delete, insert, select, update
from sqlalchemy.engine import Engine

from daer.store.models import (
    PasskeyTable,
    PlayerSeatTable,
    PlayerSessionTable,
    PlayerTable,
    PlayerTokenTable,
    RecordTable,
    SeatTable,
)

_PLAYERS = cast(Table, PlayerTable.__table__)
_SESSIONS = cast(Table, PlayerSessionTable.__table__)
_TOKENS = cast(Table, PlayerTokenTable.__table__)
_PASSKEYS = cast(Table, PasskeyTable.__table__)
_PSEATS = cast(Table, PlayerSeatTable.__table__)
_SEATS = cast(Table, SeatTable.__table__)
_RECORDS = cast(Table, RecordTable.__table__)

GONE = "已注销玩家"
"""The name a deleted player's seats and 战绩 rows keep (the records other players share still add up)."""


@dataclass(frozen=True, slots=True)
class PlayerRow:
    """A live (not deleted) player as a signed-in device sees it."""

    id: int
    nickname: str
    avatar: str
    created_at: float
    session_id: int
    """The device's session (sign out / sign out every other device)."""


@dataclass(frozen=True, slots=True)
class PasskeyRow:
    """A stored passkey."""

    credential_id: str
    player_id: int
    public_key: str
    sign_count: int


class PlayerStore:
    """The player tables of one database (``PlayerStore(store.engine)``)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # -- accounts and devices ------------------------------------------------------------------------
    def create(self, nickname: str, avatar: str, secret_hash: str, *, how: str = "seat") -> int:
        """A new player signed in on one device; its id."""
        t = time.time()
        with self.engine.begin() as conn:
            pid = int(conn.execute(insert(_PLAYERS).values(created_at=t, nickname=nickname, avatar=avatar)
                                   .returning(_PLAYERS.c.id)).scalar_one())
            conn.execute(insert(_SESSIONS).values(player_id=pid, secret_hash=secret_hash, created_at=t, how=how))
        return pid

    def by_session(self, secret_hash: str) -> PlayerRow | None:
        """The live player a device's secret signs in, if any."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(_PLAYERS.c.id, _PLAYERS.c.nickname, _PLAYERS.c.avatar, _PLAYERS.c.created_at, _SESSIONS.c.id)
                .join(_SESSIONS, _SESSIONS.c.player_id == _PLAYERS.c.id)
                .where(_SESSIONS.c.secret_hash == secret_hash, _PLAYERS.c.deleted_at.is_(None))).first()
        if row is None:
            return None
        return PlayerRow(int(row[0]), str(row[1] or ""), str(row[2] or ""), float(row[3]), int(row[4]))

    def by_id(self, player_id: int) -> tuple[str, str] | None:
        """A live player's (nickname, avatar) by id."""
        with self.engine.connect() as conn:
            row = conn.execute(select(_PLAYERS.c.nickname, _PLAYERS.c.avatar)
                               .where(_PLAYERS.c.id == player_id, _PLAYERS.c.deleted_at.is_(None))).first()
        return None if row is None else (str(row[0] or ""), str(row[1] or ""))

    def add_session(self, player_id: int, secret_hash: str, how: str) -> None:
        """One more signed-in device of a player."""
        with self.engine.begin() as conn:
            conn.execute(insert(_SESSIONS).values(player_id=player_id, secret_hash=secret_hash,
                                                  created_at=time.time(), how=how))

    def drop_session(self, secret_hash: str) -> None:
        """Sign one device out (nothing when it is not signed in)."""
        with self.engine.begin() as conn:
            conn.execute(delete(_SESSIONS).where(_SESSIONS.c.secret_hash == secret_hash))

    def drop_other_sessions(self, player_id: int, keep: int) -> int:
        """Sign out every device of a player but session ``keep``; how many were signed out."""
        with self.engine.begin() as conn:
            res = conn.execute(delete(_SESSIONS).where(_SESSIONS.c.player_id == player_id, _SESSIONS.c.id != keep))
        return int(res.rowcount or 0)

    def sessions(self, player_id: int) -> list[dict[str, Any]]:
        """A player's signed-in devices (when and how each signed in)."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(_SESSIONS.c.id, _SESSIONS.c.created_at, _SESSIONS.c.how)
                                .where(_SESSIONS.c.player_id == player_id).order_by(_SESSIONS.c.id)).all()
        return [{"id": int(r[0]), "since": float(r[1]), "how": str(r[2])} for r in rows]

    def update(self, player_id: int, *, nickname: str | None = None, avatar: str | None = None) -> None:
        """Change a live player's nickname and/or avatar."""
        values = {k: v for k, v in (("nickname", nickname), ("avatar", avatar)) if v is not None}
        if values:
            with self.engine.begin() as conn:
                conn.execute(update(_PLAYERS).where(_PLAYERS.c.id == player_id, _PLAYERS.c.deleted_at.is_(None))
                             .values(**values))

    # -- seats ------------------------------------------------------------------------------------------
    def link_seat(self, player_id: int, code: str, seat: int) -> None:
        """Player ``player_id`` took seat ``seat`` of room ``code`` (the room is stored already); a repeat (the
        same request answered again by another worker) adds nothing."""
        with self.engine.begin() as conn:
            latest = conn.execute(select(_PSEATS.c.player_id).where(_PSEATS.c.room_code == code, _PSEATS.c.seat == seat)
                                  .order_by(_PSEATS.c.id.desc())).first()
            if latest is not None and int(latest[0]) == player_id:
                return
            conn.execute(insert(_PSEATS).values(player_id=player_id, room_code=code, seat=seat,
                                                joined_at=time.time()))

    def seat_in(self, player_id: int, code: str) -> int | None:
        """The seat player ``player_id`` last took in room ``code`` (None: never sat there)."""
        with self.engine.connect() as conn:
            row = conn.execute(select(_PSEATS.c.seat).where(_PSEATS.c.player_id == player_id,
                                                             _PSEATS.c.room_code == code)
                               .order_by(_PSEATS.c.id.desc()).limit(1)).first()
        return None if row is None else int(row[0])

    def seats_of(self, player_id: int) -> list[dict[str, Any]]:
        """The seats a player took, newest first, with the name each showed."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(_PSEATS.c.room_code, _PSEATS.c.seat, _PSEATS.c.joined_at, _SEATS.c.name)
                .join(_SEATS, (_SEATS.c.room_code == _PSEATS.c.room_code) & (_SEATS.c.seat == _PSEATS.c.seat),
                      isouter=True)
                .where(_PSEATS.c.player_id == player_id).order_by(_PSEATS.c.id.desc())).all()
        return [{"room": str(r[0]), "seat": int(r[1]), "joined_at": float(r[2]), "name": r[3]} for r in rows]

    # -- single-use secrets -------------------------------------------------------------------------------
    def new_token(self, kind: str, secret_hash: str, player_id: int | None, ttl: float) -> None:
        """Store a single-use secret (hashed) of ``kind`` that lasts ``ttl`` seconds; spent ones are swept."""
        t = time.time()
        with self.engine.begin() as conn:
            conn.execute(delete(_TOKENS).where(_TOKENS.c.expires_at < t - 3600))
            conn.execute(insert(_TOKENS).values(secret_hash=secret_hash, kind=kind, player_id=player_id,
                                                created_at=t, expires_at=t + ttl))

    def take_token(self, kind: str, secret_hash: str, player_id: int | None = None) -> int | bool:
        """Spend a single-use secret: False when it is unknown, of another kind or player, spent or expired;
        else True (a secret of nobody) or the player it belongs to.  One compare-and-set, so two devices
        spending the same secret at once cannot both succeed."""
        t = time.time()
        cond = [_TOKENS.c.secret_hash == secret_hash, _TOKENS.c.kind == kind, _TOKENS.c.used_at.is_(None),
                _TOKENS.c.expires_at > t]
        if player_id is not None:
            cond.append(_TOKENS.c.player_id == player_id)
        with self.engine.begin() as conn:
            if conn.execute(update(_TOKENS).where(*cond).values(used_at=t)).rowcount != 1:
                return False
            owner = conn.execute(select(_TOKENS.c.player_id).where(_TOKENS.c.secret_hash == secret_hash)).scalar()
            if owner is None:
                return True
            live = conn.execute(select(_PLAYERS.c.id).where(_PLAYERS.c.id == owner,
                                                            _PLAYERS.c.deleted_at.is_(None))).scalar()
        return False if live is None else int(owner)

    # -- passkeys -----------------------------------------------------------------------------------------
    def add_passkey(self, player_id: int, credential_id: str, public_key: str, sign_count: int) -> None:
        """Keep a verified passkey of a player."""
        with self.engine.begin() as conn:
            conn.execute(insert(_PASSKEYS).values(credential_id=credential_id, player_id=player_id,
                                                  public_key=public_key, sign_count=sign_count,
                                                  created_at=time.time()))

    def passkey(self, credential_id: str) -> PasskeyRow | None:
        """A stored passkey of a live player by its credential id."""
        with self.engine.connect() as conn:
            row = conn.execute(select(_PASSKEYS.c.credential_id, _PASSKEYS.c.player_id, _PASSKEYS.c.public_key,
                                      _PASSKEYS.c.sign_count)
                               .join(_PLAYERS, _PLAYERS.c.id == _PASSKEYS.c.player_id)
                               .where(_PASSKEYS.c.credential_id == credential_id,
                                      _PLAYERS.c.deleted_at.is_(None))).first()
        return None if row is None else PasskeyRow(str(row[0]), int(row[1]), str(row[2]), int(row[3]))

    def passkey_used(self, credential_id: str, sign_count: int) -> None:
        """A passkey signed in: its new signature counter."""
        with self.engine.begin() as conn:
            conn.execute(update(_PASSKEYS).where(_PASSKEYS.c.credential_id == credential_id)
                         .values(sign_count=sign_count, used_at=time.time()))

    def passkeys_of(self, player_id: int) -> list[dict[str, Any]]:
        """A player's passkeys (ids and dates; the public keys stay here)."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(_PASSKEYS.c.credential_id, _PASSKEYS.c.created_at, _PASSKEYS.c.used_at)
                                .where(_PASSKEYS.c.player_id == player_id)
                                .order_by(_PASSKEYS.c.created_at)).all()
        return [{"id": str(r[0]), "created_at": float(r[1]), "used_at": r[2]} for r in rows]

    # -- export and deletion --------------------------------------------------------------------------------
    def export(self, player: PlayerRow) -> dict[str, Any]:
        """Everything stored about a player (its secrets only as what they are for, never their hashes)."""
        return {"player": {"id": player.id, "nickname": player.nickname, "avatar": player.avatar,
                           "created_at": player.created_at},
                "devices": self.sessions(player.id), "passkeys": self.passkeys_of(player.id),
                "seats": self.seats_of(player.id)}

    def delete(self, player_id: int) -> list[tuple[str, int]]:
        """Delete an account: nickname and avatar erased, every device signed out, every secret and passkey
        deleted; the seats it took and its 战绩 rows keep the neutral name :data:`GONE` (and their link to the
        erased row, with their points, so the records other players share still add up).  The seats renamed,
        ``(room code, seat)``."""
        with self.engine.begin() as conn:
            mine = conn.execute(select(_PSEATS.c.room_code, _PSEATS.c.seat)
                                .where(_PSEATS.c.player_id == player_id)).all()
            seats = []
            for code, seat in {(str(c), int(s)) for c, s in mine}:
                latest = conn.execute(select(_PSEATS.c.player_id).where(
                    _PSEATS.c.room_code == code, _PSEATS.c.seat == seat).order_by(_PSEATS.c.id.desc())).first()
                if latest is None or int(latest[0]) != player_id:  # the seat passed to someone else since
                    continue
                seats.append((code, seat))
                conn.execute(update(_SEATS).where(_SEATS.c.room_code == code, _SEATS.c.seat == seat,
                                                  _SEATS.c.kind == "human").values(name=GONE))
            conn.execute(update(_RECORDS).where(_RECORDS.c.player_id == player_id).values(name=GONE))
            for table in (_SESSIONS, _TOKENS, _PASSKEYS):
                conn.execute(delete(table).where(table.c.player_id == player_id))
            conn.execute(update(_PLAYERS).where(_PLAYERS.c.id == player_id)
                         .values(nickname=None, avatar=None, deleted_at=time.time()))
        return seats
