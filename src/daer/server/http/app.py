"""The ASGI app: the page (static files), a small JSON API for rooms and records, and the WebSocket.

The socket layer parses and forwards: message shape, size and rate are checked here, the rules by the
engine (through :mod:`daer.server.table.rooms`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
from collections.abc import AsyncIterator
from importlib import resources
from typing import Annotated, Any, cast

import msgspec
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

import daer
from daer.bots import BOTS, STRENGTHS
from daer.bots.review import ReviewError
from daer.engine import HandRecord, dumps
from daer.engine.record import RecordError
from daer.rules import RulesError, preset_names, resolve_rules
from daer.rules.house import house_offers, rulesets_info
from daer.server import protocol as p
from daer.server.clubs.access import Clubs
from daer.server.clubs.live import ClubHub
from daer.server.clubs.records import record_routes
from daer.server.clubs.routes import club_routes
from daer.server.clubs.tables import ClubTables
from daer.server.http.answers import Answers
from daer.server.http.invites import invite_page
from daer.server.http.pwa import pwa_routes
from daer.server.http.replays import replay_body, seat_names
from daer.server.http.score_api import calc_routes, read_body
from daer.server.http.score_api import json_error as _err
from daer.server.http.session import FLOOD_BURST, FLOOD_RATE, Session
from daer.server.ops.collector import YoungCollector
from daer.server.ops.logs import ctx
from daer.server.ops.metrics import GcMode, MetricsAccess, Ops, freeze_after_restore, tune_gc, watch_gc
from daer.server.players.identity import Players
from daer.server.players.routes import player_routes
from daer.server.safety.bounds import HANDS, MAX_SEATS, Id, Name, RoomConfig, RoomError, bounds_info
from daer.server.safety.guard import Guard
from daer.server.safety.limits import Limits, address_of
from daer.server.serving.expiry import sweep_forever
from daer.server.serving.manager import RoomManager, keep_leases_forever, too_many_rooms
from daer.server.social.networks import client_address, network_of, parse_proxies
from daer.server.social.phrases import phrases_info
from daer.server.table.dealing import fairness_of
from daer.server.table.port import DEFAULT_TTL, LeaseLost
from daer.server.table.reviewing import Busy, Reviews
from daer.server.table.rooms import Room, action_codec, moved, request_key
from daer.server.tourney.routes import tourney_routes
from daer.server.tourney.service import Tourneys
from daer.store import Store
from daer.store.outage import STORE_DOWN
from daer.store.players import GONE

log = logging.getLogger("daer.server")
WEB = resources.files("daer") / "web"
MAX_BODY = 8192
DRAIN_GRACE = 0.5
"""Seconds between handing the rooms over (sockets closed with the reconnect code) and stopping the server."""


async def _body(request: Request) -> dict[str, Any] | JSONResponse:
    raw = await read_body(request, MAX_BODY)
    if raw is None:
        return _err(413, "too_big", f"请求太大（上限 {MAX_BODY} 字节）", f"request too large (limit {MAX_BODY} bytes)")
    try:
        data = msgspec.json.decode(raw or b"{}")
    except msgspec.DecodeError:
        return _err(400, "bad_json", "请求不是有效的 JSON", "request body is not valid JSON")
    if not isinstance(data, dict):
        return _err(400, "bad_json", "请求须是一个 JSON 对象", "request body must be a JSON object")
    return data


class CreateBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/rooms``: the creator's name, the room's options, and a client request id."""

    name: Name = ""
    config: RoomConfig = msgspec.field(default_factory=RoomConfig)
    rid: Id | None = None
    """Client request id: the same rid from the same address gets the same answer (a double tap makes one room)."""


class ReviewBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/rooms/{code}/hands/{number}/review``: the seat to review (its range is the ruleset's)."""

    seat: Annotated[int, msgspec.Meta(ge=0, le=MAX_SEATS - 1)]


class JoinBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/rooms/{code}/join``: the player's name and a client request id."""

    name: Name = ""
    rid: Id | None = None


def _decode_body(data: dict[str, Any], kind: type[msgspec.Struct]) -> Any:
    try:
        return msgspec.convert(data, kind)
    except msgspec.ValidationError as exc:
        what = "房间选项" if "config" in str(exc) else "请求"
        return _err(400, "bad_config" if "config" in str(exc) else "bad_request", f"{what}不对：{exc}",
                    f"bad request: {exc}")


def _hand_number(request: Request) -> int:
    n = int(request.path_params["number"])
    return n if 1 <= n <= HANDS[1] else 0


async def _store_unavailable(conn: Request, exc: Exception) -> Response:
    """The database could not be reached (restarting, failed over, its pool exhausted): 503 with Retry-After,
    never a 500 — nothing was changed, and the same request (with its id) may be sent again.  (Starlette hands
    a socket's handler the WebSocket, and ignores what it returns.)"""
    first = str(getattr(exc, "orig", None) or exc).splitlines()
    log.warning("store unavailable: %s: %s", type(exc).__name__, first[0][:200] if first else "")
    if conn.scope["type"] == "websocket":
        await cast("WebSocket", conn).close(code=1013)  # try again later: the page reconnects
    res = _err(503, "store", "服务器暂时无法读写数据，请稍后重试", "the server cannot reach its database; try again")
    res.headers["Retry-After"] = "2"
    return res


def _moved_response() -> JSONResponse:
    exc = moved()
    res = _err(503, exc.code, exc.zh, exc.en)
    res.headers["Retry-After"] = "1"
    return res


def create_app(db_url: str | None = None, *, bot_delay: float = 0.6, limits: Limits | None = None,
               claim_window: float = 0.0, metrics: MetricsAccess = "local", gc_mode: GcMode = "default",
               sqlite_sync: str = "normal", worker: str | None = None, lease_ttl: float = DEFAULT_TTL,
               commit_window: float | None = None) -> Starlette:
    """The app with its store (migrated at start), its rooms resumed, the expiry sweep and the lease keeper.

    ``metrics``: who may read ``/metrics``; ``gc_mode="tuned"``: the collector's threshold raised and the
    restored rooms frozen (:mod:`daer.server.ops.metrics`; ``daer serve`` tunes by default); ``sqlite_sync``:
    ``normal`` or ``full`` (:data:`daer.store.db.SYNC`); ``worker``: this process's name in the lease table
    (``daer serve`` uses host:port, so a restarted worker takes its rooms back at once); ``lease_ttl``:
    seconds a room's lease lasts unrenewed (``docs/deploy.md``, "Cluster"); ``commit_window``: seconds the store
    gathers writes into one commit (None: the database's default, :data:`daer.store.db.COMMIT_WINDOW`).  SIGTERM
    drains: ``/readyz`` answers 503, every room is handed over (leases released, sockets closed with the
    reconnect code), then the server stops.
    """
    state: dict[str, Any] = {}
    ops = Ops(metrics)
    lim = limits or Limits()
    answers = Answers()
    players = Players(lambda: manager().store, lim)
    clubs = Clubs(lambda: manager().store, players)
    hub = ClubHub(lambda: manager().store)
    tables = ClubTables(clubs, lambda: manager(), hub)  # noqa: PLW0108 (manager is defined below)
    tourneys = Tourneys(clubs, lambda: manager(), hub)  # noqa: PLW0108
    proxies = parse_proxies(lim.trusted_proxies)
    reviews = Reviews()

    def manager() -> RoomManager:
        m = state["manager"]
        assert isinstance(m, RoomManager)
        return m

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        tune_gc(gc_mode)
        store = Store(db_url, synchronous=sqlite_sync, commit_window=commit_window)
        state["manager"] = app.state.manager = RoomManager(store, bot_delay=bot_delay, claim_window=claim_window,
                                                           worker=worker, lease_ttl=lease_ttl,
                                                           vote_seconds=lim.vote_seconds,
                                                           watch_delay=lim.watch_delay)
        tourneys.serve(manager())  # before the restore: a tournament table gets its schedule back
        n = manager().restore_all()
        log.info("resumed %d rooms (worker %s; engine %s)", n, manager().worker,
                 "compiled" if daer.COMPILED else "from source", extra=ctx("serving", rooms=n))
        freeze_after_restore(gc_mode)
        watch_gc()
        ops.started(manager())
        manager().listeners.append(tables.room_changed)
        manager().leavers.append(tables.forget)
        hub.start()
        store.writer.on_fail = manager().store_failed
        store.writer.start()  # from now on: one commit per loop tick, frames sent after it (daer.store.writer)
        sweeper = asyncio.create_task(sweep_forever(manager(), lim))
        keeper = asyncio.create_task(keep_leases_forever(manager()))
        young = YoungCollector()
        if gc_mode == "tuned":  # the young generation walked at least every 25 ms (daer.server.ops.collector)
            young.start()
        _drain_on_sigterm(asyncio.get_running_loop())
        yield
        sweeper.cancel()
        keeper.cancel()
        hub.stop()
        young.stop()
        if not manager().draining:
            manager().drain()
        store.close()

    def _drain_on_sigterm(loop: asyncio.AbstractEventLoop) -> None:
        """SIGTERM: drain (readiness off, rooms handed over, sockets told to reconnect), then let the server's
        own handler stop it."""
        if threading.current_thread() is not threading.main_thread():
            return
        before = signal.getsignal(signal.SIGTERM)

        def drain_then_stop() -> None:
            ops.draining = True
            n = manager().drain()
            pages = hub.close_all()  # the club pages' streams, which would hold the server's shutdown
            log.info("drained: %d rooms handed over, %d club pages closed", n, pages,
                     extra=ctx("drained", rooms=n, pages=pages))
            if callable(before):  # the server's own shutdown closes sockets with 1012: let ours (4001) go first
                loop.call_later(DRAIN_GRACE, before, signal.SIGTERM, None)

        signal.signal(signal.SIGTERM, lambda _sig, _frame: loop.call_soon_threadsafe(drain_then_stop))

    async def page(_request: Request) -> Response:
        return FileResponse(str(WEB / "index.html"))

    async def room_page(request: Request) -> Response:
        """``/r/CODE``: the page with the room's preview tags (Open Graph, Twitter card) for chat apps."""
        code = str(request.path_params["code"]).strip().upper()
        if lim.retry_after("lookup", address_of(request)) > 0:
            return FileResponse(str(WEB / "index.html"))  # too many look-ups: the page without a preview
        base = f"{request.url.scheme}://{request.url.netloc}"
        return HTMLResponse(invite_page(manager().store, code, base))

    async def favicon(_request: Request) -> Response:
        # browsers ask for /favicon.ico whatever the page links: the project's SVG icon
        return FileResponse(str(WEB / "icon.svg"), media_type="image/svg+xml")

    async def replay_page(_request: Request) -> Response:
        return FileResponse(str(WEB / "replay.html"))

    async def options(_request: Request) -> Response:
        # strengths first (easy / normal / hard), then the bots by name
        presets = preset_names()
        return Response(msgspec.json.encode({
            "presets": presets, "rulesets": rulesets_info(), "bots": [*STRENGTHS, *BOTS],
            "house": {n: house_offers(n) for n in presets}, "bounds": bounds_info(), **phrases_info()}),
            media_type="application/json")

    async def create_room(request: Request) -> Response:
        refused = lim.check("create", request)
        if refused is not None:
            return refused
        data = await _body(request)
        if isinstance(data, JSONResponse):
            return data
        body = _decode_body(data, CreateBody)
        if isinstance(body, JSONResponse):
            return body
        address = address_of(request)
        key = ("create", address, body.rid or "")
        if body.rid is not None and (first := answers.get(key)) is not None:
            return JSONResponse(first)
        rid = None if body.rid is None else request_key("create", address, body.rid)
        try:  # a repeat whose answer another worker (or this one before a restart) gave: the same room
            made = manager().recreate(address, rid) if rid is not None else None
            if made is None:
                if manager().live_count() >= lim.max_rooms:
                    return _err(503, "busy", "服务器房间已满，请稍后再试", "the server has too many rooms; try later")
                if manager().rooms_made_by(address) >= lim.max_rooms_per_address:
                    raise too_many_rooms(lim.max_rooms_per_address)
                made = manager().create(body.config, body.name.strip() or players.nickname(request), creator=address,
                                        rid=rid,
                                        at_most=lim.max_rooms_per_address)  # the cap counted again as stored
                log.info("room created", extra=ctx("room_created", room=made[0].code, seat=made[1],
                                                   rules=body.config.rules, bot=body.config.bot))
        except LeaseLost:
            return _moved_response()
        except RoomError as exc:  # a bad config, the cap, or a repeat's room moved / closed / its seat taken
            if exc.code == "moved":
                return _moved_response()
            status = {"too_many_rooms": 429, "store": 503}.get(exc.code, 400 if exc.code.startswith("bad") else 409)
            return _err(status, exc.code, exc.zh, exc.en)
        room, seat, token = made
        answer = {"code": room.code, "seat": seat, "token": token, "link": f"/r/{room.code}"}
        if body.rid is not None:
            answers.put(key, answer)
        return players.seated_answer(request, answer, room.code, seat, body.name)

    def _room(request: Request, code: str | None = None) -> Room | JSONResponse:
        try:
            room = manager().get(code if code is not None else str(request.path_params["code"]))
        except RoomError as exc:  # "moved": another worker holds the room (asked to hand it over) — retry
            if exc.code != "moved":
                raise
            return _moved_response()
        if room is None:
            return _err(404, "no_room", "没有这个房间", "no such room")
        return room

    async def join_room(request: Request) -> Response:
        refused = lim.check("join", request)
        if refused is not None:
            return refused
        data = await _body(request)
        if isinstance(data, JSONResponse):
            return data
        body = _decode_body(data, JoinBody)
        if isinstance(body, JSONResponse):
            return body
        code = str(request.path_params["code"]).strip().upper()
        if 3 <= len(code) <= 16 and tables.club_of(code) is not None:
            return _err(403, "club_table", "这是亲友圈的牌桌：请从亲友圈页面坐下",
                        "this is a club's table: sit down from the club's page")
        return await _join(request, code, body.name.strip() or players.nickname(request), body.rid)

    async def _join(request: Request, code: str, name: str, rid_: str | None = None) -> Response:
        """Take a seat of room ``code`` for the asking person (the room API's join and a club table's 坐下)."""
        key = ("join", code, address_of(request), rid_ or "")
        async with answers.turn(key):  # a double tap's second request waits for the first's answer
            if rid_ is not None and (first := answers.get(key)) is not None:
                return JSONResponse(first)
            room = _room(request, code)
            if isinstance(room, JSONResponse):
                return room
            rid = None if rid_ is None else request_key("join", address_of(request), rid_)
            try:
                # a repeat whose answer another worker (or this one before a restart) gave
                again = room.rejoin(rid) if rid is not None else None
                seat, token = again if again is not None else room.join(name, rid=rid)
            except LeaseLost:
                return _moved_response()
            except RoomError as exc:
                return _err(409, exc.code, exc.zh, exc.en)
            await manager().store.writer.synced()  # the token is handed out once the seat is stored
            if not room.serving:  # the fence refused the write: another worker holds the room now
                return _moved_response()
            if room.seat_of(token) != seat:  # its write failed (the room was reloaded from the store)
                return _err(503, "store", "服务器保存失败，请重试", "the server could not store the seat; try again")
            log.info("seat joined", extra=ctx("seat_joined", room=room.code, seat=seat))
            answer = {"code": room.code, "seat": seat, "token": token}
            if rid_ is not None:
                answers.put(key, answer)
            return players.seated_answer(request, answer, room.code, seat, name)

    async def room_info(request: Request) -> Response:
        refused = lim.check("lookup", request)
        if refused is not None:
            return refused
        room = _room(request)
        if isinstance(room, JSONResponse):
            return room
        hands = [{"number": n, "finished": f, "points": msgspec.json.decode(pt) if pt else None}
                 for _i, n, f, pt in room.store.hands_of(room.code)]
        return Response(msgspec.json.encode({"room": room.info(None), "hands": hands}),
                        media_type="application/json")

    def _record(request: Request) -> HandRecord | JSONResponse:
        """A finished hand, reached through its room's code and its number in the match (never a bare id)."""
        refused = lim.check("lookup", request)
        if refused is not None:
            return refused
        code, number = str(request.path_params["code"]).strip().upper(), _hand_number(request)
        # the seal first: while a tournament round runs, its tables answer alike for every hand, stored yet or
        # not (another worker may not have read the hand's first write yet; docs/tournaments.md)
        if 3 <= len(code) <= 16 and tourneys.sealed(code):
            return _err(403, "round_running", "比赛这一轮还没结束，牌谱暂不公开",
                        "the tournament round is not over yet")
        hand_id = None
        if 3 <= len(code) <= 16:
            hand_id = next((i for i, n, _f, _pt in manager().store.hands_of(code) if n == number), None)
        row = manager().store.hand(hand_id) if hand_id is not None else None
        if row is None:
            return _err(404, "no_hand", "没有这一局", "no such hand")
        if not row.finished:
            return _err(403, "not_finished", "这一局还没打完，不能看牌谱", "the hand is not finished yet")
        return HandRecord(rules=row.rules, overrides=msgspec.json.decode(row.overrides), seed=None,
                          deck=tuple(msgspec.json.decode(row.deck, type=list[int])), dealer=row.dealer,
                          actions=tuple(action_codec.decode(a.payload) for a in row.actions),
                          fairness=fairness_of(row))

    async def record(request: Request) -> Response:
        rec = _record(request)
        if isinstance(rec, JSONResponse):
            return rec
        name = f"daer-{request.path_params['code'].upper()}-{_hand_number(request)}.json"
        return Response(dumps(rec), media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def replay_steps(request: Request) -> Response:
        rec = _record(request)
        if isinstance(rec, JSONResponse):
            return rec
        code = str(request.path_params["code"]).strip().upper()
        try:
            asker = players.current(request)
            mine = None if asker is None else players.db.seat_in(asker.id, code)
            body = replay_body(rec, seat_names(manager().store, code), mine=mine)
        except RecordError as exc:
            return _err(500, "bad_record", "牌谱无法重放", str(exc))
        return Response(body, media_type="application/json")

    async def review_steps(request: Request) -> Response:
        """``POST …/hands/{number}/review`` ``{"seat": n}``: 复盘 of seat n (docs/table.md, "复盘").  Whoever may
        see the replay may ask (it shows every hand already); the review runs in the bot pool, bounded."""
        refused = lim.check("review", request)
        if refused is not None:
            return refused
        rec = _record(request)
        if isinstance(rec, JSONResponse):
            return rec
        data = await _body(request)
        if isinstance(data, JSONResponse):
            return data
        body = _decode_body(data, ReviewBody)
        if isinstance(body, JSONResponse):
            return body
        try:
            seats = resolve_rules(rec.rules, rec.overrides).table.seats
        except (RulesError, ValueError) as exc:
            return _err(500, "bad_record", "牌谱无法重放", str(exc))
        if not 0 <= body.seat < seats:
            return _err(400, "bad_seat", f"座位须在 0 到 {seats - 1} 之间", f"seat must be 0-{seats - 1}")
        code = str(request.path_params["code"]).strip().upper()
        try:
            got = await reviews.ask((code, _hand_number(request), body.seat), address_of(request), rec, body.seat)
        except ReviewError as exc:  # the 底家 of the hand (no decisions), or a stored record that does not replay
            return _err(400, "cannot_review", exc.zh, exc.en)
        if isinstance(got, Busy):  # 202: being computed, ask again; 429: a bound
            res = _err(got.status, got.code, got.zh, got.en)
            res.headers["Retry-After"] = "2" if got.status == 202 else "5"
            return res
        return Response(got, media_type="application/json")

    async def moved(_request: Request) -> Response:
        return _err(404, "no_hand", "牌谱只能通过房间查看：/api/rooms/{房号}/hands/{局数}/record",
                    "records are reached through their room: /api/rooms/{code}/hands/{number}/record")

    def _deleted(player_id: int, seats: list[tuple[str, int]]) -> None:
        """A deleted account: live rooms rename its seats, and it leaves every club."""
        manager().rename_seats(seats, GONE)
        for club_id in clubs.db.left_everywhere(player_id):
            hub.publish(club_id, "members")

    async def ws_endpoint(ws: WebSocket) -> None:
        """``/ws/{code}`` (the room's code in the URL, so a balancer can route by it) or ``/ws``."""
        address = address_of(ws)
        client = client_address(address, ws.headers.get("x-forwarded-for"), proxies)
        await ws.accept()
        if not lim.conns.acquire(address):
            await ws.send_text(p.encode(p.error("too_many_conns", "连接太多，请稍后再试",
                                                "too many connections; try again later")))
            await ws.close(code=1013)
            return
        try:
            code = ws.path_params.get("code")
            session = Session(ws, manager(), lim, address, None if code is None else str(code))
            session.network = network_of(client)
            await session.run()
        finally:
            lim.conns.release(address)

    app = Starlette(
        routes=[
            Route("/", page), Route("/r/{code}", room_page), Route("/replay/{code}/{number:int}", replay_page),
            Route("/favicon.ico", favicon),
            *player_routes(players, lim, _deleted),
            *club_routes(clubs, lim, tables, hub, join_seat=_join,
                        make_room=lambda: manager().live_count() < lim.max_rooms),
            *record_routes(clubs, players, lim),
            *tourney_routes(clubs, tourneys),
            Route("/api/options", options), Route("/api/rooms", create_room, methods=["POST"]),
            Route("/api/rooms/{code}", room_info), Route("/api/rooms/{code}/join", join_room, methods=["POST"]),
            Route("/api/rooms/{code}/hands/{number:int}/record", record),
            Route("/api/rooms/{code}/hands/{number:int}/replay", replay_steps),
            Route("/api/rooms/{code}/hands/{number:int}/review", review_steps, methods=["POST"]),
            Route("/api/hands/{rest:path}", moved),
            *calc_routes(lim),
            *pwa_routes(),
            *ops.routes(),
            WebSocketRoute("/ws", ws_endpoint), WebSocketRoute("/ws/{code}", ws_endpoint),
            Mount("/static", StaticFiles(directory=str(WEB)), name="static"),
        ],
        middleware=[Middleware(Guard, allowed_origins=lim.allowed_origins)],
        exception_handlers=dict.fromkeys(STORE_DOWN, _store_unavailable),
        lifespan=lifespan,
    )
    app.state.limits = lim
    return app


__all__ = ["FLOOD_BURST", "FLOOD_RATE", "Session", "create_app"]
