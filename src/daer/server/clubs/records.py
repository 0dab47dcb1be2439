"""The 战绩 endpoints (docs/clubs.md, "Records"): a player's own records, a club's table over a period, its
settle-up sheet and leaderboards, and the exports.

Who asks is the cookie only.  ``/api/me/records…`` answers the asking player's own rows (``401 no_player``
otherwise); every club endpoint passes :meth:`~daer.server.clubs.access.Clubs.member` first (a member; the
owner for the club's export).  Every query parameter is bounded: a bad one is ``400`` with what is wrong,
Chinese first.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from daer.server.clubs.access import Asked, Clubs
from daer.server.players.identity import Players, err
from daer.server.safety.limits import Limits
from daer.store.periods import LEADER_PERIODS, PERIODS, PeriodError, period_bounds
from daer.store.records import HISTORY_MAX, RecordStore, as_csv, as_json

DEFAULT_PERIOD = "week"
"""The period of a club's records and settle-up sheet when ``?period=`` is not given."""
DEFAULT_LIMIT = 50
"""Rows of a history page when ``?limit=`` is not given."""
NO_STORE = {"Cache-Control": "no-store"}


class BadQuery(ValueError):
    """A query parameter out of its bounds (``zh``, ``en``)."""

    def __init__(self, zh: str, en: str) -> None:
        super().__init__(en)
        self.zh, self.en = zh, en


def _bad(exc: BadQuery | PeriodError) -> JSONResponse:
    return err(400, "bad_query", exc.zh, exc.en)


def history_params(request: Request) -> tuple[float | None, int]:
    """``before`` (a moment: the ``next`` of the previous page) and ``limit`` (1 … :data:`HISTORY_MAX`)."""
    q = request.query_params
    before: float | None = None
    raw = q.get("before")
    if raw is not None:
        try:
            before = float(raw[:32])
        except ValueError:
            before = math.nan
        if len(raw) > 32 or not math.isfinite(before) or before < 0:
            raise BadQuery("before 须是一个时间（秒）", "before must be a time in seconds")
    raw = q.get("limit")
    limit = DEFAULT_LIMIT
    if raw is not None:
        if not (raw.isascii() and raw.isdigit() and len(raw) <= 4 and 1 <= int(raw) <= HISTORY_MAX):
            raise BadQuery(f"limit 须是 1–{HISTORY_MAX} 的整数", f"limit must be an integer 1–{HISTORY_MAX}")
        limit = int(raw)
    return before, limit


def period_params(request: Request, allowed: tuple[str, ...] = PERIODS) -> tuple[str, float, float]:
    """``period`` (one of ``allowed``, :data:`DEFAULT_PERIOD` when absent) with ``from`` / ``to`` for a range:
    (period, start, end)."""
    q = request.query_params
    period = q.get("period", DEFAULT_PERIOD)
    if period not in allowed:
        raise PeriodError(f"period 须是 {' / '.join(allowed)} 之一", f"period must be one of {', '.join(allowed)}")
    start, end = period_bounds(period, time.time(), q.get("from"), q.get("to"))
    return period, start, end


def _attachment(chunks: Iterator[str], name: str, media: str) -> Response:
    return StreamingResponse((c.encode() for c in chunks), media_type=media,
                             headers={"Content-Disposition": f'attachment; filename="{name}"', **NO_STORE})


def record_routes(clubs: Clubs, players: Players, limits: Limits) -> list[Route]:
    """The routes (mounted by the app next to the player routes)."""
    stores: dict[int, RecordStore] = {}

    def db() -> RecordStore:
        store = clubs.store_of()
        got = stores.get(id(store))
        if got is None:
            got = stores[id(store)] = RecordStore(store.engine)
        return got

    async def mine(request: Request) -> Response:
        player = players.asking(request, limits)
        if isinstance(player, JSONResponse):
            return player
        try:
            before, limit = history_params(request)
        except BadQuery as exc:
            return _bad(exc)
        page: dict[str, Any] = db().history(player.id, before=before, limit=limit)
        if before is None:  # the first page carries the totals and the chart
            page["totals"] = db().totals(player.id)
            page["series"] = db().series(player.id)
        return JSONResponse(page, headers=NO_STORE)

    async def mine_export(request: Request) -> Response:
        player = players.asking(request, limits)
        if isinstance(player, JSONResponse):
            return player
        rows = db().rows(player_id=player.id)
        if request.url.path.endswith(".csv"):
            return _attachment(as_csv(rows), f"daer-records-{player.id}.csv", "text/csv; charset=utf-8")
        head = {"format": "daer-records/1", "exported_at": time.time(), "player": player.id}
        return _attachment(as_json(rows, head), f"daer-records-{player.id}.json", "application/json")

    def gate(request: Request, at_least: str = "member") -> Asked | Response:
        return clubs.member(request, at_least)

    def over_period(request: Request) -> tuple[Asked, str, float, float] | Response:
        """A member's request for a period of the club: (who asks, the period, its start and end), or the answer."""
        asked = gate(request)
        if not isinstance(asked, Asked):
            return asked
        try:
            period, start, end = period_params(request)
        except PeriodError as exc:
            return _bad(exc)
        return asked, period, start, end

    async def club_records(request: Request) -> Response:
        got = over_period(request)
        if isinstance(got, Response):
            return got
        asked, period, start, end = got
        return JSONResponse({"period": period, "start": start, "end": end,
                             "members": db().club_table(asked.club.id, start, end)}, headers=NO_STORE)

    async def settle(request: Request) -> Response:
        got = over_period(request)
        if isinstance(got, Response):
            return got
        asked, period, start, end = got
        return JSONResponse({"period": period, **db().settle(asked.club.id, start, end)}, headers=NO_STORE)

    async def leaderboard(request: Request) -> Response:
        asked = gate(request)
        if not isinstance(asked, Asked):
            return asked
        period = request.query_params.get("period", "week")
        if period not in LEADER_PERIODS:
            return err(400, "bad_query", f"period 须是 {' / '.join(LEADER_PERIODS)} 之一",
                       f"period must be one of {', '.join(LEADER_PERIODS)}")
        return JSONResponse(db().leaderboard(asked.club.id, period, time.time()), headers=NO_STORE)

    async def club_export(request: Request) -> Response:
        asked = gate(request, "owner")
        if not isinstance(asked, Asked):
            return asked
        rows = db().rows(club_id=asked.club.id)
        name = f"daer-club-{asked.club.number}"
        if request.url.path.endswith(".csv"):
            return _attachment(as_csv(rows), f"{name}.csv", "text/csv; charset=utf-8")
        head = {"format": "daer-club-records/1", "exported_at": time.time(), "club": asked.club.number,
                "name": asked.club.name}
        return _attachment(as_json(rows, head), f"{name}.json", "application/json")

    return [
        Route("/api/me/records", mine), Route("/api/me/records.json", mine_export),
        Route("/api/me/records.csv", mine_export),
        Route("/api/clubs/{n}/records", club_records), Route("/api/clubs/{n}/settle", settle),
        Route("/api/clubs/{n}/leaderboard", leaderboard),
        Route("/api/clubs/{n}/export.json", club_export), Route("/api/clubs/{n}/export.csv", club_export),
    ]


__all__ = ["BadQuery", "history_params", "period_params", "record_routes"]
