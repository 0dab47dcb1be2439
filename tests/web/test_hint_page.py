"""提示 on the page: the lobby's switch (off by default) makes a room whose seat to act sees the bot's suggestion
above its choices, Chinese first and English with the switch, without cutting any text at 360×740 or 740×360;
a room made without it shows none."""

from __future__ import annotations

import time
from typing import Any

from playwright.sync_api import Page
from serving import Server
from test_layout import CLIPPED, turn_to
from test_page_bugs import room_info, strict
from test_table_play import COVERED


def create(page: Page, server: Server, *, hint: bool) -> str:
    page.goto(server.url)
    page.fill("#name", "小明")
    page.fill("#timer", "0")
    assert page.locator("#hint").is_checked() is False  # off unless asked for
    if hint:
        page.check("#hint")
    page.click("#create")
    page.wait_for_selector("#waiting")
    return page.inner_text("#roomcode").strip()


def my_turn(page: Page, limit: float = 60) -> None:
    """Wait until the seat has something to decide (its discard, or a claim), passing the 底家's hand if it must."""
    deadline = time.monotonic() + limit
    while not (page.locator("#hand .card.ok").count() or page.locator("#actions button.choice").count()):
        assert time.monotonic() < deadline, "never the seat's turn"
        if page.locator("#settlement #next:not([disabled])").count():
            page.click("#settlement #next")
        page.wait_for_timeout(100)
    page.wait_for_timeout(150)


def test_a_room_with_hints_shows_the_seat_to_act_the_suggestion(server: Server, browser: Any) -> None:
    ctx = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    try:
        page = ctx.new_page()
        errors = strict(page)
        code = create(page, server, hint=True)
        assert room_info(server, code)["room"]["hint"] is True
        page.click("#start")
        my_turn(page)
        page.wait_for_selector("#tishi")
        text = page.inner_text("#tishi")
        assert text.startswith("提示：") and text.count("：") >= 2, text
        assert any(w in text for w in ("打", "碰", "吃", "招", "胡", "过")), text
        for w, hgt in ((360, 740), (740, 360)):
            turn_to(page, w, hgt)
            assert page.locator("#tishi").is_visible()
            assert page.evaluate(CLIPPED) == [], (w, hgt)
            assert page.evaluate(COVERED) == [], (w, hgt)
        page.click("#lang")  # the page's switch: the same hint in English
        page.wait_for_selector("#tishi")
        assert page.inner_text("#tishi").startswith("Hint: ")
        page.click("#lang")
        assert errors == []
    finally:
        ctx.close()


def test_a_room_without_hints_shows_none(server: Server, browser: Any) -> None:
    ctx = browser.new_context(viewport={"width": 360, "height": 740})
    try:
        page = ctx.new_page()
        code = create(page, server, hint=False)
        assert room_info(server, code)["room"]["hint"] is False
        page.click("#start")
        my_turn(page)
        assert page.locator("#tishi").count() == 0
    finally:
        ctx.close()
