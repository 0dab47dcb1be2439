"""Issue 10 item 6: the replay names the seats, lists every step (a tap goes there), ends with the whole settlement,
and its controls never cover a seat — at 360×740 and 1280×800 in Debian's Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page
from serving import Server, get
from test_page_bugs import room_info, strict
from test_table import create_room, play_to_settlement

SIZES = {"phone": {"width": 360, "height": 740}, "desktop": {"width": 1280, "height": 800}}


@pytest.fixture(scope="module")
def played(server: Server, browser: Any) -> Iterator[str]:
    """A room whose first hand was played to the end by 小明 and three bots: its code."""
    ctx = browser.new_context(viewport=SIZES["phone"])
    page = ctx.new_page()
    code = create_room(page, server, "小明")
    page.click("#start")
    play_to_settlement(page)
    ctx.close()
    yield code


def open_replay(browser: Any, server: Server, code: str, size: str) -> tuple[Any, Page, list[str]]:
    ctx = browser.new_context(viewport=SIZES[size], device_scale_factor=2 if size == "phone" else 1,
                              is_mobile=size == "phone", has_touch=size == "phone")
    page = ctx.new_page()
    errors = strict(page)
    page.goto(f"{server.url}/replay/{code}/1")
    page.wait_for_selector("#steps li")
    return ctx, page, errors


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_replay_names_the_seats_lists_the_steps_and_ends_with_the_settlement(
        server: Server, browser: Any, played: str, size: str) -> None:
    status, replay = get(f"{server.url}/api/rooms/{played}/hands/1/replay")
    assert status == 200
    names = [s["name"] for s in room_info(server, played)["room"]["seats"]]
    assert replay["names"] == names and "小明" in names
    ctx, page, errors = open_replay(browser, server, played, size)
    try:
        # every seat by its name, none as 座N
        for s, name in enumerate(names):
            assert page.inner_text(f"#seat-{s} .who .nm") == name
        # one line per step, the first the deal; tapping a line goes to that step
        steps = page.locator("#steps li button")
        assert steps.count() == len(replay["steps"])
        assert "新一局" in steps.first.inner_text()
        k = len(replay["steps"]) // 2
        steps.nth(k).click()
        assert page.inner_text("#step").startswith(f"{k}/{len(replay['steps']) - 1}")
        assert page.locator("#steps button[aria-current='step']").get_attribute("data-step") == str(k)
        # the step's hands are that step's hands
        kinds = page.eval_on_selector_all("#seat-0 .rp-hand .card", "els => els.map(e => e.dataset.kind)")
        shown = sorted(int(x) for x in kinds)
        assert shown == sorted(c // 4 for c in replay["steps"][k]["hands"][0])
        page.keyboard.press("ArrowRight")
        assert page.inner_text("#step").startswith(f"{k + 1}/")
        assert page.locator("#result").count() == 0  # the settlement waits for the end
        # the last step: the whole settlement
        page.click("#last")
        result = replay["steps"][-1]["view"]["result"]
        sheet = page.inner_text("#result")
        if result["winner"] is not None:
            assert f"{names[result['winner']]} · {result['hu']}胡" in page.inner_text("#headline")
            assert replay["end"]["work"]["checked"]
            assert page.inner_text("#chain").split("→")[0].strip() == replay["end"]["work"]["chain"][0]["zh"]
            assert page.locator("#work li").count() == len(replay["end"]["work"]["lines"])
        for p in replay["end"]["payments"]:
            assert p["zh"] in sheet
        rows = page.locator("#scores tr[data-seat]")
        assert rows.count() == len(names)
        for s, pts in enumerate(result["points"]):
            assert names[s] in rows.nth(s).inner_text()
            assert rows.nth(s).locator("[data-points]").get_attribute("data-points") == str(pts)
        # no control covers a seat: nothing fixed or sticky, and the controls' box meets no seat's box
        stuck = page.evaluate("""() => [...document.querySelectorAll('body *')].filter(e => e.id !== 'toast'
            && ['fixed', 'sticky'].includes(getComputedStyle(e).position)).map(e => e.id || e.className)""")
        assert stuck == []
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        controls = page.locator("#controls").bounding_box()
        for s in range(len(names)):
            seat = page.locator(f"#seat-{s}").bounding_box()
            assert controls is not None and seat is not None and not overlaps(controls, seat)
            assert page.locator(f"#seat-{s}").is_visible()
        page.screenshot(path=f"/tmp/shots/replay-{size}.png", full_page=True)
        assert errors == []
    finally:
        ctx.close()
