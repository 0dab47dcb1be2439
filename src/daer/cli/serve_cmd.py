"""``daer serve``: the online table — a web server with an embedded database, nothing else to set up."""

from __future__ import annotations

import socket
from enum import StrEnum
from typing import Annotated

import typer

from daer.server.safety.limits import DEFAULT_RATES, Deadlines, Limits, Rate, parse_rate

_DEF = Limits()
_SLOW = Deadlines()


class MetricsOpt(StrEnum):
    """Who may read ``/metrics``."""

    local = "local"
    on = "on"
    off = "off"


class LogFormatOpt(StrEnum):
    """How log lines are written."""

    json = "json"
    text = "text"


class LogLevelOpt(StrEnum):
    """The least severe log records written."""

    debug = "debug"
    info = "info"
    warning = "warning"
    error = "error"


class SyncOpt(StrEnum):
    """SQLite's ``synchronous`` setting."""

    normal = "normal"
    full = "full"


class LoopOpt(StrEnum):
    """The event loop uvicorn runs (auto: uvloop if it is installed, else asyncio)."""

    auto = "auto"
    asyncio = "asyncio"
    uvloop = "uvloop"


class WsDeflateOpt(StrEnum):
    """WebSocket permessage-deflate (RFC 7692)."""

    off = "off"
    on = "on"


class GcOpt(StrEnum):
    """The garbage collector's settings."""

    tuned = "tuned"
    threshold = "threshold"
    default = "default"


def _rate(text: str) -> Rate:
    try:
        return parse_rate(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc


def _fmt(r: Rate) -> str:
    return f"{r.per_minute:g}/{r.capacity:g}"


def serve(
    *,
    host: Annotated[str, typer.Option(help="监听地址 address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="端口 port")] = 8000,
    db: Annotated[str | None, typer.Option(help="数据库 URL (default $DAER_DATABASE_URL or sqlite:///daer.db)")]
    = None,
    bot_delay: Annotated[float, typer.Option(min=0.0, max=10.0,
                                             help="机器人出牌间隔（秒） seconds between bot moves (0-10)")] = 0.6,
    claim_window: Annotated[float, typer.Option(min=0.0, max=10.0, help="每张牌至少等多久才定（秒），不论有没有人能要；"
                                                "应不小于机器人间隔 seconds every claim window stays open at least, "
                                                "whether or not anyone may claim (0-10; keep it >= --bot-delay)")]
    = 1.0,
    create_rate: Annotated[str, typer.Option(help="每个地址每分钟开房数/突发 rooms created per minute per address"
                                                  "/burst")] = _fmt(DEFAULT_RATES["create"]),
    join_rate: Annotated[str, typer.Option(help="每个地址每分钟入座数/突发 joins per minute per address/burst")]
    = _fmt(DEFAULT_RATES["join"]),
    lookup_rate: Annotated[str, typer.Option(help="每个地址每分钟查房号数/突发 room-code look-ups (info, hello) "
                                                  "per minute per address/burst")] = _fmt(DEFAULT_RATES["lookup"]),
    score_rate: Annotated[str, typer.Option(help="每个地址每分钟计分令牌/突发 calculator tokens per minute per address"
                                                 "/burst (POST /api/score: 1 + lines/100 a request)")]
    = _fmt(DEFAULT_RATES["score"]),
    player_rate: Annotated[str, typer.Option(help="每个地址每分钟新建玩家数/突发 players made at a first seat per "
                                                  "minute per address/burst")] = _fmt(DEFAULT_RATES["player"]),
    signin_rate: Annotated[str, typer.Option(help="每个地址每分钟登录次数（链接、通行密钥）/突发 sign-ins with a link "
                                                  "or a passkey per minute per address/burst")]
    = _fmt(DEFAULT_RATES["signin"]),
    signin_link_rate: Annotated[str, typer.Option(help="每个地址每分钟生成登录链接数/突发 second-device links made per "
                                                       "minute per address/burst")]
    = _fmt(DEFAULT_RATES["signin_link"]),
    club_rate: Annotated[str, typer.Option(help="每个地址每分钟新建亲友圈数/突发 clubs made per minute per "
                                                "address/burst (invites, requests and other club changes keep "
                                                "their own rates)")] = _fmt(DEFAULT_RATES["club_new"]),
    review_rate: Annotated[str, typer.Option(help="每个地址每分钟复盘数/突发 复盘 reviews asked per minute per "
                                                  "address/burst")] = _fmt(DEFAULT_RATES["review"]),
    other_rate: Annotated[str, typer.Option(help="其他受限请求 other limited requests per minute/burst")]
    = _fmt(_DEF.default_rate),
    max_rooms: Annotated[int, typer.Option(min=1, help="进行中房间上限 live rooms in all")] = _DEF.max_rooms,
    max_rooms_per_address: Annotated[int, typer.Option(min=1, help="每个地址的进行中房间上限 live rooms per "
                                                                   "address")] = _DEF.max_rooms_per_address,
    max_conns: Annotated[int, typer.Option(min=1, help="连接总数上限 WebSocket connections in all")]
    = _DEF.max_conns,
    max_conns_per_address: Annotated[int, typer.Option(min=1, help="每个地址的连接上限 connections per address")]
    = _DEF.max_conns_per_address,
    waiting_ttl: Annotated[float, typer.Option(min=1.0, help="等待中的房间过期秒数 seconds before a waiting "
                                                             "room expires")] = _DEF.waiting_ttl,
    idle_ttl: Annotated[float, typer.Option(min=1.0, help="无人动作的牌局过期秒数 seconds before an idle "
                                                          "playing room expires")] = _DEF.idle_ttl,
    finished_ttl: Annotated[float, typer.Option(min=1.0, help="结束的房间留在内存的秒数 seconds a finished "
                                                              "room stays in memory")] = _DEF.finished_ttl,
    sweep_every: Annotated[float, typer.Option(min=0.1, help="过期检查间隔 seconds between expiry sweeps")]
    = _DEF.sweep_every,
    vote_seconds: Annotated[float, typer.Option(min=1.0, max=600.0, help="解散投票倒计时（秒），到时未表态的算同意 "
                                                "seconds a vote to dissolve runs; silence agrees after it")]
    = _DEF.vote_seconds,
    watch_delay: Annotated[int, typer.Option(min=0, max=64, help="观战延后的公开步数（摸、打、吃碰、定牌各算一步；"
                                             "默认 4 约一人一整轮） public steps spectators see behind the table "
                                             "(a draw, a discard, a claim, a claim window closed: one each; 0-64)")]
    = _DEF.watch_delay,
    trusted_proxy: Annotated[list[str] | None, typer.Option(
        help="可信的反向代理地址（可重复）：只对它们读 X-Forwarded-For（同网提醒） a reverse proxy "
             "(address or network, repeatable) whose X-Forwarded-For names the client, for the same-network "
             "warning")] = None,
    allowed_origin: Annotated[list[str] | None, typer.Option(
        help="允许的来源（可重复） allowed Origin, repeatable (default: the Host header's own origin)")] = None,
    metrics: Annotated[MetricsOpt, typer.Option(
        help="谁能读 /metrics：local 只有本机且不经代理，on 任何人，off 关闭 who may read /metrics: local = "
             "loopback peers without a proxy header, on = anyone, off = nobody")] = MetricsOpt.local,
    gc: Annotated[GcOpt, typer.Option(
        help="垃圾回收：tuned 第 0 代阈值 2000，每次回收后冻结存活对象（停顿最短）；threshold 只冻结一次、阈值 50000；"
             "default 不改 the garbage collector: tuned = gen-0 threshold 2,000 and the survivors of every "
             "collection frozen (the shortest pauses); threshold = frozen once after restoring the rooms, "
             "threshold 50,000; default = Python's own")]
    = GcOpt.tuned,
    log_format: Annotated[LogFormatOpt, typer.Option(
        help="日志格式：json 每行一个 JSON 对象，text 纯文本 log lines: json = one JSON object per line (room, seat, "
             "event, latency; never a token or a card), text = plain")] = LogFormatOpt.text,
    log_level: Annotated[LogLevelOpt, typer.Option(
        help="日志级别；debug 记下每个动作 log level; debug logs every action")] = LogLevelOpt.info,
    loop: Annotated[LoopOpt, typer.Option(
        help="事件循环 the event loop: asyncio (the default), uvloop (if installed: ~6% less CPU an action, but "
             "opening handshakes timed out on a saturated machine, docs/deploy.md) or auto (uvloop if installed)")]
    = LoopOpt.asyncio,
    ws_deflate: Annotated[WsDeflateOpt, typer.Option(
        help="WebSocket 压缩（permessage-deflate）：off 不压缩（默认，省服务器 CPU），on 压缩（更新约小 16 倍，"
             "每个动作多约 30 µs CPU） WebSocket compression: off = none (the default: less server CPU), on = "
             "permessage-deflate when the client offers it (updates ~1.2 kB → ~75 B on the wire, ~30 µs more "
             "server CPU an action; docs/deploy.md)")] = WsDeflateOpt.off,
    sqlite_sync: Annotated[SyncOpt, typer.Option(
        help="SQLite 落盘：normal 进程被杀不丢，full 断电也不丢（每个循环周期一次 fsync） SQLite synchronous: normal "
             "survives kill -9, full also a power cut (one fsync per loop tick, docs/deploy.md)")] = SyncOpt.normal,
    commit_window: Annotated[float | None, typer.Option(
        min=0.0, max=0.1, help="写库合并窗口（秒）：这段时间内的写入一次提交，确认随之推迟 seconds the store gathers "
                               "writes into one commit (acks wait as long; default by database, docs/deploy.md)")]
    = None,
    worker_id: Annotated[str | None, typer.Option(
        help="本进程在租约表里的名字（默认 主机名:端口） this worker's name in the lease table (default host:port: "
             "a restarted worker takes its rooms back at once)")] = None,
    lease_ttl: Annotated[float, typer.Option(
        min=0.5, max=300.0, help="房间租约时长（秒）：工作进程死后多久由别的进程接管 seconds a room's lease lasts "
                                 "unrenewed: how soon another worker takes over the rooms of a dead one (0.5-300)")]
    = 10.0,
    header_timeout: Annotated[float, typer.Option(
        min=0.5, max=600.0, help="请求头须在多少秒内发完（慢速客户端） seconds a request's headers may take (a slow "
                                 "client's socket is closed past it)")] = _SLOW.header,
    body_timeout: Annotated[float, typer.Option(
        min=0.5, max=600.0, help="请求体须在多少秒内发完 seconds a request's body may take after its headers")]
    = _SLOW.body,
    write_timeout: Annotated[float, typer.Option(
        min=0.5, max=600.0, help="不读回应的客户端最多等多少秒 seconds an answer may wait for a client that stopped "
                                 "reading")] = _SLOW.write,
    max_pending_per_address: Annotated[int, typer.Option(
        min=1, help="每个地址最多几个还没发完请求的连接 connections of one address that have not yet sent a whole "
                    "request")] = _SLOW.pending,
    shutdown_timeout: Annotated[int, typer.Option(
        min=1, max=300, help="停止时（SIGTERM，房间交出之后）最多等还在处理的请求多少秒 seconds a stopping server "
                                 "(SIGTERM, after its rooms are handed over) waits for requests still running before "
                                 "it cancels them; keep it under the service manager's stop timeout")] = 5,
) -> None:
    """网上牌桌 — serve the online table (rooms, bots, records) at http://HOST:PORT/."""
    import uvicorn  # noqa: PLC0415 - the server stack loads only for this command

    from daer.server import create_app  # noqa: PLC0415
    from daer.server.http.slow import DaerHttpProtocol  # noqa: PLC0415
    from daer.server.http.sockets import DaerWebSocketProtocol  # noqa: PLC0415
    from daer.server.ops.logs import setup_logging  # noqa: PLC0415
    from daer.server.social.networks import parse_proxies  # noqa: PLC0415
    from daer.store import database_url  # noqa: PLC0415

    try:
        parse_proxies(trusted_proxy or ())
    except ValueError as exc:
        raise typer.BadParameter(f"--trusted-proxy: {exc}") from exc
    limits = Limits(
        rates={**DEFAULT_RATES, "club_new": _rate(club_rate),
               "create": _rate(create_rate), "join": _rate(join_rate), "lookup": _rate(lookup_rate),
               "score": _rate(score_rate), "player": _rate(player_rate), "signin": _rate(signin_rate),
               "signin_link": _rate(signin_link_rate), "review": _rate(review_rate)},
        default_rate=_rate(other_rate), max_rooms=max_rooms, max_rooms_per_address=max_rooms_per_address,
        max_conns=max_conns, max_conns_per_address=max_conns_per_address, waiting_ttl=waiting_ttl,
        idle_ttl=idle_ttl, finished_ttl=finished_ttl, sweep_every=sweep_every, vote_seconds=vote_seconds,
        watch_delay=watch_delay, trusted_proxies=tuple(trusted_proxy or ()),
        allowed_origins=tuple(o.rstrip("/") for o in allowed_origin or ()),
    )
    worker = worker_id or f"{socket.gethostname()}:{port}"
    setup_logging(log_format.value, log_level.value, worker=worker)
    url = database_url(db)
    app = create_app(url, bot_delay=bot_delay, limits=limits, claim_window=claim_window,
                     metrics=metrics.value, gc_mode=gc.value, sqlite_sync=sqlite_sync.value,
                     worker=worker, lease_ttl=lease_ttl, commit_window=commit_window)
    typer.echo(f"daer serve: http://{host}:{port}/  (database {url.split('@')[-1]})", err=True)
    slow = Deadlines(header=header_timeout, body=body_timeout, write=write_timeout, pending=max_pending_per_address,
                     proxies=tuple(trusted_proxy or ()))
    uvicorn.run(app, host=host, port=port, loop=loop.value, log_level="warning", log_config=None,
                http=DaerHttpProtocol.with_deadlines(slow), ws=DaerWebSocketProtocol, ws_max_size=65536,
                ws_ping_interval=20, timeout_graceful_shutdown=shutdown_timeout,
                ws_per_message_deflate=ws_deflate == WsDeflateOpt.on)
