"""One room per create request: a create's request id (its stored key, ``create:…``) is unique over all rooms.

A create (开房) with a request id stores what it took as a ``replies`` row of the new room (seat −1, the
key ``create:`` + a hash of the address and the id).  Two creates with the same id reaching two workers at
the same instant each found no such row and each made a room.  The partial unique index
``uq_replies_create_request`` on ``replies.client_id`` (create keys only: a join's key is per room) makes
the second insert fail whole, and that worker answers with the first one's room (``RoomManager.create``).

A database where the race happened holds the same key in several rooms: the row of the room created first is
kept, the others are deleted (a repeat of that request then finds the first room; the other rooms stay as
they are, reachable by their codes).

Idempotent like 0002: what is already there is left alone.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

CREATE_REQUEST = "uq_replies_create_request"
WHERE = "client_id LIKE 'create:%'"


def upgrade() -> None:
    """Delete all but the first room's row of each duplicated create key, then make the unique index."""
    bind = op.get_bind()
    if CREATE_REQUEST in {i["name"] for i in sa.inspect(bind).get_indexes("replies")}:
        return
    dups = bind.execute(sa.text(f"SELECT client_id FROM replies WHERE {WHERE} GROUP BY client_id "
                                "HAVING count(*) > 1")).scalars().all()
    for key in dups:
        rows = bind.execute(sa.text(
            "SELECT r.room_code FROM replies r JOIN rooms m ON m.code = r.room_code WHERE r.client_id = :k "
            "ORDER BY m.created_at, m.code"), {"k": key}).scalars().all()
        for code in rows[1:]:
            bind.execute(sa.text("DELETE FROM replies WHERE room_code = :c AND client_id = :k"), {"c": code, "k": key})
    op.create_index(CREATE_REQUEST, "replies", ["client_id"], unique=True,
                    sqlite_where=sa.text(WHERE), postgresql_where=sa.text(WHERE))


def downgrade() -> None:
    """Drop the index."""
    op.drop_index(CREATE_REQUEST, "replies")
