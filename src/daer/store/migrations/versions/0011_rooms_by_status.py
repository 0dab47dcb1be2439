"""An index on ``rooms.status``: the queries of the live rooms (a worker's search for rooms to take over, every
few seconds; the expiry of rooms nobody joined; a creator's live rooms) read only those rows instead of every room
ever made, which grows without end while the live ones do not (issue 26: PostgreSQL's cost at scale).  A
room's status changes a few times in its life; its writes per action (version, scores) leave the column as it
is, so PostgreSQL still updates those rows in place (HOT).

Idempotent: an index already there is left alone; the downgrade drops it.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

INDEX = "ix_rooms_status"


def _have() -> bool:
    return INDEX in {i["name"] for i in sa.inspect(op.get_bind()).get_indexes("rooms")}


def upgrade() -> None:
    """Index the rooms by status."""
    if not _have():
        op.create_index(INDEX, "rooms", ["status"])


def downgrade() -> None:
    """Drop the index."""
    if _have():
        op.drop_index(INDEX, table_name="rooms")
