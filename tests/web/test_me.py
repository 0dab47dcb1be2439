"""我的 in a real browser (issue 20, item 1): a seat makes a player, 我的 edits the nickname (a hostile one shows as
text), a second device signs in with the one-time link, a passkey (Chromium's virtual authenticator over CDP)
signs a fresh browser in, export, sign out every other device, delete.  Screenshots at 360×740 in /tmp/shots.

The page is reached as ``localhost`` (a secure context, and a valid WebAuthn RP id; an IP address is neither).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from serving import Server

SHOTS = Path("/tmp/shots")
PHONE = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
HOSTILE = "<svg onload=1>"


@pytest.fixture
def base(server: Server) -> str:
    return server.url.replace("127.0.0.1", "localhost")


def _page(ctx: Any, errors: list[str]) -> Any:
    page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: errors.append(f"dialog: {d.message}"))  # an alert() would be an XSS
    return page


def _me(page: Any) -> dict[str, Any]:
    return page.evaluate("fetch('/api/me').then(r => r.json())")  # type: ignore[no-any-return]


def _authenticator(ctx: Any, page: Any) -> tuple[Any, str]:
    cdp = ctx.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    made = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
        "isUserVerified": True, "automaticPresenceSimulation": True}})
    return cdp, str(made["authenticatorId"])


def _take_a_seat(page: Any, base: str, name: str) -> str:
    page.goto(base)
    page.wait_for_selector("#create")
    page.fill("#name", name)
    page.fill("#timer", "0")
    page.click("#create")
    page.wait_for_selector("#waiting")
    return str(page.inner_text("#roomcode")).strip()


def test_a_seat_makes_a_player_who_edits_links_a_device_adds_a_passkey_exports_and_deletes(
        browser: Any, base: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    errors: list[str] = []
    first = browser.new_context(**PHONE)
    page = _page(first, errors)
    # a bare page view makes nobody
    page.goto(base)
    page.wait_for_selector("#create")
    page.goto(f"{base}/me")
    page.wait_for_selector("#stranger")
    assert first.cookies() == []
    # a seat makes a player (the cookie is HttpOnly: the page cannot read it)
    code = _take_a_seat(page, base, "阿明")
    [cookie] = [c for c in first.cookies() if c["name"] == "daer_player"]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    assert page.evaluate("document.cookie") == ""
    page.goto(base)
    page.click("#melink")
    page.wait_for_selector("#profile")
    assert page.inner_text("#shownick") == "阿明"
    page.screenshot(path=str(SHOTS / "me-360.png"), full_page=True)
    # the nickname and the avatar edited on 我的; a hostile nickname is text, never markup
    page.fill("#nickname", HOSTILE)
    page.click("[data-avatar='c5']")
    page.click("#save")
    page.wait_for_function("() => document.getElementById('profilestatus').textContent !== ''")
    assert page.inner_text("#shownick") == HOSTILE
    assert page.locator("svg[onload]").count() == 0
    me = _me(page)
    assert me["nickname"] == HOSTILE and me["avatar"] == "c5"
    page.fill("#nickname", "明哥")
    page.click("#save")
    page.wait_for_function("() => document.getElementById('shownick').textContent === '明哥'")
    assert page.evaluate("localStorage.getItem('daer.name')") == "明哥"  # the lobby's name field follows

    # a second device: the one-time link (and its QR code, drawn by the server's library)
    page.click("#makelink")
    page.wait_for_selector("#qr")
    assert page.get_attribute("#qr", "src").startswith("data:image/svg+xml")
    page.screenshot(path=str(SHOTS / "me-link-360.png"), full_page=True)
    link = page.input_value("#linkurl")
    second = browser.new_context(**PHONE)
    other = _page(second, errors)
    other.goto(link)
    other.wait_for_selector("#profile")
    assert other.url.endswith("/me")  # the secret is gone from the address bar
    assert other.inner_text("#shownick") == "明哥" and _me(other)["id"] == me["id"]
    third = browser.new_context(**PHONE)  # the link was spent: nobody else comes in with it
    late = _page(third, errors)
    late.goto(link)
    late.wait_for_selector("#stranger")
    assert "链接无效" in late.inner_text("#toast")

    # a passkey registered on the first device signs a fresh browser in (every device lost)
    cdp, auth = _authenticator(first, page)
    page.click("#addpasskey")
    page.wait_for_function("() => document.getElementById('passkeycount').textContent.includes('1')")
    creds = cdp.send("WebAuthn.getCredentials", {"authenticatorId": auth})["credentials"]
    assert len(creds) == 1 and creds[0]["isResidentCredential"]
    fresh = browser.new_context(**PHONE)
    lost = _page(fresh, errors)
    lost.goto(f"{base}/me")
    lost.wait_for_selector("#passkeyin")
    cdp2, auth2 = _authenticator(fresh, lost)
    cdp2.send("WebAuthn.addCredential", {"authenticatorId": auth2, "credential": creds[0]})
    lost.click("#passkeyin")
    lost.wait_for_selector("#profile")
    assert _me(lost)["id"] == me["id"]

    # export my data
    page.reload()
    page.wait_for_selector("#export")
    with page.expect_download() as got:
        page.click("#export")
    data = json.loads(Path(got.value.path()).read_text())
    assert data["player"]["nickname"] == "明哥" and data["seats"][0]["room"] == code
    assert len(data["passkeys"]) == 1 and len(data["devices"]) == 3

    # sign out every other device: the linked phone and the passkey's browser are out
    page.click("#signoutothers")
    page.wait_for_function("() => document.getElementById('devicecount').textContent.includes('1')")
    other.reload()
    other.wait_for_selector("#stranger")
    assert _me(lost) == {"signed_in": False}

    # delete: a wrong confirmation deletes nothing; then the account is gone and the seat says so
    page.click("#delete summary")
    page.fill("#delconfirm", "好")
    page.click("#deldo")
    page.wait_for_selector("#toast:not([hidden])")
    assert _me(page)["id"] == me["id"]
    page.fill("#delconfirm", "删除")
    page.click("#deldo")
    page.wait_for_selector("#stranger")
    assert _me(page) == {"signed_in": False}
    room = page.evaluate(f"fetch('/api/rooms/{code}').then(r => r.json())")["room"]
    assert room["seats"][0]["name"] == "已注销玩家"
    page.screenshot(path=str(SHOTS / "me-deleted-360.png"), full_page=True)
    assert errors == []
    for ctx in (first, second, third, fresh):
        ctx.close()


def test_me_in_english_on_a_phone(browser: Any, base: str) -> None:
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    _take_a_seat(page, base, "Ann")
    page.evaluate("localStorage.setItem('daer.lang', 'en')")
    page.goto(f"{base}/me")
    page.wait_for_selector("#profile")
    assert "Sign in on another device" in page.inner_text("#device")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360  # nothing runs off the phone
    page.screenshot(path=str(SHOTS / "me-en-360.png"), full_page=True)
    page.click("#lang")
    page.wait_for_selector("text=在另一台设备上登录")
    ctx.close()


def test_a_hostile_nickname_is_text_at_the_table_too(browser: Any, base: str) -> None:
    ctx = browser.new_context(**PHONE)
    errors: list[str] = []
    page = _page(ctx, errors)
    _take_a_seat(page, base, "Ann")
    page.goto(f"{base}/me")
    page.wait_for_selector("#profile")
    page.fill("#nickname", HOSTILE)
    page.click("#save")
    page.wait_for_function("() => document.getElementById('shownick').textContent.startsWith('<')")
    page.goto(base)
    page.wait_for_selector("#create")
    assert page.input_value("#name") == HOSTILE  # the lobby's name field follows 我的
    page.fill("#name", "")  # no name typed: the seat takes the nickname from the server
    page.fill("#timer", "0")
    page.click("#create")
    page.wait_for_selector("#waiting")
    assert HOSTILE in page.inner_text(".seatlist")
    assert page.locator("svg[onload]").count() == 0 and errors == []
    ctx.close()
