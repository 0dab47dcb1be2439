"""Room leases (one worker serves a room at a time) and one hand per (room, number).

- ``rooms.owner``: the worker that holds the room's lease (None: nobody; a new room or a released one);
  ``rooms.lease_epoch``: grows by one at every acquisition, and every write of the room is fenced by it
  (``daer.store.leases``); ``rooms.lease_until``: when the lease ends unless renewed (seconds since the
  epoch, by the database's clock); ``rooms.wanted_by``: a worker that was asked for the room (the
  balancer routes the room's code to it) and asks the owner to hand it over.
- ``hands``: ``(room_code, number)`` unique, so two workers can never deal the same hand twice.

A database written by two processes before leases may hold the same hand number of a room more than once
(both dealt it).  Before the unique index is made, :func:`set_duplicates_aside` keeps one of each set and
moves the others, with their actions, to ``hands_dropped`` / ``actions_dropped`` (tables made only when there
is something to move; ``hands_dropped.kept_id`` names the hand that stayed).  The one kept is the record that
got furthest: a finished hand before an unfinished one (its points were booked), then the one with the most
stored actions (the other is the fork that stopped), then the one written last (the highest id).  The rows
moved aside are never read by the server; ``docs/deploy.md`` says how to look at them.

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


def set_duplicates_aside(bind: sa.engine.Connection) -> int:
    """Keep one hand of each duplicated ``(room_code, number)`` and move the others (and their actions) to
    ``hands_dropped`` / ``actions_dropped``; how many hands were moved."""
    dups = bind.execute(sa.text("SELECT room_code, number FROM hands GROUP BY room_code, number "
                                "HAVING count(*) > 1")).all()
    losers: list[tuple[int, int]] = []  # (hand moved aside, hand kept)
    for code, number in dups:
        rows = bind.execute(sa.text(
            "SELECT h.id, h.finished, (SELECT count(*) FROM actions a WHERE a.hand_id = h.id) AS n "
            "FROM hands h WHERE h.room_code = :code AND h.number = :number"), {"code": code, "number": number}).all()
        keep = max(rows, key=lambda r: (bool(r.finished), int(r.n), int(r.id)))
        losers += [(int(r.id), int(keep.id)) for r in rows if r.id != keep.id]
    if not losers:
        return 0
    tables = set(sa.inspect(bind).get_table_names())
    if "hands_dropped" not in tables:
        bind.execute(sa.text("CREATE TABLE hands_dropped AS SELECT h.*, h.id AS kept_id FROM hands h WHERE 1 = 0"))
    if "actions_dropped" not in tables:
        bind.execute(sa.text("CREATE TABLE actions_dropped AS SELECT * FROM actions WHERE 1 = 0"))
    for hand, kept in losers:
        bind.execute(sa.text("INSERT INTO hands_dropped SELECT h.*, :kept FROM hands h WHERE h.id = :id"),
                     {"id": hand, "kept": kept})
        bind.execute(sa.text("INSERT INTO actions_dropped SELECT * FROM actions WHERE hand_id = :id"), {"id": hand})
        bind.execute(sa.text("DELETE FROM actions WHERE hand_id = :id"), {"id": hand})
        bind.execute(sa.text("DELETE FROM hands WHERE id = :id"), {"id": hand})
    return len(losers)


def upgrade() -> None:
    """Add the lease columns, the owner index and the unique hand number (duplicates set aside first)."""
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
        set_duplicates_aside(op.get_bind())
        op.create_index(UNIQUE_HAND, "hands", ["room_code", "number"], unique=True)


def downgrade() -> None:
    """Drop what :func:`upgrade` added."""
    op.drop_index(UNIQUE_HAND, "hands")
    op.drop_index(OWNER_INDEX, "rooms")
    with op.batch_alter_table("rooms") as batch:
        for name in ("wanted_by", "lease_until", "lease_epoch", "owner"):
            batch.drop_column(name)
