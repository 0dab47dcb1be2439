"""The dissolve vote survives a restart: ``rooms.vote``.

- ``rooms.vote``: the room's last vote to dissolve (解散投票: who proposed it, when its countdown ends, who agreed,
  who refused, whether it passed) and when each seat last proposed one, as JSON
  (:mod:`daer.server.social.votes`); None for a room that never voted.

Idempotent like 0002: what is already there is left alone.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``rooms.vote``."""
    insp = sa.inspect(op.get_bind())
    if "vote" not in {c["name"] for c in insp.get_columns("rooms")}:
        with op.batch_alter_table("rooms") as batch:
            batch.add_column(sa.Column("vote", sa.Text(), nullable=True))


def downgrade() -> None:
    """Drop what :func:`upgrade` added."""
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("vote")
