"""The table page's bugs from issue 10 ("Bugs:"), each with a browser test at 360×740 (Debian's Chromium)."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from serving import Server
from test_table import create_room, hand_ids, play_to_settlement

from daer.cli.terms import TERMS

WEB = Path(__file__).resolve().parents[2] / "src" / "daer" / "web"
NO_CLIPBOARD = "Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined, configurable: true });"
"""A plain-http LAN address has no Clipboard API (not a secure context): the test takes it away."""


def strict(page: Page) -> list[str]:
    """Collect page errors, console errors (a 404 included) and CSP violations."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" or "Content Security Policy" in m.text
            else None)
    return errors


def room_info(server: Server, code: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{server.url}/api/rooms/{code}", timeout=5) as res:
        data: dict[str, Any] = json.loads(res.read())
    return data


def test_a_spectator_sees_every_seat_and_the_centre_names_seat_1(server: Server, browser: Any) -> None:
    host_ctx = browser.new_context(viewport={"width": 360, "height": 740})
    watch_ctx = browser.new_context(viewport={"width": 360, "height": 740})
    try:
        host, watcher = host_ctx.new_page(), watch_ctx.new_page()
        errors = strict(watcher)
        code = create_room(host, server, "甲")
        host.click("#start")
        hand_ids(host)  # seat 1 (甲) deals and waits for its first discard
        watcher.goto(f"{server.url}/r/{code}")
        watcher.click("#watch")
        watcher.wait_for_selector("#centre")
        seats = watcher.eval_on_selector_all(".opp[data-seat]", "els => els.map(e => +e.dataset.seat)")
        assert sorted(seats) == [0, 1, 2, 3]
        assert "甲" in watcher.inner_text(".opp[data-seat='0']")
        # every centre line the spectator is shown, recorded as it changes (bots answer in 0.05 s)
        watcher.evaluate("""() => { window.lines = [];
            new MutationObserver(() => { const c = document.querySelector('#centre .info');
              if (c) window.lines.push(c.innerText); }).observe(document.getElementById('app'),
              { childList: true, subtree: true }); }""")
        host.locator("#hand .card.ok").last.click()
        host.locator("#hand .card.sel").last.click()
        for _ in range(100):  # the spectator sees the table some steps late: play on until the discard shows
            if watcher.evaluate("() => window.lines.some(l => l.includes('甲 打出'))"):
                break
            claims = host.locator("#actions button[data-action]:not([disabled])")
            try:
                if claims.count():
                    claims.first.click(timeout=2000)
                elif host.locator("#hand .card.ok").count():
                    host.locator("#hand .card.ok").last.click(timeout=2000)
                    host.locator("#hand .card.sel").last.click(timeout=2000)
            except PlaywrightError:
                pass
            host.wait_for_timeout(200)
        watcher.wait_for_function("() => window.lines.some(l => l.includes('甲 打出'))")
        lines: list[str] = watcher.evaluate("window.lines")
        assert not [x for x in lines if re.search(r"(^|\n)[1-4] (打出|翻出)", x)]
        assert errors == []
    finally:
        host_ctx.close()
        watch_ctx.close()


def test_back_and_forward_mid_hand_keep_the_room(server: Server, phone: Any) -> None:
    page = phone.new_page()
    errors = strict(page)
    code = create_room(page, server)
    page.click("#start")
    before = hand_ids(page)
    page.go_back()
    page.wait_for_selector("#create")
    page.wait_for_timeout(800)  # time for any late message to redraw the table (the bug)
    assert page.url.rstrip("/") == server.url
    assert page.locator("#hand").count() == 0
    assert page.locator("#create").is_visible()
    assert code in page.inner_text("#backto")
    page.go_forward()
    assert page.url.endswith(f"/r/{code}")
    assert hand_ids(page) == before
    # the lobby's link back to the table does the same
    page.go_back()
    page.click("#backlink")
    assert hand_ids(page) == before
    assert page.url.endswith(f"/r/{code}")
    assert errors == []


def test_copy_link_without_the_clipboard_api_selects_the_link_and_says_so(server: Server, phone: Any) -> None:
    page = phone.new_page()
    page.add_init_script(NO_CLIPBOARD)
    page.add_init_script("document.execCommand = () => false;")  # a browser that refuses to copy as well
    create_room(page, server)
    page.click("#copy")
    page.wait_for_selector("#toast:not([hidden])")
    assert "已选中" in page.inner_text("#toast")
    assert "已复制" not in page.inner_text("#toast")
    link = page.input_value("#link")
    assert page.evaluate("() => { const f = document.activeElement;"
                         " return f.id === 'link' ? f.value.slice(f.selectionStart, f.selectionEnd) : null; }") == link


def test_copy_link_without_the_clipboard_api_copies_by_selection(server: Server, phone: Any) -> None:
    page = phone.new_page()
    page.add_init_script(NO_CLIPBOARD)
    create_room(page, server)
    page.evaluate("""() => document.addEventListener('copy', () => { const f = document.activeElement;
        window.copied = f.value.slice(f.selectionStart, f.selectionEnd); })""")
    page.click("#copy")
    page.wait_for_selector("#toast:not([hidden])")
    assert page.evaluate("window.copied") == page.input_value("#link")
    assert page.inner_text("#toast") == "已复制"


def test_an_unknown_code_is_refused_before_a_nickname_is_asked(server: Server, phone: Any) -> None:
    page = phone.new_page()
    page.goto(server.url)
    page.fill("#code", "ZZZZ2345ZZZZ")
    page.click("#join")
    page.wait_for_selector("#toast:not([hidden])")
    assert "没有这个房间" in page.inner_text("#toast")
    assert page.locator("#joinseat").count() == 0
    assert page.url.rstrip("/") == server.url
    # a link to an unknown room says so, and asks nothing either
    page.goto(f"{server.url}/r/ZZZZ2345ZZZZ")
    page.wait_for_selector("#noroom")
    assert "没有这个房间" in page.inner_text("#noroom")
    assert page.locator("#joinseat, #name").count() == 0


def test_favicon_is_served_and_the_lobby_logs_no_error(server: Server, phone: Any) -> None:
    with urllib.request.urlopen(f"{server.url}/favicon.ico", timeout=5) as res:
        assert res.status == 200
        assert res.headers["content-type"].startswith("image/svg+xml")
        assert b"<svg" in res.read()
    page = phone.new_page()
    errors = strict(page)
    page.goto(server.url)
    page.wait_for_selector("#create")
    icon = page.get_attribute("link[rel=icon]", "href")
    assert icon is not None
    assert page.request.get(f"{server.url}{icon}").status == 200
    page.wait_for_timeout(300)
    assert errors == []


def test_the_page_words_are_the_terminals_words() -> None:
    text = (WEB / "i18n.js").read_text(encoding="utf-8")
    block = text.split("export const TERMS = {", 1)[1].split("};", 1)[0]
    page_terms = {k: (zh, en) for k, zh, en in re.findall(r'(\w+): \["([^"]+)", "([^"]+)"\]', block)}
    assert page_terms == TERMS


def test_english_mode_translates_the_group_words_and_dijia(server: Server, phone: Any) -> None:
    page = phone.new_page()
    page.add_init_script("localStorage.setItem('daer.lang', 'en');")
    page.goto(server.url)
    page.fill("#name", "Ann")
    page.fill("#timer", "0")
    page.click("#create")
    page.wait_for_selector("#waiting")
    page.click("#start")
    hand_ids(page)
    assert page.locator(".badge", has_text="dijia").count() == 1
    assert "底家" not in page.inner_text("#app")
    play_to_settlement(page)
    sheet = page.inner_text("#settlement")
    assert not set("顺碰坎绞招垅") & set(page.inner_text("#groups") if page.locator("#groups").count() else "")
    assert "底家" not in sheet.replace("(底家)", "")  # the server's English payment note glosses "the dijia (底家)"


def test_a_double_tap_on_join_takes_one_seat(server: Server, browser: Any) -> None:
    a_ctx = browser.new_context(viewport={"width": 360, "height": 740})
    b_ctx = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    try:
        a, b = a_ctx.new_page(), b_ctx.new_page()
        code = create_room(a, server, "甲")
        b.goto(f"{server.url}/r/{code}")
        b.fill("#name", "双击加入")
        b.dblclick("#joinseat")
        b.wait_for_selector("#waiting")
        b.wait_for_timeout(300)
        names = [s["name"] for s in room_info(server, code)["room"]["seats"]]
        assert names.count("双击加入") == 1
        assert names.count("") + names.count(None) == 2
    finally:
        a_ctx.close()
        b_ctx.close()
