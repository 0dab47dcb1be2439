"""The dissolve vote in a real browser with three people (issue 24 items 1 and 7): refused (the refuser named, the
match goes on), timed out (silence agrees, said on screen) and passed (the match's scores shown)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page
from serving import TEST_LIMITS, Server
from test_page_bugs import room_info, strict
from test_table import create_room

VOTE_SECONDS = 6


@pytest.fixture(scope="module")
def vserver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("vote") / "daer.db", bot_delay=0.05,
                 args=(*TEST_LIMITS, "--vote-seconds", str(VOTE_SECONDS))).start()
    yield srv
    srv.stop()


def three(browser: Any) -> list[Page]:
    pages = []
    for _ in range(3):
        ctx = browser.new_context(viewport={"width": 360, "height": 740}, device_scale_factor=1, is_mobile=True,
                                  has_touch=True)
        page = ctx.new_page()
        page.on("dialog", lambda d: d.accept())  # the confirm() before a proposal
        pages.append(page)
    return pages


def seated(server: Server, pages: list[Page]) -> str:
    code = create_room(pages[0], server, "甲")
    for page, name in zip(pages[1:], ("乙", "丙"), strict=True):
        page.goto(f"{server.url}/r/{code}")
        page.fill("#name", name)
        page.click("#joinseat")
        page.wait_for_selector("#waiting")
    for name in ("乙", "丙"):
        pages[0].wait_for_selector(f".seatlist > div:has-text('{name}')")
    pages[0].click("#start")
    for page in pages:
        page.wait_for_selector("#table")
    return code


def test_a_vote_refused_then_one_timed_out_then_one_passed(vserver: Server, browser: Any, tmp_path: Path) -> None:
    pages = three(browser)
    errors = [strict(p) for p in pages]
    a, b, c = pages
    try:
        code = seated(vserver, pages)
        for page in pages:  # the button is in sight on a phone (the bar does not wrap at the table)
            box = page.locator("#propose").bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360, box
        # 1. 乙 proposes, 丙 refuses: everyone is told who refused, the match goes on
        b.click("#propose")
        for page in (a, c):
            page.wait_for_selector("#vote #voteyes")
        assert "乙 申请解散房间" in a.inner_text("#vote")
        assert "秒后未表态的算同意" in a.inner_text("#votecount")
        assert not b.locator("#voteyes").count()  # the proposer does not answer
        a.screenshot(path=str(tmp_path / "vote.png"))
        c.click("#voteno")
        for page in pages:
            page.wait_for_selector("#toast:not([hidden]):has-text('丙拒绝解散房间')")
            page.wait_for_selector("#vote", state="detached")
        assert room_info(vserver, code)["room"]["status"] in ("playing", "between")
        # 2. 丙 proposes, 甲 agrees, 乙 says nothing: when the countdown runs out the room is dissolved
        c.click("#propose")
        a.wait_for_selector("#voteyes")
        b.wait_for_selector("#voteyes")
        a.click("#voteyes")
        c.wait_for_selector("#vote li.yes:has-text('甲')")
        for page in pages:
            page.wait_for_selector("#final", timeout=(VOTE_SECONDS + 10) * 1000)
        assert room_info(vserver, code)["room"]["status"] == "dissolved"
        assert "本场战绩" in b.inner_text("#final") and "甲" in b.inner_text("#final")
        # 3. a new room: 甲 proposes, both agree at once
        code2 = seated(vserver, pages)
        a.click("#propose")
        b.wait_for_selector("#voteyes")
        b.click("#voteyes")
        c.wait_for_selector("#voteyes")
        c.click("#voteyes")
        for page in pages:
            page.wait_for_selector("#final")
        info = room_info(vserver, code2)["room"]
        assert info["status"] == "dissolved" and info["vote"]["passed"] and info["vote"]["by"] == 0
        assert all(e == [] for e in errors), errors
    finally:
        for page in pages:
            page.context.close()
