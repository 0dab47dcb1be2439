"""On PostgreSQL, the two inserts of the write path lose their foreign keys: ``actions.hand_id`` → ``hands.id`` and
``replies.room_code`` → ``rooms.code``.  PostgreSQL checks a foreign key with a trigger at every inserted row that
reads the parent row and locks it (``FOR KEY SHARE``): for every stored action, its hand's row; for every answer,
its room's row, which the same transaction's fence has just updated (issue 26, item 1: measured ~20% of an
action insert's cost in the database).  The store never breaks what they checked: an action is written under its
room's fence, in the unit that created its hand or after it, and no hand or room is ever deleted.

SQLite keeps them: its checks are a lookup in the parent's key without a lock, and dropping one means rebuilding
the table.

Idempotent: a constraint already gone is left alone; the downgrade adds them back (``NOT VALID`` would skip
checking the rows already there; they are checked).

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

KEYS = (("actions", "actions_hand_id_fkey", "hand_id", "hands", "id"),
        ("replies", "replies_room_code_fkey", "room_code", "rooms", "code"))
"""(table, constraint, column, parent table, parent column): PostgreSQL's default names, as 0001 made them."""


def _have(table: str, name: str) -> bool:
    return name in {fk["name"] for fk in sa.inspect(op.get_bind()).get_foreign_keys(table)}


def upgrade() -> None:
    """Drop the two foreign keys on PostgreSQL."""
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, name, _col, _parent, _pcol in KEYS:
        if _have(table, name):
            op.drop_constraint(name, table, type_="foreignkey")


def downgrade() -> None:
    """Add them back on PostgreSQL."""
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, name, col, parent, pcol in KEYS:
        if not _have(table, name):
            op.create_foreign_key(name, table, parent, [col], [pcol])
