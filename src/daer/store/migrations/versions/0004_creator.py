"""Who made a room, so a cluster counts each address's live rooms in the store (not in one worker's memory).

- ``rooms.creator``: a hash of the address that created the room (``daer.server.safety.limits.address_key``; None
  for rooms made before this revision), indexed: ``daer serve --max-rooms-per-address`` is checked with one
  count over the live rooms of that address, whichever worker made them.

Idempotent like 0002: what is already there is left alone.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

CREATOR_INDEX = "ix_rooms_creator"


def upgrade() -> None:
    """Add ``rooms.creator`` and its index."""
    insp = sa.inspect(op.get_bind())
    if "creator" not in {c["name"] for c in insp.get_columns("rooms")}:
        with op.batch_alter_table("rooms") as batch:
            batch.add_column(sa.Column("creator", sa.String(64), nullable=True))
    if CREATOR_INDEX not in {i["name"] for i in insp.get_indexes("rooms")}:
        op.create_index(CREATOR_INDEX, "rooms", ["creator"])


def downgrade() -> None:
    """Drop what :func:`upgrade` added."""
    op.drop_index(CREATOR_INDEX, "rooms")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("creator")
