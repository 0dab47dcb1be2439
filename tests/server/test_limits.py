"""Abuse limits: per-address token buckets (429 with Retry-After), caps on rooms and connections."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from serving import Server, post
from websockets.sync.client import connect

from daer.server.safety.limits import Buckets, Counter, Rate, parse_rate


def test_a_bucket_allows_its_burst_then_refuses_with_the_wait_until_a_token_is_back() -> None:
    b = Buckets(Rate(60, 3))  # one a second, three at once
    assert [b.take("a", now=0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert b.take("a", now=0.0) == pytest.approx(1.0)
    assert b.take("b", now=0.0) == 0.0  # another address has its own bucket
    assert b.take("a", now=1.0) == 0.0
    assert b.take("a", now=1.5) == pytest.approx(0.5)


def test_buckets_forget_the_least_recently_used_address_past_their_size() -> None:
    b = Buckets(Rate(1, 1), max_keys=2)
    for key in "abc":
        b.take(key, now=0.0)
    assert len(b._b) == 2


def test_counters_cap_per_address_and_in_all() -> None:
    c = Counter(per_address=2, total=3)
    assert c.acquire("a") and c.acquire("a") and not c.acquire("a")
    assert c.acquire("b") and not c.acquire("c")
    c.release("a")
    assert c.acquire("c")


@pytest.mark.parametrize(("text", "rate"), [("10", Rate(10)), ("6/2", Rate(6, 2))])
def test_rates_parse(text: str, rate: Rate) -> None:
    assert parse_rate(text) == rate


@pytest.mark.parametrize("text", ["x", "-1", "5/0"])
def test_bad_rates_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="rate"):
        parse_rate(text)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("limits") / "daer.db", args=(
        "--create-rate", "2/3", "--join-rate", "1/2", "--lookup-rate", "1/4", "--max-conns-per-address", "3",
        "--max-rooms-per-address", "3")).start()
    yield srv
    srv.stop()


def _get(url: str) -> tuple[int, dict[str, str], dict[str, object]]:
    try:
        with urllib.request.urlopen(url, timeout=10) as res:
            return res.status, dict(res.headers), json.loads(res.read())
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), json.loads(err.read())


def test_creating_joining_and_looking_up_are_rate_limited_per_address_with_retry_after(server: Server) -> None:
    made = [post(f"{server.url}/api/rooms", {"name": "A", "config": {"timer": 0}}) for _ in range(4)]
    assert [s for s, _ in made] == [200, 200, 200, 429]
    assert made[3][1]["zh"].startswith("请求太频繁") and made[3][1]["retry_after"] >= 1
    code = made[0][1]["code"]
    joins = [post(f"{server.url}/api/rooms/{code}/join", {"name": "B"})[0] for _ in range(3)]
    assert joins == [200, 200, 429]
    looks = [_get(f"{server.url}/api/rooms/{code}") for _ in range(5)]
    assert [s for s, _, _ in looks] == [200, 200, 200, 200, 429]
    assert int(looks[4][1]["retry-after"]) >= 1


def test_connections_per_address_are_capped(server: Server) -> None:
    socks = [connect(server.ws_url).__enter__() for _ in range(3)]
    try:
        with connect(server.ws_url) as extra:
            msg = json.loads(extra.recv(timeout=10))
            assert msg["code"] == "too_many_conns" and msg["zh"]
    finally:
        for s in socks:
            s.close()


@pytest.mark.parametrize("args", [["--bot-delay", "11"], ["--bot-delay", "-1"], ["--create-rate", "fast"],
                                  ["--max-conns", "0"], ["--waiting-ttl", "0"]])
def test_serve_refuses_options_out_of_their_range_before_starting(args: list[str]) -> None:
    from typer.testing import CliRunner  # noqa: PLC0415

    from daer.cli.main import app  # noqa: PLC0415

    result = CliRunner().invoke(app, ["serve", "--port", "1", *args])
    assert result.exit_code == 2, result.output
