"""Rooms, seats, hands and actions.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the four tables."""
    op.create_table(
        "rooms",
        sa.Column("code", sa.String(16), primary_key=True),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("config", sa.Text(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("scores", sa.Text(), nullable=False),
        sa.Column("dealer", sa.Integer(), nullable=False),
        sa.Column("hands_played", sa.Integer(), nullable=False),
    )
    op.create_table(
        "seats",
        sa.Column("room_code", sa.String(16), sa.ForeignKey("rooms.code"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("auto", sa.Boolean(), nullable=False),
    )
    op.create_table(
        "hands",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("room_code", sa.String(16), sa.ForeignKey("rooms.code"), nullable=False, index=True),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("rules", sa.String(64), nullable=False),
        sa.Column("overrides", sa.Text(), nullable=False),
        sa.Column("dealer", sa.Integer(), nullable=False),
        sa.Column("deck", sa.Text(), nullable=False),
        sa.Column("start_version", sa.Integer(), nullable=False),
        sa.Column("finished", sa.Boolean(), nullable=False),
        sa.Column("points", sa.Text(), nullable=True),
    )
    op.create_table(
        "actions",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("hand_id", sa.Integer(), sa.ForeignKey("hands.id"), nullable=False, index=True),
        sa.Column("idx", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("client_id", sa.String(64), nullable=True),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.UniqueConstraint("hand_id", "idx"),
    )


def downgrade() -> None:
    """Drop the four tables."""
    for name in ("actions", "hands", "seats", "rooms"):
        op.drop_table(name)
