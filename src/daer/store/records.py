"""战绩 (records): one row per seat of every finished hand, and what is read from them — a player's history,
totals and chart, a club's table over a period, its settle-up sheet (结算) and its leaderboards, and exports.

**Writing.**  :func:`record_stmts` is the SQL of one hand's rows: one ``INSERT`` per seat, whose player (the
newest ``player_seats`` row of the seat, for a person's seat) and club (``club_rooms``, or for a tournament's
table the tournament's club: ``tourney_rooms``) are found by the statement itself, so booking a hand reads
nothing on the event loop.  The store puts them in the unit of the hand's finish
(:meth:`daer.store.Store.append_action`, :meth:`~daer.store.Store.finish_hand`): the records are committed with
the hand's end or not at all.  ``ON CONFLICT DO NOTHING`` on ``(hand_id, seat)``: a hand booked
again (restored after a restart) adds no second row.

**Units.**  A record's ``points`` are points, or 分 in money play (``money``).  The two never add up: every
total here is kept per unit (``points`` and ``money``), and the settle-up sheet settles each apart.

**Who counts.**  A club's tables list its members now (``club_members``); the rows of bots, unlinked seats and
former members are the others (``None``), whose share a settle-up sheet shows so that it still adds up.
"""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import ColumnElement, Integer, Table, case, func, select, text
from sqlalchemy import cast as sql_cast
from sqlalchemy.engine import Engine

from daer.store.models import ClubMemberTable, ClubTable, PlayerTable, RecordTable, TourneyRoomTable, TourneyTable
from daer.store.periods import LEADER_PERIODS, OFFSET, cst_day, cst_month, day_of, period_bounds, pieces
from daer.store.players import GONE
from daer.store.settleup import fewest_transfers
from daer.store.writer import Stmt, Writer

_REC = cast(Table, RecordTable.__table__)
_CLUBS = cast(Table, ClubTable.__table__)
_MEMBERS = cast(Table, ClubMemberTable.__table__)
_PLAYERS = cast(Table, PlayerTable.__table__)
_TROOMS = cast(Table, TourneyRoomTable.__table__)
_TOURNEYS = cast(Table, TourneyTable.__table__)

HISTORY_MAX = 200
"""The most rows of one page of a player's history."""
SERIES_MAX = 400
"""The most points of a player's chart."""
OTHERS_ZH, OTHERS_EN = "其他（机器人、未登录或已离开的座位）", "others (bots, unlinked seats, former members)"
EXPORT_COLUMNS = ("at", "day", "room", "hand", "club", "rules", "seat", "kind", "name", "player", "points",
                  "money", "winner", "how", "hu", "mingtang", "replay")
"""The columns of an export (CSV header; JSON keys), in this order."""


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat at a hand's end: who played it (``human`` or ``bot``), the name it showed, its points."""

    seat: int
    kind: str
    name: str
    points: int


@dataclass(frozen=True, slots=True)
class HandRecord:
    """What a finished hand leaves in ``records`` (the server builds it from the match at the hand's end)."""

    room_code: str
    hand_number: int
    rules: str
    money: bool
    winner: int | None
    how: str
    """``zimo`` (自摸), ``dianpao`` (点炮), ``hu`` (a 胡 of neither kind), ``instant`` or ``huang``."""
    hu: int
    mingtang: tuple[str, ...]
    seats: tuple[SeatResult, ...]


_SQL: dict[tuple[bool, int], str] = {}


def _record_sql(writer: Writer, seats: int) -> str:
    """One ``INSERT`` for the rows of a hand's ``seats`` seats: the hand's fields once, each seat's own fields in a
    ``VALUES`` list (its columns ``column1``…: the name both databases give them), the club looked up once."""
    key = (writer.named, seats)
    sql = _SQL.get(key)
    if sql is None:
        p = writer.param
        hand = ("hand_id", "room_code", "hand_number", "rules", "at", "money", "winner", "how", "hu", "mingtang",
                "day", "month")
        rows = ", ".join(f"({p(f's{i}')}, {p(f'k{i}')}, {p(f'n{i}')}, {p(f'p{i}')})" for i in range(seats))
        # the subqueries' parameters are their own (PostgreSQL deduces one type per parameter, and the columns
        # compared differ: varchar against text); a seat's player only for a person's seat
        player = (f"CASE WHEN v.column2 = 'human' THEN (SELECT player_id FROM player_seats WHERE room_code = "
                  f"{p('seat_room')} AND seat = v.column1 ORDER BY id DESC LIMIT 1) END")
        club = (f"COALESCE((SELECT club_id FROM club_rooms WHERE room_code = {p('club_room')}), "
                "(SELECT t.club_id FROM tourney_rooms r JOIN tourneys t ON t.id = r.tourney_id "
                f"WHERE r.room_code = {p('tourney_room')}))")
        sql = _SQL[key] = (
            f"INSERT INTO records ({', '.join(hand)}, seat, kind, name, points, club_id, player_id) "
            f"SELECT {', '.join(p(c) for c in hand)}, v.column1, v.column2, v.column3, v.column4, c.club_id, {player} "
            f"FROM (VALUES {rows}) AS v, (SELECT {club} AS club_id) AS c "
            "WHERE true ON CONFLICT DO NOTHING")  # WHERE: SQLite's parser needs it before an upsert of a SELECT
    return sql


def record_stmts(writer: Writer, hand_id: int, rec: HandRecord, at: float | None = None) -> list[Stmt]:
    """The statement that stores a finished hand's rows (one per seat), for the unit of its finish (a row
    already stored is kept, not doubled)."""
    if not rec.seats:
        return []
    at = time.time() if at is None else at
    params: dict[str, object] = {
        "hand_id": hand_id, "room_code": rec.room_code, "hand_number": rec.hand_number, "rules": rec.rules[:64],
        "at": at, "money": rec.money, "winner": rec.winner, "how": rec.how, "hu": rec.hu,
        "mingtang": json.dumps(list(rec.mingtang), ensure_ascii=False), "day": cst_day(at), "month": cst_month(at),
        "club_room": rec.room_code, "tourney_room": rec.room_code, "seat_room": rec.room_code}
    for i, s in enumerate(rec.seats):
        params[f"s{i}"], params[f"k{i}"] = s.seat, "human" if s.kind == "human" else "bot"
        params[f"n{i}"], params[f"p{i}"] = s.name[:64], s.points
    return [Stmt(_record_sql(writer, len(rec.seats)), params)]


def replay_link(code: str, hand: int) -> str:
    """The replay page of a hand."""
    return f"/replay/{code}/{hand}"


def _unit(money: Any) -> str:
    return "money" if money else "points"


def _empty() -> dict[str, int]:
    return {"hands": 0, "wins": 0, "points": 0}


def _zeros() -> dict[str, int]:
    """A member's sums before any hand: hands and wins of both units, points, money (分), hands per unit."""
    return {"hands": 0, "wins": 0, "points": 0, "money": 0, "points_hands": 0, "money_hands": 0}


class RecordStore:
    """The records of one database (``RecordStore(store.engine)``): every read of 战绩 (SQLAlchemy Core)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # -- a player's own -------------------------------------------------------------------------------------
    def history(self, player_id: int, *, before: float | None = None, limit: int = 50) -> dict[str, Any]:
        """A page of a player's hands, newest first (``before``: only those recorded before that moment — the
        ``next`` of the previous page); each with the names every seat showed, the replay's link, and for a hand
        of a club tournament its tournament, round and table (``tourney``; None otherwise)."""
        limit = max(1, min(int(limit), HISTORY_MAX))
        r = _REC.c
        q = (select(r.hand_id, r.at, r.room_code, r.hand_number, r.club_id, r.rules, r.seat, r.points, r.money,
                    r.winner, r.how, r.hu, r.mingtang).where(r.player_id == player_id))
        if before is not None:
            q = q.where(r.at < before)
        with self.engine.connect() as conn:
            rows = conn.execute(q.order_by(r.at.desc(), r.id.desc()).limit(limit)).all()
            hands = sorted({int(x.hand_id) for x in rows})
            names: dict[int, list[str]] = {h: [] for h in hands}
            if hands:
                for h, _seat, name in conn.execute(select(r.hand_id, r.seat, r.name).where(r.hand_id.in_(hands))
                                                   .order_by(r.hand_id, r.seat)):
                    names[int(h)].append(str(name))
            club_ids = sorted({int(x.club_id) for x in rows if x.club_id is not None})
            clubs = {int(c.id): {"number": str(c.number), "name": str(c.name)} for c in conn.execute(
                select(_CLUBS.c.id, _CLUBS.c.number, _CLUBS.c.name).where(_CLUBS.c.id.in_(club_ids)))} \
                if club_ids else {}
            codes = sorted({str(x.room_code) for x in rows})
            tourneys = {str(t.room_code): {"id": int(t.tourney_id), "name": str(t.name), "round": int(t.round),
                                           "table": int(t.table_no) + 1} for t in conn.execute(
                select(_TROOMS.c.room_code, _TROOMS.c.tourney_id, _TROOMS.c.round, _TROOMS.c.table_no, _TOURNEYS.c.name)
                .join(_TOURNEYS, _TOURNEYS.c.id == _TROOMS.c.tourney_id).where(_TROOMS.c.room_code.in_(codes)))} \
                if codes else {}
        out = [{"at": float(x.at), "room": str(x.room_code), "hand": int(x.hand_number),
                "club": clubs.get(int(x.club_id)) if x.club_id is not None else None, "rules": str(x.rules),
                "seat": int(x.seat), "names": names[int(x.hand_id)], "points": int(x.points), "money": bool(x.money),
                "won": x.winner is not None and int(x.winner) == int(x.seat), "winner": x.winner, "how": str(x.how),
                "hu": int(x.hu), "mingtang": json.loads(x.mingtang or "[]"),
                "replay": replay_link(str(x.room_code), int(x.hand_number)),
                "tourney": tourneys.get(str(x.room_code))} for x in rows]
        return {"records": out, "next": out[-1]["at"] if len(out) == limit else None}

    def totals(self, player_id: int) -> dict[str, dict[str, int]]:
        """A player's hands, wins and points, per unit (``points`` play and ``money`` play, 分)."""
        r = _REC.c
        won = func.sum(case((r.winner == r.seat, 1), else_=0))
        out = {"points": _empty(), "money": _empty()}
        with self.engine.connect() as conn:
            for money, n, w, pts in conn.execute(select(r.money, func.count(), won, func.sum(r.points))
                                                 .where(r.player_id == player_id).group_by(r.money)):
                out[_unit(money)] = {"hands": int(n), "wins": int(w or 0), "points": int(pts or 0)}
        return out

    def _day(self, at: ColumnElement[float]) -> ColumnElement[int]:
        """The CST day number of a moment (days since 1970-01-01 in UTC+8), in the database's dialect."""
        shifted = (at + OFFSET) / 86400
        if self.engine.dialect.name == "postgresql":
            return cast(ColumnElement[int], func.floor(shifted))
        return sql_cast(shifted, Integer)  # SQLite: truncation, and every moment here is after 1970

    def series(self, player_id: int) -> dict[str, list[dict[str, Any]]]:
        """A player's running total per unit by CST day: ``[{day, points, total}]`` (the day's points, the
        running total after it); at most :data:`SERIES_MAX` points (every k-th day kept, and the last)."""
        r = _REC.c
        day = self._day(r.at).label("day")
        out: dict[str, list[dict[str, Any]]] = {"points": [], "money": []}
        with self.engine.connect() as conn:
            rows = conn.execute(select(r.money, day, func.sum(r.points)).where(r.player_id == player_id)
                                .group_by(r.money, day).order_by(r.money, day)).all()
        for money, d, pts in rows:
            line = out[_unit(money)]
            total = (line[-1]["total"] if line else 0) + int(pts or 0)
            line.append({"day": day_of(int(d) * 86400 - OFFSET), "points": int(pts or 0), "total": total})
        for unit, line in out.items():
            if len(line) > SERIES_MAX:
                step = -(-len(line) // (SERIES_MAX - 1))
                out[unit] = [*line[:-1][::step], line[-1]]
        return out

    # -- a club's --------------------------------------------------------------------------------------------
    def _sums(self, club_id: int, start: float, end: float) -> dict[int, dict[str, int]]:
        """Per player of the club's records in the whole CST days ``[start, end)``: :func:`_zeros`'s sums, read from
        the club's roll-ups (``record_months`` for the whole months, ``record_days`` at the ends: a season is a few
        thousand rows, not its hundreds of thousands of records)."""
        days, months = pieces(start, end)
        parts = [("SELECT player_key, money, hands, wins, points FROM record_days WHERE club_id = :club "
                  f"AND day >= :d{i} AND day < :e{i} AND player_key <> 0") for i in range(len(days))]
        params: dict[str, Any] = {"club": club_id}
        for i, (a, b) in enumerate(days):
            params[f"d{i}"], params[f"e{i}"] = a, b
        if months is not None:
            parts.append("SELECT player_key, money, hands, wins, points FROM record_months WHERE club_id = :club "
                         "AND month >= :m0 AND month < :m1 AND player_key <> 0")
            params["m0"], params["m1"] = months
        q = text("SELECT player_key, money, sum(hands), sum(wins), sum(points) FROM ("
                 + " UNION ALL ".join(parts) + ") AS parts GROUP BY player_key, money")
        out: dict[int, dict[str, int]] = {}
        with self.engine.connect() as conn:
            for pid, money, n, w, pts in conn.execute(q, params):
                s = out.setdefault(int(pid), _zeros())
                s["hands"] += int(n)
                s["wins"] += int(w or 0)
                s[_unit(money)] += int(pts or 0)
                s[_unit(money) + "_hands"] += int(n)
        return out

    def _members(self, club_id: int) -> list[dict[str, Any]]:
        m, p = _MEMBERS.c, _PLAYERS.c
        with self.engine.connect() as conn:
            rows = conn.execute(select(m.player_id, m.role, p.nickname, p.deleted_at)
                                .join(_PLAYERS, p.id == m.player_id).where(m.club_id == club_id)
                                .order_by(m.player_id)).all()
        return [{"player": int(x.player_id), "nickname": GONE if x.deleted_at is not None else str(x.nickname or ""),
                 "role": str(x.role)} for x in rows]

    def club_table(self, club_id: int, start: float, end: float) -> list[dict[str, Any]]:
        """Every member's hands, wins, points and money (分) over ``[start, end)`` — a member with no hand
        too, with zeros — most money first, then most points, then most hands."""
        sums = self._sums(club_id, start, end)
        rows = [{**m, **sums.get(m["player"], _zeros())} for m in self._members(club_id)]
        rows.sort(key=lambda x: (-x["money"], -x["points"], -x["hands"], x["player"]))
        return rows

    def settle(self, club_id: int, start: float, end: float) -> dict[str, Any]:
        """The settle-up sheet of ``[start, end)``, one per unit that has records (``money`` in 分, ``points``):
        each member's net, the others' share (:data:`OTHERS_ZH`: bots, unlinked seats, former members — what
        makes the sheet add up), and the fewest transfers that settle them (:func:`fewest_transfers`; the
        others as ``null``)."""
        sums = self._sums(club_id, start, end)
        members = self._members(club_id)
        names: dict[int | None, str] = {m["player"]: m["nickname"] for m in members}
        names[None] = OTHERS_ZH
        sheets: dict[str, Any] = {}
        for unit in ("money", "points"):
            if not any(s[unit + "_hands"] for pid, s in sums.items() if pid in names):
                continue  # no member played in this unit
            nets: dict[int | None, int] = {m["player"]: sums.get(m["player"], _zeros())[unit] for m in members}
            others = -sum(nets.values())
            nets[None] = others
            sheets[unit] = {
                "nets": [{"player": pid, "nickname": names[pid], "net": net} for pid, net in
                         sorted(((k, v) for k, v in nets.items() if k is not None), key=lambda kv: (-kv[1], kv[0]))],
                "others": others,
                "transfers": [{"from": a, "from_name": names[a], "to": b, "to_name": names[b], "amount": amt}
                              for a, b, amt in fewest_transfers(nets)]}
        return {"start": start, "end": end, "sheets": sheets}

    def leaderboard(self, club_id: int, period: str, now: float) -> dict[str, Any]:
        """The club's board of the ``week`` / ``month`` / ``season`` containing ``now`` (CST): the members with at
        least the club's ``min_hands`` hands ranked by points then hands, and the others with their hand count.
        Ranked in money (分) when the period has money play, else in points."""
        if period not in LEADER_PERIODS:
            raise ValueError(period)
        start, end = period_bounds(period, now)
        with self.engine.connect() as conn:
            need = int(conn.execute(select(_CLUBS.c.min_hands).where(_CLUBS.c.id == club_id)).scalar() or 0)
        table = self.club_table(club_id, start, end)
        unit = "money" if any(x["money"] for x in table) else "points"
        ranked = sorted((x for x in table if x["hands"] >= need), key=lambda x: (-x[unit], -x["hands"], x["player"]))
        return {"period": period, "start": start, "end": end, "min_hands": need, "unit": unit,
                "ranked": [{"rank": i + 1, **x} for i, x in enumerate(ranked)],
                "unranked": [{"player": x["player"], "nickname": x["nickname"], "hands": x["hands"]}
                             for x in table if x["hands"] < need]}

    # -- exports ---------------------------------------------------------------------------------------------
    def rows(self, *, player_id: int | None = None, club_id: int | None = None) -> Iterator[dict[str, Any]]:
        """Every record of a player or of a club, oldest first, as :data:`EXPORT_COLUMNS` (read in batches)."""
        r = _REC.c
        q = (select(r.at, r.room_code, r.hand_number, _CLUBS.c.number, r.rules, r.seat, r.kind, r.name, r.player_id,
                    r.points, r.money, r.winner, r.how, r.hu, r.mingtang)
             .join(_CLUBS, _CLUBS.c.id == r.club_id, isouter=True))
        q = q.where(r.player_id == player_id) if player_id is not None else q.where(r.club_id == club_id)
        with self.engine.connect() as conn:
            for x in conn.execution_options(yield_per=2000).execute(q.order_by(r.at, r.id)):
                yield {"at": float(x.at), "day": day_of(float(x.at)), "room": str(x.room_code),
                       "hand": int(x.hand_number), "club": x.number, "rules": str(x.rules), "seat": int(x.seat),
                       "kind": str(x.kind), "name": str(x.name), "player": x.player_id, "points": int(x.points),
                       "money": bool(x.money), "winner": x.winner, "how": str(x.how), "hu": int(x.hu),
                       "mingtang": json.loads(x.mingtang or "[]"),
                       "replay": replay_link(str(x.room_code), int(x.hand_number))}


def as_csv(rows: Iterator[dict[str, Any]]) -> Iterator[str]:
    """An export as CSV text, chunk by chunk (a header, then a line per record; 名堂 joined by ``|``)."""
    buf = io.StringIO()
    buf.write("\ufeff")  # a byte-order mark: spreadsheet programs then read the Chinese as UTF-8
    out = csv.writer(buf)
    out.writerow(EXPORT_COLUMNS)
    for i, row in enumerate(rows, 1):
        out.writerow(["|".join(row[c]) if c == "mingtang" else "" if row[c] is None else row[c]
                      for c in EXPORT_COLUMNS])
        if i % 500 == 0:
            yield buf.getvalue()
            buf.seek(0)
            buf.truncate()
    yield buf.getvalue()


def as_json(rows: Iterator[dict[str, Any]], head: dict[str, Any]) -> Iterator[str]:
    """An export as one JSON object, chunk by chunk: ``head``'s fields and ``"records": [...]``."""
    yield json.dumps(head, ensure_ascii=False)[:-1] + (', "records": [' if head else '"records": [')
    for i, row in enumerate(rows):
        yield ("," if i else "") + json.dumps(row, ensure_ascii=False)
    yield "]}"


__all__ = ["EXPORT_COLUMNS", "GONE", "HISTORY_MAX", "HandRecord", "RecordStore", "SeatResult",
           "as_csv", "as_json", "record_stmts", "replay_link"]
