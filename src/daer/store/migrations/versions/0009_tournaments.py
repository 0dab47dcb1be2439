"""Club tournaments: tournaments, their players, rounds (committed seeds), tables (room → round and table) and
each seat's result of each hand.

Only adds tables.  Idempotent like 0008: a table already there is left alone.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

TABLES = ("tourney_hands", "tourney_rooms", "tourney_rounds", "tourney_players", "tourneys")
"""Dropped in this order by :func:`downgrade` (the referring tables first)."""


def _tourney(primary: bool = True) -> sa.Column[int]:
    return sa.Column("tourney_id", sa.Integer, sa.ForeignKey("tourneys.id"), primary_key=primary, nullable=False)


def upgrade() -> None:
    """Create the tournament tables."""
    have = set(sa.inspect(op.get_bind()).get_table_names())
    if "tourneys" not in have:
        op.create_table(
            "tourneys",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("club_id", sa.Integer, sa.ForeignKey("clubs.id"), nullable=False),
            sa.Column("name", sa.String(64), nullable=False),
            sa.Column("config", sa.Text, nullable=False),
            sa.Column("rounds", sa.Integer, nullable=False),
            sa.Column("hands", sa.Integer, nullable=False),
            sa.Column("starts_at", sa.Float, nullable=True),
            sa.Column("bots", sa.Boolean, nullable=False),
            sa.Column("bots_count", sa.Boolean, nullable=False),
            sa.Column("status", sa.String(16), nullable=False),
            sa.Column("round", sa.Integer, nullable=False),
            sa.Column("created_by", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
            sa.Column("created_at", sa.Float, nullable=False),
        )
        op.create_index("ix_tourneys_club_id", "tourneys", ["club_id"])
    if "tourney_players" not in have:
        op.create_table(
            "tourney_players", _tourney(),
            sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), primary_key=True),
            sa.Column("at", sa.Float, nullable=False),
            sa.Column("status", sa.String(16), nullable=False),
        )
        op.create_index("ix_tourney_players_player_id", "tourney_players", ["player_id"])
    if "tourney_rounds" not in have:
        op.create_table(
            "tourney_rounds", _tourney(),
            sa.Column("number", sa.Integer, primary_key=True),
            sa.Column("seeds", sa.Text, nullable=False),
            sa.Column("commits", sa.Text, nullable=False),
            sa.Column("commitment", sa.String(64), nullable=False),
            sa.Column("status", sa.String(16), nullable=False),
            sa.Column("started_at", sa.Float, nullable=False),
            sa.Column("ended_at", sa.Float, nullable=True),
            sa.Column("byes", sa.Text, nullable=False),
        )
    if "tourney_rooms" not in have:
        op.create_table(
            "tourney_rooms",
            sa.Column("room_code", sa.String(16), sa.ForeignKey("rooms.code"), primary_key=True),
            _tourney(primary=False),
            sa.Column("round", sa.Integer, nullable=False),
            sa.Column("table_no", sa.Integer, nullable=False),
            sa.Column("seats", sa.Text, nullable=False),
            sa.UniqueConstraint("tourney_id", "round", "table_no"),
        )
        op.create_index("ix_tourney_rooms_tourney_id", "tourney_rooms", ["tourney_id"])
    if "tourney_hands" not in have:
        op.create_table(
            "tourney_hands", _tourney(),
            sa.Column("round", sa.Integer, primary_key=True),
            sa.Column("table_no", sa.Integer, primary_key=True),
            sa.Column("hand", sa.Integer, primary_key=True),
            sa.Column("seat", sa.Integer, primary_key=True),
            sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=True),
            sa.Column("dealer", sa.Integer, nullable=False),
            sa.Column("points", sa.Integer, nullable=False),
            sa.Column("auto", sa.Boolean, nullable=False),
            sa.Column("room_code", sa.String(16), nullable=False),
        )


def downgrade() -> None:
    """Drop the tournament tables."""
    for name in TABLES:
        op.drop_table(name)
