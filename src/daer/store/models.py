"""Tables of the online table.  Changes go through Alembic migrations in ``daer/store/migrations``."""

from __future__ import annotations

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String, Text, UniqueConstraint, text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    """Declarative base of the table models."""


class RoomTable(Base):
    """A private room: its options (JSON), status, version and running scores."""

    __tablename__ = "rooms"
    code: Mapped[str] = mapped_column(String(16), primary_key=True)
    created_at: Mapped[float] = mapped_column()
    config: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16))
    version: Mapped[int] = mapped_column(Integer)
    scores: Mapped[str] = mapped_column(Text)
    dealer: Mapped[int] = mapped_column(Integer)
    hands_played: Mapped[int] = mapped_column(Integer)
    ready: Mapped[str | None] = mapped_column(Text, nullable=True)
    """Seats ready for the next hand (JSON list)."""
    deal_seed: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """Secret seed of the next hand, stored before its commitment is published (``daer.engine.fairness``)."""
    deal_entropy: Mapped[str | None] = mapped_column(Text, nullable=True)
    """What each seat added to the next hand's deal (JSON list, "" for none)."""
    owner: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    """The worker holding the room's lease (None: nobody), ``daer.store.leases``."""
    lease_epoch: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Grows at every acquisition of the lease; every write of the room is fenced by it."""
    lease_until: Mapped[float | None] = mapped_column(nullable=True)
    """When the lease ends unless renewed (seconds since the epoch, by the database's clock)."""
    wanted_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """A worker asking the owner to hand the room over (the balancer routes the room's code to it)."""
    creator: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    """A hash of the address that made the room (the per-address cap of live rooms, counted over the cluster)."""
    vote: Mapped[str | None] = mapped_column(Text, nullable=True)
    """The last vote to dissolve the room and each seat's last proposal (JSON, migration 0006)."""


class SeatTable(Base):
    """A seat of a room: who sits there (human / bot / empty), its token's hash, 托管."""

    __tablename__ = "seats"
    room_code: Mapped[str] = mapped_column(ForeignKey("rooms.code"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    auto: Mapped[bool] = mapped_column(Boolean, default=False)


class HandTable(Base):
    """One hand of a room: the deck and dealer (enough to replay with the actions); result when finished."""

    __tablename__ = "hands"
    __table_args__ = (Index("uq_hands_room_number", "room_code", "number", unique=True),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room_code: Mapped[str] = mapped_column(ForeignKey("rooms.code"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    rules: Mapped[str] = mapped_column(String(64))
    overrides: Mapped[str] = mapped_column(Text)
    dealer: Mapped[int] = mapped_column(Integer)
    deck: Mapped[str] = mapped_column(Text)
    start_version: Mapped[int] = mapped_column(Integer)
    finished: Mapped[bool] = mapped_column(Boolean, default=False)
    points: Mapped[str | None] = mapped_column(Text, nullable=True)
    commitment: Mapped[str | None] = mapped_column(String(64), nullable=True)
    seed: Mapped[str | None] = mapped_column(String(64), nullable=True)
    entropy: Mapped[str | None] = mapped_column(Text, nullable=True)


class ActionTable(Base):
    """An accepted action, committed before it is broadcast; ``client_id`` makes repeats harmless."""

    __tablename__ = "actions"
    __table_args__ = (UniqueConstraint("hand_id", "idx"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    hand_id: Mapped[int] = mapped_column(ForeignKey("hands.id"), index=True)
    idx: Mapped[int] = mapped_column(Integer)
    version: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    client_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    payload: Mapped[str] = mapped_column(Text)


class ReplyTable(Base):
    """The first answer to a seat's action or command id (JSON), so a repeat gets it again after a restart."""

    __tablename__ = "replies"
    __table_args__ = (Index("uq_replies_create_request", "client_id", unique=True,
                            sqlite_where=text("client_id LIKE 'create:%'"),
                            postgresql_where=text("client_id LIKE 'create:%'")),)
    """A create's request key names one room only (migration 0005)."""
    room_code: Mapped[str] = mapped_column(ForeignKey("rooms.code"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    client_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    reply: Mapped[str] = mapped_column(Text)
    refused: Mapped[bool] = mapped_column(Boolean, default=False)


# -- players (migration 0007; docs/players.md) ----------------------------------------------------------
class PlayerTable(Base):
    """A person known across rooms: a nickname and an avatar.  Deleting the account erases both (the row stays,
    ``deleted_at`` set, so the seats and records other players share still point somewhere: "已注销玩家")."""

    __tablename__ = "players"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created_at: Mapped[float] = mapped_column()
    nickname: Mapped[str | None] = mapped_column(String(64), nullable=True)
    avatar: Mapped[str | None] = mapped_column(String(16), nullable=True)
    deleted_at: Mapped[float | None] = mapped_column(nullable=True)


class PlayerSessionTable(Base):
    """A signed-in device: the SHA-256 of the secret its cookie holds (never the secret itself)."""

    __tablename__ = "player_sessions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    secret_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[float] = mapped_column()
    how: Mapped[str] = mapped_column(String(16))
    """How the device signed in: ``seat`` (its first seat), ``link`` (a one-time link), ``passkey``."""


class PlayerTokenTable(Base):
    """A short-lived single-use secret, hashed: a second device's sign-in link or a passkey challenge."""

    __tablename__ = "player_tokens"
    secret_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    """``link``, ``passkey_new`` (registering a passkey) or ``passkey_in`` (signing in with one)."""
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), nullable=True, index=True)
    created_at: Mapped[float] = mapped_column()
    expires_at: Mapped[float] = mapped_column()
    used_at: Mapped[float | None] = mapped_column(nullable=True)


class PasskeyTable(Base):
    """A WebAuthn credential of a player (its id and public key; the private key never leaves the device)."""

    __tablename__ = "player_passkeys"
    credential_id: Mapped[str] = mapped_column(String(1400), primary_key=True)
    """base64url, as the browser names it (at most 1,023 bytes raw)."""
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    public_key: Mapped[str] = mapped_column(Text)
    sign_count: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[float] = mapped_column()
    used_at: Mapped[float | None] = mapped_column(nullable=True)


class PlayerSeatTable(Base):
    """A seat a player took (create or join): what is played there is theirs (records, 战绩, clubs build on it)."""

    __tablename__ = "player_seats"
    __table_args__ = (Index("ix_player_seats_room_seat", "room_code", "seat"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    room_code: Mapped[str] = mapped_column(ForeignKey("rooms.code"))
    seat: Mapped[int] = mapped_column(Integer)
    joined_at: Mapped[float] = mapped_column()
