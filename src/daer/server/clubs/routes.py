"""The club endpoints (``/api/clubs…``) and pages (``/clubs``, ``/club/{n}``): docs/clubs.md.

Every endpoint passes the role gate (:meth:`daer.server.clubs.access.Clubs.member`) on every request; who asks
is the player cookie only.  POSTs pass the guard (:mod:`daer.server.safety.guard`: JSON content type, an allowed
Origin) like the room API.  Every string and number a client sends is bounded here (:data:`NAME_MAX`, …).
"""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from daer.server.clubs.access import Asked, Clubs, path_int, with_cookie
from daer.server.clubs.live import ClubHub
from daer.server.clubs.members import JOINED_MAX, member_routes, too_many_joined
from daer.server.clubs.tables import MAX_TEMPLATES, ClubTables
from daer.server.players.identity import err, json_body, no_player
from daer.server.safety.bounds import Name, RoomConfig, RoomError, check_config
from daer.server.safety.limits import Limits, address_of

NAME_MAX = 24
"""Characters of a club's or a standing table's name."""
NOTICE_MAX = 500
"""Characters of a club's 公告."""
MEMBER_CAP = 500
"""Members a club may have."""
OWNED_MAX = 5
"""Clubs one player may own."""
MIN_HANDS = (0, 1000)
PAGES_MAX = 8
"""Live pages (event streams) one player may hold open on one club, per worker."""
HEARTBEAT = 25.0
"""Seconds between two keep-alive lines of a club page's event stream (each marks the member online and checks
their role again)."""

JoinSeat = Callable[[Request, str, str], Awaitable[Response]]
"""The room API's join (``request, room code, name``), shared by a club table's 坐下."""


class ClubBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/clubs``: a new club."""

    name: str
    notice: str = ""
    config: RoomConfig = msgspec.field(default_factory=RoomConfig)


class EditBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/clubs/{n}``: what the owner or an admin changes."""

    name: str | None = None
    notice: str | None = None
    config: RoomConfig | None = None
    min_hands: int | None = None


class TemplateBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: str
    config: RoomConfig = msgspec.field(default_factory=RoomConfig)


class TableBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    config: RoomConfig | None = None


class SitBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: Name = ""


class SeatInviteBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    to: int
    room: str


def clean_text(text: str, limit: int, *, lines: bool = False) -> str | None:
    """A name (or, with ``lines``, a notice) as kept: NFC, trimmed, ``limit`` characters at most, no control
    character (a notice keeps its line breaks); None when it breaks a bound (or a name is empty)."""
    text = unicodedata.normalize("NFC", text).strip()
    if len(text) > limit or (not lines and not text):
        return None
    allowed = {"\n"} if lines else set()
    if any(unicodedata.category(ch)[0] == "C" and ch not in allowed for ch in text):
        return None
    return text


def _bad_name() -> JSONResponse:
    return err(400, "bad_name", f"名称须是 1–{NAME_MAX} 个字，不能有控制字符",
               f"a name is 1–{NAME_MAX} characters, no control characters")


def _bad_notice() -> JSONResponse:
    return err(400, "bad_notice", f"公告最多 {NOTICE_MAX} 个字，不能有控制字符",
               f"a notice is at most {NOTICE_MAX} characters, no control characters")


def _config(cfg: RoomConfig) -> str | JSONResponse:
    try:
        check_config(cfg)
    except RoomError as exc:
        return err(400, exc.code, exc.zh, exc.en)
    return msgspec.json.encode(cfg).decode()


def club_routes(clubs: Clubs, limits: Limits, tables: ClubTables, hub: ClubHub, *, join_seat: JoinSeat,
                make_room: Callable[[], bool]) -> list[Route]:
    """The routes; ``join_seat`` is the room API's join, ``make_room`` whether the server may make one more room."""
    players = clubs.players

    acting = clubs.acting

    def club_json(asked: Asked) -> dict[str, Any]:
        club, pid = asked.club, asked.player.id
        tlist, templates = tables.listing(club)
        here = hub.online(club.id)
        members = clubs.db.members(club.id)
        for m in members:
            m["online"] = bool(m["online"]) or m["id"] in here
        admin = asked.role in ("owner", "admin")
        return {"number": club.number, "name": club.name, "notice": club.notice,
                "config": msgspec.json.decode(club.config), "role": asked.role, "me": pid,
                "min_hands": club.min_hands, "member_cap": club.member_cap, "members": members,
                "tables": tlist, "templates": templates, "seat_invites": clubs.db.seat_invites(club.id, pid),
                "requests": clubs.db.requests(club.id) if admin else [],
                "invites": clubs.db.invites(club.id) if admin else [], "bans": clubs.db.bans(club.id) if admin else []}

    async def page(_request: Request) -> Response:
        return FileResponse(str(resources.files("daer") / "web" / "clubs.html"))

    async def my_clubs(request: Request) -> Response:
        player = players.asking(request, limits)
        if isinstance(player, JSONResponse):
            return player
        return JSONResponse({"clubs": clubs.db.clubs_of(player.id), "owned_max": OWNED_MAX, "joined_max": JOINED_MAX})

    async def create(request: Request) -> Response:
        refused = limits.check("club_new", request)
        if refused is not None:
            return refused
        body = await json_body(request, ClubBody)
        if isinstance(body, Response):
            return body
        name, notice = clean_text(body.name, NAME_MAX), clean_text(body.notice, NOTICE_MAX, lines=True)
        if name is None:
            return _bad_name()
        if notice is None:
            return _bad_notice()
        config = _config(body.config)
        if isinstance(config, JSONResponse):
            return config
        res = Response()
        player = players.touch(request, res)
        if player is None:
            return no_player()
        if clubs.db.count_owned(player.id) >= OWNED_MAX:
            return err(409, "too_many_clubs", f"每人最多创建 {OWNED_MAX} 个亲友圈", f"at most {OWNED_MAX} clubs each")
        if len(clubs.db.clubs_of(player.id)) >= JOINED_MAX:
            return too_many_joined()
        club = clubs.db.create(player.id, name, notice, config, MEMBER_CAP)
        return with_cookie(res, {"number": club.number, "name": club.name}, 201)

    async def show(request: Request) -> Response:
        asked = clubs.member(request)
        if isinstance(asked, JSONResponse):
            return asked
        return JSONResponse(club_json(asked), headers={"Cache-Control": "no-store"})

    async def edit(request: Request) -> Response:
        asked = acting(request, "admin")
        if isinstance(asked, JSONResponse):
            return asked
        body = await json_body(request, EditBody)
        if isinstance(body, Response):
            return body
        values: dict[str, Any] = {}
        if body.name is not None:
            if (name := clean_text(body.name, NAME_MAX)) is None:
                return _bad_name()
            values["name"] = name
        if body.notice is not None:
            if (notice := clean_text(body.notice, NOTICE_MAX, lines=True)) is None:
                return _bad_notice()
            values["notice"] = notice
        if body.config is not None:
            config = _config(body.config)
            if isinstance(config, JSONResponse):
                return config
            values["config"] = config
        if body.min_hands is not None:
            if not MIN_HANDS[0] <= body.min_hands <= MIN_HANDS[1]:
                return err(400, "bad_min_hands", "上榜局数须在 0 到 1000 之间", "min_hands must be 0-1000")
            values["min_hands"] = body.min_hands
        clubs.db.edit(asked.club.id, **values)
        hub.publish(asked.club.id, "club")
        return await show(request)

    # -- tables ------------------------------------------------------------------------------------------
    async def new_template(request: Request) -> Response:
        asked = acting(request, "admin")
        if isinstance(asked, JSONResponse):
            return asked
        body = await json_body(request, TemplateBody)
        if isinstance(body, Response):
            return body
        if (name := clean_text(body.name, NAME_MAX)) is None:
            return _bad_name()
        config = _config(body.config)
        if isinstance(config, JSONResponse):
            return config
        if clubs.db.count_templates(asked.club.id) >= MAX_TEMPLATES:
            return err(409, "too_many_templates", f"最多 {MAX_TEMPLATES} 张常驻桌",
                       f"at most {MAX_TEMPLATES} standing tables")
        if not make_room():
            return err(503, "busy", "服务器房间已满，请稍后再试", "the server has too many rooms; try later")
        tid = clubs.db.add_template(asked.club.id, name, config)
        tables.ensure(asked.club)
        return JSONResponse({"id": tid, "name": name}, status_code=201)

    async def delete_template(request: Request) -> Response:
        asked = acting(request, "admin")
        if isinstance(asked, JSONResponse):
            return asked
        tid = path_int(request, "id")
        if tid is None or not clubs.db.delete_template(asked.club.id, tid):
            return err(404, "no_template", "没有这张常驻桌", "no such standing table")
        hub.publish(asked.club.id, "tables")
        return JSONResponse({"deleted": tid})

    async def new_table(request: Request) -> Response:
        asked = acting(request, "member")
        if isinstance(asked, JSONResponse):
            return asked
        body = await json_body(request, TableBody)
        if isinstance(body, Response):
            return body
        cfg = body.config or msgspec.json.decode(asked.club.config, type=RoomConfig)
        if isinstance(checked := _config(cfg), JSONResponse):
            return checked
        if not make_room():
            return err(503, "busy", "服务器房间已满，请稍后再试", "the server has too many rooms; try later")
        try:
            room, seat, token = tables.open_adhoc(asked.club, cfg, asked.player.nickname, asked.player.id,
                                                  address_of(request))
        except RoomError as exc:
            return err(409, exc.code, exc.zh, exc.en)
        players.db.link_seat(asked.player.id, room.code, seat)
        return JSONResponse({"code": room.code, "seat": seat, "token": token, "link": f"/r/{room.code}"})

    async def sit(request: Request) -> Response:
        asked = acting(request, "member")
        if isinstance(asked, JSONResponse):
            return asked
        body = await json_body(request, SitBody)
        if isinstance(body, Response):
            return body
        code = str(request.path_params.get("code", "")).strip().upper()
        of = tables.club_of(code) if 3 <= len(code) <= 16 else None
        if of is None or of[0] != asked.club.id:
            return err(404, "no_table", "这个亲友圈没有这张桌", "no such table in this club")
        res = await join_seat(request, code, body.name.strip() or asked.player.nickname)
        if res.status_code == 200:
            clubs.db.drop_seat_invites(asked.club.id, asked.player.id, code)
        return res

    async def seat_invite(request: Request) -> Response:
        asked = acting(request, "member")
        if isinstance(asked, JSONResponse):
            return asked
        body = await json_body(request, SeatInviteBody)
        if isinstance(body, Response):
            return body
        code = body.room.strip().upper()
        of = tables.club_of(code) if 3 <= len(code) <= 16 else None
        if of is None or of[0] != asked.club.id:
            return err(404, "no_table", "这个亲友圈没有这张桌", "no such table in this club")
        if body.to == asked.player.id or clubs.db.role_of(asked.club.id, body.to) is None:
            return err(404, "no_member", "没有这个成员", "no such member")
        clubs.db.invite_to_seat(asked.club.id, code, asked.player.id, body.to)
        hub.publish(asked.club.id, "seat_invite")
        return JSONResponse({"invited": body.to, "room": code})

    # -- the live page -------------------------------------------------------------------------------------
    async def events(request: Request) -> Response:
        asked = clubs.member(request)
        if isinstance(asked, JSONResponse):
            return asked
        club_id, pid = asked.club.id, asked.player.id
        address = address_of(request)
        if sum(s.player_id == pid for s in hub.subs.get(club_id, ())) >= PAGES_MAX:
            return err(429, "too_many_pages", f"同一个亲友圈最多同时打开 {PAGES_MAX} 个页面",
                       f"at most {PAGES_MAX} open pages of one club")

        async def stream() -> AsyncIterator[str]:
            # counted as a connection of the address only once the stream runs (released when it ends)
            if not limits.conns.acquire(address):
                yield 'data: {"kind": "too_many_conns"}\n\n'
                return
            sub = hub.subscribe(club_id, pid)
            clubs.db.seen(club_id, pid)
            hub.publish(club_id, "online")
            try:
                yield "retry: 3000\n\n" + 'data: {"kind": "hello"}\n\n'
                while True:
                    try:
                        kinds: str | None = await asyncio.wait_for(sub.queue.get(), HEARTBEAT)
                    except TimeoutError:
                        kinds = None
                    if sub.closed:  # this worker drains: the page reconnects (to another one) after `retry`
                        return
                    # the role again at every event and keep-alive: a removed member's page is told at once
                    if clubs.db.by_id(club_id) is None or clubs.db.role_of(club_id, pid) is None:
                        yield 'data: {"kind": "gone"}\n\n'
                        return
                    if kinds is None:
                        clubs.db.seen(club_id, pid)
                        yield ": alive\n\n"
                    else:
                        yield f"data: {msgspec.json.encode({'kind': kinds}).decode()}\n\n"
            finally:
                hub.unsubscribe(sub)
                limits.conns.release(address)
                hub.publish(club_id, "online")

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    return [
        Route("/clubs", page), Route("/club/{n}", page),
        Route("/api/clubs", my_clubs), Route("/api/clubs", create, methods=["POST"]),
        *member_routes(clubs, limits, hub),
        Route("/api/clubs/{n}", show), Route("/api/clubs/{n}", edit, methods=["POST"]),
        Route("/api/clubs/{n}/templates", new_template, methods=["POST"]),
        Route("/api/clubs/{n}/templates/{id}/delete", delete_template, methods=["POST"]),
        Route("/api/clubs/{n}/tables", new_table, methods=["POST"]),
        Route("/api/clubs/{n}/tables/{code}/sit", sit, methods=["POST"]),
        Route("/api/clubs/{n}/seat-invites", seat_invite, methods=["POST"]),
        Route("/api/clubs/{n}/events", events),
    ]
