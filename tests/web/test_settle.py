"""The settlement that shows its arithmetic (issue 10 item 5), in a real browser at 360×740 and 1280×800:
胡 → 等 → amounts that add up to the stored settlement, every hand revealed, 战绩 across two hands, and a
shareable summary that really reaches the clipboard (with and without the Clipboard API)."""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

from serving import Server
from test_page_bugs import NO_CLIPBOARD
from test_table import play_to_settlement


def stored_hands(server: Server, code: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{server.url}/api/rooms/{code}", timeout=5) as r:
        return json.loads(r.read())["hands"]  # type: ignore[no-any-return]


def seat_points(page: Any, table: str, attr: str) -> list[int]:
    return [int(x) for x in page.eval_on_selector_all(f"#{table} tr[data-seat] [data-{attr}]",
                                                      f"els => els.map(e => e.dataset.{attr})")]


def check_arithmetic(page: Any, points: list[int]) -> None:
    """The working on the page leads to the stored points: each loser pays the chain's last figure."""
    chain = page.eval_on_selector_all("#chain .step", "els => els.map(e => e.textContent)")
    if page.locator("#headline[data-winner]").count() == 0:  # 黄牌: explained, with the 底家's payments
        assert chain[0] == "黄牌"
        assert "没人胡" in page.inner_text("#work")
        return
    winner = int(page.get_attribute("#headline", "data-winner") or "")
    assert re.fullmatch(r"\d+胡", chain[0]) and re.fullmatch(r"\d+等", chain[1]), chain
    each = int(chain[-1].removeprefix("每家付 "))
    hu = int(chain[0][:-1])
    # checked by hand from the chain: (等, or the floor it is counted as, + the 底家's share) × the multipliers
    base = int(next((m[1] for c in chain if (m := re.fullmatch(r"按(\d+)等", c))), chain[1][:-1]))
    share = int(next((m[1] for c in chain if (m := re.fullmatch(r"\+底家(\d+)", c))), "0"))
    factor = 1
    for c in chain:
        for f in re.findall(r"×(\d+)", c):
            factor *= int(f)
    assert (base + share) * factor == each, chain
    assert f"{hu}胡" in page.inner_text("#headline")
    # the 列 shown with their 胡 add up to the hand's 胡 (列 without 胡 are summed up, not listed)
    his = page.eval_on_selector_all("#groups .sgroup[data-hu]", "els => els.map(e => +e.dataset.hu)")
    assert sum(his) == hu and 0 not in his
    work = page.inner_text("#work")
    assert f"= {each}" in work and "每个输家付" in work
    rows = page.eval_on_selector_all("#scores tr[data-seat]", "els => els.map(e => e.innerText)")
    dijia = [i for i, row in enumerate(rows) if "底家" in row]
    losers = [s for s in range(len(points)) if s != winner and s not in dijia]
    assert losers and all(points[s] == -each for s in losers), (points, each, losers)
    assert sum(points) == 0


def test_the_settlement_shows_its_working_reveals_every_hand_keeps_the_match_score_and_shares(
        server: Server, browser: Any) -> None:
    ctx = browser.new_context(viewport={"width": 360, "height": 740}, device_scale_factor=1, is_mobile=True,
                              has_touch=True, accept_downloads=True)
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url)
    page.fill("#name", "小明")
    page.fill("#timer", "0")
    page.fill("#hands", "2")
    page.click("#create")
    page.wait_for_selector("#waiting")
    code = page.inner_text("#roomcode").strip()
    page.click("#start")
    play_to_settlement(page)
    page.wait_for_selector("#record")  # the match so far arrives from GET /api/rooms/{code}
    stored = stored_hands(server, code)
    assert len(stored) == 1
    points = seat_points(page, "scores", "points")
    assert points == stored[0]["points"]
    check_arithmetic(page, points)
    # my own score is labelled, and the next hand is one tap away on a phone without scrolling
    assert page.inner_text("#mine").startswith(("我赢了", "我输了", "不输不赢", "我坐底"))
    assert "我" in page.inner_text("#scores tr.me")
    box = page.locator("#next").bounding_box()
    assert box is not None and box["y"] + box["height"] <= 740
    # every hand revealed: my row shows exactly the cards left in my hand
    mine = sorted(page.eval_on_selector_all("#hand .card", "els => els.map(e => +e.dataset.kind)"))
    shown = sorted(page.eval_on_selector_all("#reveal .rhand[data-seat='0'] .card",
                                             "els => els.map(e => +e.dataset.kind)"))
    assert shown == mine
    assert page.locator("#reveal .rhand").count() >= 3
    # share: the text reaches the clipboard
    page.click("#sharecopy")
    page.wait_for_selector("#toast:not([hidden])")
    text = page.evaluate("navigator.clipboard.readText()")
    assert code in text and ("赢家" in text or "黄牌" in text) and "第 1/2 局" in text
    assert "小明" in text and "我" not in text.replace("我赢了", "")  # names, not "我": the text is for others
    # without the Clipboard API (a plain-http LAN address) the fallback copies by selection
    page.evaluate(NO_CLIPBOARD)
    page.evaluate("""() => document.addEventListener('copy', () => { const f = document.activeElement;
        window.copied = f.value.slice(f.selectionStart, f.selectionEnd); })""")
    page.click("#sharecopy")
    assert page.evaluate("window.copied") == text
    with page.expect_download() as dl:
        page.click("#shareimage")
    assert dl.value.suggested_filename == f"daer-{code}-1.png"
    # a spectator on a desktop sees the same settlement
    desk = browser.new_context(viewport={"width": 1280, "height": 800})
    watcher = desk.new_page()
    watcher.goto(f"{server.url}/r/{code}")
    watcher.click("#watch")
    watcher.wait_for_selector("#settlement #chain")
    assert seat_points(watcher, "scores", "points") == points
    assert watcher.locator("#reveal .rhand").count() == page.locator("#reveal .rhand").count()
    assert watcher.locator("#next").count() == 0
    desk.close()
    # 战绩 across two hands: one column per hand and the sum, equal to the room's totals
    page.click("#next")
    page.wait_for_selector("#settlement", state="detached")
    play_to_settlement(page)
    page.wait_for_selector("#record th:has-text('第2局')")
    stored = stored_hands(server, code)
    assert [h["number"] for h in stored] == [1, 2]
    points2 = seat_points(page, "scores", "points")
    assert points2 == stored[1]["points"]
    check_arithmetic(page, points2)
    sums = seat_points(page, "record", "sum")
    assert sums == [a + b for a, b in zip(stored[0]["points"], stored[1]["points"], strict=True)]
    assert sums == seat_points(page, "scores", "total")
    assert "比赛结束" in page.inner_text("#settlement h2")
    assert errors == []
    ctx.close()


BANNER = """() => { const b = document.getElementById('banner'); if (!b) return null;
  const r = b.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }"""
ON_TOP = """([x, y]) => { const el = document.elementFromPoint(x, y);
  if (!el) return null;
  return el.closest('#settlement') ? 'settlement' : el.closest('#banner') ? 'banner' : el.id || el.tagName; }"""


def test_the_settlement_lies_above_the_banner_and_below_the_bar_with_the_language_switch(
        server: Server, browser: Any) -> None:
    ctx = browser.new_context(viewport={"width": 360, "height": 740}, device_scale_factor=1, is_mobile=True,
                              has_touch=True)
    try:
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url)
        page.fill("#name", "小明")
        page.fill("#timer", "0")
        page.click("#create")
        page.wait_for_selector("#waiting")
        page.click("#start")
        play_to_settlement(page)
        # the banner never catches a tap (pointer-events: none), so elementFromPoint would look through it: let
        # it be hit, to see what is drawn on top
        hit = "() => { const b = document.getElementById('banner'); if (b) b.style.pointerEvents = 'auto'; }"
        natural = page.evaluate(BANNER)  # the 胡/黄 banner of the hand's end, when still up
        if natural is not None:
            page.evaluate(hit)
            assert page.evaluate(ON_TOP, natural) == "settlement"
        # a banner called now, for certain
        page.evaluate("async () => (await import('/static/anim.js')).banner('胡', '下家', 'win')")
        page.evaluate(hit)
        box = page.locator("#settlement").bounding_box()
        centre = [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2]
        assert page.evaluate(ON_TOP, centre) == "settlement"
        assert page.evaluate(ON_TOP, page.evaluate(BANNER)) == "settlement"
        # the top bar is not covered: the language switch can be tapped while the settlement is open
        lang = page.locator("#lang").bounding_box()
        assert lang is not None and lang["y"] >= 0 and lang["y"] + lang["height"] <= box["y"] + 1
        assert page.evaluate(ON_TOP, [lang["x"] + lang["width"] / 2, lang["y"] + lang["height"] / 2]) == "lang"
        title = page.inner_text("#settletitle")
        page.click("#lang", timeout=2000)
        page.wait_for_function("t => document.getElementById('settletitle')?.textContent !== t", arg=title)
        assert page.locator("#settlement").is_visible()
        # the 规则 sheet opened from the bar lies above the settlement
        page.click("#rulesbtn", timeout=2000)
        sheet = page.locator("#rulesheet .sheet").bounding_box()
        assert page.evaluate("([x, y]) => Boolean(document.elementFromPoint(x, y)?.closest('#rulesheet'))",
                             [sheet["x"] + sheet["width"] / 2, sheet["y"] + 20])
        page.keyboard.press("Escape")
        page.click("#lang", timeout=2000)  # back to Chinese for the other tests
        assert errors == []
    finally:
        ctx.close()
