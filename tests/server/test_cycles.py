"""The server's own code makes no reference cycles while rooms play, end and lose their sockets.

``daer serve --gc tuned`` freezes the survivors of every young collection (:mod:`daer.server.ops.metrics`), so a
cycle that outlives one collection (10 ms) and dies later is never collected: a leak for a server that runs for
days (docs/benchmarks.md, "Frozen cycles").  The probe there found none from ``daer`` itself — all of that garbage is
asyncio's transports on Python 3.11 — and this test keeps it so: it plays rooms through hands (with stale, refused
actions, a room to its end, sockets closed mid-hand) with the collector off, then collects with
``gc.DEBUG_SAVEALL`` and looks for objects of ``daer``'s modules (instances, functions, coroutines, frames, bound
methods) among the garbage."""

from __future__ import annotations

import gc
import json
import types
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playing import play
from starlette.testclient import TestClient

from daer.server import create_app
from daer.server.safety.limits import Limits, Rate

HIGH = Rate(100000, 100000)


def ours(o: object) -> str | None:
    """What ``o`` is, if it is made by daer's own code (else None)."""
    if isinstance(o, types.FrameType):
        return f"frame {o.f_code.co_qualname}" if "/daer/" in o.f_code.co_filename else None
    if isinstance(o, types.CoroutineType):
        return f"coroutine {o.__qualname__}" if "/daer/" in o.cr_code.co_filename else None
    if isinstance(o, types.FunctionType):
        return f"function {o.__qualname__}" if (o.__module__ or "").startswith("daer") else None
    if isinstance(o, types.MethodType):
        owner = type(o.__self__).__module__
        return f"method {o.__func__.__qualname__}" if owner.startswith("daer") else None
    kind = type(o)
    return f"{kind.__module__}.{kind.__qualname__}" if kind.__module__.startswith("daer") else None


def cycles_left(run: Callable[[], object]) -> list[object]:
    """Run ``run`` (the collector is off while it runs, or from when it turns it off), then collect with
    ``gc.DEBUG_SAVEALL`` and turn the collector back on: the objects of the cycles it left."""
    try:
        run()
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
    finally:
        gc.set_debug(0)
        gc.enable()
    garbage, gc.garbage[:] = list(gc.garbage), []
    return [o for o in garbage if not isinstance(o, weakref.ProxyTypes)]  # a dead proxy raises on any use


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    limits = Limits(rates={"create": HIGH, "join": HIGH, "lookup": HIGH})
    with TestClient(create_app(f"sqlite:///{tmp_path / 'daer.db'}", bot_delay=0.0, limits=limits)) as c:
        play(c, 1, quit_after=2, stale=True)  # the first room's imports and caches are not garbage
        yield c


def test_rooms_that_play_end_and_lose_their_sockets_leave_no_cycles_of_daer_objects(client: TestClient) -> None:
    gc.collect()
    gc.disable()

    def rooms() -> None:
        assert play(client, 2, stale=True)[1] == 2  # a room to its end (two hands)
        play(client, 3, quit_after=4, stale=True)  # sockets closed mid-hand
        play(client, 3, quit_after=1, stale=True)
        canary: dict[str, object] = {"rate": Rate(1, 1)}  # a known cycle holding a daer object: must be found
        canary["self"] = canary

    garbage = cycles_left(rooms)
    found = sorted(filter(None, map(ours, garbage)))
    assert "daer.server.safety.limits.Rate" in found, "the canary cycle was not seen: the test could not see a cycle"
    found.remove("daer.server.safety.limits.Rate")
    assert found == [], f"reference cycles of daer's objects (never freed under --gc tuned): {found[:30]}"
    # nor of the SQL daer builds (before: the lease clock's SQL function, made again at every acquire and renewal)
    sql = sorted({f"{type(o).__module__}.{type(o).__qualname__}" for o in garbage
                  if type(o).__module__.startswith("sqlalchemy")})
    assert sql == [], f"reference cycles of SQLAlchemy objects daer built: {sql[:30]}"


def test_sockets_served_by_uvicorn_leave_no_cycles_of_daer_objects(tmp_path: Path) -> None:
    """The WebSocket protocol ``daer serve`` runs (uvicorn's, with daer's :data:`SEND_NOW` extension), through real
    sockets: connections that say hello, play and close leave no cycle of daer's objects.  Before, the extension
    put the protocol's bound ``send_now`` into its own ASGI scope — protocol → scope → method → protocol — so
    every connection that was open at a collection stayed in memory for good once closed: a worker of a
    40-minute soak held hundreds of closed connections, ~15 KB each."""
    import asyncio  # noqa: PLC0415
    import socket  # noqa: PLC0415

    import httpx  # noqa: PLC0415
    import uvicorn  # noqa: PLC0415
    import websockets  # noqa: PLC0415

    from daer.server.http.sockets import DaerWebSocketProtocol  # noqa: PLC0415

    limits = Limits(rates={"create": HIGH, "join": HIGH, "lookup": HIGH})
    app = create_app(f"sqlite:///{tmp_path / 'daer.db'}", bot_delay=0.0, limits=limits)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    async def visit(http: httpx.AsyncClient, moves: int) -> None:
        room = (await http.post("/api/rooms", json={"name": "A", "config": {"timer": 0, "hands": 1}})).json()
        async with websockets.connect(f"ws://127.0.0.1:{port}/ws/{room['code']}") as ws:
            await ws.send(json.dumps({"t": "hello", "room": room["code"], "token": room["token"]}))
            await ws.send(json.dumps({"t": "cmd", "id": "start", "name": "start"}))
            acted = done = 0
            while done < moves:
                m = json.loads(await asyncio.wait_for(ws.recv(), 30))  # a loaded machine answers late
                if m["t"] == "update" and m["room"]["status"] == "finished":  # the bots won before our last move
                    break
                view = m.get("view") if m["t"] == "update" else None
                if view and view["legal"] and m["v"] > acted:
                    acted, done = m["v"], done + 1
                    await ws.send(json.dumps({"t": "act", "id": f"a{done}", "v": m["v"], "action": view["legal"][0]}))

    async def main() -> None:
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, ws=DaerWebSocketProtocol,
                                               log_level=None, log_config=None, access_log=False, lifespan="on"))
        serving = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.01)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            await visit(http, 1)  # the first connection's imports and caches are not garbage
            gc.collect()
            gc.disable()
            for moves in (1, 3, 2):
                await visit(http, moves)
        await asyncio.sleep(0.2)  # the server side of the last close
        server.should_exit = True
        await serving

    found = sorted(filter(None, map(ours, cycles_left(lambda: asyncio.run(main())))))
    assert found == [], f"reference cycles of daer's objects (never freed under --gc tuned): {found[:30]}"


def connection_objects(garbage: list[object], port: int) -> list[str]:
    """The server side's connection objects among ``garbage``: asyncio's transports of sockets accepted on
    ``port`` and the protocols' objects, uvicorn's and daer's subclasses (the test's own clients have transports
    and h11 connections of their own, which are not the server's; the stopped server's objects are one-off)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol  # noqa: PLC0415

    found = []
    for o in garbage:
        kind = type(o)
        extra = getattr(o, "_extra", None)
        if kind.__module__.startswith("asyncio.") and isinstance(extra, dict):
            sockname = extra.get("sockname")
            if isinstance(sockname, tuple) and sockname[1:2] == (port,):
                found.append(f"{kind.__module__}.{kind.__qualname__}")
        elif (kind.__module__.startswith("uvicorn.protocols") or isinstance(o, H11Protocol)
              or kind.__module__ == "websockets.server"):  # the server's side of a WebSocket (the test's: .client)
            found.append(f"{kind.__module__}.{kind.__qualname__}")
    return sorted(found)


def test_closed_connections_free_their_transports_and_protocols(tmp_path: Path) -> None:
    """Every connection the server closes — a WebSocket after play, one cut without a close frame, HTTP requests
    closed cleanly or reset by the client (as a balancer's health check does), a socket that never sent a
    request — is freed by reference counting, with no cycle left for a collection (a cut WebSocket's parser is
    left suspended by uvicorn, which feeds it no end of stream: this shows its frame does not keep the
    connection) and lets websockets' connection go (before, its parser kept it: every WebSocket ever served).
    Before: on Python 3.11 each left its asyncio transport in a cycle (~1 KB, its bound reader;
    python/cpython#100348), and a reset HTTP connection also uvicorn's protocol with its keep-alive timer: under
    ``--gc tuned`` none was ever freed, ~30 MiB an hour on a soak's worker (docs/benchmarks.md, "Memory that
    stays flat")."""
    import asyncio  # noqa: PLC0415
    import socket  # noqa: PLC0415
    import struct  # noqa: PLC0415

    import httpx  # noqa: PLC0415
    import uvicorn  # noqa: PLC0415
    import websockets  # noqa: PLC0415
    from websockets.server import ServerProtocol  # noqa: PLC0415

    from daer.server.http.slow import DaerHttpProtocol  # noqa: PLC0415
    from daer.server.http.sockets import DaerWebSocketProtocol  # noqa: PLC0415
    from daer.server.safety.limits import Deadlines  # noqa: PLC0415

    limits = Limits(rates={"create": HIGH, "join": HIGH, "lookup": HIGH})
    app = create_app(f"sqlite:///{tmp_path / 'daer.db'}", bot_delay=0.0, limits=limits)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    def reset_after_request(path: str) -> None:
        """A raw HTTP request, its answer read, then the connection reset (SO_LINGER 0: an RST, not a FIN)."""
        with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
            raw.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            assert raw.recv(65536).startswith(b"HTTP/1.1 200")
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    def silent() -> None:
        """A connection that never sends a request."""
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass

    async def ws_visit(http: httpx.AsyncClient) -> None:
        room = (await http.post("/api/rooms", json={"name": "A", "config": {"timer": 0, "hands": 1}})).json()
        async with websockets.connect(f"ws://127.0.0.1:{port}/ws/{room['code']}") as ws:
            await ws.send(json.dumps({"t": "hello", "room": room["code"], "token": room["token"]}))
            while json.loads(await asyncio.wait_for(ws.recv(), 10))["t"] != "update":
                pass

    async def ws_drop(http: httpx.AsyncClient) -> None:
        """A WebSocket whose network goes away: the TCP connection cut (RST) with no close frame, as a phone's."""
        room = (await http.post("/api/rooms", json={"name": "A", "config": {"timer": 0, "hands": 1}})).json()
        ws = await websockets.connect(f"ws://127.0.0.1:{port}/ws/{room['code']}")
        await ws.send(json.dumps({"t": "hello", "room": room["code"], "token": room["token"]}))
        while json.loads(await asyncio.wait_for(ws.recv(), 10))["t"] != "update":
            pass
        sock = ws.transport.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        ws.transport.abort()

    async def main() -> None:
        config = uvicorn.Config(app, host="127.0.0.1", port=port, http=DaerHttpProtocol.with_deadlines(Deadlines()),
                                ws=DaerWebSocketProtocol, log_level=None, log_config=None, access_log=False,
                                lifespan="on")
        server = uvicorn.Server(config)
        serving = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.01)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            await ws_visit(http)  # the first connection's imports and caches are not garbage
        await asyncio.to_thread(reset_after_request, "/readyz")
        await asyncio.sleep(0.2)
        gc.collect()
        gc.disable()
        for _ in range(3):
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:  # closed cleanly
                await ws_visit(http)
                await ws_drop(http)
                assert (await http.get("/readyz")).status_code == 200
            await asyncio.to_thread(reset_after_request, "/readyz")
            await asyncio.to_thread(reset_after_request, "/api/options")
            await asyncio.to_thread(silent)
        await asyncio.sleep(0.3)  # the server side of the last closes
        # websockets' connections: a suspended parser keeps each one in a cycle that a collection's finalizers
        # break (closing the generator), so they never reach gc.garbage; counted alive here, the collector off
        kept.extend(o for o in gc.get_objects() if type(o) is ServerProtocol)  # not isinstance: a dead proxy raises
        server.should_exit = True
        await serving

    kept: list[object] = []
    garbage = cycles_left(lambda: asyncio.run(main()))
    assert kept == [], f"{len(kept)} closed WebSockets' connections kept by their parsers (never freed, --gc tuned)"
    assert [o for o in garbage if isinstance(o, socket.socket)], "no socket in the garbage: the test saw no cycle"
    left = connection_objects(garbage, port)
    assert left == [], f"closed connections left in reference cycles (never freed under --gc tuned): {left[:30]}"


def test_lease_statements_leave_no_cycles_of_sqlalchemy_objects(tmp_path: Path) -> None:
    """A cluster worker's lease work — acquire, renew (with its skipped rooms), hand over, release, the take-over
    search, the expiry of unclaimed rooms — builds no SQL expression per call.  Before, each call built its
    comparisons and ``now + ttl`` again, reference cycles of SQLAlchemy's objects (its comparators): a soak's
    workers left ~100 bound parameters a minute in the garbage, frozen for good under ``--gc tuned``."""
    from daer.server.safety.bounds import RoomConfig  # noqa: PLC0415
    from daer.server.serving.manager import RoomManager  # noqa: PLC0415
    from daer.store import Store, leases  # noqa: PLC0415

    store = Store(f"sqlite:///{tmp_path / 'daer.db'}")
    engine = store.engine
    manager = RoomManager(store, bot_delay=0.0, worker="a", lease_ttl=30.0, sole=False)
    codes = [manager.create(RoomConfig(timer=0), "A")[0].code for _ in range(3)]

    def work() -> None:
        for code in codes:
            epoch = leases.acquire(engine, code, "a", 30.0, steal=True)
            assert epoch is not None and leases.release(engine, code, "a", epoch)
            assert leases.acquire(engine, code, "b", 30.0) is not None
            leases.want(engine, code, "a")
            assert leases.holder(engine, code) == ("b", epoch + 1, False)
        assert sorted(leases.renew(engine, "b", 30.0, codes)) == sorted(codes)
        assert sorted(leases.owned(engine, "b")) == sorted(codes)
        assert leases.orphans(engine, "c") == []
        assert leases.expire_unclaimed(engine, 0.0) == 0

    work()  # the statements' first compilation and caches are not garbage
    gc.collect()
    gc.disable()
    garbage = cycles_left(work)
    sql = sorted({f"{type(o).__module__}.{type(o).__qualname__}" for o in garbage
                  if type(o).__module__.startswith("sqlalchemy")})
    assert sql == [], f"reference cycles of SQLAlchemy objects the lease statements built: {sql[:30]}"
    store.close()
