"""HTTP hardening (security headers, allowed origins, JSON only) and rooms expiring on a schedule."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from serving import TEST_LIMITS, Client, Server, get, post
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from daer.server.safety.guard import origin_allowed


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("http") / "daer.db",
                 args=(*TEST_LIMITS, "--waiting-ttl", "1", "--finished-ttl", "1", "--sweep-every", "0.2")).start()
    yield srv
    srv.stop()


def request(url: str, body: bytes | None = None, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str],
                                                                                                  bytes]:
    req = urllib.request.Request(url, data=body, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            return res.status, {k.lower(): v for k, v in res.headers.items()}, res.read()
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}, err.read()


@pytest.mark.parametrize("path", ["/", "/r/ABCDE", "/replay/ABCDE/1", "/static/app.js", "/api/options",
                                  "/api/rooms/ABCDE"])
def test_every_answer_carries_the_security_headers(server: Server, path: str) -> None:
    _status, headers, _body = request(f"{server.url}{path}")
    csp = headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["x-frame-options"] == "DENY"


def test_the_pages_have_no_inline_script_or_handler() -> None:
    web = Path(__file__).resolve().parents[2] / "src" / "daer" / "web"
    for page in web.glob("*.html"):
        text = page.read_text()
        assert "<script>" not in text and " on" not in text.replace("<script type", ""), page.name
        assert all('src="' in line for line in text.splitlines() if "<script" in line), page.name


def test_posts_need_json_and_an_allowed_origin(server: Server) -> None:
    body = json.dumps({"name": "A"}).encode()
    status, _h, raw = request(f"{server.url}/api/rooms", body, {"content-type": "text/plain"})
    assert status == 415 and json.loads(raw)["zh"].startswith("请求须是 JSON")
    status, _h, _raw = request(f"{server.url}/api/rooms", body)  # urllib's default form content type
    assert status == 415
    evil = {"content-type": "application/json", "origin": "https://evil.example"}
    status, _h, raw = request(f"{server.url}/api/rooms", body, evil)
    assert status == 403 and json.loads(raw)["error"] == "bad_origin"
    own = {"content-type": "application/json; charset=utf-8", "origin": server.url}
    status, _h, raw = request(f"{server.url}/api/rooms", body, own)
    assert status == 200, raw


def test_the_socket_refuses_another_origin(server: Server) -> None:
    with pytest.raises(InvalidStatus):
        connect(server.ws_url, origin="https://evil.example").__enter__()  # type: ignore[arg-type]
    ws = connect(server.ws_url, origin=server.url).__enter__()  # type: ignore[arg-type]
    ws.send(json.dumps({"t": "ping"}))
    assert json.loads(ws.recv(timeout=10))["t"] == "pong"
    ws.close()


@pytest.mark.parametrize(("origin", "host", "allowed", "ok"), [
    (None, "a:1", (), True), ("http://a:1", "a:1", (), True), ("http://b:1", "a:1", (), False),
    ("https://daer.example", "10.0.0.1:8000", ("https://daer.example",), True),
    ("http://10.0.0.1:8000", "10.0.0.1:8000", ("https://daer.example",), False),
    ("null", "a:1", (), False),
])
def test_origins(origin: str | None, host: str, allowed: tuple[str, ...], ok: bool) -> None:
    assert origin_allowed(origin, host, allowed) is ok


def test_waiting_rooms_expire_and_finished_ones_leave_memory_but_keep_their_records(server: Server) -> None:
    _, waiting = post(f"{server.url}/api/rooms", {"name": "A", "config": {"timer": 0}})
    watcher = Client(server, waiting["code"])
    told = watcher.until(lambda m: m["t"] == "closed", timeout=10)
    assert told["zh"].startswith("房间太久没有动静")
    assert get(f"{server.url}/api/rooms/{waiting['code']}")[0] == 404
    assert post(f"{server.url}/api/rooms/{waiting['code']}/join", {"name": "B"})[0] == 404
    # a match played out by bots: once it has left memory, its record is still there through its code
    _, done = post(f"{server.url}/api/rooms", {"name": "A", "config": {"timer": 0, "hands": 1}})
    c = Client(server, done["code"], done["token"])
    c.cmd("start")
    c.cmd("leave")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, info = get(f"{server.url}/api/rooms/{done['code']}")
        if status == 200 and info["room"]["status"] == "finished":
            break
        time.sleep(0.2)
    assert info["room"]["status"] == "finished"
    time.sleep(1.5)
    status, rec = get(f"{server.url}/api/rooms/{done['code']}/hands/1/record")
    assert status == 200 and rec["actions"]


def test_a_body_over_the_limit_is_refused_without_being_read_whole(server: Server) -> None:
    big = json.dumps({"name": "A", "pad": "x" * 100_000}).encode()
    status, _h, raw = request(f"{server.url}/api/rooms", big, {"content-type": "application/json"})
    assert status == 413 and json.loads(raw)["zh"].startswith("请求太大")
