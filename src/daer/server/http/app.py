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
import time
from collections.abc import AsyncIterator
from importlib import resources
from typing import Any

import msgspec
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from daer.bots import BOTS, STRENGTHS
from daer.engine import HandRecord, dumps
from daer.engine.record import RecordError
from daer.rules import preset_names
from daer.rules.house import house_offers, rulesets_info
from daer.server import protocol as p
from daer.server.http.answers import Answers
from daer.server.http.pwa import pwa_routes
from daer.server.http.replays import replay_body, seat_names
from daer.server.http.score_api import calc_routes, read_body
from daer.server.http.score_api import json_error as _err
from daer.server.http.sockets import SEND_NOW
from daer.server.ops.collector import YoungCollector
from daer.server.ops.logs import COMMAND_LEVELS, SLOW, ctx
from daer.server.ops.metrics import ACTION_SECONDS, GcMode, MetricsAccess, Ops, freeze_after_restore, tune_gc, watch_gc
from daer.server.safety.bounds import HANDS, Id, Name, RoomConfig, RoomError, bounds_info
from daer.server.safety.guard import Guard
from daer.server.safety.limits import Limits, address_of
from daer.server.table.dealing import fairness_of
from daer.server.table.expiry import sweep_forever
from daer.server.table.manager import RoomManager, keep_leases_forever, too_many_rooms
from daer.server.table.port import DEFAULT_TTL, LeaseLost
from daer.server.table.rooms import Room, action_codec, moved, request_key
from daer.server.table.seating import Conn, token_hash
from daer.store import Store

log = logging.getLogger("daer.server")
WEB = resources.files("daer") / "web"
MAX_BODY = 8192
RATE = 20.0
"""Messages per second a connection may send on average ..."""
BURST = 60.0
"""... and at once."""
FLOOD_RATE = 100.0
"""Dropped messages a second a connection may go on sending ...  """
FLOOD_BURST = 1000.0
"""... and at once; past that it is told and closed (1008): each dropped message still costs its frame and a
parse, and one socket sending as fast as it could slowed every other room (a ping from 0.6 to ~240 ms)."""
DRAIN_GRACE = 0.5
"""Seconds between handing the rooms over (sockets closed with the reconnect code) and stopping the server."""


class Bucket:
    """A token bucket: ``take`` is False when the client sends faster than allowed."""

    def __init__(self, rate: float = RATE, burst: float = BURST) -> None:
        self.rate, self.burst, self.tokens, self.t = rate, burst, burst, time.monotonic()

    def take(self) -> bool:
        """Spend one token if there is one."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.t) * self.rate)
        self.t = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


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


def _moved_response() -> JSONResponse:
    exc = moved()
    res = _err(503, exc.code, exc.zh, exc.en)
    res.headers["Retry-After"] = "1"
    return res


def create_app(db_url: str | None = None, *, bot_delay: float = 0.6, limits: Limits | None = None,
               claim_window: float = 0.0, metrics: MetricsAccess = "local", gc_mode: GcMode = "default",
               sqlite_sync: str = "normal", worker: str | None = None, lease_ttl: float = DEFAULT_TTL) -> Starlette:
    """The app with its store (migrated at start), its rooms resumed, the expiry sweep and the lease keeper.

    ``metrics``: who may read ``/metrics``; ``gc_mode="tuned"``: the collector's threshold raised and the
    restored rooms frozen (:mod:`daer.server.ops.metrics`; ``daer serve`` tunes by default); ``sqlite_sync``:
    ``normal`` or ``full`` (:data:`daer.store.db.SYNC`); ``worker``: this process's name in the lease table
    (``daer serve`` uses host:port, so a restarted worker takes its rooms back at once); ``lease_ttl``:
    seconds a room's lease lasts unrenewed (``docs/deploy.md``, "Cluster").  SIGTERM drains: ``/readyz``
    answers 503, every room is handed over (leases released, sockets closed with the reconnect code), then
    the server stops.
    """
    state: dict[str, Any] = {}
    ops = Ops(metrics)
    lim = limits or Limits()
    answers = Answers()

    def manager() -> RoomManager:
        m = state["manager"]
        assert isinstance(m, RoomManager)
        return m

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        tune_gc(gc_mode)
        store = Store(db_url, synchronous=sqlite_sync)
        state["manager"] = app.state.manager = RoomManager(store, bot_delay=bot_delay, claim_window=claim_window,
                                                           worker=worker, lease_ttl=lease_ttl,
                                                           vote_seconds=lim.vote_seconds,
                                                           watch_delay=lim.watch_delay)
        n = manager().restore_all()
        log.info("resumed %d rooms (worker %s)", n, manager().worker, extra=ctx("serving", rooms=n))
        freeze_after_restore(gc_mode)
        watch_gc()
        ops.started(manager())
        store.writer.on_fail = manager().store_failed
        store.writer.start()  # from now on: one commit per loop tick, frames sent after it (daer.store.writer)
        sweeper = asyncio.create_task(sweep_forever(manager(), lim))
        keeper = asyncio.create_task(keep_leases_forever(manager()))
        young = YoungCollector()
        if gc_mode == "tuned":  # the young generation walked at least every 10 ms (daer.server.ops.collector)
            young.start()
        _drain_on_sigterm(asyncio.get_running_loop())
        yield
        sweeper.cancel()
        keeper.cancel()
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
            log.info("drained: %d rooms handed over", n, extra=ctx("drained", rooms=n))
            if callable(before):  # the server's own shutdown closes sockets with 1012: let ours (4001) go first
                loop.call_later(DRAIN_GRACE, before, signal.SIGTERM, None)

        signal.signal(signal.SIGTERM, lambda _sig, _frame: loop.call_soon_threadsafe(drain_then_stop))

    async def page(_request: Request) -> Response:
        return FileResponse(str(WEB / "index.html"))

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
            "house": {n: house_offers(n) for n in presets}, "bounds": bounds_info()}), media_type="application/json")

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
                made = manager().create(body.config, body.name.strip(), creator=address, rid=rid,
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
        return JSONResponse(answer)

    def _room(request: Request) -> Room | JSONResponse:
        try:
            room = manager().get(str(request.path_params["code"]))
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
        key = ("join", str(request.path_params["code"]).strip().upper(), address_of(request), body.rid or "")
        async with answers.turn(key):  # a double tap's second request waits for the first's answer
            if body.rid is not None and (first := answers.get(key)) is not None:
                return JSONResponse(first)
            room = _room(request)
            if isinstance(room, JSONResponse):
                return room
            rid = None if body.rid is None else request_key("join", address_of(request), body.rid)
            try:
                # a repeat whose answer another worker (or this one before a restart) gave
                again = room.rejoin(rid) if rid is not None else None
                seat, token = again if again is not None else room.join(body.name.strip(), rid=rid)
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
            if body.rid is not None:
                answers.put(key, answer)
            return JSONResponse(answer)

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
            body = replay_body(rec, seat_names(manager().store, code))
        except RecordError as exc:
            return _err(500, "bad_record", "牌谱无法重放", str(exc))
        return Response(body, media_type="application/json")

    async def moved(_request: Request) -> Response:
        return _err(404, "no_hand", "牌谱只能通过房间查看：/api/rooms/{房号}/hands/{局数}/record",
                    "records are reached through their room: /api/rooms/{code}/hands/{number}/record")

    async def ws_endpoint(ws: WebSocket) -> None:
        """``/ws/{code}`` (the room's code in the URL, so a balancer can route by it) or ``/ws``."""
        address = address_of(ws)
        await ws.accept()
        if not lim.conns.acquire(address):
            await ws.send_text(p.encode(p.error("too_many_conns", "连接太多，请稍后再试",
                                                "too many connections; try again later")))
            await ws.close(code=1013)
            return
        try:
            code = ws.path_params.get("code")
            await Session(ws, manager(), lim, address, None if code is None else str(code)).run()
        finally:
            lim.conns.release(address)

    app = Starlette(
        routes=[
            Route("/", page), Route("/r/{code}", page), Route("/replay/{code}/{number:int}", replay_page),
            Route("/favicon.ico", favicon),
            Route("/api/options", options), Route("/api/rooms", create_room, methods=["POST"]),
            Route("/api/rooms/{code}", room_info), Route("/api/rooms/{code}/join", join_room, methods=["POST"]),
            Route("/api/rooms/{code}/hands/{number:int}/record", record),
            Route("/api/rooms/{code}/hands/{number:int}/replay", replay_steps),
            Route("/api/hands/{rest:path}", moved),
            *calc_routes(lim),
            *pwa_routes(),
            *ops.routes(),
            WebSocketRoute("/ws", ws_endpoint), WebSocketRoute("/ws/{code}", ws_endpoint),
            Mount("/static", StaticFiles(directory=str(WEB)), name="static"),
        ],
        middleware=[Middleware(Guard, allowed_origins=lim.allowed_origins)],
        lifespan=lifespan,
    )
    app.state.limits = lim
    return app


def _outcome(reply: p.ServerMessage) -> str:
    """How a message was answered, for the logs: ``ack`` or the error's code."""
    return reply.code if isinstance(reply, p.Error) else "ack"


class _Tagged(msgspec.Struct, frozen=True):
    """Only the ``id`` of a client message (any other field ignored)."""

    id: p.Id | None = None


_tagged = msgspec.json.Decoder(_Tagged)


def _peek_id(raw: str | bytes) -> str | None:
    """The id of a client message that is a JSON object with a well-formed id, even if the rest is malformed or
    the message is dropped: the client waiting for that id's answer gets one."""
    try:
        return _tagged.decode(raw).id
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


class Session:
    """One WebSocket connection: reads and checks messages, forwards them to its room, writes replies."""

    def __init__(self, ws: WebSocket, manager: RoomManager, limits: Limits, address: str,
                 code: str | None = None) -> None:
        self.ws = ws
        self.code = code
        """The room code of the URL (``/ws/{code}``): hello must name the same room."""
        self.manager = manager
        self.limits, self.address = limits, address
        self.conn = Conn(None, gate=manager.store.writer, direct=ws.scope.get("extensions", {}).get(SEND_NOW))
        self.room: Room | None = None
        self.bucket = Bucket()
        self.strikes = 0
        self.flood = Bucket(FLOOD_RATE, FLOOD_BURST)
        """Dropped messages: when it runs dry the connection is closed ..."""
        self.flooded = False
        """... and what it still sends is ignored."""

    def send(self, msg: p.ServerMessage) -> None:
        self.conn.push(p.encode(msg))

    async def _writer(self) -> None:
        while True:
            text = await self.conn.queue.get()
            self.conn.sending = True  # until written, no frame may go around it (Conn.direct)
            if text is None or self.conn.overflow:
                await self.ws.close(code=1008 if self.conn.overflow else self.conn.close_code)
                return
            await self.ws.send_text(text)
            self.conn.sending = False

    async def run(self) -> None:
        writer = asyncio.create_task(self._writer())
        try:
            while not writer.done():
                msg = await self.ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                raw = msg.get("text") if msg.get("text") is not None else msg.get("bytes")
                self.handle(raw or b"")
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            writer.cancel()
            self._leave()

    def _leave(self) -> None:
        room = self.room
        if room is not None and self.conn in room.conns:
            room.conns.discard(self.conn)
            log.info("disconnected", extra=ctx("disconnected", room=room.code, seat=self.conn.seat))
            if self.conn.seat is not None:
                room.seats[self.conn.seat].online -= 1
                room.broadcast(room.version)
            else:
                room.watchers_changed(send=True)

    def handle(self, raw: str | bytes) -> None:
        """One client message: rate, size and shape checked, then forwarded."""
        if self.flooded:
            return
        v = self.room.version if self.room else None
        if not self.bucket.take():
            if not self.flood.take():  # dropping is not free either: told, then closed
                self.flooded = True
                self.send(p.error("too_fast", "消息太频繁，连接已关闭", "too many messages; the connection is closed",
                                  v=v))
                self.conn.close_code = 1008
                self.conn.push(None)
                return
            # Every refused action or command is answered (its id is in the error), so no client waits on a
            # reply that never comes; id-less messages (ping, sync) are answered only now and then.
            self.strikes += 1
            msg_id = _peek_id(raw) if len(raw) <= p.MAX_MESSAGE else None
            if msg_id is not None or self.strikes in (1, 50) or self.strikes % 500 == 0:
                self.send(p.error("too_fast", "操作太频繁，请慢一点", "too many messages; slow down", id=msg_id, v=v))
            return
        if len(raw) > p.MAX_MESSAGE:
            self.send(p.error("too_big", f"消息太大（上限 {p.MAX_MESSAGE} 字节）",
                              f"message too large (limit {p.MAX_MESSAGE} bytes)", v=v))
            return
        try:
            msg = p.client_decoder.decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            self.send(p.error("bad_message", f"消息格式不对：{exc}", f"malformed message: {exc}", id=_peek_id(raw),
                              v=v))
            return
        try:
            self.dispatch(msg)
        except LeaseLost:
            self.moved(getattr(msg, "id", None), v)
        except RoomError as exc:
            if exc.code == "moved":
                self.moved(getattr(msg, "id", None), v)
                return
            self.send(p.error(exc.code, exc.zh, exc.en, id=getattr(msg, "id", None), v=v))
        except Exception:
            log.exception("message failed")
            self.send(p.error("server", "服务器出错，动作未生效", "server error; nothing changed",
                              id=getattr(msg, "id", None), v=v))

    def moved(self, msg_id: str | None, v: int | None) -> None:
        """This process does not (or no longer) serve the room: say so, then close with the reconnect code."""
        exc = moved()
        self.send(p.error(exc.code, exc.zh, exc.en, id=msg_id, v=v))
        self.conn.close_code = p.RECONNECT
        self.conn.push(None)

    def dispatch(self, msg: p.ClientMessage) -> None:
        """Forward a well-formed message."""
        if isinstance(msg, p.Ping):
            self.send(p.Pong())
            return
        if isinstance(msg, p.Hello):
            self.hello(msg)
            return
        room = self.room
        if room is None:
            self.send(p.error("no_hello", "请先发送 hello", "send hello first"))
            return
        if not room.serving:
            self.moved(getattr(msg, "id", None), room.version)
            return
        seat = self.conn.seat
        if seat is not None and not room.holds(self.conn):
            # the seat was left, taken over or given to a bot since this connection proved its token
            room.evict(self.conn)
            return
        if isinstance(msg, p.Sync):
            self.conn.push(p.encode(room.update_for(seat, msg.v, msg.p)))
        elif isinstance(msg, p.Act):
            if seat is None:
                self.send(p.error("not_seated", "观众不能出牌", "spectators cannot act", id=msg.id, v=room.version))
                return
            t0 = time.perf_counter()
            self.conn.cork()  # the seat's update and the ack: one write to the socket
            try:
                reply = room.act(seat, msg)
                self.send(reply)
            finally:
                self.conn.uncork()
            took = time.perf_counter() - t0
            ACTION_SECONDS.observe(took)
            if took >= SLOW or log.isEnabledFor(logging.DEBUG):
                log.log(logging.WARNING if took >= SLOW else logging.DEBUG, "act", extra=ctx(
                    "slow_act" if took >= SLOW else "act", room=room.code, seat=seat, kind=msg.action.__class__.__name__
                    .lower(), v=msg.v, latency_ms=round(took * 1000, 2), result=_outcome(reply)))
            if isinstance(reply, p.Error) and reply.code == "stale":
                self.conn.push(p.encode(room.update_for(seat, msg.v)))
        elif isinstance(msg, p.Command):
            if msg.name not in p.COMMANDS:
                self.send(p.error("bad_command", "没有这个命令", f"unknown command; one of {p.COMMANDS}",
                                  id=msg.id, v=room.version))
                return
            reply = room.command(seat, msg)
            self.send(reply)
            level = COMMAND_LEVELS.get(msg.name, logging.DEBUG)
            if log.isEnabledFor(level):  # nothing is built for a line that is not written
                log.log(level, "command", extra=ctx("command", room=room.code, seat=seat, name=msg.name,
                                                    result=_outcome(reply)))

    def hello(self, msg: p.Hello) -> None:
        if self.room is not None:
            self.send(p.error("hello_twice", "已经连接了房间", "already joined a room on this connection"))
            return
        wait = self.limits.retry_after("lookup", self.address)
        if wait > 0:
            self.send(p.error("too_many", f"请求太频繁，请 {max(1, round(wait))} 秒后再试",
                              f"too many room look-ups; retry after {max(1, round(wait))} s"))
            return
        if self.code is not None and self.code.strip().upper() != msg.room.strip().upper():
            self.send(p.error("wrong_room", "连接地址和房号不一致", "hello names another room than the URL /ws/{code}"))
            return
        room = self.manager.get(msg.room)
        if room is None:
            self.send(p.error("no_room", "没有这个房间", "no such room"))
            return
        seat = None
        if msg.token is not None:
            seat = room.seat_of(msg.token)
            if seat is None:
                self.send(p.error("bad_token", "座位凭证无效（可能已离开房间）", "invalid seat token", v=room.version))
                return
            self.conn.holder = token_hash(msg.token)
        elif not room.config.watch:
            self.send(p.error("no_watching", "房主不允许观战", "the host does not allow watching", v=room.version))
            return
        self.room, self.conn.seat, self.conn.name = room, seat, msg.name.strip() if seat is None else ""
        log.info("connected", extra=ctx("connected", room=room.code, seat=seat, spectator=seat is None))
        self.send(p.Welcome(seat=seat, v=room.version))
        room.conns.add(self.conn)
        if seat is None:
            room.watchers_changed(send=False)
        self.conn.push(p.encode(room.update_for(seat, msg.v, msg.p)))
        if seat is not None:
            room.seats[seat].online += 1
            room.broadcast(room.version)
        else:  # the table sees one more watcher
            room.broadcast(room.version)
