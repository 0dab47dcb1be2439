"""The table page in a real browser (Debian's Chromium, driven by Playwright) at phone size."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from serving import Server


def create_room(page: Page, server: Server, name: str = "小明") -> str:
    page.goto(server.url)
    page.fill("#name", name)
    page.fill("#timer", "0")
    page.click("#create")
    page.wait_for_selector("#waiting")
    return page.inner_text("#roomcode").strip()


def hand_ids(page: Page) -> list[int]:
    page.wait_for_selector("#hand .card")
    return sorted(int(x) for x in page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.cid)"))


def play_to_settlement(page: Page, limit: float = 120) -> None:
    """Click whatever the page offers (claims first, else discard a card) until the settlement shows."""
    deadline = time.monotonic() + limit
    while not page.locator("#settlement").count():
        if time.monotonic() > deadline:
            page.screenshot(path="/tmp/shots/stuck.png")
            pytest.fail("the hand did not reach the settlement screen")
        try:
            buttons = page.locator("#actions button[data-action]:not([disabled])")
            if buttons.count():
                buttons.first.click(timeout=2000)
            elif page.locator("#hand .card.sel:last-child").count():
                page.locator("#hand .card.sel:last-child").first.click(timeout=2000)
            elif page.locator("#hand .card.ok:last-child").count():
                page.locator("#hand .card.ok:last-child").first.click(timeout=2000)
        except PlaywrightError:
            pass  # the page re-rendered under the click: look again
        page.wait_for_timeout(50)


def test_a_person_creates_a_room_and_plays_a_hand_to_the_settlement(server: Server, phone: Any,
                                                                    tmp_path: Path) -> None:
    page = phone.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # the page runs under a strict Content-Security-Policy: any violation is reported on the console
    page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    create_room(page, server)
    page.click("#start")
    assert hand_ids(page)
    page.screenshot(path=str(tmp_path / "table.png"))
    play_to_settlement(page)
    sheet = page.locator("#settlement")
    assert sheet.locator("#scores").is_visible()
    text = sheet.inner_text()
    assert "胡" in text or "黄牌" in text
    page.screenshot(path=str(tmp_path / "settlement.png"), full_page=True)
    # the replay is reached through the room's code and the hand's number
    href = sheet.locator("a[href^='/replay/']").get_attribute("href")
    assert href is not None and href.endswith("/1")
    page.goto(f"{server.url}{href}")
    page.wait_for_selector("#step")
    page.click("#nextstep")
    assert errors == []


def test_a_double_tap_on_create_makes_one_room(server: Server, phone: Any) -> None:
    def rooms() -> int:
        with sqlite3.connect(server.db) as db:
            return int(db.execute("select count(*) from rooms").fetchone()[0])

    page = phone.new_page()
    page.goto(server.url)
    page.fill("#name", "双击")
    before = rooms()
    page.dblclick("#create")
    page.wait_for_selector("#waiting")
    page.wait_for_timeout(300)
    assert rooms() == before + 1


def test_two_people_join_one_room_by_its_code_and_each_sees_only_its_own_hand(server: Server, browser: Any) -> None:
    a_ctx = browser.new_context(viewport={"width": 360, "height": 740})
    b_ctx = browser.new_context(viewport={"width": 360, "height": 740})
    try:
        a, b = a_ctx.new_page(), b_ctx.new_page()
        frames: list[dict[str, Any]] = []
        b.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(json.loads(payload))))
        code = create_room(a, server, "甲")
        b.goto(server.url)
        b.fill("#code", code)
        b.click("#join")
        b.wait_for_selector("#joinseat")  # the lobby's own #name field is there until the room is looked up
        b.fill("#name", "乙")
        b.click("#joinseat")
        b.wait_for_selector("#waiting")
        a.wait_for_selector("#waiting >> text=乙")
        a.click("#start")
        mine_a, mine_b = hand_ids(a), hand_ids(b)
        assert mine_a
        assert mine_b
        assert not set(mine_a) & set(mine_b)
        assert b.locator("#hand").inner_text() != ""
        seen_by_b = {cid for m in frames if m.get("t") == "update" and m.get("view") for cid in m["view"]["hand"]}
        assert seen_by_b
        assert not seen_by_b & set(mine_a)
    finally:
        a_ctx.close()
        b_ctx.close()


def test_a_reload_in_mid_hand_resumes_the_seat(server: Server, phone: Any) -> None:
    page = phone.new_page()
    create_room(page, server)
    page.click("#start")
    before = hand_ids(page)  # seat 0 deals: the hand waits for its first discard
    page.reload()
    after = hand_ids(page)
    assert after == before
    page.locator("#hand .card.ok:last-child").first.click()
    page.locator("#hand .card.sel:last-child").first.click()
    page.wait_for_function("n => document.querySelectorAll('#hand .card').length < n", arg=len(before))
