"""复盘 on the replay page: the 复盘 button for the viewer's own seat (or one a seat for a visitor), the costly steps
marked in the step list (「这一步可能少赢 14.5 分」) and, on the board at that step, the options with their expected
points, the better one first — at 360×740, 740×360 and 1280×800 in Debian's Chromium.

The hand with the planted blunder is tests/bots/test_review.py's, written into the server's database as a finished
hand of room ``BLUNDER1`` (as the server stores one)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from playwright.sync_api import Page
from serving import Server, post
from sqlalchemy import insert
from test_a11y import axe_source, scan  # noqa: F401 (axe_source: a fixture)
from test_page_bugs import strict
from test_table import create_room

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bots"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "engine"))

from test_review import scripted

from daer.engine import shuffled_deck
from daer.store import Store
from daer.store.models import ActionTable, HandTable, PlayerSeatTable, RoomTable, SeatTable

SIZES = {"phone": {"width": 360, "height": 740}, "landscape": {"width": 740, "height": 360},
         "desktop": {"width": 1280, "height": 800}}
CODE = "BLUNDER1"


@pytest.fixture(scope="module")
def blunder(server: Server) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """Room ``BLUNDER1``: the scripted hand with its planted 过, finished; its code, the planted step, the review."""
    rec, k = scripted(blunder=True)
    assert isinstance(rec.seed, str)
    store = Store(server.db_url)
    try:
        with store.engine.begin() as conn:
            conn.execute(insert(RoomTable).values(code=CODE, created_at=time.time(), config="{}", status="finished",
                                                  version=1, scores="[]", dealer=0, hands_played=1))
            conn.execute(insert(SeatTable), [{"room_code": CODE, "seat": s, "kind": "bot" if s else "human",
                                              "name": "小明" if s == 0 else f"机器人{s}", "auto": False}
                                             for s in range(4)])
            hid = conn.execute(insert(HandTable).values(
                room_code=CODE, number=1, rules=rec.rules, overrides="{}", dealer=rec.dealer,
                deck=msgspec.json.encode(shuffled_deck(rec.seed)).decode(), start_version=1, finished=True)
                .returning(HandTable.id)).scalar_one()
            conn.execute(insert(ActionTable), [{"hand_id": hid, "idx": i, "version": i + 2, "seat": a.seat,
                                                "payload": msgspec.json.encode(a).decode()}
                                               for i, a in enumerate(rec.actions)])
    finally:
        store.close()
    # computed once in the server's bot pool (a few seconds of one core; longer on a loaded machine), then kept
    for _ in range(240):
        status, body = post(f"{server.url}/api/rooms/{CODE}/hands/1/review", {"seat": 0})
        if status != 202:
            break
        time.sleep(0.5)
    assert status == 200, body
    yield CODE, k, body


def open_page(browser: Any, server: Server, code: str, size: str) -> tuple[Any, Page, list[str]]:
    ctx = browser.new_context(viewport=SIZES[size], device_scale_factor=2 if size == "phone" else 1,
                              is_mobile=size != "desktop", has_touch=size != "desktop")
    page = ctx.new_page()
    errors = strict(page)
    page.goto(f"{server.url}/replay/{code}/1")
    page.wait_for_selector("#steps li")
    return ctx, page, errors


@pytest.mark.parametrize("size", list(SIZES))
def test_the_review_marks_the_planted_blunder_and_shows_the_better_choice(
        server: Server, browser: Any, blunder: tuple[str, int, dict[str, Any]], axe_source: str,  # noqa: F811
        size: str) -> None:
    code, k, body = blunder
    d = next(x for x in body["decisions"] if x["step"] == k)
    assert d["flagged"] and d["best"]["type"] == "hu"
    ctx, page, errors = open_page(browser, server, code, size)
    try:
        # a visitor (no seat in this room) is offered the review of each seat that played (not the 底家's)
        assert page.locator("#review").count() == 0 and page.locator("#reviewbar .rv-seat").count() == 3
        assert page.locator("#review-2").count() == 0 and "底家" in page.inner_text("#seat-2 .who")
        assert page.inner_text("#review-0") == "复盘 小明"
        page.click("#review-0")
        page.wait_for_selector("#reviewsum", timeout=30000)
        assert f"{len(body['flagged'])} 步可能失分" in page.inner_text("#reviewsum")
        # the step list marks exactly the flagged steps, with what each may have cost
        marked = page.eval_on_selector_all(
            "#steps .rv-cost", "els => els.map(e => [+e.closest('button').dataset.step, e.textContent])")
        flagged = {x["step"]: x for x in body["decisions"] if x["flagged"]}
        assert sorted(marked) == sorted([s + 1, f"这一步可能少赢 {x['loss']:.1f} 分"] for s, x in flagged.items())
        # the jump goes to the planted decision (the card on offer); the board shows the options, 胡 first, the
        # played 过 tagged
        assert page.inner_text(f".rv-jump[data-step='{k}']") == f"第 {k + 1} 步 −{d['loss']:.1f} 分"
        page.click(f".rv-jump[data-step='{k}']")
        assert page.inner_text("#step").startswith(f"{k}/")
        advice = page.locator("#seat-0 #advice")
        assert advice.is_visible()
        assert advice.locator(".rv-head").inner_text() == f"这一步可能少赢 {d['loss']:.1f} 分"
        options = advice.locator(".rv-options li")
        assert options.count() == len(d["options"])
        assert options.first.locator(".rv-words").inner_text().startswith("胡")
        assert "最好" in options.first.inner_text()
        played = advice.locator("li.played")
        assert played.count() == 1 and played.locator(".rv-words").inner_text().startswith("过")
        assert "实际" in played.inner_text()
        # nothing of it spills out of the page's width
        wide = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert wide <= 0
        box = advice.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= SIZES[size]["width"] + 0.5
        advice.scroll_into_view_if_needed()
        page.screenshot(path=f"/tmp/shots/review-{size}.png")
        found = scan(page, axe_source, f"review {size}")  # the marks and the options pass the accessibility scan
        assert found == [], "\n".join(found)
        # the other seats that played can still be reviewed
        assert page.locator("#reviewbar .rv-seat").count() == 2 and page.locator("#review-0").count() == 0
        # in English on request
        page.click("#lang")
        assert advice.locator(".rv-head").inner_text() == f"this step may have cost {d['loss']:.1f} points"
        page.click("#lang")
        # the marked line (the action played) shows the options too; a step the review did not flag shows none
        page.click(f"#steps button[data-step='{k + 1}']")
        assert page.locator("#advice.costly").count() == 1
        quiet = next(n for n in range(1, k) if all(n not in (x["step"], x["step"] + 1) for x in flagged.values()))
        page.click(f"#steps button[data-step='{quiet}']")
        assert page.locator("#advice.costly").count() == 0
        assert page.locator(f"#steps button[data-step='{quiet}'] .rv-cost").count() == 0
        assert errors == []
    finally:
        ctx.close()


def test_the_player_of_a_seat_is_offered_the_review_of_their_own_play(
        server: Server, browser: Any, blunder: tuple[str, int, dict[str, Any]]) -> None:
    code, k, body = blunder
    ctx = browser.new_context(viewport=SIZES["phone"], device_scale_factor=2, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    errors = strict(page)
    try:
        create_room(page, server, "小明")  # a room of their own makes the player (the cookie)
        me = page.evaluate("() => fetch('/api/me').then(r => r.json())")
        store = Store(server.db_url)
        try:  # ... and, as the server links a seat taken, that player held seat 0 of the blundered hand's room
            with store.engine.begin() as conn:
                conn.execute(insert(PlayerSeatTable).values(player_id=me["id"], room_code=code, seat=0,
                                                            joined_at=time.time()))
        finally:
            store.close()
        page.goto(f"{server.url}/replay/{code}/1")
        page.wait_for_selector("#steps li")
        assert page.locator("#reviewbar .rv-seat").count() == 0
        assert page.inner_text("#review") == "复盘我的打法"
        page.click("#review")
        page.wait_for_selector("#reviewsum", timeout=30000)
        assert page.locator("#steps .rv-cost").count() == len(body["flagged"]) > 0
        assert page.locator(f"#steps button[data-step='{k + 1}'] .rv-cost").count() == 1
        page.screenshot(path="/tmp/shots/review-own-phone.png")
        assert errors == []
    finally:
        ctx.close()
