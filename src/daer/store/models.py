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
    status: Mapped[str] = mapped_column(String(16), index=True)
    """``waiting``, ``playing``, ``between`` (live) or over; indexed (migration 0011) for the queries of the live
    rooms — take-overs, the expiry of rooms nobody joined — among every room ever made."""
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
    hand_id: Mapped[int] = mapped_column(ForeignKey("hands.id"))  # served by the unique (hand_id, idx) index
    """The hand (a foreign key on SQLite; not checked by PostgreSQL since migration 0012: the write path's cost)."""
    idx: Mapped[int] = mapped_column(Integer)
    version: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    client_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    payload: Mapped[str] = mapped_column(Text)


CREATE_KEYS = "'create:%'"
"""The condition's pattern (an SQL literal) of the create keys' unique index on ``replies``: a query that means
to use the index names it as written (a bound parameter would not let the planner prove the condition)."""


class ReplyTable(Base):
    """The first answer to a seat's action or command id (JSON), so a repeat gets it again after a restart."""

    __tablename__ = "replies"
    __table_args__ = (Index("uq_replies_create_request", "client_id", unique=True,
                            sqlite_where=text(f"client_id LIKE {CREATE_KEYS}"),
                            postgresql_where=text(f"client_id LIKE {CREATE_KEYS}")),)
    """A create's request key names one room only (migration 0005)."""
    room_code: Mapped[str] = mapped_column(ForeignKey("rooms.code"), primary_key=True)
    """The room (a foreign key on SQLite; not checked by PostgreSQL since migration 0012: the write path's cost)."""
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


# -- 亲友圈 clubs (migration 0008; docs/clubs.md) ----------------------------------------------------------
class ClubTable(Base):
    """A 亲友圈: its name, 公告, the circle's rules (a room config as JSON) and its owner (群主)."""

    __tablename__ = "clubs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    number: Mapped[str] = mapped_column(String(8), unique=True)
    """The short club number players type to ask to join (6 digits)."""
    name: Mapped[str] = mapped_column(String(64))
    notice: Mapped[str] = mapped_column(Text, default="")
    config: Mapped[str] = mapped_column(Text)
    """The circle's rules: a room config (JSON), the default of its templates and ad-hoc tables."""
    owner_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    created_at: Mapped[float] = mapped_column()
    member_cap: Mapped[int] = mapped_column(Integer)
    min_hands: Mapped[int] = mapped_column(Integer, default=10, server_default="10")
    """Hands a member must have played in a period to rank on its leaderboard."""
    dissolved_at: Mapped[float | None] = mapped_column(nullable=True)


class ClubMemberTable(Base):
    """A member of a club and their role: ``owner`` (群主), ``admin`` (管理员) or ``member`` (成员)."""

    __tablename__ = "club_members"
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id"), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True, index=True)
    role: Mapped[str] = mapped_column(String(8))
    joined_at: Mapped[float] = mapped_column()
    seen_at: Mapped[float | None] = mapped_column(nullable=True)
    """When the member's club page last told the server it is open (members online)."""


class ClubBanTable(Base):
    """A player banned from a club: no invite or request lets them back in."""

    __tablename__ = "club_bans"
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id"), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)
    at: Mapped[float] = mapped_column()
    by_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), nullable=True)


class ClubInviteTable(Base):
    """An invite link's secret (hashed), with its expiry and use count; revocable."""

    __tablename__ = "club_invites"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id"), index=True)
    secret_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_by: Mapped[int] = mapped_column(ForeignKey("players.id"))
    created_at: Mapped[float] = mapped_column()
    expires_at: Mapped[float] = mapped_column()
    max_uses: Mapped[int] = mapped_column(Integer)
    uses: Mapped[int] = mapped_column(Integer, default=0)
    revoked_at: Mapped[float | None] = mapped_column(nullable=True)


class ClubRequestTable(Base):
    """A request to join made with the club number: ``pending`` until an admin approves or refuses it."""

    __tablename__ = "club_requests"
    __table_args__ = (Index("ix_club_requests_club_status", "club_id", "status"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    at: Mapped[float] = mapped_column()
    status: Mapped[str] = mapped_column(String(16))
    """``pending``, ``approved`` or ``refused``."""


class ClubTemplateTable(Base):
    """A standing table (常驻桌): a room config that always has an open table (``room_code``)."""

    __tablename__ = "club_templates"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id"), index=True)
    name: Mapped[str] = mapped_column(String(64))
    config: Mapped[str] = mapped_column(Text)
    created_at: Mapped[float] = mapped_column()
    room_code: Mapped[str | None] = mapped_column(String(16), nullable=True)
    """The template's open table now."""
    deleted_at: Mapped[float | None] = mapped_column(nullable=True)


class ClubRoomTable(Base):
    """A room that belongs to a club: a standing table's (``template_id``) or an ad-hoc one."""

    __tablename__ = "club_rooms"
    room_code: Mapped[str] = mapped_column(ForeignKey("rooms.code"), primary_key=True)
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id"), index=True)
    template_id: Mapped[int | None] = mapped_column(ForeignKey("club_templates.id"), nullable=True)
    opened_by: Mapped[int | None] = mapped_column(ForeignKey("players.id"), nullable=True)
    opened_at: Mapped[float] = mapped_column()


class ClubSeatInviteTable(Base):
    """A member invited another to sit at one of the club's tables (shown on the invited player's club page)."""

    __tablename__ = "club_seat_invites"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id"))
    room_code: Mapped[str] = mapped_column(String(16))
    from_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    to_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    at: Mapped[float] = mapped_column()


# -- 战绩 (migration 0008; docs/clubs.md) ------------------------------------------------------------------
class RecordTable(Base):
    """One seat's result of one finished hand: what 战绩, settle-up sheets and leaderboards add up.

    Written when the hand is booked (with the hand's finish, in the same commit).  ``player_id`` is the
    player who held the seat (None: an unlinked seat or a bot); ``club_id`` the club the room belongs to."""

    __tablename__ = "records"
    __table_args__ = (
        Index("ix_records_player_at", "player_id", "at"),
        Index("ix_records_club_at", "club_id", "at"),
        Index("uq_records_hand_seat", "hand_id", "seat", unique=True),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    hand_id: Mapped[int] = mapped_column(ForeignKey("hands.id"))
    room_code: Mapped[str] = mapped_column(String(16), index=True)
    hand_number: Mapped[int] = mapped_column(Integer)
    club_id: Mapped[int | None] = mapped_column(ForeignKey("clubs.id"), nullable=True)
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), nullable=True)
    seat: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(8))
    """``human`` or ``bot`` (who played the seat when the hand ended)."""
    name: Mapped[str] = mapped_column(String(64))
    rules: Mapped[str] = mapped_column(String(64))
    at: Mapped[float] = mapped_column()
    points: Mapped[int] = mapped_column(Integer)
    """The seat's points of the hand (分 in money play)."""
    money: Mapped[bool] = mapped_column(Boolean, default=False)
    winner: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The winning seat (None: 黄)."""
    how: Mapped[str] = mapped_column(String(16))
    """hu / instant / huang, and for a 胡 ``zimo`` (自摸) or ``dianpao`` (点炮) when known."""
    hu: Mapped[int] = mapped_column(Integer, default=0)
    mingtang: Mapped[str] = mapped_column(Text, default="[]")
    """The winner's 名堂 and multipliers (JSON list of names)."""
    day: Mapped[int] = mapped_column(Integer)
    """The CST day of ``at`` (days since 1970-01-01 in UTC+8)."""
    month: Mapped[int] = mapped_column(Integer)
    """The CST month of ``at`` (year × 12 + month − 1)."""


class RecordDayTable(Base):
    """A club's sums of one CST day per player (``player_key`` 0: bots, unlinked seats) and unit, kept by the
    trigger ``records_rollup`` of migration 0008 as records are inserted."""

    __tablename__ = "record_days"
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id"), primary_key=True)
    day: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_key: Mapped[int] = mapped_column(Integer, primary_key=True)
    money: Mapped[bool] = mapped_column(Boolean, primary_key=True)
    hands: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    points: Mapped[int] = mapped_column(Integer)


class RecordMonthTable(Base):
    """A club's sums of one CST month (year × 12 + month − 1), as :class:`RecordDayTable`."""

    __tablename__ = "record_months"
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id"), primary_key=True)
    month: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_key: Mapped[int] = mapped_column(Integer, primary_key=True)
    money: Mapped[bool] = mapped_column(Boolean, primary_key=True)
    hands: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    points: Mapped[int] = mapped_column(Integer)


# -- club tournaments (migration 0009; docs/tournaments.md) -------------------------------------------------
class TourneyTable(Base):
    """A club tournament: its room config, format and state."""

    __tablename__ = "tourneys"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id"), index=True)
    name: Mapped[str] = mapped_column(String(64))
    config: Mapped[str] = mapped_column(Text)
    """The tables' room config (JSON)."""
    rounds: Mapped[int] = mapped_column(Integer)
    hands: Mapped[int] = mapped_column(Integer)
    """Hands per round."""
    starts_at: Mapped[float | None] = mapped_column(nullable=True)
    bots: Mapped[bool] = mapped_column(Boolean, default=True)
    """Bots fill the last table when the field does not make tables of four (else the lowest ranked sit out)."""
    bots_count: Mapped[bool] = mapped_column(Boolean, default=True)
    """Bots' seats count in the means the players are compared with."""
    status: Mapped[str] = mapped_column(String(16))
    """``registering``, ``running``, ``paused`` or ``finished``."""
    round: Mapped[int] = mapped_column(Integer, default=0)
    """The round under way or last played (0 before the first)."""
    created_by: Mapped[int] = mapped_column(ForeignKey("players.id"))
    created_at: Mapped[float] = mapped_column()


class TourneyPlayerTable(Base):
    """A player registered for a tournament (``status``: ``in``, ``withdrawn`` or ``removed``)."""

    __tablename__ = "tourney_players"
    tourney_id: Mapped[int] = mapped_column(ForeignKey("tourneys.id"), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True, index=True)
    at: Mapped[float] = mapped_column()
    status: Mapped[str] = mapped_column(String(16))


class TourneyRoundTable(Base):
    """A round: its decks' seeds (secret until the round is over) and their commitments (public at its start)."""

    __tablename__ = "tourney_rounds"
    tourney_id: Mapped[int] = mapped_column(ForeignKey("tourneys.id"), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    seeds: Mapped[str] = mapped_column(Text)
    """JSON list of the decks' seeds, in hand order."""
    commits: Mapped[str] = mapped_column(Text)
    """JSON list of each seed's SHA-256."""
    commitment: Mapped[str] = mapped_column(String(64))
    """SHA-256 of the commitments joined by ``|``: one fingerprint of the whole deal set."""
    status: Mapped[str] = mapped_column(String(16))
    """``running`` or ``done`` (the seeds revealed)."""
    started_at: Mapped[float] = mapped_column()
    ended_at: Mapped[float | None] = mapped_column(nullable=True)
    byes: Mapped[str] = mapped_column(Text, default="[]")
    """Players who sat this round out (JSON list)."""


class TourneyRoomTable(Base):
    """A room that is a table of a tournament round, and who sits where (JSON list: player id or null, a bot)."""

    __tablename__ = "tourney_rooms"
    __table_args__ = (UniqueConstraint("tourney_id", "round", "table_no"),)
    room_code: Mapped[str] = mapped_column(ForeignKey("rooms.code"), primary_key=True)
    tourney_id: Mapped[int] = mapped_column(ForeignKey("tourneys.id"), index=True)
    round: Mapped[int] = mapped_column(Integer)
    table_no: Mapped[int] = mapped_column(Integer)
    seats: Mapped[str] = mapped_column(Text)


class TourneyHandTable(Base):
    """One seat's result of one hand of a tournament table (what the duplicate scores are computed from)."""

    __tablename__ = "tourney_hands"
    tourney_id: Mapped[int] = mapped_column(ForeignKey("tourneys.id"), primary_key=True)
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    hand: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), nullable=True)
    dealer: Mapped[int] = mapped_column(Integer)
    points: Mapped[int] = mapped_column(Integer)
    auto: Mapped[bool] = mapped_column(Boolean, default=False)
    """The seat ended the hand in 托管 (or its player was absent)."""
    room_code: Mapped[str] = mapped_column(String(16))
