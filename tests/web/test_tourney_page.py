"""比赛 in a real browser (issue 21, item 4; docs/tournaments.md): an owner creates a small tournament on the
tournament page (reached from the club page), a friend on a second phone registers, the owner starts the round,
the friend takes their seat from the page and plays at the table (the page's own buttons), and both see the
standings update with the round's duplicate scores; axe finds nothing serious.  A hostile nickname is text.
Screenshots at 360×740 go to /tmp/shots."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from serving import Server
from test_a11y import axe_source, scan
from test_table import play_to_settlement

__all__ = ["axe_source"]  # the fixture, shared with test_a11y

SHOTS = Path("/tmp/shots")
PHONE = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True,
         "reduced_motion": "reduce"}
HOSTILE = "<img src=x onerror=alert(1)>"


def _page(ctx: Any, errors: list[str]) -> Page:
    page: Page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))

    def dialog(d: Any) -> None:
        if d.type != "confirm":
            errors.append(f"{d.type}: {d.message}")
        d.accept()
    page.on("dialog", dialog)
    return page


def _call(page: Page, method: str, path: str, body: Any = None) -> Any:
    script = """([m, p, b]) => fetch(p, m === 'GET' ? {} : {method: m, headers: {'content-type': 'application/json'},
        body: JSON.stringify(b || {})}).then(async r => ({status: r.status, body: await r.json()}))"""
    return page.evaluate(script, [method, path, body])


def test_two_people_play_a_round_and_see_the_standings(server: Server, browser: Any, axe_source: str) -> None:
    base = server.url.replace("127.0.0.1", "localhost")
    SHOTS.mkdir(exist_ok=True)
    errors: list[str] = []
    owner_ctx, friend_ctx = browser.new_context(**PHONE), browser.new_context(**PHONE)
    try:
        owner, friend = _page(owner_ctx, errors), _page(friend_ctx, errors)
        owner.goto(f"{base}/clubs")
        assert _call(owner, "POST", "/api/rooms", {"name": "群主", "config": {"timer": 0}})["status"] == 200
        n = _call(owner, "POST", "/api/clubs", {"name": "比赛圈", "config": {"timer": 0, "hands": 1}})["body"]["number"]
        url = _call(owner, "POST", f"/api/clubs/{n}/invites", {"hours": 1, "uses": 5})["body"]["url"]
        friend.goto(f"{base}/clubs")
        assert _call(friend, "POST", "/api/clubs/join", {"secret": url.split("#invite=")[1]})["status"] == 200
        assert _call(friend, "POST", "/api/me", {"nickname": HOSTILE[:16]})["status"] in (200, 400)
        # the owner creates the tournament on its page: one round of one hand
        owner.goto(f"{base}/club/{n}")
        owner.click("#tourneylink")  # the club page leads to its tournaments
        owner.wait_for_selector("#t-create")
        owner.fill("#t-name", "周五复式赛")
        owner.fill("#t-rounds", "1")
        owner.fill("#t-hands", "2")
        owner.click("#t-create-do")
        owner.wait_for_url(re.compile(r"/tourney/\d+$"))
        tourney = owner.url.split("/")[-1]
        owner.click("#reg")
        owner.wait_for_selector("#reg:has-text('退出报名')")
        friend.goto(f"{base}/club/{n}/tourney/{tourney}")
        friend.click("#reg")
        friend.wait_for_selector("#players:has-text('群主')")
        owner.wait_for_selector("#start")
        owner.click("#start")
        owner.wait_for_selector("#table-1")
        friend.wait_for_selector("#my-seat")  # the live page hears of the round (the club's event stream)
        friend.screenshot(path=str(SHOTS / "tourney-round.png"))
        assert friend.locator("#table-1 .seat").count() == 4
        friend.click("#my-seat")
        friend.wait_for_url(re.compile(r"/r/[A-Z0-9]+$"))
        friend.wait_for_selector("#resume, #settlement")
        if not friend.locator("#settlement").count():  # their seat was in 托管 until now: they take it over
            try:
                friend.click("#resume", timeout=5000)
            except PlaywrightTimeout:  # 托管 finished the hand first (the settlement covers the button)
                assert friend.locator("#settlement").count()
        play_to_settlement(friend)
        friend.goto(f"{base}/club/{n}/tourney/{tourney}")
        # the friend left the table after the first hand: their seat of the second waits out its 30 s turn timer
        # before 托管 takes it, so the round ends a little after that (up to two minutes on a loaded machine)
        friend.wait_for_selector("#status:has-text('已结束')", timeout=120_000)
        owner.wait_for_selector("#status:has-text('已结束')", timeout=60_000)
        rows = owner.locator("#standings tbody tr")
        assert rows.count() == 2
        scores = [float(x.replace("+", "")) for x in owner.locator("#standings td.score").all_inner_texts()]
        assert scores == sorted(scores, reverse=True)
        assert owner.locator("#compare li").count() >= 1  # every hand compared once the round is over
        owner.screenshot(path=str(SHOTS / "tourney-standings.png"), full_page=True)
        assert scan(owner, axe_source, "tourney standings") == []
        owner.goto(f"{base}/club/{n}/tourneys")
        owner.wait_for_selector("#tourneys li")
        assert scan(owner, axe_source, "tourney list") == []
        assert not owner.locator("img").count() and not friend.locator("img").count()  # the nickname stayed text
    finally:
        owner_ctx.close()
        friend_ctx.close()
    assert errors == []
