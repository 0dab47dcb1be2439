"""Durable answers and ready marks; commit–reveal deals.

- ``replies``: the first answer to every acked action or command id (and to a bounded number of refused
  ones), per room and seat, so a repeated id gets it again across restarts and hands; filled from the
  ``actions`` already stored.
- ``rooms.ready`` (seats ready for the next hand), ``rooms.deal_seed`` / ``rooms.deal_entropy`` (the
  secret seed of the next hand, committed to before it is dealt, and what the seats added).
- ``hands.commitment`` / ``hands.seed`` / ``hands.entropy``: the revealed data of a verifiable deal.

Idempotent: a table or column that is already there is left alone.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

ROOM_COLUMNS = (
    ("ready", sa.Text()),
    ("deal_seed", sa.String(64)),
    ("deal_entropy", sa.Text()),
)
HAND_COLUMNS = (
    ("commitment", sa.String(64)),
    ("seed", sa.String(64)),
    ("entropy", sa.Text()),
)


def _add_columns(table: str, columns: tuple[tuple[str, sa.types.TypeEngine[Any]], ...]) -> None:
    have = {c["name"] for c in sa.inspect(op.get_bind()).get_columns(table)}
    missing = [(name, kind) for name, kind in columns if name not in have]
    if missing:
        with op.batch_alter_table(table) as batch:
            for name, kind in missing:
                batch.add_column(sa.Column(name, kind, nullable=True))


def upgrade() -> None:
    """Add the replies table and the new columns; copy the acks of stored actions into replies."""
    bind = op.get_bind()
    _add_columns("rooms", ROOM_COLUMNS)
    _add_columns("hands", HAND_COLUMNS)
    if sa.inspect(bind).has_table("replies"):
        return
    replies = op.create_table(
        "replies",
        sa.Column("room_code", sa.String(16), sa.ForeignKey("rooms.code"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("client_id", sa.String(64), primary_key=True),
        sa.Column("reply", sa.Text(), nullable=False),
        sa.Column("refused", sa.Boolean(), nullable=False),
    )
    assert replies is not None
    rows = bind.execute(sa.text(
        "SELECT h.room_code, a.seat, a.client_id, a.version FROM actions a JOIN hands h ON h.id = a.hand_id "
        "WHERE a.client_id IS NOT NULL ORDER BY a.version"
    )).all()
    first: dict[tuple[str, int, str], int] = {}
    for code, seat, client_id, version in rows:
        first.setdefault((code, seat, client_id), version)
    if first:
        op.bulk_insert(replies, [
            {"room_code": code, "seat": seat, "client_id": cid, "refused": False,
             "reply": json.dumps({"t": "ack", "id": cid, "v": v}, ensure_ascii=False, separators=(",", ":"))}
            for (code, seat, cid), v in first.items()
        ])


def downgrade() -> None:
    """Drop what :func:`upgrade` added."""
    op.drop_table("replies")
    for table, columns in (("rooms", ROOM_COLUMNS), ("hands", HAND_COLUMNS)):
        with op.batch_alter_table(table) as batch:
            for name, _kind in columns:
                batch.drop_column(name)
