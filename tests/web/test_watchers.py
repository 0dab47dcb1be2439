"""Spectators in a real browser (issue 24 items 4 and 7): the table sees who is watching, the host may forbid
watching (the spectator is told and closed, a new one refused), and a spectator is shown the table the set
number of public steps behind — while the host thinks, the spectator's last frame is 4 versions behind the
host's — with no concealed card (the view of seat None has no hand)."""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import Page
from serving import Server
from test_page_bugs import strict
from test_table import create_room, hand_ids

from daer.server.social.watching import WATCH_DELAY


def updates(page: Page) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = []

    def on_ws(ws: Any) -> None:
        ws.on("framereceived", lambda payload: got.append(json.loads(payload)) if isinstance(payload, str)
              and payload.startswith('{"t":"update"') else None)

    page.on("websocket", on_ws)
    return got


def watch(page: Page, server: Server, code: str, name: str) -> None:
    page.goto(f"{server.url}/r/{code}")
    page.fill("#name", name)
    page.click("#watch")


def test_watchers_are_shown_the_host_forbids_and_a_spectator_sees_the_table_late(server: Server,
                                                                                browser: Any) -> None:
    ctxs = [browser.new_context(viewport={"width": 360, "height": 740}) for _ in range(3)]
    host, spect, other = (c.new_page() for c in ctxs)
    errors = strict(host)
    try:
        code = create_room(host, server, "甲")
        watch(spect, server, code, "小红")
        spect.wait_for_selector("#waiting")
        host.wait_for_selector("#watchline:has-text('观战 1 人：小红')")
        # the host forbids watching: the spectator is told and closed, a new one is refused
        host.uncheck("#allowwatch")
        spect.wait_for_selector("#toast:has-text('房主不允许观战')")
        spect.wait_for_selector("#closedmsg")
        host.wait_for_selector("#watchline:has-text('观战 0 人')")
        watch(other, server, code, "小刚")
        other.wait_for_selector("#toast:has-text('房主不允许观战')")
        assert not other.locator("#table, #waiting").count()
        host.check("#allowwatch")
        host.wait_for_function("() => document.getElementById('allowwatch').checked")
        # allowed again: a spectator watches the hand, late
        host_frames, spect_frames = updates(host), updates(spect)
        host.reload()  # its socket opened before the frames were listened to
        host.wait_for_selector("#waiting")
        watch(spect, server, code, "小红")
        spect.wait_for_selector("#waiting")
        host.click("#start")
        hand_ids(host)
        host.wait_for_selector("#watchers:has-text('1')")
        assert "小红" in (host.get_attribute("#watchers", "aria-label") or "")
        checked = 0
        mark = 0  # the spectator's frames of the hand under way start here
        for _ in range(160):  # the host's turns: every time it thinks, the spectator is 4 steps behind
            if checked >= 3:
                break
            if host.locator("#settlement").count():  # a bot won (or 黄) before enough turns: play the next hand
                mark = len(spect_frames)
                host.click("#settlement #next")
                host.wait_for_selector("#settlement", state="detached")
                continue
            host.wait_for_selector("#hand .card.ok, #actions button[data-action]:not([disabled]), #settlement")
            host.wait_for_timeout(400)  # the bots have moved; the room waits for the host
            if host.locator("#actions button[data-action]:not([disabled])").count():
                host.locator("#actions button[data-action]:not([disabled])").first.click()
                continue
            if not host.locator("#hand .card.ok").count():
                continue
            playing = [f for f in spect_frames[mark:] if f["view"] and f["view"]["phase"] != "over"]
            if playing and host_frames[-1]["view"]["phase"] != "over":
                live = host_frames[-1]["v"]
                start = min(f["v"] for f in playing)
                assert spect_frames[-1]["v"] == max(start, live - WATCH_DELAY), (spect_frames[-1]["v"], live)
                checked += live - WATCH_DELAY > start
            host.locator("#hand .card.ok").last.click()
            host.locator("#hand .card.sel").last.click()
        assert checked
        assert spect_frames and all(not f["view"] or not f["view"]["hand"] for f in spect_frames)  # no concealed card
        assert not spect.locator("#hand .card").count()
        assert errors == []
    finally:
        for c in ctxs:
            c.close()
