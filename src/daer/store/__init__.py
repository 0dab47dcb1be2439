"""The database of the online table: rooms, seats, hands and every accepted action (SQLAlchemy 2)."""

from daer.store.db import DEFAULT_URL, ActionRow, HandRow, ReplyRow, RoomRow, SeatRow, Store, database_url

__all__ = ["DEFAULT_URL", "ActionRow", "HandRow", "ReplyRow", "RoomRow", "SeatRow", "Store", "database_url"]
