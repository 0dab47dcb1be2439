"""The same-network warning in a real browser (issue 24 items 3 and 7): the seats connecting from one network are
named to every seat before the first deal, with what it does not prove; seats on different networks see none.
Browsers cannot choose their source address, so each page comes through the server's trusted proxy (the test
server trusts 127.0.0.1) with its own X-Forwarded-For; ``tests/server/test_networks.py`` connects sockets from
127.0.0.2, 127.0.0.3, 127.1.0.3 … directly."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page
from serving import TEST_LIMITS, Server
from test_page_bugs import strict
from test_table import create_room


@pytest.fixture(scope="module")
def pserver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("near") / "daer.db", args=(*TEST_LIMITS, "--trusted-proxy", "127.0.0.1"))
    yield srv.start()
    srv.stop()


def from_address(browser: Any, address: str) -> Page:
    ctx = browser.new_context(viewport={"width": 360, "height": 740}, extra_http_headers={"X-Forwarded-For": address})
    return ctx.new_page()


def join(page: Page, server: Server, code: str, name: str) -> None:
    page.goto(f"{server.url}/r/{code}")
    page.fill("#name", name)
    page.click("#joinseat")
    page.wait_for_selector("#waiting")


def test_seats_on_one_network_are_named_to_every_seat_and_others_see_no_warning(pserver: Server,
                                                                               browser: Any) -> None:
    pages = [from_address(browser, a) for a in ("198.51.100.4", "198.51.100.9", "203.0.113.5")]
    errors = [strict(p) for p in pages]
    try:
        code = create_room(pages[0], pserver, "甲")
        join(pages[1], pserver, code, "乙")
        join(pages[2], pserver, code, "丙")
        for page in pages:  # every seat, the one on another network too
            page.wait_for_selector("#nearwarn")
            text = page.inner_text("#nearwarn")
            assert "1. 甲" in text and "2. 乙" in text and "丙" not in text and "不能证明串通" in text
            assert "198.51" not in page.content()  # the fact only, never the address
        pages[0].click("#start")  # the host may start anyway
        pages[0].wait_for_selector("#table")
        assert not pages[0].locator("#nearwarn").count()
        # a room whose seats are all on different networks: no warning
        other = [from_address(browser, a) for a in ("192.0.2.1", "192.0.3.1")]
        code2 = create_room(other[0], pserver, "丁")
        join(other[1], pserver, code2, "戊")
        other[0].wait_for_selector(".seatlist > div:has-text('戊')")
        other[0].wait_for_timeout(300)
        assert not other[0].locator("#nearwarn").count() and not other[1].locator("#nearwarn").count()
        for p in other:
            p.context.close()
        assert all(e == [] for e in errors), errors
    finally:
        for p in pages:
            p.context.close()
