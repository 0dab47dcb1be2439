"""The same-network warning (同网提醒): which seats connect from one network — the same IPv4 address or /24, the
same IPv6 /64.  It is a deterrent, not a proof: friends on one Wi-Fi share a network honestly, and two people
colluding can use two.  Addresses stay in memory on the server; clients are told only which seats share one.

Behind a reverse proxy every peer is the proxy: only with ``daer serve --trusted-proxy ADDRESS`` is the client's
address read from ``X-Forwarded-For``, and only from a peer that is such a proxy (anyone can write the header).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

Net = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_proxies(items: Iterable[str]) -> tuple[Net, ...]:
    """Trusted proxies as networks (an address is a /32 or /128); ``ValueError`` for a bad one."""
    return tuple(ipaddress.ip_network(x.strip(), strict=False) for x in items if x.strip())


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def _trusted(ip: ipaddress.IPv4Address | ipaddress.IPv6Address | None, proxies: tuple[Net, ...]) -> bool:
    return ip is not None and any(ip.version == n.version and ip in n for n in proxies)


def is_trusted(address: str, proxies: tuple[Net, ...]) -> bool:
    """Whether ``address`` (a socket's peer) is one of the trusted proxies."""
    return _trusted(_ip(address), proxies)


def client_address(peer: str, forwarded: str | None, proxies: tuple[Net, ...]) -> str:
    """The client's address: the peer's, or — when the peer is a trusted proxy — the nearest address in
    ``X-Forwarded-For`` that is not itself a trusted proxy (read from the right: each proxy appends)."""
    if not forwarded or not _trusted(_ip(peer), proxies):
        return peer
    for hop in reversed(forwarded.split(",")):
        ip = _ip(hop)
        if ip is None:
            return peer  # a malformed header: the proxy's own address
        if not _trusted(ip, proxies):
            return str(ip)
    return peer


def network_of(address: str) -> str | None:
    """The network an address counts in: its IPv4 /24 or IPv6 /64 (None when it is not an address)."""
    ip = _ip(address)
    if ip is None:
        return None
    prefix = 24 if ip.version == 4 else 64
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))


def shared(networks: dict[int, str]) -> tuple[tuple[int, ...], ...]:
    """Groups of two or more seats on one network, in seat order."""
    by: dict[str, list[int]] = {}
    for seat, net in sorted(networks.items()):
        by.setdefault(net, []).append(seat)
    return tuple(tuple(g) for g in sorted(by.values()) if len(g) > 1)
