"""Quick phrases and emotes in a real browser (issue 24 items 2 and 7): delivered as a bubble at the sender's seat
and a feed line, rate-limited (the sender is told), muted per seat and the mute remembered on the device; a
spectator has no phrase button."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page
from serving import Server
from test_page_bugs import strict
from test_table import create_room


def open_sheet(page: Page) -> None:
    page.click("#saybtn")
    page.wait_for_selector("#saysheet")


def say(page: Page, what: str) -> None:
    open_sheet(page)
    page.click(f"#saysheet [data-say='{what}']")
    page.wait_for_selector("#saysheet", state="detached")


def test_phrases_are_delivered_rate_limited_and_muted(server: Server, browser: Any) -> None:
    ctxs = [browser.new_context(viewport={"width": 360, "height": 740}) for _ in range(3)]
    a, b, w = (c.new_page() for c in ctxs)
    errors = [strict(x) for x in (a, b, w)]
    try:
        code = create_room(a, server, "甲")
        b.goto(f"{server.url}/r/{code}")
        b.fill("#name", "乙")
        b.click("#joinseat")
        b.wait_for_selector("#waiting")
        w.goto(f"{server.url}/r/{code}")
        w.click("#watch")
        w.wait_for_selector("#waiting")
        assert not w.locator("#saybtn").count()  # spectators cannot send
        a.click("#start")
        for x in (a, b, w):
            x.wait_for_selector("#table")
        # delivered: a bubble at 甲's seat for 乙 and the spectator, and a line in the feed
        say(a, "p0")
        for x in (b, w):
            x.wait_for_selector(".bubble[data-seat='0']:has-text('快点吧，我等的花都谢了')")
            assert "快点吧，我等的花都谢了" in x.inner_text("#feed")
        bubble = b.locator(".bubble").bounding_box()
        seat = b.locator(".seat[data-seat='0']").bounding_box()
        assert bubble is not None and seat is not None
        assert seat["y"] - 5 <= bubble["y"] <= seat["y"] + seat["height"], (bubble, seat)  # at the seat
        say(b, "e4")
        a.wait_for_selector(".bubble[data-seat='1']:has-text('🌹')")
        # rate-limited: three at once, then the sender is told to wait
        say(a, "s1")
        say(a, "s3")
        say(a, "s4")
        a.wait_for_selector("#toast:has-text('快捷语发得太快了')")
        # 乙 mutes 甲: no bubble, no line; remembered after a reload
        open_sheet(b)
        b.check("#hush0")
        b.click("#sayclose")
        b.reload()
        b.wait_for_selector("#table")
        open_sheet(b)
        assert b.is_checked("#hush0")
        b.click("#sayclose")
        a.wait_for_timeout(5500)  # the bucket refills (12 a minute)
        b.evaluate("document.querySelectorAll('.bubble').forEach(e => e.remove())")
        say(a, "p5")
        w.wait_for_selector(".bubble[data-seat='0']:has-text('再来一局')")  # the spectator hears it
        b.wait_for_timeout(500)
        assert not b.locator(".bubble").count() and "再来一局" not in b.inner_text("#feed")
        assert all(e == [] for e in errors), errors
    finally:
        for c in ctxs:
            c.close()
