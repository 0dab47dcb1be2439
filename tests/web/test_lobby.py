"""The lobby in players' words (issue 10 item 4): rulesets by Chinese name with a description, house rules as a
form built from GET /api/options, and the rules in force shown in the waiting room and in the table's 规则 sheet."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from serving import Server


def room_of(server: Server, code: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{server.url}/api/rooms/{code}", timeout=5) as r:
        return json.loads(r.read())["room"]  # type: ignore[no-any-return]


def test_the_lobby_form_sends_the_chosen_house_rules_and_the_room_and_its_sheet_show_them(
        server: Server, phone: Any) -> None:
    page = phone.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url)
    page.wait_for_selector("#create")
    assert page.locator("#house textarea, textarea").count() == 0  # no key=value text box
    # rulesets by Chinese name, each with its description from the ruleset data
    titles = page.eval_on_selector_all("#rules option", "els => els.map(e => e.textContent)")
    assert "泸州大贰" in titles and "跑胡子" in titles and "luzhou" not in titles
    assert "7列胡牌" in page.inner_text("#rulesdesc")
    page.select_option("#rules", "paohuzi")
    assert "胡息" in page.inner_text("#rulesdesc")
    assert page.locator("[data-opt='scoring.huayang.self_drawn_deng']").count() == 1
    assert page.locator("[data-opt='play.bao']").count() == 0  # 报牌 is not offered where 偎 is played
    page.select_option("#rules", "luzhou")
    page.click("#house summary")
    assert page.inner_text("#housecount") == "都按默认"
    # a switch, a number and a choice, each labelled in Chinese with its default
    row = page.locator("label[data-row='play.guo_zhang']")
    assert "过张" in row.inner_text() and "默认 开" in row.inner_text()
    page.click("#opt-play-guo_zhang")
    page.fill("#opt-win-min_hu", "99")  # out of range: the field keeps it within 5-40
    page.press("#opt-win-min_hu", "Tab")
    assert page.input_value("#opt-win-min_hu") == "40"
    page.fill("#opt-win-min_hu", "12")
    page.press("#opt-win-min_hu", "Tab")
    page.select_option("#opt-win-instant_longs", "4")
    assert page.inner_text("#housecount") == "已改 3 项"
    page.fill("#name", "小明")
    page.fill("#timer", "0")
    page.click("#create")
    page.wait_for_selector("#waiting")
    code = page.inner_text("#roomcode").strip()
    assert room_of(server, code)["overrides"] == {"play.guo_zhang": False, "win.min_hu": 12, "win.instant_longs": 4}
    # the waiting room names the ruleset and lists what was changed, with the defaults
    rules = page.locator("#roomrules")
    assert page.inner_text("#rulestitle") == "泸州大贰"
    changed = page.inner_text("#changedrules")
    assert "过张" in changed and "关" in changed and "最少胡数" in changed and "12" in changed and "默认 10" in changed
    assert "局数 8" in rules.inner_text() and "null" not in rules.inner_text()
    # on the table: the 规则 button opens the sheet with every house rule, changed ones marked
    page.click("#start")
    page.wait_for_selector("#hand .card")
    page.click("#rulesbtn")
    sheet = page.locator("#rulesheet")
    assert sheet.is_visible()
    assert "null" not in sheet.inner_text()
    assert sheet.locator("#allrules [data-rule]").count() >= 10
    assert sheet.locator("#allrules .rule.changed").count() == 3
    assert "几垅即胡" in sheet.locator("[data-rule='win.instant_longs']").first.inner_text()
    page.keyboard.press("Escape")
    assert page.locator("#rulesheet").count() == 0
    page.click("#rulesbtn")
    page.click("#rulesclose")
    assert page.locator("#rulesheet").count() == 0
    assert errors == []


def test_english_mode_shows_the_rulesets_and_house_rules_in_english(server: Server, phone: Any) -> None:
    page = phone.new_page()
    page.goto(server.url)
    page.wait_for_selector("#create")
    page.click("#lang")
    page.wait_for_selector("#create")
    titles = page.eval_on_selector_all("#rules option", "els => els.map(e => e.textContent)")
    assert "Luzhou Da Er" in titles
    page.click("#house summary")
    assert "default on" in page.inner_text("label[data-row='play.guo_zhang']")
    assert page.inner_text("#housecount") == "all default"
    page.click("#lang")  # back to Chinese for the other tests of this browser context


def test_the_rooms_pace_shows_in_the_waiting_rooms_rules_and_in_the_rules_sheet(server: Server, phone: Any) -> None:
    page = phone.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url)
    page.wait_for_selector("#create")
    page.select_option("#pace", "fast")
    page.fill("#name", "快手")
    page.fill("#timer", "0")
    page.click("#create")
    page.wait_for_selector("#waiting")
    code = page.inner_text("#roomcode").strip()
    assert room_of(server, code)["pace"] == "fast"
    page.wait_for_selector("#roomrules .pace")
    assert "节奏 快" in page.inner_text("#roomrules .settings")
    page.click("#lang")  # English on request
    page.wait_for_selector("#roomrules .pace")
    assert "Pace fast" in page.inner_text("#roomrules .settings")
    page.click("#lang")
    page.wait_for_selector("#roomrules .pace")
    page.click("#start")
    page.wait_for_selector("#hand .card")
    page.click("#rulesbtn")
    assert "节奏 快" in page.inner_text("#rulesheet .settings")
    assert page.get_attribute("#rulesheet .pace", "data-pace") == "fast"
    page.keyboard.press("Escape")
    assert errors == []


IN_SHEET = "() => Boolean(document.getElementById('rulesheet')?.contains(document.activeElement))"


def test_the_rules_sheet_keeps_the_keyboard_inside_and_gives_focus_back_to_the_rules_button(
        server: Server, phone: Any) -> None:
    page = phone.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url)
    page.wait_for_selector("#create")
    page.fill("#name", "键盘")
    page.fill("#timer", "0")
    page.click("#create")
    page.wait_for_selector("#start")
    page.click("#start")
    page.wait_for_selector("#hand .card")
    page.focus("#rulesbtn")
    page.keyboard.press("Enter")
    page.wait_for_selector("#rulesheet #sheetrules .rule")
    assert page.evaluate("document.activeElement.id") == "rulesclose"  # focus goes to the close button on open
    for key in ["Tab"] * 6 + ["Shift+Tab"] * 6:  # Tab and Shift+Tab never leave the sheet for the table behind
        page.keyboard.press(key)
        assert page.evaluate(IN_SHEET), key
    page.keyboard.press("Escape")
    assert page.locator("#rulesheet").count() == 0
    assert page.evaluate("document.activeElement.id") == "rulesbtn"  # and back to 规则 on close
    page.keyboard.press("Enter")  # the 规则 button has focus: Enter opens the sheet again
    page.wait_for_selector("#rulesheet")
    page.keyboard.press("Enter")  # on its close button
    assert page.locator("#rulesheet").count() == 0
    assert page.evaluate("document.activeElement.id") == "rulesbtn"
    assert errors == []
