"""One WebSocket connection of the online table (:class:`Session`): it reads and checks messages (rate, size,
shape), forwards them to its room and writes the replies.  The rules are the engine's (through the room)."""

from __future__ import annotations

import asyncio
import logging
import time

import msgspec
from starlette.websockets import WebSocket, WebSocketDisconnect

from daer.server import protocol as p
from daer.server.http.sockets import SEND_NOW
from daer.server.ops.logs import COMMAND_LEVELS, SLOW, ctx
from daer.server.ops.metrics import ACTION_SECONDS
from daer.server.safety.bounds import RoomError
from daer.server.safety.limits import Limits
from daer.server.serving.manager import RoomManager
from daer.server.table.port import LeaseLost
from daer.server.table.rooms import Room, moved
from daer.server.table.seating import Conn, token_hash

log = logging.getLogger("daer.server")
RATE = 20.0
"""Messages per second a connection may send on average ..."""
BURST = 60.0
"""... and at once."""
FLOOD_RATE = 100.0
"""Dropped messages a second a connection may go on sending ...  """
FLOOD_BURST = 1000.0
"""... and at once; past that it is told and closed (1008): each dropped message still costs its frame and a
parse, and one socket sending as fast as it could slowed every other room (a ping from 0.6 to ~240 ms)."""

class Bucket:
    """A token bucket: ``take`` is False when the client sends faster than allowed."""

    __slots__ = ("burst", "rate", "t", "tokens")

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

    __slots__ = ("address", "bucket", "code", "conn", "flood", "flooded", "limits", "manager", "network", "room",
                 "strikes", "ws")

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
        self.network: str | None = None
        """The client's network (same-network warning), never sent to anyone."""

    def send(self, msg: p.ServerMessage) -> None:
        self.conn.push(p.encode_frame(msg))

    async def _writer(self) -> None:
        while True:
            text = await self.conn.queue.get()
            self.conn.sending = True  # until written, no frame may go around it (Conn.direct)
            if text is None or self.conn.overflow:
                await self.ws.close(code=1008 if self.conn.overflow else self.conn.close_code)
                return
            await self.ws.send_text(text if isinstance(text, str) else text.decode())  # the ASGI message's text
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
            self.conn.push(p.encode_frame(room.update_for(seat, msg.v, msg.p)))
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
            if isinstance(reply, p.Error) and reply.code == "stale" and msg.v > room.version:
                # a version the room never had: the whole state, to start again from (an older version needs
                # nothing: the connection has been given, or will be, every update since it said hello, and the
                # same steps again would be told twice)
                self.conn.push(p.encode_frame(room.update_for(seat, None)))
        elif isinstance(msg, p.Say):
            self.send(room.say(seat, msg))
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
        self.conn.push(p.encode_frame(room.update_for(seat, msg.v, msg.p)))
        if seat is not None:
            room.seats[seat].online += 1
            if self.network is not None:
                room.match.networks[seat] = self.network
            room.broadcast(room.version)
        else:  # the table sees one more watcher
            room.broadcast(room.version)

