"""Fuzz: Hypothesis-made client messages and HTTP bodies against a live ``daer serve`` on loopback.

Valid shapes with wild values, near-valid messages and garbage go to a room whose seats the fuzzing sockets
hold; meanwhile a well-behaved table in the same server plays on.  No message may get a server error, no
request a 5xx, no traceback may reach the server's log, and the table must play hands to their end.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from serving import Client, Server, post
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

WILD_INT = st.one_of(st.integers(-2, 90), st.integers(),
                     st.sampled_from([2**31, 2**53 + 1, 2**63, -(2**63) - 1, 2**64, 10**30]))
SCALARS = st.one_of(st.none(), st.booleans(), WILD_INT, st.floats(allow_nan=False), st.text(max_size=80))
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
    st.text(max_size=10), inner, max_size=4), max_leaves=12)
IDS = st.one_of(st.text(min_size=1, max_size=8), st.text(min_size=60, max_size=70), st.just(""), JSON)
ACTION = st.fixed_dictionaries(
    {"type": st.sampled_from(["discard", "hu", "zhao", "peng", "chi", "pass", "bao", "fly"]),
     "seat": WILD_INT},
    optional={"kind": WILD_INT, "hand": st.lists(WILD_INT, max_size=5),
              "bi": st.lists(st.lists(WILD_INT, max_size=4), max_size=3), "extra": JSON})


def messages(code: str) -> st.SearchStrategy[str | bytes]:
    """One client frame: valid shapes with wild values, near-valid ones, or garbage."""
    valid = st.one_of(
        st.fixed_dictionaries({"t": st.just("act"), "id": IDS, "v": WILD_INT, "action": ACTION}),
        st.fixed_dictionaries({"t": st.just("cmd"), "id": IDS,
                               "name": st.sampled_from(["start", "next", "resume", "fly", "START", "", "dissolve",
                                                        "agree", "refuse", "watch", "nowatch", "leave"])},
                              optional={"v": WILD_INT}),
        st.fixed_dictionaries({"t": st.just("say"), "id": IDS,
                               "what": st.one_of(st.sampled_from(["p0", "s3", "e1", "x" * 40, ""]), JSON)}),
        st.fixed_dictionaries({"t": st.just("sync")}, optional={"v": st.one_of(st.none(), WILD_INT)}),
        st.fixed_dictionaries({"t": st.just("hello"), "room": st.one_of(st.just(code), st.text(max_size=20))},
                              optional={"token": st.one_of(st.none(), st.text(max_size=70)), "v": WILD_INT}),
        st.just({"t": "ping"}),
    )
    near = st.builds(lambda m, k, v: {**m, k: v}, valid, st.sampled_from(["t", "id", "v", "action", "name", "x"]),
                     JSON)
    garbage = st.one_of(st.binary(max_size=200), st.text(max_size=200), JSON.map(json.dumps))
    return st.one_of(valid.map(json.dumps), near.map(json.dumps), garbage)


BODIES = st.one_of(JSON, st.fixed_dictionaries({}, optional={
    "name": st.one_of(st.text(max_size=30), JSON), "rid": IDS,
    "config": st.one_of(JSON, st.fixed_dictionaries({}, optional={
        "rules": st.sampled_from(["luzhou", "paohuzi", "gulin", "x", "../luzhou"]), "hands": WILD_INT,
        "timer": st.one_of(WILD_INT, st.floats()), "bot": st.one_of(st.sampled_from(["hard", "search:5000"]),
                                                                    st.text(max_size=12)),
        "overrides": st.dictionaries(st.sampled_from(["play.chi", "win.min_hu", "table.seats", "scoring.mode"]),
                                     SCALARS, max_size=3)}))}))


class Fuzzer:
    """A pool of sockets holding the fuzz room's seats; counts what it sent and every server error."""

    def __init__(self, server: Server, code: str, tokens: list[str]) -> None:
        self.server, self.code, self.tokens = server, code, tokens
        self.socks: list[ClientConnection | None] = [None] * 8
        self.i = 0
        self.sent = self.server_errors = self.http_sent = self.http_5xx = 0
        self.bad: list[Any] = []

    def sock(self) -> ClientConnection:
        self.i = (self.i + 1) % len(self.socks)
        ws = self.socks[self.i]
        if ws is None:
            ws = connect(self.server.ws_url, max_size=2**22).__enter__()
            token = self.tokens[self.i % len(self.tokens)] if self.i % 4 else None  # every 4th watches
            ws.send(json.dumps({"t": "hello", "room": self.code, "token": token}))
            self.socks[self.i] = ws
        return ws

    def drain(self, ws: ClientConnection) -> None:
        while True:
            try:
                frame = json.loads(ws.recv(timeout=0))
            except TimeoutError:
                return
            except ConnectionClosed:
                self.socks[self.i] = None
                return
            if frame.get("t") == "error" and frame.get("code") == "server":
                self.server_errors += 1
                self.bad.append(frame)

    def send(self, frame: str | bytes) -> None:
        ws = self.sock()
        try:
            ws.send(frame)
        except ConnectionClosed:
            self.socks[self.i] = None
            return
        self.sent += 1
        self.drain(ws)

    def http(self, path: str, body: Any, *, raw: bytes | None = None) -> None:
        data = raw if raw is not None else json.dumps(body).encode()
        req = urllib.request.Request(f"{self.server.url}{path}", data=data,
                                     headers={"content-type": "application/json"})
        self.http_sent += 1
        try:
            with urllib.request.urlopen(req, timeout=10) as res:
                status = res.status
        except urllib.error.HTTPError as err:
            status = err.code
        if status >= 500:
            self.http_5xx += 1
            self.bad.append((path, body, status))

    def close(self) -> None:
        for ws in self.socks:
            if ws is not None:
                ws.close()


class Table(threading.Thread):
    """A well-behaved player with three bots: plays every hand to its end until told to stop."""

    def __init__(self, server: Server) -> None:
        super().__init__(daemon=True)
        self.server, self.stop, self.hands, self.error = server, threading.Event(), 0, ""
        self.client: Client | None = None

    def new_room(self) -> Client:
        _, r = post(f"{self.server.url}/api/rooms", {"name": "好人", "config": {"timer": 0, "hands": 64}})
        c = self.client = Client(self.server, r["code"], r["token"])
        c.cmd("start")
        return c

    def run(self) -> None:
        try:
            c = self.new_room()
            while True:
                m = c.state(lambda m: m["room"]["status"] in ("between", "finished") or bool(
                    m["view"] and m["view"]["legal"]), 60)
                if m["room"]["status"] == "finished":  # a whole match played: another room
                    self.hands += 1
                    if self.stop.is_set():
                        return
                    c.close()
                    c = self.new_room()
                    continue
                if m["room"]["status"] == "between":
                    self.hands += 1
                    if self.stop.is_set():
                        return
                    c.cmd("next")  # then the next hand dealt (and maybe played out by the bots in one update)
                    c.state(lambda u, n=m["room"]["hand_no"]: u["room"]["hand_no"] > n
                            or u["room"]["status"] != "between", 60)
                    continue
                time.sleep(0.07)  # a person's pace, within the per-connection message rate (20 a second)
                reply = c.act(m["view"]["legal"][-1], v=m["v"])
                if reply["t"] == "error" and reply["code"] not in ("stale", "illegal"):
                    self.error = f"the table's action was refused: {reply}"
                    return
                # wait for the update that carries the answer (or, if refused, for anything newer)
                after = reply["v"] if reply["t"] == "ack" else m["v"] + 1
                c.state(lambda u, after=after: u["v"] >= after, 60)
        except Exception as exc:  # reported by the test, with what the table saw last
            seen = [{k: f.get(k) for k in ("t", "v", "code", "id")} | (
                {"status": f["room"]["status"], "legal": bool(f["view"] and f["view"]["legal"])}
                if f.get("t") == "update" else {}) for f in (self.client.frames[-4:] if self.client else [])]
            self.error = f"{exc!r}; last frames {seen}"


def fuzz(server: Server, examples: int) -> Fuzzer:
    _, r = post(f"{server.url}/api/rooms", {"name": "F", "config": {"timer": 0, "hands": 64, "bot": "easy"}})
    tokens = [r["token"]] + [post(f"{server.url}/api/rooms/{r['code']}/join", {"name": f"F{i}"})[1]["token"]
                             for i in range(1, 4)]
    starter = Client(server, r["code"], r["token"])
    starter.cmd("start")
    starter.close()
    f = Fuzzer(server, r["code"], tokens)

    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def one(data: st.DataObject) -> None:
        for frame in data.draw(st.lists(messages(r["code"]), min_size=1, max_size=6)):
            f.send(frame)
        if data.draw(st.integers(0, 9)) == 0:
            which = data.draw(st.sampled_from(["create", "join", "record"]))
            body = data.draw(BODIES)
            if which == "create":
                f.http("/api/rooms", body)
            elif which == "join":
                f.http(f"/api/rooms/{r['code']}/join", body)
            else:
                n = data.draw(WILD_INT)
                code = data.draw(st.one_of(st.just(r["code"]), st.text(alphabet="ABCXYZ%/.", max_size=20)))
                path = f"/api/rooms/{urllib.request.quote(code, safe='') or 'X'}/hands/{abs(n)}/record"
                try:
                    with urllib.request.urlopen(f"{server.url}{path}", timeout=10):
                        pass
                except urllib.error.HTTPError as err:
                    if err.code >= 500:
                        f.http_5xx += 1
                        f.bad.append((path, err.code))
                f.http_sent += 1

    try:
        one()
    finally:
        f.close()
    return f


def run_fuzz(tmp: Any, examples: int) -> None:
    server = Server(tmp / "fuzz.db").start()
    table = Table(server)
    try:
        table.start()
        start = time.monotonic()
        f = fuzz(server, examples)
        elapsed = time.monotonic() - start
        played_during = table.hands
        table.stop.set()
        table.join(120)
        log = server.log.read_text()
    finally:
        server.stop()
    print(f"fuzz: {f.sent} socket messages and {f.http_sent} HTTP requests in {elapsed:.0f} s; "
          f"server errors {f.server_errors}, HTTP 5xx {f.http_5xx}; the table played {table.hands} hands "
          f"({played_during} while fuzzed)")
    assert f.sent >= examples
    assert f.server_errors == 0 and f.http_5xx == 0, f.bad[:5]
    assert "Traceback" not in log, log[-3000:]
    assert table.error == ""
    assert table.hands >= 1 and not table.is_alive()


@pytest.fixture
def tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    yield tmp_path_factory.mktemp("fuzz")


def test_fuzzed_messages_and_bodies_get_no_server_error_and_a_table_plays_on(tmp: Any) -> None:
    run_fuzz(tmp, examples=600)


@pytest.mark.slow
def test_fuzz_long(tmp: Any) -> None:
    run_fuzz(tmp, examples=5000)

