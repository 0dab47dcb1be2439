"""One index less on ``actions``: ``ix_actions_hand_id`` repeats the unique index on ``(hand_id, idx)``, whose
first column is ``hand_id`` — every read of a hand's actions (``WHERE hand_id = … ORDER BY idx``) and the
foreign key's checks are served by that one.  The index cost every stored action an entry to write (issue 26,
item 1: the write path's cost per action).

Idempotent: an index already gone is left alone; the downgrade creates it again.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

INDEX = "ix_actions_hand_id"


def _have() -> bool:
    return INDEX in {i["name"] for i in sa.inspect(op.get_bind()).get_indexes("actions")}


def upgrade() -> None:
    """Drop the index that the unique ``(hand_id, idx)`` index makes redundant."""
    if _have():
        op.drop_index(INDEX, table_name="actions")


def downgrade() -> None:
    """Create it again."""
    if not _have():
        op.create_index(INDEX, "actions", ["hand_id"])
