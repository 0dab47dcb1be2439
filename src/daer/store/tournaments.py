"""Club tournaments in the store: tournaments, registrations, rounds (their committed seeds), tables (a room's
tournament, round and table) and each seat's result of each hand (docs/tournaments.md; migration 0009).

Writes are rare (a registration, a round, a hand's end per table), so each is one short transaction of its own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, cast

import msgspec
from sqlalchemy import Table, and_, insert, select, update
from sqlalchemy.engine import Engine

from daer.store.models import (
    PlayerTable,
    TourneyHandTable,
    TourneyPlayerTable,
    TourneyRoomTable,
    TourneyRoundTable,
    TourneyTable,
)

_T = cast(Table, TourneyTable.__table__)
_P = cast(Table, TourneyPlayerTable.__table__)
_R = cast(Table, TourneyRoundTable.__table__)
_ROOMS = cast(Table, TourneyRoomTable.__table__)
_H = cast(Table, TourneyHandTable.__table__)
_PLAYERS = cast(Table, PlayerTable.__table__)


@dataclass(frozen=True, slots=True)
class TourneyRow:
    id: int
    club_id: int
    name: str
    config: str
    rounds: int
    hands: int
    starts_at: float | None
    bots: bool
    bots_count: bool
    status: str
    round: int
    created_by: int
    created_at: float

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "config": msgspec.json.decode(self.config), "rounds": self.rounds,
                "hands": self.hands, "starts_at": self.starts_at, "bots": self.bots, "bots_count": self.bots_count,
                "status": self.status, "round": self.round}


@dataclass(frozen=True, slots=True)
class TableRow:
    """A table of a round: its room, number and seats (player id, None for a bot)."""

    code: str
    tourney_id: int
    round: int
    table: int
    seats: list[int | None]


@dataclass(frozen=True, slots=True)
class HandResult:
    round: int
    table: int
    hand: int
    seat: int
    player: int | None
    dealer: int
    points: int
    auto: bool
    code: str


class TourneyStore:
    """The tournament tables of a store's engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # -- tournaments -------------------------------------------------------------------------------------
    def create(self, club_id: int, by: int, **values: Any) -> int:
        with self.engine.begin() as c:
            res = c.execute(insert(_T).values(club_id=club_id, created_by=by, created_at=time.time(),
                                              status="registering", round=0, **values))
            return int(cast(Any, res.inserted_primary_key)[0])

    def get(self, tourney_id: int) -> TourneyRow | None:
        with self.engine.connect() as c:
            row = c.execute(select(_T).where(_T.c.id == tourney_id)).first()
        return None if row is None else TourneyRow(**row._asdict())

    def of_club(self, club_id: int) -> list[TourneyRow]:
        with self.engine.connect() as c:
            rows = c.execute(select(_T).where(_T.c.club_id == club_id).order_by(_T.c.id.desc()).limit(50)).all()
        return [TourneyRow(**r._asdict()) for r in rows]

    def count_open(self, club_id: int) -> int:
        with self.engine.connect() as c:
            return len(c.execute(select(_T.c.id).where(_T.c.club_id == club_id, _T.c.status != "finished")).all())

    def change(self, tourney_id: int, **values: Any) -> None:
        with self.engine.begin() as c:
            c.execute(update(_T).where(_T.c.id == tourney_id).values(**values))

    # -- players -------------------------------------------------------------------------------------------
    def register(self, tourney_id: int, player_id: int) -> None:
        """Register (again, after a withdrawal); a removed player stays removed."""
        with self.engine.begin() as c:
            got = c.execute(select(_P.c.status).where(_P.c.tourney_id == tourney_id,
                                                      _P.c.player_id == player_id)).first()
            if got is None:
                c.execute(insert(_P).values(tourney_id=tourney_id, player_id=player_id, at=time.time(), status="in"))
            elif got[0] == "withdrawn":
                c.execute(update(_P).where(_P.c.tourney_id == tourney_id, _P.c.player_id == player_id)
                          .values(status="in", at=time.time()))

    def set_player(self, tourney_id: int, player_id: int, status: str) -> bool:
        with self.engine.begin() as c:
            res = c.execute(update(_P).where(_P.c.tourney_id == tourney_id, _P.c.player_id == player_id)
                            .values(status=status))
            return bool(res.rowcount)

    def status_of(self, tourney_id: int, player_id: int) -> str | None:
        with self.engine.connect() as c:
            got = c.execute(select(_P.c.status).where(_P.c.tourney_id == tourney_id,
                                                      _P.c.player_id == player_id)).first()
        return None if got is None else str(got[0])

    def players(self, tourney_id: int) -> list[dict[str, Any]]:
        """Every registration, in registration order: id, nickname, avatar, status."""
        j = _P.join(_PLAYERS, _PLAYERS.c.id == _P.c.player_id)
        with self.engine.connect() as c:
            rows = c.execute(select(_P.c.player_id, _P.c.status, _PLAYERS.c.nickname, _PLAYERS.c.avatar).select_from(j)
                             .where(_P.c.tourney_id == tourney_id).order_by(_P.c.at, _P.c.player_id)).all()
        return [{"id": r[0], "status": r[1], "nickname": r[2] or "已注销玩家", "avatar": r[3] or ""} for r in rows]

    # -- rounds and tables ----------------------------------------------------------------------------------
    def add_round(self, tourney_id: int, number: int, *, seeds: list[str], commits: list[str], commitment: str,
                  byes: list[int], tables: list[tuple[str, list[int | None]]]) -> None:
        """A round and its tables, in one transaction."""
        with self.engine.begin() as c:
            c.execute(insert(_R).values(tourney_id=tourney_id, number=number, seeds=msgspec.json.encode(seeds).decode(),
                                        commits=msgspec.json.encode(commits).decode(), commitment=commitment,
                                        status="running", started_at=time.time(),
                                        byes=msgspec.json.encode(byes).decode()))
            for i, (code, seats) in enumerate(tables):
                c.execute(insert(_ROOMS).values(room_code=code, tourney_id=tourney_id, round=number, table_no=i,
                                                seats=msgspec.json.encode(seats).decode()))
            c.execute(update(_T).where(_T.c.id == tourney_id).values(round=number, status="running"))

    def rounds(self, tourney_id: int) -> list[dict[str, Any]]:
        with self.engine.connect() as c:
            rows = c.execute(select(_R).where(_R.c.tourney_id == tourney_id).order_by(_R.c.number)).all()
        out = []
        for r in rows:
            done = r.status == "done"
            out.append({"number": r.number, "status": r.status, "commitment": r.commitment,
                        "commits": msgspec.json.decode(r.commits), "byes": msgspec.json.decode(r.byes),
                        "seeds": msgspec.json.decode(r.seeds) if done else None,
                        "started_at": r.started_at, "ended_at": r.ended_at})
        return out

    def seeds(self, tourney_id: int, number: int) -> list[str] | None:
        with self.engine.connect() as c:
            got = c.execute(select(_R.c.seeds).where(_R.c.tourney_id == tourney_id, _R.c.number == number)).first()
        return None if got is None else msgspec.json.decode(got[0], type=list[str])

    def round_status(self, tourney_id: int, number: int) -> str | None:
        with self.engine.connect() as c:
            got = c.execute(select(_R.c.status).where(_R.c.tourney_id == tourney_id, _R.c.number == number)).first()
        return None if got is None else str(got[0])

    def end_round(self, tourney_id: int, number: int) -> bool:
        """Mark the round done (its seeds revealed); False when it was already."""
        with self.engine.begin() as c:
            res = c.execute(update(_R).where(_R.c.tourney_id == tourney_id, _R.c.number == number,
                                             _R.c.status == "running").values(status="done", ended_at=time.time()))
            return bool(res.rowcount)

    def tables(self, tourney_id: int, number: int | None = None) -> list[TableRow]:
        q = select(_ROOMS).where(_ROOMS.c.tourney_id == tourney_id)
        if number is not None:
            q = q.where(_ROOMS.c.round == number)
        with self.engine.connect() as c:
            rows = c.execute(q.order_by(_ROOMS.c.round, _ROOMS.c.table_no)).all()
        return [TableRow(r.room_code, r.tourney_id, r.round, r.table_no, msgspec.json.decode(r.seats)) for r in rows]

    def table_of(self, code: str) -> TableRow | None:
        with self.engine.connect() as c:
            r = c.execute(select(_ROOMS).where(_ROOMS.c.room_code == code)).first()
        return None if r is None else TableRow(r.room_code, r.tourney_id, r.round, r.table_no,
                                               msgspec.json.decode(r.seats))

    def running_tables(self) -> list[TableRow]:
        """The tables of every round under way (what a restarted server gives schedules again)."""
        j = _ROOMS.join(_R, and_(_R.c.tourney_id == _ROOMS.c.tourney_id, _R.c.number == _ROOMS.c.round))
        with self.engine.connect() as c:
            rows = c.execute(select(_ROOMS).select_from(j).where(_R.c.status == "running")).all()
        return [TableRow(r.room_code, r.tourney_id, r.round, r.table_no, msgspec.json.decode(r.seats)) for r in rows]

    # -- results -------------------------------------------------------------------------------------------
    def add_hand(self, t: TableRow, hand: int, dealer: int, points: list[int], auto: list[bool]) -> None:
        """One hand's result of every seat of a table (a second write of the same hand is ignored)."""
        with self.engine.begin() as c:
            if c.execute(select(_H.c.seat).where(_H.c.tourney_id == t.tourney_id, _H.c.round == t.round,
                                                 _H.c.table_no == t.table, _H.c.hand == hand)).first() is not None:
                return
            c.execute(insert(_H), [{"tourney_id": t.tourney_id, "round": t.round, "table_no": t.table, "hand": hand,
                                    "seat": s, "player_id": t.seats[s] if s < len(t.seats) else None,
                                    "dealer": dealer, "points": pts, "auto": auto[s], "room_code": t.code}
                                   for s, pts in enumerate(points)])

    def booked_hands(self, t: TableRow) -> set[int]:
        """The hands of a table already in the results."""
        with self.engine.connect() as c:
            rows = c.execute(select(_H.c.hand).where(_H.c.tourney_id == t.tourney_id, _H.c.round == t.round,
                                                     _H.c.table_no == t.table).distinct()).all()
        return {int(r[0]) for r in rows}

    def results(self, tourney_id: int) -> list[HandResult]:
        with self.engine.connect() as c:
            rows = c.execute(select(_H).where(_H.c.tourney_id == tourney_id)
                             .order_by(_H.c.round, _H.c.hand, _H.c.table_no, _H.c.seat)).all()
        return [HandResult(r.round, r.table_no, r.hand, r.seat, r.player_id, r.dealer, r.points, bool(r.auto),
                           r.room_code) for r in rows]

    def of_player(self, player_id: int) -> list[dict[str, Any]]:
        """The tournaments a player registered for (their 战绩 lists them)."""
        j = _P.join(_T, _T.c.id == _P.c.tourney_id)
        with self.engine.connect() as c:
            rows = c.execute(select(_T.c.id, _T.c.club_id, _T.c.name, _T.c.status).select_from(j)
                             .where(_P.c.player_id == player_id).order_by(_T.c.id.desc()).limit(100)).all()
        return [{"id": r[0], "club_id": r[1], "name": r[2], "status": r[3]} for r in rows]


__all__ = ["HandResult", "TableRow", "TourneyRow", "TourneyStore"]
