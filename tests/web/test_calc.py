"""The calculator page (/calc) in a real browser at phone size: tap a hand, read the same answer as the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page
from serving import Server

from daer.cards import parse_kinds

# The seed's worked example (000: 「刚好胡红10胡 … 赢家加 … 10分，底家加 … 2分。输家各扣6分」):
# 碰叁 on the table, the winning 三 makes a 碰, 红 ×2, the winner at seat 1.
SEED_HAND = "二二贰七柒柒十十拾六七八壹贰叁三三"
SEED_REQUEST = {"hand": SEED_HAND, "melds": [{"kind": "peng", "cards": "叁叁叁"}],
                "win": {"card": "三", "from": "other"}, "seat": 1, "dealer": 0}
HAND = "一二三四五六七八九壹贰叁肆伍陆柒捌玖二七"
ASCII_HAND = "".join(f"{'d' if k >= 10 else 'x'}{k % 10 + 1}" for k in parse_kinds(HAND))


def cli(request: dict[str, Any]) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-m", "daer", "score", "--json"],
                          input=json.dumps(request, ensure_ascii=False).encode(), capture_output=True, check=True)
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


@pytest.fixture
def page(phone: Any) -> Iterator[Page]:
    pg = phone.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    yield pg
    assert not errors, errors


def tap(page: Page, target: str, cards: str) -> None:
    page.click(f"#targets button[data-target={target}]")
    for k in parse_kinds(cards):
        page.click(f".picker .card[data-pick='{k}']")


def shown(page: Page) -> dict[str, Any]:
    """What the result panel says: 胡, each seat's points and every payment."""
    page.wait_for_selector("#result[data-ok='1']:not([data-busy]) #payments")
    return {
        "hu": int(page.inner_text("#hu")),
        "seats": [int(x) for x in page.eval_on_selector_all("#points tr", "els => els.map(e => e.dataset.points)")],
        "payments": sorted(tuple(int(v) for v in x) for x in page.eval_on_selector_all(
            "#payments tr", "els => els.map(e => [e.dataset.from, e.dataset.to, e.dataset.amount])")),
    }


def expected(r: dict[str, Any]) -> dict[str, Any]:
    return {"hu": r["hu"], "seats": r["points"]["seats"],
            "payments": sorted((p["from"], p["to"], p["amount"]) for p in r["payments"])}


def test_tapping_the_seed_example_shows_the_cli_hu_and_payments_and_the_url_reopens_it(
        server: Server, page: Page, phone: Any) -> None:
    page.goto(f"{server.url}/calc")
    tap(page, "hand", SEED_HAND)
    tap(page, "peng", "叁")
    tap(page, "win", "三")
    page.select_option("#seat", "1")
    got = shown(page)
    want = expected(cli(SEED_REQUEST))
    assert got == want
    assert want == {"hu": 10, "seats": [-6, 10, 2, -6], "payments": [(0, 1, 6), (1, 2, 2), (3, 1, 6)]}
    assert "红" in page.inner_text("#mult") and "(2+1)×2 = 6" in page.inner_text("#notes")
    # the URL holds the hand in ASCII: a new page opened on it shows the same result
    url = page.url
    assert "h=x2x2x3" in url and "m=peng:d3d3d3" in url and "w=x3" in url and "seat=1" in url
    other = phone.new_page()
    other.goto(url)
    assert shown(other) == want
    assert other.locator("#hand .card").count() == len(SEED_HAND)


def test_english_switch_and_self_drawn(server: Server, page: Page) -> None:
    page.goto(f"{server.url}/calc?h={ASCII_HAND}&w=x10")
    assert shown(page) == expected(cli({"hand": HAND, "win": {"card": "十"}}))
    page.check("#self")
    page.wait_for_function("location.search.includes('self=1')")
    assert shown(page) == expected(cli({"hand": HAND, "win": {"card": "十", "from": "self"}}))
    page.click("#lang")
    assert "Winning card" in page.inner_text(".built") and "seat 0" in page.inner_text("#points")
    page.click("#lang")


def test_a_hand_one_card_short_shows_its_waits_and_a_tap_makes_one_the_winning_card(
        server: Server, page: Page) -> None:
    page.goto(f"{server.url}/calc?h={ASCII_HAND}")
    page.wait_for_selector("#result:not([data-busy]) #waits button.wait")
    waits = page.eval_on_selector_all("#waits button.wait", "els => els.map(e => [e.dataset.card, +e.dataset.hu])")
    assert waits == [[w["card_ascii"], w["hu"]] for w in cli({"hand": HAND})["waits"]] == [["x3", 9], ["x10", 15]]
    page.click("#waits button[data-card=x10]")
    page.wait_for_function("location.search.includes('w=x10')")
    assert shown(page)["hu"] == 15


def test_impossible_hands_are_explained(server: Server, page: Page) -> None:
    page.goto(f"{server.url}/calc")
    tap(page, "hand", "一一一一一")
    page.wait_for_selector("#result:not([data-busy]) #why")
    assert "只有 4 张" in page.inner_text("#why")
    assert page.locator(".picker .cnt.over").count() == 1
    page.click("#lang")  # English: the English half of the server's message
    assert "only 4 exist" in page.inner_text("#why") and "只有" not in page.inner_text("#why")
    page.click("#lang")
    page.goto(f"{server.url}/calc?h=x1x2x3&w=x4")
    page.wait_for_selector("#result:not([data-busy]) #why")
    assert "牌数不对" in page.inner_text("#why") and "少牌" in page.inner_text("#why")
    tap(page, "chi", "一二")  # a 吃 waits for its third card
    assert "再点 1 张" in page.inner_text("#pending")


def test_the_page_opens_offline_and_says_scoring_needs_the_network(server: Server, page: Page, phone: Any) -> None:
    page.goto(f"{server.url}/calc?h={ASCII_HAND}&w=x10")
    shown(page)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()  # now the worker controls the page and has cached its files
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    shown(page)
    phone.set_offline(True)
    try:
        page.reload()
        page.wait_for_selector("#offline")
        assert "离线：需要网络来计算" in page.inner_text("#offline")
        assert page.locator("#hand .card").count() == len(HAND)
    finally:
        phone.set_offline(False)


def test_the_lobby_links_to_the_calculator(server: Server, page: Page) -> None:
    page.goto(server.url)
    page.click("#calclink")
    page.wait_for_url("**/calc")
    page.wait_for_selector(".picker .card")


def test_a_wumao_base_set_in_the_house_rules_pays_what_the_cli_pays(server: Server, page: Page) -> None:
    """000_…: 「以1块钱为基数，叫1块钱1棒，少的可以五毛钱」 — the 基数 field takes 0.5 and the payments follow it."""
    page.goto(f"{server.url}/calc")
    tap(page, "hand", SEED_HAND)
    tap(page, "peng", "叁")
    tap(page, "win", "三")
    page.select_option("#seat", "1")
    page.click("#house summary")
    page.select_option("select[data-opt='scoring.mode']", '"money"')
    page.eval_on_selector("#house", "d => { d.open = true; }")  # the panel is drawn again after a change
    page.fill("input[data-opt='scoring.money.unit']", "0.5")
    page.dispatch_event("input[data-opt='scoring.money.unit']", "change")
    page.wait_for_function("() => location.search.includes('0.5')")
    got = shown(page)
    options = {"scoring.mode": "money", "scoring.money.unit": "0.5"}
    want = expected(cli({**SEED_REQUEST, "options": options}))
    whole = expected(cli({**SEED_REQUEST, "options": {**options, "scoring.money.unit": "1"}}))
    assert got == want
    assert want != whole  # the base really changed what is paid


def test_paohuzi_a_face_down_wei_takes_ones_own_fourth_as_a_ti_hu(server: Server, page: Page) -> None:
    """提胡 on one's 偎 (跑胡子): tap the 偎 陆陆陆, the winning 陆 and 自摸 — the page shows 30 胡息 and 提胡,
    as the CLI does; without 自摸 the same card is another's and makes a 跑 (27)."""
    hand = "二二五七七十十壹壹贰贰叁叁伍伍捌捌"
    page.goto(f"{server.url}/calc?r=paohuzi")
    tap(page, "hand", hand)
    tap(page, "wei", "陆")
    tap(page, "win", "陆")
    request = {"rules": "paohuzi", "hand": hand, "melds": [{"kind": "wei", "cards": "陆陆陆"}],
               "win": {"card": "陆", "from": "other"}}
    assert shown(page) == expected(cli(request)) and shown(page)["hu"] == 27
    assert page.inner_text("#winas") == "跑胡"
    page.check("#self")
    page.wait_for_function("location.search.includes('self=1')")
    page.wait_for_selector("#result[data-hu='30']")
    assert shown(page) == expected(cli({**request, "win": {"card": "陆", "from": "self"}}))
    assert page.inner_text("#winas") == "提胡" and "m=wei:d6d6d6" in page.url


def test_an_answer_asked_before_a_change_is_never_shown_after_it(server: Server, page: Page) -> None:
    """A slow answer to the hand as it was before the last tap must not fill the panel while the new one waits for
    the page's debounce (it did: the panel showed the old payments, not busy, until the next answer came)."""
    held: list[Any] = []

    def hold(route: Any) -> None:
        held.append(route)

    page.goto(f"{server.url}/calc")
    tap(page, "hand", SEED_HAND)
    tap(page, "peng", "叁")
    tap(page, "win", "三")
    shown(page)
    page.route("**/api/score", hold)  # the next request waits until the test lets it go
    page.select_option("#seat", "1")
    for _ in range(200):
        if held:
            break
        page.wait_for_timeout(50)
    assert len(held) == 1
    # from here the page's 150 ms debounce runs only when the test says
    page.evaluate("""() => { window.debounced = []; const later = window.setTimeout;
        window.setTimeout = (f, ms, ...a) => ms === 150 ? (window.debounced.push(f), 0) : later(f, ms, ...a); }""")
    page.select_option("#seat", "3")  # a change: its request waits for the debounce
    held[0].fulfill(response=held[0].fetch())  # the first answer arrives now, before the second is asked
    page.wait_for_function("() => window.debounced.length === 1")
    page.wait_for_timeout(300)
    assert page.locator("#result").get_attribute("data-busy") is not None
    page.unroute("**/api/score")
    page.evaluate("() => window.debounced.pop()()")
    assert shown(page) == expected(cli({**SEED_REQUEST, "seat": 3}))
