"""亲友圈 clubs and 战绩: clubs, members and roles, bans, invites, join requests, standing tables, club rooms,
seat invites, one record per seat of every finished hand, and each club's sums of them per CST day and month
(kept by a trigger on ``records``: what a club's 战绩, settle-up sheet and leaderboards read).

Only adds tables: what was stored before is untouched (hands finished before this migration have no records).
Idempotent like 0002: a table already there is left alone.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

TABLES = ("record_months", "record_days", "records", "club_seat_invites", "club_rooms", "club_templates",
          "club_requests", "club_invites",
          "club_bans", "club_members", "clubs")
"""Dropped in this order by :func:`downgrade` (the referring tables first)."""


def _players(name: str, nullable: bool = False) -> sa.Column[int]:
    return sa.Column(name, sa.Integer, sa.ForeignKey("players.id"), nullable=nullable)


def _club(primary: bool = False, nullable: bool = False) -> sa.Column[int]:
    return sa.Column("club_id", sa.Integer, sa.ForeignKey("clubs.id"), primary_key=primary, nullable=nullable)


def upgrade() -> None:
    """Create the club and record tables and their indexes."""
    have = set(sa.inspect(op.get_bind()).get_table_names())
    if "clubs" not in have:
        op.create_table(
            "clubs",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("number", sa.String(8), nullable=False, unique=True),
            sa.Column("name", sa.String(64), nullable=False),
            sa.Column("notice", sa.Text, nullable=False, server_default=""),
            sa.Column("config", sa.Text, nullable=False),
            _players("owner_id"),
            sa.Column("created_at", sa.Float, nullable=False),
            sa.Column("member_cap", sa.Integer, nullable=False),
            sa.Column("min_hands", sa.Integer, nullable=False, server_default="10"),
            sa.Column("dissolved_at", sa.Float, nullable=True))
        op.create_index("ix_clubs_owner_id", "clubs", ["owner_id"])
    if "club_members" not in have:
        op.create_table(
            "club_members", _club(primary=True),
            sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), primary_key=True),
            sa.Column("role", sa.String(8), nullable=False),
            sa.Column("joined_at", sa.Float, nullable=False),
            sa.Column("seen_at", sa.Float, nullable=True))
        op.create_index("ix_club_members_player_id", "club_members", ["player_id"])
    if "club_bans" not in have:
        op.create_table(
            "club_bans", _club(primary=True),
            sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), primary_key=True),
            sa.Column("at", sa.Float, nullable=False), _players("by_id", nullable=True))
    if "club_invites" not in have:
        op.create_table(
            "club_invites",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True), _club(),
            sa.Column("secret_hash", sa.String(64), nullable=False, unique=True), _players("created_by"),
            sa.Column("created_at", sa.Float, nullable=False), sa.Column("expires_at", sa.Float, nullable=False),
            sa.Column("max_uses", sa.Integer, nullable=False), sa.Column("uses", sa.Integer, nullable=False),
            sa.Column("revoked_at", sa.Float, nullable=True))
        op.create_index("ix_club_invites_club_id", "club_invites", ["club_id"])
    if "club_requests" not in have:
        op.create_table(
            "club_requests",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True), _club(), _players("player_id"),
            sa.Column("at", sa.Float, nullable=False), sa.Column("status", sa.String(16), nullable=False))
        op.create_index("ix_club_requests_club_status", "club_requests", ["club_id", "status"])
        op.create_index("ix_club_requests_player_id", "club_requests", ["player_id"])
    if "club_templates" not in have:
        op.create_table(
            "club_templates",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True), _club(),
            sa.Column("name", sa.String(64), nullable=False), sa.Column("config", sa.Text, nullable=False),
            sa.Column("created_at", sa.Float, nullable=False), sa.Column("room_code", sa.String(16), nullable=True),
            sa.Column("deleted_at", sa.Float, nullable=True))
        op.create_index("ix_club_templates_club_id", "club_templates", ["club_id"])
    if "club_rooms" not in have:
        op.create_table(
            "club_rooms",
            sa.Column("room_code", sa.String(16), sa.ForeignKey("rooms.code"), primary_key=True), _club(),
            sa.Column("template_id", sa.Integer, sa.ForeignKey("club_templates.id"), nullable=True),
            _players("opened_by", nullable=True), sa.Column("opened_at", sa.Float, nullable=False))
        op.create_index("ix_club_rooms_club_id", "club_rooms", ["club_id"])
    if "club_seat_invites" not in have:
        op.create_table(
            "club_seat_invites",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True), _club(),
            sa.Column("room_code", sa.String(16), nullable=False), _players("from_id"), _players("to_id"),
            sa.Column("at", sa.Float, nullable=False))
        op.create_index("ix_club_seat_invites_to_id", "club_seat_invites", ["to_id"])
    if "records" not in have:
        op.create_table(
            "records",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("hand_id", sa.Integer, sa.ForeignKey("hands.id"), nullable=False),
            sa.Column("room_code", sa.String(16), nullable=False),
            sa.Column("hand_number", sa.Integer, nullable=False),
            _club(nullable=True), _players("player_id", nullable=True),
            sa.Column("seat", sa.Integer, nullable=False), sa.Column("kind", sa.String(8), nullable=False),
            sa.Column("name", sa.String(64), nullable=False), sa.Column("rules", sa.String(64), nullable=False),
            sa.Column("at", sa.Float, nullable=False), sa.Column("points", sa.Integer, nullable=False),
            sa.Column("money", sa.Boolean, nullable=False), sa.Column("winner", sa.Integer, nullable=True),
            sa.Column("how", sa.String(16), nullable=False), sa.Column("hu", sa.Integer, nullable=False),
            sa.Column("mingtang", sa.Text, nullable=False),
            sa.Column("day", sa.Integer, nullable=False), sa.Column("month", sa.Integer, nullable=False))
        op.create_index("ix_records_player_at", "records", ["player_id", "at"])
        op.create_index("ix_records_club_at", "records", ["club_id", "at"])  # a club's export, oldest first
        op.create_index("uq_records_hand_seat", "records", ["hand_id", "seat"], unique=True)
        op.create_index("ix_records_room_code", "records", ["room_code"])
    for table, key in (("record_days", "day"), ("record_months", "month")):
        if table not in have:
            op.create_table(
                table, _club(primary=True), sa.Column(key, sa.Integer, primary_key=True),
                sa.Column("player_key", sa.Integer, primary_key=True), sa.Column("money", sa.Boolean, primary_key=True),
                sa.Column("hands", sa.Integer, nullable=False), sa.Column("wins", sa.Integer, nullable=False),
                sa.Column("points", sa.Integer, nullable=False))
    _rollup_trigger()


def _upsert(table: str, key: str, excluded: str) -> str:
    return (f"INSERT INTO {table} (club_id, {key}, player_key, money, hands, wins, points) VALUES (NEW.club_id, "
            f"NEW.{key}, COALESCE(NEW.player_id, 0), NEW.money, 1, CASE WHEN NEW.winner = NEW.seat THEN 1 ELSE 0 END, "
            f"NEW.points) ON CONFLICT (club_id, {key}, player_key, money) DO UPDATE SET "
            f"hands = {table}.hands + {excluded}.hands, wins = {table}.wins + {excluded}.wins, "
            f"points = {table}.points + {excluded}.points;")


def _rollup_trigger() -> None:
    """Every record of a club's hand, once inserted, adds to its club's day and month sums (a trigger: a hand
    booked again inserts no record, so it adds nothing either)."""
    bind = op.get_bind()
    days, months = _upsert("record_days", "day", "excluded"), _upsert("record_months", "month", "excluded")
    if bind.dialect.name == "postgresql":
        op.execute(f"""CREATE OR REPLACE FUNCTION records_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.club_id IS NOT NULL THEN
    {days}
    {months}
  END IF;
  RETURN NULL;
END $$""")
        op.execute("DROP TRIGGER IF EXISTS records_rollup ON records")
        op.execute("CREATE TRIGGER records_rollup AFTER INSERT ON records FOR EACH ROW "
                   "EXECUTE FUNCTION records_rollup()")
    else:
        op.execute("DROP TRIGGER IF EXISTS records_rollup")
        op.execute(f"CREATE TRIGGER records_rollup AFTER INSERT ON records WHEN NEW.club_id IS NOT NULL "
                   f"BEGIN {days} {months} END")


def downgrade() -> None:
    """Drop the club and record tables (the roll-up trigger with them)."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS records_rollup ON records")
        op.execute("DROP FUNCTION IF EXISTS records_rollup()")
    for name in TABLES:
        op.drop_table(name)
