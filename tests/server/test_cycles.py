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
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
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
    return garbage


def play(c: TestClient, hands: int, quit_after: int | None = None) -> int:
    """One room (a person and three bots) through ``hands`` hands, or until the person made ``quit_after``
    actions and leaves mid-hand; every action is sent once with a stale version first (refused).  The hands
    played."""
    room = c.post("/api/rooms", json={"name": "A", "config": {"timer": 0, "hands": hands}}).json()
    played = acted = n = 0
    with c.websocket_connect(f"/ws/{room['code']}") as ws:
        ws.send_json({"t": "hello", "room": room["code"], "token": room["token"]})
        ws.send_json({"t": "cmd", "id": "start", "name": "start"})
        while quit_after is None or n < quit_after:
            m = ws.receive_json()
            if m["t"] != "update":
                continue
            status, view = m["room"]["status"], m["view"]
            if status == "finished":
                break
            if status == "between" and m["v"] > acted:
                acted, played = m["v"], played + 1
                ws.send_json({"t": "cmd", "id": f"n{m['v']}", "name": "next"})
            elif status == "playing" and view and view["legal"] and m["v"] > acted:
                acted, n = m["v"], n + 1
                ws.send_json({"t": "act", "id": f"stale{n}", "v": m["v"] - 1, "action": view["legal"][0]})
                ws.send_json({"t": "act", "id": f"a{n}", "v": m["v"], "action": view["legal"][0]})
    return played


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    limits = Limits(rates={"create": HIGH, "join": HIGH, "lookup": HIGH})
    with TestClient(create_app(f"sqlite:///{tmp_path / 'daer.db'}", bot_delay=0.0, limits=limits)) as c:
        play(c, 1, quit_after=2)  # the first room's imports and caches are not garbage
        yield c


def test_rooms_that_play_end_and_lose_their_sockets_leave_no_cycles_of_daer_objects(client: TestClient) -> None:
    gc.collect()
    gc.disable()

    def rooms() -> None:
        assert play(client, 2) == 2  # a room to its end (two hands)
        play(client, 3, quit_after=4)  # sockets closed mid-hand
        play(client, 3, quit_after=1)
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
                m = json.loads(await asyncio.wait_for(ws.recv(), 10))
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
