"""Room leases (one worker serves a room at a time) and one hand per (room, number).

- ``rooms.owner``: the worker that holds the room's lease (None: nobody; a new room or a released one);
  ``rooms.lease_epoch``: grows by one at every acquisition, and every write of the room is fenced by it
  (``daer.store.leases``); ``rooms.lease_until``: when the lease ends unless renewed (seconds since the
  epoch, by the database's clock); ``rooms.wanted_by``: a worker that was asked for the room (the
  balancer routes the room's code to it) and asks the owner to hand it over.
- ``hands``: ``(room_code, number)`` unique, so two workers can never deal the same hand twice.

Idempotent like 0002: what is already there is left alone.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

UNIQUE_HAND = "uq_hands_room_number"
OWNER_INDEX = "ix_rooms_owner"


def upgrade() -> None:
    """Add the lease columns, the owner index and the unique hand number."""
    insp = sa.inspect(op.get_bind())
    have = {c["name"] for c in insp.get_columns("rooms")}
    with op.batch_alter_table("rooms") as batch:
        if "owner" not in have:
            batch.add_column(sa.Column("owner", sa.String(64), nullable=True))
        if "lease_epoch" not in have:
            batch.add_column(sa.Column("lease_epoch", sa.Integer(), nullable=False, server_default="0"))
        if "lease_until" not in have:
            batch.add_column(sa.Column("lease_until", sa.Float(), nullable=True))
        if "wanted_by" not in have:
            batch.add_column(sa.Column("wanted_by", sa.String(64), nullable=True))
    if OWNER_INDEX not in {i["name"] for i in insp.get_indexes("rooms")}:
        op.create_index(OWNER_INDEX, "rooms", ["owner"])
    uniques = {u["name"] for u in insp.get_unique_constraints("hands")} | {i["name"] for i in insp.get_indexes("hands")}
    if UNIQUE_HAND not in uniques:
        op.create_index(UNIQUE_HAND, "hands", ["room_code", "number"], unique=True)


def downgrade() -> None:
    """Drop what :func:`upgrade` added."""
    op.drop_index(UNIQUE_HAND, "hands")
    op.drop_index(OWNER_INDEX, "rooms")
    with op.batch_alter_table("rooms") as batch:
        for name in ("wanted_by", "lease_until", "lease_epoch", "owner"):
            batch.drop_column(name)
