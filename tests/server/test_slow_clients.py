"""Slow clients cannot hold the server (issue 26, item 6): a few thousand half-sent requests from one loopback
address (a header line every few tenths of a second) are closed on time — one more than the address's cap of
unfinished requests within its grace, the rest at the header deadline — while a table plays on; a burst of
honest connections past the cap, their requests waiting in their sockets, is answered; a body trickled in is
closed at the body deadline; an answer nobody reads at the write deadline.  Bounded: every loop has a deadline."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from serving import TEST_LIMITS, Client, Server, get, room
from uvicorn.config import Config
from uvicorn.server import ServerState

from daer.server.http.slow import DaerHttpProtocol
from daer.server.safety.limits import Deadlines

HOLD = 12.0
"""Seconds each slow client keeps trying (one the server never closed would stay open this long)."""
SLACK = 6.0
"""Seconds past a deadline a close may be seen on a loaded machine (1,500 connections accepted, closed, and
noticed by this process's own loop; 4.2 s was seen under a full test run on 2 shared cores)."""
ATTACKER = "127.0.0.2"
"""The slow clients' address (loopback too): the table's player, on 127.0.0.1, is another address, as it would be."""


def _metric(server: Server, phase: str) -> float:
    with __import__("urllib.request").request.urlopen(f"{server.url}/metrics", timeout=5) as res:
        text = res.read().decode()
    for line in text.splitlines():
        if line.startswith(f'daer_slow_clients_closed_total{{phase="{phase}"}}'):
            return float(line.split()[-1])
    raise AssertionError(f"no slow-client counter for {phase}")


def _server(tmp: Path, *, pending: int) -> Server:
    args = (*TEST_LIMITS, "--header-timeout", "1.5", "--body-timeout", "1.5", "--write-timeout", "1.5",
            "--max-pending-per-address", str(pending))
    return Server(tmp / "daer.db", args=args).start()


@pytest.fixture
def capped(tmp_path: Path) -> Iterator[Server]:
    srv = _server(tmp_path, pending=50)
    yield srv
    srv.stop()


async def _slowloris(port: int, n: int, seconds: float, source: str = ATTACKER) -> tuple[int, list[float]]:
    """Open ``n`` connections that send a request's headers one line every 0.3 s for ``seconds``; (how many
    were still open at the end, when each of the others was closed, in seconds from its opening)."""
    closed: list[float] = []

    async def one() -> bool:
        t0 = time.monotonic()
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
        except OSError:
            closed.append(0.0)
            return False
        try:
            writer.write(b"GET /api/options HTTP/1.1\r\nHost: x\r\n")
            while time.monotonic() - t0 < seconds:
                writer.write(b"X-Slow: 1\r\n")
                await writer.drain()
                try:
                    if await asyncio.wait_for(reader.read(1), 0.3) == b"":
                        closed.append(time.monotonic() - t0)
                        return False
                except TimeoutError:
                    continue
            return True
        except (ConnectionError, OSError):
            closed.append(time.monotonic() - t0)
            return False
        finally:
            writer.close()

    opened = await asyncio.gather(*(one() for _ in range(n)))
    return sum(opened), closed


def test_thousands_of_half_sent_requests_are_closed_on_time_while_a_table_plays(capped: Server) -> None:
    r = room(capped, hands=1)
    c = Client(capped, r["code"], r["token"])
    c.cmd("start")

    async def attack_and_play() -> tuple[tuple[int, list[float]], list[float]]:
        attack = asyncio.create_task(_slowloris(capped.port, 2000, HOLD))
        waits: list[float] = []
        for _ in range(10):  # the table and the API go on meanwhile
            t0 = time.monotonic()
            status, _body = await asyncio.to_thread(get, f"{capped.url}/api/rooms/{r['code']}")
            assert status == 200
            waits.append(time.monotonic() - t0)
            await asyncio.sleep(0.3)
        return await attack, waits

    (still_open, closed), waits = asyncio.run(attack_and_play())
    assert still_open == 0  # not one held for the whole time it tried
    assert len(closed) == 2000
    late = [t for t in closed if t > 1.5 + SLACK]
    assert not late, f"{len(late)} closed late (up to {max(late):.1f} s)"
    # every answer came while the attack still held its sockets (HOLD), within the slack a loaded machine needs
    # (1.95 s was seen for the first request, made while the 2,000 connections were being opened, at load 12)
    assert max(waits) < SLACK < HOLD, waits
    # each that reached the server was closed by the address's cap at once or at the header deadline; on a loaded
    # machine some never connect (the listen backlog full: closed at 0.0) and, while the server is slow to accept,
    # early ones reach their deadline and free a place under the cap for a later one (1,900 by the cap was seen)
    reached = sum(1 for t in closed if t > 0.0)
    pending, header = _metric(capped, "pending"), _metric(capped, "header")
    assert pending + header >= reached - 10 and pending >= reached / 2 and header >= 1, (reached, pending, header)
    view = c.state(lambda m: m["view"] is not None and (bool(m["view"]["legal"]) or bool(m["view"]["result"])))
    if view["view"]["legal"]:  # the table answers its player after the attack too
        assert c.act(view["view"]["legal"][-1])["t"] == "ack"
    c.close()


def test_the_header_deadline_closes_every_slow_connection_without_the_cap(tmp_path: Path) -> None:
    srv = _server(tmp_path, pending=100_000)
    try:
        still_open, closed = asyncio.run(_slowloris(srv.port, 1500, HOLD))
        assert still_open == 0 and len(closed) == 1500
        assert max(closed) < 1.5 + SLACK and min(closed) > 1.0  # the deadline, not the cap, closed them
        assert _metric(srv, "header") >= 1500
    finally:
        srv.stop()


def test_a_trusted_proxys_connections_are_not_capped_but_still_meet_the_header_deadline(tmp_path: Path) -> None:
    """Behind a balancer every player arrives from its address: a burst of reconnects after a restart (300 tables
    through HAProxy) was cut at the cap, and HAProxy, its health checks cut too, answered 502."""
    args = (*TEST_LIMITS, "--header-timeout", "1.5", "--max-pending-per-address", "5", "--trusted-proxy", ATTACKER)
    srv = Server(tmp_path / "daer.db", args=args).start()
    try:
        still_open, closed = asyncio.run(_slowloris(srv.port, 40, 4.0))
        assert still_open == 0 and len(closed) == 40
        assert min(closed) > 1.0 and _metric(srv, "pending") == 0  # the deadline closed them, not the cap
        still_open, closed = asyncio.run(_slowloris(srv.port, 40, 4.0, source="127.0.0.3"))  # not a proxy
        assert still_open == 0 and _metric(srv, "pending") >= 30
    finally:
        srv.stop()


def test_a_trickled_body_is_closed_at_the_body_deadline(capped: Server) -> None:
    with socket.create_connection(("127.0.0.1", capped.port), timeout=10) as s:
        s.sendall(b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 1000\r\n\r\n{")
        t0 = time.monotonic()
        closed_after = None
        while time.monotonic() - t0 < HOLD:
            try:
                s.sendall(b" ")
                s.settimeout(0.2)
                if s.recv(1) == b"":
                    closed_after = time.monotonic() - t0
                    break
            except TimeoutError:
                continue
            except OSError:
                closed_after = time.monotonic() - t0
                break
    assert closed_after is not None and 1.0 < closed_after < 1.5 + SLACK
    assert _metric(capped, "body") >= 1


def test_an_answer_nobody_reads_is_dropped_at_the_write_deadline(capped: Server) -> None:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", capped.port))
    try:
        s.sendall(b"GET /static/og.png HTTP/1.1\r\nHost: x\r\n\r\n" * 60)  # ~17 MB of answers, never read
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and _metric(capped, "write") < 1:
            time.sleep(0.3)
        assert _metric(capped, "write") >= 1
    finally:
        s.close()
    assert get(f"{capped.url}/api/options")[0] == 200


class _Transport(asyncio.Transport):
    """Just enough of a socket's transport for uvicorn's protocol: what it writes, and whether it was cut."""

    def __init__(self) -> None:
        super().__init__()
        self.written = b""
        self.aborted = self.closed = False

    def get_extra_info(self, name: str, default: object = None) -> object:
        return {"peername": ("127.0.0.9", 4321), "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not self.aborted:  # a cut socket carries nothing more
            self.written += bytes(data)

    def is_closing(self) -> bool:
        return self.aborted or self.closed

    def abort(self) -> None:
        self.aborted = True

    def close(self) -> None:
        self.closed = True

    def pause_reading(self) -> None: ...

    def resume_reading(self) -> None: ...


def test_a_pipelined_request_keeps_no_header_deadline_while_it_is_answered() -> None:
    """Two requests in one write: the second is read while the first's answer completes (uvicorn handles it
    inside ``on_response_complete``); its answer may take longer than the header deadline, which it already met."""
    async def app(scope: dict[str, object], receive: object, send: object) -> None:
        if scope["path"] == "/slow":
            await asyncio.sleep(0.6)  # longer than the 0.3 s header deadline below
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})  # type: ignore[operator]
        await send({"type": "http.response.body", "body": b"ok"})  # type: ignore[operator]

    async def run() -> _Transport:
        proto_cls = DaerHttpProtocol.with_deadlines(Deadlines(header=0.3, body=0.3, write=0.3))
        config = Config(app=app, lifespan="off", log_config=None)
        proto = proto_cls(config=config, server_state=ServerState(), app_state={}, _loop=asyncio.get_running_loop())
        transport = _Transport()
        proto.connection_made(transport)
        proto.data_received(b"GET /fast HTTP/1.1\r\nHost: x\r\n\r\nGET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        for _ in range(100):  # bounded: both answers, or the cut
            await asyncio.sleep(0.02)
            if transport.written.count(b"HTTP/1.1 200") == 2 or transport.aborted:
                break
        await asyncio.sleep(0.4)  # past the next request's own header deadline: that one may cut the idle socket
        proto.connection_lost(None)
        return transport

    transport = asyncio.run(run())
    assert transport.written.count(b"HTTP/1.1 200") == 2, transport.written


def test_connections_past_the_cap_that_send_a_whole_request_in_their_grace_are_answered() -> None:
    """A server busy enough to read late accepts a burst of honest connections from one address together, their
    requests already waiting in their sockets: the ones past the cap are read and answered (at 2,000 tables on one
    saturated process, 1-20 of the load's WebSocket handshakes were cut at once before); one past the cap that
    sends nothing is closed when its grace runs out, counted as ``pending``, as is one that only trickles."""
    async def app(scope: dict[str, object], receive: object, send: object) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})  # type: ignore[operator]
        await send({"type": "http.response.body", "body": b"ok"})  # type: ignore[operator]

    async def run() -> tuple[list[_Transport], list[_Transport], float]:
        proto_cls = DaerHttpProtocol.with_deadlines(Deadlines(header=5.0, pending=2, pending_grace=0.3))
        config = Config(app=app, lifespan="off", log_config=None)
        loop = asyncio.get_running_loop()
        protos = [proto_cls(config=config, server_state=ServerState(), app_state={}, _loop=loop) for _ in range(6)]
        transports = [_Transport() for _ in protos]
        for proto, transport in zip(protos, transports, strict=True):  # all accepted before any is read
            proto.connection_made(transport)
        assert not any(t.aborted for t in transports)  # none cut at once, though four are past the cap of two
        before = _pending_closed()
        for proto in protos[:4]:  # the burst's requests, read late
            proto.data_received(b"GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
        protos[4].data_received(b"GET /x HTTP/1.1\r\nHost: x\r\n")  # a slow one: headers never finished
        for _ in range(50):  # bounded: the answers and the grace's end
            await asyncio.sleep(0.02)
            if transports[4].aborted and transports[5].aborted and all(b"200" in t.written for t in transports[:4]):
                break
        closed = _pending_closed() - before
        for proto in protos:
            proto.connection_lost(None)
        return transports[:4], transports[4:], closed

    answered, cut, closed = asyncio.run(run())
    assert all(t.written.startswith(b"HTTP/1.1 200") and not t.aborted for t in answered)
    assert all(t.aborted and t.written == b"" for t in cut)
    assert closed == 2


def _pending_closed() -> float:
    """``daer_slow_clients_closed_total{phase="pending"}`` in this process."""
    from daer.server.ops.metrics import SLOW_CLOSED  # noqa: PLC0415 -- read where the test needs it

    return float(SLOW_CLOSED.labels("pending")._value.get())
