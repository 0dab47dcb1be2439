"""Players: a person known across rooms, their signed-in devices, one-time secrets, passkeys and seats.

- ``players``: nickname and avatar (erased, ``deleted_at`` set, when the account is deleted).
- ``player_sessions``: one row a signed-in device, the SHA-256 of its cookie's secret (unique).
- ``player_tokens``: short-lived single-use secrets, hashed (a second device's link, passkey challenges).
- ``player_passkeys``: WebAuthn credentials (id, public key, signature counter).
- ``player_seats``: the seats a player took (room code, seat), indexed by player and by seat.

Only adds tables: rooms, seats and hands stored before are untouched (their seats belong to no player).
Idempotent like 0002: a table already there is left alone.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

TABLES = ("player_seats", "player_passkeys", "player_tokens", "player_sessions", "players")
"""Dropped in this order by :func:`downgrade` (the referring tables first)."""


def upgrade() -> None:
    """Create the player tables and their indexes."""
    have = set(sa.inspect(op.get_bind()).get_table_names())
    if "players" not in have:
        op.create_table(
            "players",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("created_at", sa.Float, nullable=False),
            sa.Column("nickname", sa.String(64), nullable=True),
            sa.Column("avatar", sa.String(16), nullable=True),
            sa.Column("deleted_at", sa.Float, nullable=True))
    if "player_sessions" not in have:
        op.create_table(
            "player_sessions",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
            sa.Column("secret_hash", sa.String(64), nullable=False, unique=True),
            sa.Column("created_at", sa.Float, nullable=False),
            sa.Column("how", sa.String(16), nullable=False))
        op.create_index("ix_player_sessions_player_id", "player_sessions", ["player_id"])
    if "player_tokens" not in have:
        op.create_table(
            "player_tokens",
            sa.Column("secret_hash", sa.String(64), primary_key=True),
            sa.Column("kind", sa.String(16), nullable=False),
            sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=True),
            sa.Column("created_at", sa.Float, nullable=False),
            sa.Column("expires_at", sa.Float, nullable=False),
            sa.Column("used_at", sa.Float, nullable=True))
        op.create_index("ix_player_tokens_player_id", "player_tokens", ["player_id"])
    if "player_passkeys" not in have:
        op.create_table(
            "player_passkeys",
            sa.Column("credential_id", sa.String(1400), primary_key=True),
            sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
            sa.Column("public_key", sa.Text, nullable=False),
            sa.Column("sign_count", sa.Integer, nullable=False),
            sa.Column("created_at", sa.Float, nullable=False),
            sa.Column("used_at", sa.Float, nullable=True))
        op.create_index("ix_player_passkeys_player_id", "player_passkeys", ["player_id"])
    if "player_seats" not in have:
        op.create_table(
            "player_seats",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
            sa.Column("room_code", sa.String(16), sa.ForeignKey("rooms.code"), nullable=False),
            sa.Column("seat", sa.Integer, nullable=False),
            sa.Column("joined_at", sa.Float, nullable=False))
        op.create_index("ix_player_seats_player_id", "player_seats", ["player_id"])
        op.create_index("ix_player_seats_room_seat", "player_seats", ["room_code", "seat"])


def downgrade() -> None:
    """Drop the player tables (their rows with them)."""
    for table in TABLES:
        op.drop_table(table)
