"""The tournament endpoints (``/api/clubs/{n}/tourneys…``) and page (``/club/{n}/tourney/{t}``):
docs/tournaments.md.  Every endpoint passes the clubs' role gate on every request; every value sent is bounded.
"""

from __future__ import annotations

import csv
import io
import secrets
import time
from importlib import resources
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from daer.server.clubs.access import Asked, Clubs, path_int
from daer.server.clubs.routes import clean_text
from daer.server.players.identity import err, json_body
from daer.server.safety.bounds import RoomConfig, RoomError, check_config
from daer.server.table.seating import token_hash
from daer.server.tourney.service import Tourneys
from daer.store.tournaments import TourneyRow, TourneyStore

NAME_MAX = 24
ROUNDS = (1, 20)
HANDS = (1, 32)
OPEN_MAX = 5
"""Tournaments a club may have not yet finished."""
FIELD_MAX = 256
"""Players one tournament takes."""


class CreateBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: str
    config: RoomConfig = msgspec.field(default_factory=RoomConfig)
    rounds: int = 3
    hands: int = 4
    starts_at: float | None = None
    bots: bool = True
    bots_count: bool = True


def _cell(text: str) -> str:
    """A name as a spreadsheet cell: never read as a formula (a leading ``= + - @`` is quoted)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def tourney_routes(clubs: Clubs, tourneys: Tourneys) -> list[Route]:
    """The routes (each through the role gate)."""

    def db() -> TourneyStore:
        return tourneys.db  # the server's store, made at start

    def found(request: Request, asked: Asked) -> TourneyRow | JSONResponse:
        tid = path_int(request, "t")
        t = db().get(tid) if tid is not None else None
        if t is None or t.club_id != asked.club.id:
            return err(404, "no_tourney", "没有这个比赛", "no such tournament")
        return t

    def gate(request: Request, at_least: str, *, act: bool = False) -> tuple[Asked, TourneyRow] | JSONResponse:
        asked = clubs.acting(request, at_least) if act else clubs.member(request, at_least)
        if isinstance(asked, JSONResponse):
            return asked
        t = found(request, asked)
        return t if isinstance(t, JSONResponse) else (asked, t)

    def names(t: TourneyRow) -> dict[int, str]:
        return {int(p["id"]): str(p["nickname"]) for p in db().players(t.id)}

    def standings_json(t: TourneyRow) -> list[dict[str, Any]]:
        nick = names(t)
        return [{"rank": i + 1, "name": nick.get(s.player, ""), **s.to_json()}
                for i, s in enumerate(tourneys.standings(t))]

    def view_json(asked: Asked, t: TourneyRow) -> dict[str, Any]:
        nick = names(t)
        players = db().players(t.id)
        mine = next((p["status"] for p in players if p["id"] == asked.player.id), None)
        return {**t.to_json(), "club": asked.club.number, "role": asked.role, "me": asked.player.id,
                "registered": mine == "in", "players": players, "rounds_total": t.rounds, "rounds": db().rounds(t.id),
                "tables": tourneys.tables_json(t, t.round, nick) if t.round else [],
                "standings": standings_json(t),
                "hands_compared": tourneys.comparison(t) if t.status == "finished" else []}

    async def listing(request: Request) -> Response:
        asked = clubs.member(request)
        if isinstance(asked, JSONResponse):
            return asked
        return JSONResponse({"tourneys": [t.to_json() for t in db().of_club(asked.club.id)]})

    async def create(request: Request) -> Response:
        asked = clubs.acting(request, "admin")
        if isinstance(asked, JSONResponse):
            return asked
        body = await json_body(request, CreateBody)
        if isinstance(body, Response):
            return body
        name = clean_text(body.name, NAME_MAX)
        if name is None:
            return err(400, "bad_name", f"名称须是 1–{NAME_MAX} 个字", f"a name is 1–{NAME_MAX} characters")
        if not ROUNDS[0] <= body.rounds <= ROUNDS[1] or not HANDS[0] <= body.hands <= HANDS[1]:
            return err(400, "bad_format", "轮数须在 1–20，每轮局数须在 1–32",
                       "rounds must be 1-20 and hands per round 1-32")
        if body.starts_at is not None and not 0 <= body.starts_at < 1e11:
            return err(400, "bad_start", "开始时间不对", "bad start time")
        try:
            rules = check_config(body.config)
        except RoomError as exc:
            return err(400, exc.code, exc.zh, exc.en)
        if rules.table.seats != 4:
            return err(400, "not_four", "比赛只用四人桌的规则", "tournaments are played at tables of four")
        if db().count_open(asked.club.id) >= OPEN_MAX:
            return err(409, "too_many_tourneys", f"同时最多 {OPEN_MAX} 个未结束的比赛",
                       f"at most {OPEN_MAX} unfinished tournaments")
        tid = db().create(asked.club.id, asked.player.id, name=name, config=msgspec.json.encode(body.config).decode(),
                          rounds=body.rounds, hands=body.hands, starts_at=body.starts_at, bots=body.bots,
                          bots_count=body.bots_count)
        tourneys.hub.publish(asked.club.id, "tourney")
        return JSONResponse({"id": tid}, status_code=201)

    async def show(request: Request) -> Response:
        got = gate(request, "member")
        if isinstance(got, JSONResponse):
            return got
        return JSONResponse(view_json(*got), headers={"Cache-Control": "no-store"})

    async def standings(request: Request) -> Response:
        got = gate(request, "member")
        if isinstance(got, JSONResponse):
            return got
        return JSONResponse({"standings": standings_json(got[1])}, headers={"Cache-Control": "no-store"})

    async def register(request: Request) -> Response:
        got = gate(request, "member", act=True)
        if isinstance(got, JSONResponse):
            return got
        asked, t = got
        if t.status != "registering":
            return err(409, "started", "比赛已经开始，不能再报名或退出", "the tournament has started")
        withdraw = request.url.path.endswith("/withdraw")
        if withdraw:
            db().set_player(t.id, asked.player.id, "withdrawn")
        else:
            if db().status_of(t.id, asked.player.id) == "removed":
                return err(403, "removed", "你已被移出这个比赛", "you were removed from this tournament")
            if len([p for p in db().players(t.id) if p["status"] == "in"]) >= FIELD_MAX:
                return err(409, "full", f"比赛最多 {FIELD_MAX} 人", f"at most {FIELD_MAX} players")
            db().register(t.id, asked.player.id)
        tourneys.hub.publish(asked.club.id, "tourney")
        return JSONResponse({"registered": not withdraw})

    async def start(request: Request) -> Response:
        got = gate(request, "admin", act=True)
        if isinstance(got, JSONResponse):
            return got
        asked, t = got
        if t.status == "finished":
            return err(409, "finished", "比赛已结束", "the tournament is over")
        if t.status == "paused":
            db().change(t.id, status="running")
            tourneys.poke(t)
            tourneys.hub.publish(asked.club.id, "tourney")
            return JSONResponse({"round": t.round, "resumed": True})
        if t.round and db().round_status(t.id, t.round) != "done":
            return err(409, "round_running", "这一轮还没打完", "the round is still being played")
        people = [p for p in db().players(t.id) if p["status"] == "in"]
        if len(people) < (2 if t.bots else 4):
            return err(409, "too_few", "报名人数不够", "not enough players registered")
        number = tourneys.start_round(t)
        return JSONResponse({"round": number})

    async def pause(request: Request) -> Response:
        got = gate(request, "admin", act=True)
        if isinstance(got, JSONResponse):
            return got
        asked, t = got
        if t.status != "running":
            return err(409, "not_running", "比赛没有在进行", "the tournament is not running")
        db().change(t.id, status="paused")
        tourneys.hub.publish(asked.club.id, "tourney")
        return JSONResponse({"paused": True})

    async def end(request: Request) -> Response:
        got = gate(request, "admin", act=True)
        if isinstance(got, JSONResponse):
            return got
        asked, t = got
        if t.status != "finished" and t.round:
            tourneys.stop_round(t)
        elif t.status != "finished":
            db().change(t.id, status="finished")
        tourneys.hub.publish(asked.club.id, "tourney")
        return JSONResponse({"finished": True})

    async def remove(request: Request) -> Response:
        got = gate(request, "admin", act=True)
        if isinstance(got, JSONResponse):
            return got
        asked, t = got
        pid = path_int(request, "pid")
        if pid is None or not db().set_player(t.id, pid, "removed"):
            return err(404, "no_player", "这个比赛没有这位玩家", "no such player in this tournament")
        if t.round:
            tourneys.unseat(t, pid)
        tourneys.hub.publish(asked.club.id, "tourney")
        return JSONResponse({"removed": pid})

    async def seat(request: Request) -> Response:
        """The asker's seat at their table of the round under way: ``{code, seat, token}`` (a new token each time:
        the last device to ask holds the seat)."""
        got = gate(request, "member", act=True)
        if isinstance(got, JSONResponse):
            return got
        asked, t = got
        for tr in db().tables(t.id, t.round) if t.round else []:
            if asked.player.id not in tr.seats:
                continue
            room = tourneys.manager_of().get(tr.code)
            n = tr.seats.index(asked.player.id)
            if room is None or room.status not in ("playing", "between") or room.seats[n].kind != "human":
                break
            token = secrets.token_urlsafe(18)
            holder = room.seats[n].token_hash or ""
            try:
                room.perform(room.match.retoken(n, holder, token_hash(token)))
            except RoomError as exc:
                return err(409, exc.code, exc.zh, exc.en)
            await tourneys.manager_of().store.writer.synced()
            return JSONResponse({"code": tr.code, "seat": n, "token": token})
        return err(404, "no_seat", "你在这一轮没有座位", "you have no seat in this round")

    async def export(request: Request) -> Response:
        got = gate(request, "member")
        if isinstance(got, JSONResponse):
            return got
        _asked, t = got
        nick = names(t)
        rows = [{"round": r.round, "table": r.table + 1, "hand": r.hand, "seat": r.seat, "position": r.position,
                 "player": r.player, "name": nick.get(r.player, "机器人") if r.player else "机器人",
                 "points": r.points, "auto": r.auto} for r in tourneys.played(t)
                if db().round_status(t.id, r.round) == "done"]
        if request.url.path.endswith(".csv"):
            out = io.StringIO()
            w = csv.DictWriter(out, fieldnames=["round", "table", "hand", "seat", "position", "player", "name",
                                                "points", "auto"])
            w.writeheader()
            w.writerows({**r, "name": _cell(str(r["name"]))} for r in rows)
            return Response("\ufeff" + out.getvalue(), media_type="text/csv; charset=utf-8", headers={
                "Content-Disposition": f'attachment; filename="tourney-{t.id}.csv"'})
        return JSONResponse({"tourney": t.to_json(), "rounds": db().rounds(t.id), "standings": standings_json(t),
                             "hands": rows, "exported_at": time.time()},
                            headers={"Content-Disposition": f'attachment; filename="tourney-{t.id}.json"'})

    async def page(_request: Request) -> Response:
        return FileResponse(str(resources.files("daer") / "web" / "tourney.html"))

    base = "/api/clubs/{n}/tourneys"
    return [
        Route("/club/{n}/tourney/{t}", page), Route("/club/{n}/tourneys", page),
        Route(base, listing), Route(base, create, methods=["POST"]),
        Route(base + "/{t}", show), Route(base + "/{t}/standings", standings),
        Route(base + "/{t}/register", register, methods=["POST"]),
        Route(base + "/{t}/withdraw", register, methods=["POST"]),
        Route(base + "/{t}/start", start, methods=["POST"]), Route(base + "/{t}/pause", pause, methods=["POST"]),
        Route(base + "/{t}/end", end, methods=["POST"]),
        Route(base + "/{t}/players/{pid}/remove", remove, methods=["POST"]),
        Route(base + "/{t}/seat", seat, methods=["POST"]),
        Route(base + "/{t}/export.json", export), Route(base + "/{t}/export.csv", export),
    ]


__all__ = ["tourney_routes"]
