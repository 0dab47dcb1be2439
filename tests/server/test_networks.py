"""The same-network warning (issue 24 item 3): before the first deal every seat is told which seats connect from one
network (the same IPv4 address or /24, the same IPv6 /64), never an address; X-Forwarded-For counts only from a
trusted proxy.  Clients connect from different loopback addresses (127.0.0.2, 127.0.0.3, 127.1.0.3 …)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serving import TEST_LIMITS, Client, Server, post, room

from daer.server.social.networks import client_address, network_of, parse_proxies, shared


def test_networks_are_the_ipv4_slash_24_and_the_ipv6_slash_64() -> None:
    assert network_of("203.0.113.7") == network_of("203.0.113.200") == "203.0.113.0/24"
    assert network_of("203.0.114.7") != network_of("203.0.113.7")
    assert network_of("2001:db8:1:2::5") == network_of("2001:db8:1:2:ffff::1") == "2001:db8:1:2::/64"
    assert network_of("2001:db8:1:3::5") != network_of("2001:db8:1:2::5")
    assert network_of("::ffff:203.0.113.9") == "203.0.113.0/24"  # an IPv4 client on a dual-stack socket
    assert network_of("?") is None
    assert shared({0: "a", 1: "b", 2: "a", 3: "c"}) == ((0, 2),)
    assert shared({0: "a", 1: "b"}) == ()


def test_x_forwarded_for_counts_only_from_a_trusted_proxy() -> None:
    proxies = parse_proxies(["10.0.0.1", "10.1.0.0/16"])
    assert client_address("10.0.0.1", "198.51.100.4", proxies) == "198.51.100.4"
    assert client_address("10.0.0.1", "6.6.6.6, 198.51.100.4, 10.1.2.3", proxies) == "198.51.100.4"  # right to left
    assert client_address("192.0.2.9", "198.51.100.4", proxies) == "192.0.2.9"  # anyone can write the header
    assert client_address("10.0.0.1", "not an address", proxies) == "10.0.0.1"
    assert client_address("10.0.0.1", None, proxies) == "10.0.0.1"
    assert client_address("10.0.0.1", "198.51.100.4", ()) == "10.0.0.1"  # no proxy trusted: the peer
    with pytest.raises(ValueError):
        parse_proxies(["nonsense"])


@pytest.fixture(scope="module")
def nserver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("net") / "daer.db", args=(*TEST_LIMITS, "--trusted-proxy", "127.0.0.9"))
    yield srv.start()
    srv.stop()


def seat(server: Server, code: str, name: str) -> str:
    status, body = post(f"{server.url}/api/rooms/{code}/join", {"name": name})
    assert status == 200, body
    return str(body["token"])


def near(c: Client) -> Any:
    return c.state(lambda m: True)["room"]["near"]


def test_seats_on_one_network_are_told_and_others_see_it_and_no_address_is_sent(nserver: Server) -> None:
    made = room(nserver)
    code = made["code"]
    tokens = [made["token"], seat(nserver, code, "B"), seat(nserver, code, "C"), seat(nserver, code, "D")]
    sources = ["127.0.0.2", "127.0.0.3", "127.1.0.3", "127.2.0.4"]  # 0 and 1 share a /24
    clients = [Client(nserver, code, t, source=s) for t, s in zip(tokens, sources, strict=True)]
    try:
        for c in clients:
            c.state(lambda m: len(m["room"]["near"]) == 1)
            assert near(c) == [[0, 1]]
        for c in clients:
            assert not any("127." in str(f) for f in c.frames)  # only the fact, never an address
        # a spectator on the same network is no seat: nothing changes
        w = Client(nserver, code, None, source="127.1.0.3")
        assert w.state(lambda m: True)["room"]["near"] == [[0, 1]]
        w.close()
        # the host may start anyway; after the deal the warning is gone
        assert clients[0].cmd("start")["t"] == "ack"
        assert clients[2].state(lambda m: m["room"]["status"] == "playing")["room"]["near"] == []
    finally:
        for c in clients:
            c.close()


def test_seats_on_different_networks_get_no_warning_and_the_same_address_does(nserver: Server) -> None:
    made = room(nserver)
    code = made["code"]
    tokens = [made["token"], seat(nserver, code, "B"), seat(nserver, code, "C")]
    clients = [Client(nserver, code, t, source=s) for t, s in zip(tokens, ["127.0.0.2", "127.1.0.2", "127.2.0.2"],
                                                                    strict=True)]
    try:
        for c in clients:
            assert c.state(lambda m: sum(s["online"] for s in m["room"]["seats"]) == 3)["room"]["near"] == []
        same = Client(nserver, code, seat(nserver, code, "D"), source="127.2.0.2")  # the very same address as C
        assert same.state(lambda m: len(m["room"]["near"]) == 1)["room"]["near"] == [[2, 3]]
        same.close()
    finally:
        for c in clients:
            c.close()


def test_behind_a_trusted_proxy_the_forwarded_address_counts_and_a_forged_one_does_not(nserver: Server,
                                                                                   tmp_path: Path) -> None:
    made = room(nserver)
    code = made["code"]
    tokens = [made["token"], seat(nserver, code, "B"), seat(nserver, code, "C")]
    proxy = {"X-Forwarded-For": "198.51.100.4"}
    a = Client(nserver, code, tokens[0], source="127.0.0.9", headers=proxy)  # through the trusted proxy
    b = Client(nserver, code, tokens[1], source="127.0.0.9", headers={"X-Forwarded-For": "198.51.100.77"})
    c = Client(nserver, code, tokens[2], source="127.3.0.1", headers=proxy)  # forged: not from the proxy
    try:
        assert a.state(lambda m: len(m["room"]["near"]) == 1)["room"]["near"] == [[0, 1]]  # one /24 behind the proxy
        assert c.state(lambda m: sum(s["online"] for s in m["room"]["seats"]) == 3)["room"]["near"] == [[0, 1]]
    finally:
        for x in (a, b, c):
            x.close()
