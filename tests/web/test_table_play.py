"""The table while a hand is played (issue 10 items 1-3), in Debian's Chromium at 360×740 and 1280×800:
the hand in sight and uncovered while a claim is offered, claim choices drawn as cards, the feed telling every
public action, reduced motion, the sound switch remembered, English words, and no console error."""

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
from test_page_bugs import strict
from test_table import create_room

from daer.cards import kind_char
from daer.cli.terms import TERMS

PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 800}}
CLAIMS = "#actions button.choice:not(.pass):not(.discard)"


def play_until_claim(page: Page, limit: float = 45) -> None:
    """Play (pass every claim, discard the last card, go on to the next hand) until a claim is offered."""
    deadline = time.monotonic() + limit
    while not page.locator(CLAIMS).count():
        if time.monotonic() > deadline:
            pytest.fail("no claim was offered to the seat")
        try:
            if page.locator("#settlement #next:not([disabled])").count():
                page.click("#settlement #next", timeout=1000)
            elif page.locator("#actions button.pass").count():
                page.click("#actions button.pass", timeout=1000)
            elif page.locator("#hand .card.sel").count():
                page.locator("#hand .card.sel").last.click(timeout=1000)
            elif page.locator("#hand .card.ok").count():
                page.locator("#hand .card.ok").last.click(timeout=1000)
        except PlaywrightError:
            pass  # the page re-rendered under the click: look again
        page.wait_for_timeout(40)
    page.wait_for_timeout(150)  # the claim window's redraw has settled


COVERED = """() => {
  // each hand card's visible part (a card in a column is overlapped by the next one from 0.9 card widths down):
  // its centre must be on screen and hit that card, not another element
  const bad = [];
  for (const c of document.querySelectorAll('#hand .card')) {
    const r = c.getBoundingClientRect();
    const next = c.nextElementSibling;
    const bottom = next ? Math.min(r.bottom, next.getBoundingClientRect().top) : r.bottom;
    const x = r.left + r.width / 2, y = (r.top + bottom) / 2;
    if (x < 0 || y < 0 || x > innerWidth || y > innerHeight || bottom - r.top < 8) {
      bad.push(['off', c.title, x, y]); continue;
    }
    const hit = document.elementFromPoint(x, y);
    if (!hit || (hit !== c && !c.contains(hit))) bad.push(['covered', c.title, hit && hit.className]);
  }
  // and no box of the choice bar overlaps a hand card (what the bar shows of it: a long bar scrolls in its own box)
  const bar = document.querySelector('#actions');
  const clip = bar && getComputedStyle(bar).overflowY !== 'visible' ? bar.getBoundingClientRect() : null;
  const boxes = [...document.querySelectorAll('#actions button')].map((b) => {
    const r = b.getBoundingClientRect();
    if (!clip) return r;
    return { left: Math.max(r.left, clip.left), right: Math.min(r.right, clip.right),
             top: Math.max(r.top, clip.top), bottom: Math.min(r.bottom, clip.bottom) };
  });
  for (const c of document.querySelectorAll('#hand .card')) {
    const r = c.getBoundingClientRect();
    for (const b of boxes) {
      if (r.left < b.right && b.left < r.right && r.top < b.bottom && b.top < r.bottom) bad.push(['bar', c.title]);
    }
  }
  return bad;
}"""


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_while_a_claim_is_offered_the_whole_hand_is_in_sight_and_nothing_covers_it(
        server: Server, browser: Any, size: str, tmp_path: Path) -> None:
    ctx = browser.new_context(**(PHONE if size == "phone" else DESKTOP))
    try:
        page = ctx.new_page()
        errors = strict(page)
        create_room(page, server)
        page.click("#start")
        play_until_claim(page)
        assert page.locator("#hand .card").count() > 0
        assert page.evaluate(COVERED) == []
        # each choice is drawn as the cards of the 列 it would make, the card on offer marked among them
        for i in range(page.locator(CLAIMS).count()):
            button = page.locator(CLAIMS).nth(i)
            action = button.get_attribute("data-action")
            if action in ("peng", "zhao", "chi"):
                assert button.locator(".card").count() >= 3
                assert button.locator(".card.taken").count() == 1
        assert page.locator("#offercard.offer").count() == 1
        if size == "phone":  # the feed opened on a shorter phone: it takes the other seats' room, not the hand's
            page.set_viewport_size({"width": 360, "height": 640})
            page.click("#feedtoggle")
            assert page.locator("#feedlist").is_visible()
            assert page.evaluate(COVERED) == []
        page.screenshot(path=str(tmp_path / f"claim-{size}.png"))
        if size == "desktop":  # the seats around the table, the feed beside it
            feed, me = page.locator("#feed").bounding_box(), page.locator("#me").bounding_box()
            assert feed is not None and me is not None
            assert feed["x"] >= me["x"] + me["width"]
        assert errors == []
    finally:
        ctx.close()


SEATS = ["我", "下家", "对家", "上家"]


def expected_line(ev: dict[str, Any]) -> str | None:
    """What the feed must say of a public event, seen from seat 0 (None: the event has no fixed words here)."""
    who = SEATS[ev["seat"]] if "seat" in ev else ""
    if ev["type"] == "discarded":
        return f"{who} 打出 {kind_char(ev['kind'])}"
    if ev["type"] == "revealed":
        return f"{who} 翻出 {kind_char(ev['kind'])}"
    if ev["type"] == "claimed":
        return f"{who} {TERMS[ev['how']][0]} {kind_char(ev['kind'])}"
    if ev["type"] == "not_taken":
        return f"{kind_char(ev['kind'])} 没人要"
    return None


RECORD_FRAMES = """window.__frames = [];
const Socket = window.WebSocket;
window.WebSocket = class extends Socket {
  constructor(...args) {  // heard before the page's own handler, in the same task: read with the page, no race
    super(...args);
    this.addEventListener('message', (e) => window.__frames.push(JSON.parse(e.data)));
  }
};"""


def test_the_feed_tells_every_public_action_of_the_hand_in_order(server: Server, phone: Any) -> None:
    page = phone.new_page()
    errors = strict(page)
    page.add_init_script(RECORD_FRAMES)
    create_room(page, server)
    page.click("#start")
    play_until_claim(page)
    take = page.locator(f"{CLAIMS}:not(.hu)")  # a 碰 / 吃 / 招 (not a 胡: the hand would end under the settlement)
    if take.count():
        take.first.click()
        # the table waits for this seat again (its discard, or its next claim)
        page.wait_for_function("""() => !document.querySelector('#actions button:disabled')
            && document.querySelector('#actions:not(.idle)')""")
    page.click("#feedtoggle")  # on a phone the feed is one line until tapped
    # the feed's lines and the frames the page has taken in, read at one moment
    lines, frames = page.evaluate("""() => [[...document.querySelectorAll('#feedlist li')].map(e => e.textContent),
        window.__frames]""")
    events: list[dict[str, Any]] = []
    for m in frames:
        if m.get("t") != "update":
            continue
        if m.get("full"):  # the whole hand's log again (a resync or a reconnection): the feed starts over
            events = []
        for ev in m.get("events", []):
            if ev["type"] == "dealt":
                events = []
            if ev["type"] != "chose":
                events.append(ev)
    lines = lines[::-1]
    assert len(lines) == len(events)
    assert {"dealt", "discarded"} <= {e["type"] for e in events}
    for ev, line in zip(events, lines, strict=True):
        want = expected_line(ev)
        if want is not None:
            assert want in line, (ev, line)
    assert page.locator("#feedlist").is_visible()
    assert errors == []


def test_reduced_motion_stops_every_animation_and_full_motion_has_them(server: Server, browser: Any) -> None:
    seen: dict[str, int] = {}
    for motion in ("reduce", "no-preference"):
        ctx = browser.new_context(reduced_motion=motion, **PHONE)
        try:
            page = ctx.new_page()
            errors = strict(page)
            page.add_init_script("""window.maxAnims = 0; setInterval(() => {
                window.maxAnims = Math.max(window.maxAnims, document.getAnimations().length); }, 20);""")
            create_room(page, server)
            page.click("#start")
            play_until_claim(page)
            page.click(CLAIMS)
            page.wait_for_timeout(400)
            seen[motion] = page.evaluate("window.maxAnims")
            assert errors == []
        finally:
            ctx.close()
    assert seen["reduce"] == 0
    assert seen["no-preference"] > 0


def test_the_sound_switch_is_remembered_on_the_device(server: Server, phone: Any) -> None:
    page = phone.new_page()
    errors = strict(page)
    create_room(page, server)
    page.click("#start")
    page.wait_for_selector("#hand .card")
    assert page.get_attribute("#mute", "aria-pressed") == "false"
    page.click("#mute")
    assert page.get_attribute("#mute", "aria-pressed") == "true"
    assert page.evaluate("localStorage.getItem('daer.mute')") == "1"
    page.reload()
    page.wait_for_selector("#hand .card")
    assert page.get_attribute("#mute", "aria-pressed") == "true"
    page.click("#mute")
    page.reload()
    page.wait_for_selector("#hand .card")
    assert page.get_attribute("#mute", "aria-pressed") == "false"
    # sound on: the call-outs are the project's own files, served with the page
    for name in ("peng", "chi", "zhao", "hu", "huang"):
        res = page.request.get(f"{server.url}/static/voice/{name}.wav")
        assert res.status == 200
        assert res.body()[:4] == b"RIFF"
    assert errors == []


def test_english_mode_leaves_no_chinese_game_word_on_the_table_and_keys_take_the_choices(
        server: Server, browser: Any) -> None:
    ctx = browser.new_context(**DESKTOP)
    try:
        page = ctx.new_page()
        page.add_init_script("localStorage.setItem('daer.lang', 'en');")
        errors = strict(page)
        page.goto(server.url)
        page.fill("#name", "Ann")
        page.fill("#timer", "0")
        page.click("#create")
        page.wait_for_selector("#waiting")
        page.click("#start")
        play_until_claim(page)
        # on a desktop each choice shows its key; the key takes it
        choices = "#actions button.choice:not(.discard)"
        assert page.locator(f"{choices} kbd").count() == page.locator(choices).count()
        assert all(page.locator(f"{choices} kbd").nth(i).is_visible() for i in range(page.locator(choices).count()))
        # a key on a disabled bar (the last pass or discard not answered yet, on a loaded machine) is ignored
        page.wait_for_selector(f"{choices}:not(.pass):not([disabled])")
        n = page.evaluate(f"() => [...document.querySelectorAll('{choices}')].findIndex(b => !b.matches('.pass'))")
        assert n >= 0, "the claim bar went away before its key was pressed"
        page.keyboard.press(str(n + 1))
        page.wait_for_function(f"""() => document.querySelector('{choices}:disabled')
            || !document.querySelector('{choices}')""")
        page.wait_for_timeout(300)
        # every word on the table but the cards' own faces (一…十, 壹…拾) and the players' names
        text = page.evaluate("""() => { const t = document.getElementById('table').cloneNode(true);
            t.querySelectorAll('.card, .nm').forEach((c) => c.remove()); return t.innerText; }""")
        words = [zh for zh, _ in TERMS.values()] + ["明牌", "弃牌", "记录", "打出", "翻出", "没人要", "出牌", "墩"]
        assert [w for w in words if w in text] == []
        assert "Discards" in text or "Melds" in text
        assert errors == []
    finally:
        ctx.close()


def test_the_lobby_offers_the_rooms_pace_and_the_room_keeps_it(server: Server, phone: Any) -> None:
    page = phone.new_page()
    errors = strict(page)
    page.goto(server.url)
    page.wait_for_selector("#pace option", state="attached")  # drawn once GET /api/options answers, after the load
    assert page.eval_on_selector_all("#pace option", "els => els.map(e => e.value)") == ["fast", "normal", "slow"]
    assert page.input_value("#pace") == "normal"
    page.select_option("#pace", "slow")
    page.fill("#name", "慢")
    page.click("#create")
    page.wait_for_selector("#waiting")
    code = page.inner_text("#roomcode").strip()
    with sqlite3.connect(server.db) as db:
        config = json.loads(db.execute("select config from rooms where code = ?", (code,)).fetchone()[0])
    assert config["pace"] == "slow"
    assert errors == []


COUNT_SOUNDS = """window.sounds = []; window.buzz = [];
for (const P of [OscillatorNode.prototype, AudioBufferSourceNode.prototype]) {
  const start = P.start;
  P.start = function (...a) { window.sounds.push(this.buffer ? this.buffer.duration : 0); return start.apply(this, a) };
}
Object.defineProperty(Navigator.prototype, 'vibrate', { value: (p) => { window.buzz.push(p); return true; },
  configurable: true });"""


def test_sounds_call_outs_and_vibration_play_and_the_switch_silences_them(server: Server, phone: Any) -> None:
    page = phone.new_page()
    errors = strict(page)
    page.add_init_script(COUNT_SOUNDS)
    create_room(page, server)
    page.click("#start")
    play_until_claim(page)  # taps along the way: the page may make sound from the first one
    page.click(CLAIMS)
    page.wait_for_timeout(600)
    sounds: list[float] = page.evaluate("window.sounds")
    assert len(sounds) > 3  # discards, turned-up cards, the claim, one's turn
    assert any(d > 0.3 for d in sounds)  # a spoken call-out (the effects are synthesized, shorter)
    assert page.evaluate("window.buzz.length") > 0  # one's turn buzzes where the phone can
    if page.locator("#settlement #next").count():  # the claim was a 胡: on to the next hand
        page.click("#settlement #next")
        page.wait_for_selector("#settlement", state="detached")
    page.click("#mute")
    page.evaluate("window.sounds = []; window.buzz = []")
    play_until_claim(page)
    page.click(CLAIMS)
    page.wait_for_timeout(300)
    assert page.evaluate("window.sounds") == []
    assert page.evaluate("window.buzz") == []
    assert errors == []


FULL_UPDATE_CUE = """async () => {
  // a full update (a new hand's deal, or updates coalesced under load) that newly offers a claim; then the same
  // offer again (nothing new), and a page's first update (a load: no cue)
  const cues = await import('/static/cues.js');
  window.buzz = [];
  const offer = { to_act: true, phase: 'claim', offer: 7 };
  const waiting = { to_act: false, phase: 'discard', offer: null };
  cues.afterUpdate({ full: true, events: [], view: offer }, { view: waiting }, {});
  cues.afterUpdate({ full: true, events: [], view: offer }, { view: offer }, {});
  cues.afterUpdate({ full: true, events: [], view: offer }, undefined, {});
  return window.buzz;
}"""


def test_ones_turn_is_cued_when_it_comes_in_a_full_update(server: Server, phone: Any) -> None:
    """One's turn buzzes when it is new, also when the update that brings it is full: a new hand's deal and the
    bots' first moves can reach a slow page as one full update, and the seat's first decision went unannounced
    (a CI run's sound test saw no buzz at all)."""
    page = phone.new_page()
    errors = strict(page)
    page.add_init_script(COUNT_SOUNDS)
    create_room(page, server)
    page.click("#start")  # a tap: the page may vibrate from here on
    page.wait_for_selector("#hand .card.ok")  # the creator deals: its first discard, cued
    page.wait_for_function("() => window.buzz.length > 0", timeout=3000)
    assert page.evaluate("window.buzz") == [[60]]
    assert page.evaluate(FULL_UPDATE_CUE) == [[40, 60, 40]]
    assert errors == []


def test_a_chosen_card_covers_no_card_and_the_keyboard_discards(server: Server, phone: Any) -> None:
    page = phone.new_page()
    errors = strict(page)
    create_room(page, server)
    page.click("#start")  # seat 1 deals: its first discard
    page.wait_for_selector("#hand .card.ok")
    before = page.locator("#hand .card").count()
    # with a card chosen (its column, one kind, is marked) every card is still on screen and uncovered
    upper = page.locator("#hand .col .card.ok:not(:last-child)")
    target = upper.first if upper.count() else page.locator("#hand .card.ok").first
    target.click(position={"x": 6, "y": 6})  # on its visible top: the card below covers its middle
    page.wait_for_selector("#hand .card.sel")
    assert page.evaluate(COVERED) == []
    assert page.locator("#actions button[data-action=discard]").count() == 1
    # Tab to a card and Enter twice: that card is discarded
    page.locator("#hand .card.ok").last.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#hand .card.sel")
    page.keyboard.press("Enter")
    page.wait_for_function("n => document.querySelectorAll('#hand .card').length < n", arg=before)
    assert errors == []
