"""The store: one SQLAlchemy engine, migrated at start, and one short transaction per change.

SQLite (WAL, ``synchronous=NORMAL``) by default: a committed transaction survives the process being
killed (``kill -9``); PostgreSQL by URL (``postgresql+psycopg://...``, the ``postgres`` extra).
Every method commits before it returns, so the server broadcasts only what is on disk.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources
from typing import Any, cast

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Table, create_engine, event, func, insert, select, update
from sqlalchemy.engine import Engine

from daer.store.models import ActionTable, HandTable, ReplyTable, RoomTable, SeatTable

DEFAULT_URL = "sqlite:///daer.db"
"""Database used when neither ``--db`` nor ``DAER_DATABASE_URL`` is given."""

_ROOMS = cast(Table, RoomTable.__table__)
_SEATS = cast(Table, SeatTable.__table__)
_HANDS = cast(Table, HandTable.__table__)
_ACTIONS = cast(Table, ActionTable.__table__)
_REPLIES = cast(Table, ReplyTable.__table__)


def database_url(url: str | None = None) -> str:
    """``url``, else ``$DAER_DATABASE_URL``, else :data:`DEFAULT_URL`."""
    return url or os.environ.get("DAER_DATABASE_URL") or DEFAULT_URL


@dataclass(frozen=True, slots=True)
class SeatRow:
    """A stored seat."""

    seat: int
    kind: str
    name: str
    token_hash: str | None
    auto: bool


@dataclass(frozen=True, slots=True)
class ActionRow:
    """A stored action (``payload`` is the engine action as JSON)."""

    idx: int
    version: int
    seat: int
    client_id: str | None
    payload: str


@dataclass(frozen=True, slots=True)
class ReplyRow:
    """The answer (server message as JSON) to a seat's action or command id; ``refused`` for an error."""

    seat: int
    client_id: str
    reply: str
    refused: bool = False


@dataclass(frozen=True, slots=True)
class HandRow:
    """A stored hand with its actions."""

    id: int
    room_code: str
    number: int
    rules: str
    overrides: str
    dealer: int
    deck: str
    start_version: int
    finished: bool
    points: str | None
    actions: tuple[ActionRow, ...]
    commitment: str | None = None
    seed: str | None = None
    entropy: str | None = None


@dataclass(frozen=True, slots=True)
class RoomRow:
    """A stored room with its seats and its latest hand."""

    code: str
    created_at: float
    config: str
    status: str
    version: int
    scores: str
    dealer: int
    hands_played: int
    seats: tuple[SeatRow, ...]
    hand: HandRow | None
    ready: str | None = None
    deal_seed: str | None = None
    deal_entropy: str | None = None


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=5000")
    cur.close()


class Store:
    """Rooms, seats, hands and actions in a SQL database."""

    def __init__(self, url: str | None = None) -> None:
        self.url = database_url(url)
        if self.url.startswith("sqlite"):
            self.engine: Engine = create_engine(self.url, connect_args={"check_same_thread": False})
            event.listen(self.engine, "connect", _sqlite_pragmas)
        else:
            self.engine = create_engine(self.url, pool_pre_ping=True)
        self.migrate()

    def migrate(self) -> None:
        """Bring the schema up to date (Alembic ``upgrade head``)."""
        cfg = Config()
        cfg.set_main_option("script_location", str(resources.files("daer.store") / "migrations"))
        with self.engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")

    def close(self) -> None:
        """Release the connections."""
        self.engine.dispose()

    # -- writes (each one transaction) ----------------------------------------------------------
    def create_room(self, *, code: str, created_at: float, config: str, scores: str, dealer: int,
                    seats: list[SeatRow], deal_seed: str | None = None) -> None:
        """A new room and its seats (and the secret seed of its first hand)."""
        with self.engine.begin() as conn:
            conn.execute(insert(_ROOMS).values(code=code, created_at=created_at, config=config, status="waiting",
                                               version=0, scores=scores, dealer=dealer, hands_played=0,
                                               ready="[]", deal_seed=deal_seed, deal_entropy=None))
            for s in seats:
                conn.execute(insert(_SEATS).values(room_code=code, seat=s.seat, kind=s.kind, name=s.name,
                                                   token_hash=s.token_hash, auto=s.auto))

    def update_room(self, code: str, *, seats: list[SeatRow] | None = None, reply: ReplyRow | None = None,
                    **fields: Any) -> None:
        """Change room fields (status, version, scores, dealer, hands_played, ready, deal_*) and optionally
        seats, with the answer to the command that made the change."""
        with self.engine.begin() as conn:
            if fields:
                conn.execute(update(_ROOMS).where(_ROOMS.c.code == code).values(**fields))
            self._write_seats(conn, code, seats or [])
            self._write_reply(conn, code, reply)

    @staticmethod
    def _write_reply(conn: Connection, code: str, reply: ReplyRow | None) -> None:
        if reply is not None:
            conn.execute(insert(_REPLIES).values(room_code=code, seat=reply.seat, client_id=reply.client_id,
                                                 reply=reply.reply, refused=reply.refused))

    def save_reply(self, code: str, reply: ReplyRow) -> None:
        """The answer to an id whose command changed nothing else (or was refused)."""
        with self.engine.begin() as conn:
            self._write_reply(conn, code, reply)

    @staticmethod
    def _write_seats(conn: Connection, code: str, seats: list[SeatRow]) -> None:
        for s in seats:
            conn.execute(update(_SEATS).where(_SEATS.c.room_code == code, _SEATS.c.seat == s.seat)
                         .values(kind=s.kind, name=s.name, token_hash=s.token_hash, auto=s.auto))

    def start_hand(self, *, code: str, number: int, rules: str, overrides: str, dealer: int, deck: str,
                   version: int, seats: list[SeatRow] | None = None,
                   fairness: tuple[str, str, str] | None = None, reply: ReplyRow | None = None) -> int:
        """A new hand (``fairness``: its commitment, seed and entropy JSON); the room moves to ``playing``
        at ``version`` and its next-hand seed and ready marks are cleared.  Returns the hand id."""
        commit, seed, entropy = fairness or (None, None, None)
        with self.engine.begin() as conn:
            res = conn.execute(insert(_HANDS).values(room_code=code, number=number, rules=rules,
                                                     overrides=overrides, dealer=dealer, deck=deck,
                                                     start_version=version, finished=False, points=None,
                                                     commitment=commit, seed=seed, entropy=entropy))
            hand_id = res.inserted_primary_key[0] if res.inserted_primary_key else None
            assert isinstance(hand_id, int)
            conn.execute(update(_ROOMS).where(_ROOMS.c.code == code).values(
                status="playing", version=version, ready="[]", deal_seed=None, deal_entropy=None))
            self._write_seats(conn, code, seats or [])
            self._write_reply(conn, code, reply)
            return hand_id

    def append_action(self, *, code: str, hand_id: int, row: ActionRow, room: dict[str, Any] | None = None,
                      points: str | None = None, seats: list[SeatRow] | None = None,
                      reply: ReplyRow | None = None) -> None:
        """An accepted action, the room's new version (and scores etc. in ``room``), the hand's end, and the
        ack to the client's id."""
        with self.engine.begin() as conn:
            conn.execute(insert(_ACTIONS).values(hand_id=hand_id, idx=row.idx, version=row.version, seat=row.seat,
                                                 client_id=row.client_id, payload=row.payload))
            conn.execute(update(_ROOMS).where(_ROOMS.c.code == code).values(version=row.version, **(room or {})))
            if points is not None:
                conn.execute(update(_HANDS).where(_HANDS.c.id == hand_id).values(finished=True, points=points))
            self._write_seats(conn, code, seats or [])
            self._write_reply(conn, code, reply)

    def finish_hand(self, hand_id: int, points: str) -> None:
        """Mark a hand finished (a hand that ended at the deal, or one booked after a restart)."""
        with self.engine.begin() as conn:
            conn.execute(update(_HANDS).where(_HANDS.c.id == hand_id).values(finished=True, points=points))

    # -- reads ---------------------------------------------------------------------------------
    def _hand(self, conn: Connection, row: Any) -> HandRow:
        acts = conn.execute(select(_ACTIONS).where(_ACTIONS.c.hand_id == row.id).order_by(_ACTIONS.c.idx)).all()
        return HandRow(
            id=row.id, room_code=row.room_code, number=row.number, rules=row.rules, overrides=row.overrides,
            dealer=row.dealer, deck=row.deck, start_version=row.start_version, finished=bool(row.finished),
            points=row.points, commitment=row.commitment, seed=row.seed, entropy=row.entropy,
            actions=tuple(ActionRow(a.idx, a.version, a.seat, a.client_id, a.payload) for a in acts),
        )

    def load_room(self, code: str) -> RoomRow | None:
        """A room with its seats and latest hand."""
        with self.engine.connect() as conn:
            r = conn.execute(select(_ROOMS).where(_ROOMS.c.code == code)).first()
            if r is None:
                return None
            seats = conn.execute(select(_SEATS).where(_SEATS.c.room_code == code).order_by(_SEATS.c.seat)).all()
            h = conn.execute(select(_HANDS).where(_HANDS.c.room_code == code)
                             .order_by(_HANDS.c.number.desc()).limit(1)).first()
            return RoomRow(
                code=r.code, created_at=r.created_at, config=r.config, status=r.status, version=r.version,
                scores=r.scores, dealer=r.dealer, hands_played=r.hands_played,
                seats=tuple(SeatRow(s.seat, s.kind, s.name, s.token_hash, bool(s.auto)) for s in seats),
                hand=self._hand(conn, h) if h is not None else None,
                ready=r.ready, deal_seed=r.deal_seed, deal_entropy=r.deal_entropy,
            )

    def room_codes(self, statuses: tuple[str, ...] = ("waiting", "playing", "between")) -> list[str]:
        """Codes of the rooms in the given states."""
        with self.engine.connect() as conn:
            return [r.code for r in conn.execute(select(_ROOMS.c.code).where(_ROOMS.c.status.in_(statuses)))]

    def hand(self, hand_id: int) -> HandRow | None:
        """One hand with its actions."""
        with self.engine.connect() as conn:
            h = conn.execute(select(_HANDS).where(_HANDS.c.id == hand_id)).first()
            return self._hand(conn, h) if h is not None else None

    def hands_of(self, code: str) -> list[tuple[int, int, bool, str | None]]:
        """(id, number, finished, points JSON) of a room's hands."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(_HANDS.c.id, _HANDS.c.number, _HANDS.c.finished, _HANDS.c.points)
                                .where(_HANDS.c.room_code == code).order_by(_HANDS.c.number)).all()
            return [(r.id, r.number, bool(r.finished), r.points) for r in rows]

    def reply(self, code: str, seat: int, client_id: str) -> str | None:
        """The stored answer to a seat's id, if any."""
        with self.engine.connect() as conn:
            return conn.execute(select(_REPLIES.c.reply).where(
                _REPLIES.c.room_code == code, _REPLIES.c.seat == seat, _REPLIES.c.client_id == client_id,
            )).scalar()

    def reply_keys(self, code: str) -> list[tuple[int, str]]:
        """(seat, id) of every stored answer of a room."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(_REPLIES.c.seat, _REPLIES.c.client_id).where(_REPLIES.c.room_code == code))
            return [(int(seat), str(cid)) for seat, cid in rows]

    def refusals(self, code: str) -> dict[int, int]:
        """How many refused ids are stored for each seat of a room."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(_REPLIES.c.seat, func.count()).where(
                _REPLIES.c.room_code == code, _REPLIES.c.refused.is_(True)).group_by(_REPLIES.c.seat)).all()
            return {int(seat): int(n) for seat, n in rows}
