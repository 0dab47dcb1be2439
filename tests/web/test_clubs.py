"""亲友圈 in a real browser (issue 20, items 2, 3 and 7; docs/clubs.md): an owner creates a club and a standing
table, a friend joins by the invite link on a second phone, a stranger without it is refused and their request
waits, the owner and the friend play a 1-hand match with bots, both see it in their 战绩 (我的), the club's 战绩,
the settle-up sheet and the leaderboard; the friend's second device sees the same; the owner removes the friend
and the friend's open club page says so at once (the event stream); axe finds nothing serious; a hostile club
name, notice and nickname are text.  Screenshots at 360×740 go to /tmp/shots (and, with DAER_SHOTS=docs, the
three of docs/img/).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page
from serving import Server
from test_a11y import DESKTOP, axe_source, scan
from test_table import play_to_settlement

__all__ = ["axe_source"]  # the fixture, shared with test_a11y

SHOTS = Path("/tmp/shots")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "img"
PHONE = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True,
         "reduced_motion": "reduce"}
HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.fixture
def base(server: Server) -> str:
    return server.url.replace("127.0.0.1", "localhost")


def _page(ctx: Any, errors: list[str]) -> Page:
    page: Page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))

    def dialog(d: Any) -> None:  # the page asks before removing, banning or leaving; an alert() would be an XSS
        if d.type != "confirm":
            errors.append(f"{d.type}: {d.message}")
        d.accept()
    page.on("dialog", dialog)
    return page


def _fetch(page: Page, path: str) -> dict[str, Any]:
    return page.evaluate("p => fetch(p).then(async r => ({status: r.status, body: await r.json().catch(() => null)}))",
                         path)  # type: ignore[no-any-return]


def _create_club(page: Page, base: str, name: str, notice: str = "") -> str:
    page.goto(f"{base}/clubs")
    page.wait_for_selector("#createclub")
    if not page.locator("#createpanel[open]").count():
        page.click("#createpanel summary")
    page.fill("#clubname", name)
    page.fill("#clubnotice", notice)
    page.click("#createclub")
    page.wait_for_selector("#clubhead")
    m = re.search(r"/club/(\d{6})", page.url)
    assert m, page.url
    return m[1]


def _add_template(page: Page, name: str, *, hands: int = 1, timer: int = 1) -> None:
    page.click("#tabbtn-settings")
    page.wait_for_selector("#addtpl")
    if not page.locator("#addtemplate[open]").count():
        page.click("#addtemplate summary")
    page.fill("#tplname", name)
    page.fill("#tplhands", str(hands))
    page.fill("#tpltimer", str(timer))
    assert page.is_checked("#tplfill")  # bots fill the empty seats
    page.click("#addtpl")
    page.wait_for_selector(f"#templatelist li:has-text('{name}')")


def _invite_link(page: Page) -> str:
    page.click("#tabbtn-members")
    page.click("#makeinvite")
    page.wait_for_selector("#inviteqr")
    assert page.get_attribute("#inviteqr", "src").startswith("data:image/")  # type: ignore[union-attr]
    return page.input_value("#inviteurl")


def _join_by_invite(page: Page, link: str, club_name: str) -> None:
    page.goto(link)
    page.wait_for_selector("#joininvite")
    assert page.inner_text("#invitename") == club_name
    page.click("#joininvite")
    page.wait_for_selector("#clubhead")


def test_a_friend_joins_by_the_invite_a_stranger_waits_and_a_removed_friend_is_told_at_once(
        browser: Any, base: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    errors: list[str] = []
    owner_ctx, friend_ctx, stranger_ctx = (browser.new_context(**PHONE) for _ in range(3))
    owner = _page(owner_ctx, errors)
    n = _create_club(owner, base, "老张的圈", "周五晚上八点")
    assert owner.inner_text("#myrole") == "群主" and owner.inner_text("#clubnotice") == "周五晚上八点"
    _add_template(owner, "泸州 1 局")
    owner.click("#tabbtn-tables")
    owner.wait_for_selector("[data-table] [data-sit]")
    assert "泸州 1 局" in owner.inner_text("#tables")
    link = _invite_link(owner)
    assert "#invite=" in link

    # the friend's phone: the link shows the club, 加入 makes them a member (and a player)
    friend = _page(friend_ctx, errors)
    _join_by_invite(friend, link, "老张的圈")
    assert friend.inner_text("#myrole") == "成员"
    friend.click("#tabbtn-members")
    assert "群主" in friend.inner_text("#members")
    assert not friend.locator("#requests, #invites").count()  # admins' panels only
    owner.wait_for_function("() => document.querySelectorAll('#members [data-member]').length === 2")  # live

    # a stranger without the link sees nothing of the club; their request by number waits for an admin
    stranger = _page(stranger_ctx, errors)
    stranger.goto(f"{base}/club/{n}")
    stranger.wait_for_selector("#notmember")
    assert "老张的圈" not in stranger.inner_text("body")
    stranger.click("#askjoin")
    stranger.wait_for_function("() => document.getElementById('requeststatus').textContent.includes('已申请')")
    owner.wait_for_selector("#requests [data-request]")
    stranger.goto(f"{base}/clubs")
    stranger.fill("#clubnumber", n)
    stranger.click("#askjoin")  # asking again: still the one request, still pending
    stranger.wait_for_function("() => document.getElementById('requeststatus').textContent.includes('已申请')")
    stranger.goto(f"{base}/club/{n}")
    stranger.wait_for_selector("#notmember")  # still pending: not a member
    assert _fetch(stranger, f"/api/clubs/{n}")["status"] == 403
    assert owner.locator("#requests [data-request]").count() == 1

    # the owner removes the friend: the friend's open page says so at once, and its next fetch is refused
    friend.click("#tabbtn-tables")
    friend.wait_for_selector("#tab-tables")
    owner.click("#tabbtn-members")
    fid = _fetch(friend, f"/api/clubs/{n}")["body"]["me"]
    owner.click(f"[data-member='{fid}'] .manage summary")
    owner.click(f"[data-member='{fid}'] [data-act='members/{fid}/remove']")
    friend.wait_for_selector("#gone", timeout=5000)
    assert "你已不在这个亲友圈" in friend.inner_text("#gone")
    assert _fetch(friend, f"/api/clubs/{n}")["status"] == 403
    owner.wait_for_function("() => document.querySelectorAll('#members [data-member]').length === 1")
    assert errors == []
    for ctx in (owner_ctx, friend_ctx, stranger_ctx):
        ctx.close()


def test_the_club_pages_pass_the_accessibility_scan_and_do_not_clip(browser: Any, base: str, axe_source: str) -> None:
    errors: list[str] = []
    found: list[str] = []
    for size, opts in (("phone", PHONE), ("desktop", {"viewport": DESKTOP, "reduced_motion": "reduce"}),
                       ("landscape", {**PHONE, "viewport": {"width": 740, "height": 360}})):
        ctx = browser.new_context(**opts)
        page = _page(ctx, errors)
        page.goto(f"{base}/clubs")
        page.wait_for_selector("#createclub")
        found += scan(page, axe_source, f"/clubs {size}")
        n = _create_club(page, base, f"牌友 {size}", "今晚打牌")
        _add_template(page, "常驻 8 局", hands=8, timer=30)
        width = page.viewport_size["width"]  # type: ignore[index]
        for tab in ("tables", "members", "records", "settle", "board", "settings"):
            page.click(f"#tabbtn-{tab}")
            page.wait_for_selector(f"#tab-{tab}")
            page.wait_for_timeout(150)
            found += scan(page, axe_source, f"/club/{n} {tab} {size}")
            assert page.evaluate("document.documentElement.scrollWidth") <= width, f"{tab} runs off at {size}"
        ctx.close()
    assert found == [], "\n".join(found)
    assert errors == []


def test_a_hostile_club_name_notice_and_nickname_are_text(browser: Any, base: str) -> None:
    errors: list[str] = []
    owner_ctx, friend_ctx = browser.new_context(**PHONE), browser.new_context(**PHONE)
    owner = _page(owner_ctx, errors)
    n = _create_club(owner, base, HOSTILE[:24], HOSTILE)
    assert owner.inner_text("#clubname") == HOSTILE[:24] and owner.inner_text("#clubnotice") == HOSTILE
    link = _invite_link(owner)
    friend = _page(friend_ctx, errors)
    friend.goto(f"{base}/clubs")  # the invite landing and the club list show the name as text too
    _join_by_invite(friend, link, HOSTILE[:24])
    r = friend.evaluate("""n => fetch('/api/me', {method: 'POST', headers: {'content-type': 'application/json'},
        body: JSON.stringify({nickname: n})}).then(r => r.status)""", HOSTILE[:16])
    assert r == 200
    owner.wait_for_function("n => document.getElementById('members').textContent.includes(n)", arg=HOSTILE[:16])
    friend.goto(f"{base}/clubs")
    friend.wait_for_selector(f"[data-club='{n}']")
    assert HOSTILE[:24] in friend.inner_text("#clublist")
    for page in (owner, friend):
        assert page.locator("img[src=x], img[onerror]").count() == 0
    assert errors == []
    owner_ctx.close()
    friend_ctx.close()


def _shoot(page: Page, name: str) -> None:
    page.screenshot(path=str(SHOTS / name), full_page=False)
    if os.environ.get("DAER_SHOTS") == "docs":
        page.screenshot(path=str(DOCS / name), full_page=False)


def _nickname(page: Page, name: str) -> None:
    status = page.evaluate("""n => fetch('/api/me', {method: 'POST', headers: {'content-type': 'application/json'},
        body: JSON.stringify({nickname: n})}).then(r => r.status)""", name)
    assert status == 200


def _rows(page: Page, selector: str) -> dict[str, int]:
    """A sheet's rows: the name in each row's header cell → the number in its first [data-points] cell."""
    got = page.evaluate("""s => [...document.querySelectorAll(s)].map(tr => [tr.querySelector('th').textContent,
        tr.querySelector('[data-points]').dataset.points])""", selector)
    return {name: int(x) for name, x in got}


def test_a_club_match_shows_in_everyones_records_the_settle_up_and_the_leaderboard(
        browser: Any, base: str, axe_source: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    errors: list[str] = []
    owner_ctx, friend_ctx = browser.new_context(**PHONE), browser.new_context(**PHONE)
    owner = _page(owner_ctx, errors)
    n = _create_club(owner, base, "周五牌局", "一局定输赢")
    _nickname(owner, "老张")
    _add_template(owner, "泸州 1 局")
    owner.fill("#setminhands", "1")  # one hand ranks on this club's leaderboard
    owner.click("#savesettings")
    owner.wait_for_function("() => document.getElementById('setstatus')?.textContent === '已保存'")
    # the save redraws the settings from the club's new state; the note must outlive that redraw
    owner.wait_for_function(f"() => fetch('/api/clubs/{n}').then(r => r.json()).then(d => d.min_hands === 1)")
    owner.wait_for_timeout(400)
    assert owner.inner_text("#setstatus") == "已保存"
    owner.fill("#setnotice", "一局定输赢！")  # the next edit clears it
    assert owner.inner_text("#setstatus") == ""
    link = _invite_link(owner)
    friend = _page(friend_ctx, errors)
    _join_by_invite(friend, link, "周五牌局")
    _nickname(friend, "小李")

    # both sit at the standing table (one tap each lands in the room, seated), the owner starts, bots fill
    owner.click("#tabbtn-tables")
    owner.click("[data-table] [data-sit]")
    owner.wait_for_selector("#waiting")
    code = owner.url.rsplit("/", 1)[-1]
    friend.click("#tabbtn-tables")
    friend.wait_for_selector(f"[data-table='{code}'] [data-sit]")
    _shoot(friend, "club-tables.png")
    friend.click(f"[data-table='{code}'] [data-sit]")
    friend.wait_for_selector("#waiting")
    assert friend.url.endswith(f"/r/{code}") and friend.evaluate(f"localStorage.getItem('daer.seat.{code}')")
    owner.click("#start")
    play_to_settlement(owner)  # the friend's seat is played by 托管 when its one-second timer runs out
    friend.wait_for_selector("#settlement", timeout=120_000)
    room = _fetch(owner, f"/api/rooms/{code}")["body"]["room"]
    points = {s["name"]: int(s["score"]) for s in room["seats"]}
    assert {"老张", "小李"} <= set(points) and sum(points.values()) == 0, points

    for page, name in ((owner, "老张"), (friend, "小李")):  # 我的 · 战绩
        page.goto(f"{base}/me")
        page.wait_for_selector("#myrecords")
        assert page.locator("#myrecords tbody tr").count() == 1
        assert int(page.get_attribute("#mytotal-points", "data-points") or "") == points[name]
    friend.goto(f"{base}/club/{n}#records")
    friend.wait_for_selector("#recordstable")
    shown = _rows(friend, "#recordstable tbody tr")
    assert shown == {"老张": points["老张"], "小李": points["小李"]}
    _shoot(friend, "club-records.png")
    found = scan(friend, axe_source, "records with rows")
    friend.click("#tabbtn-settle")
    friend.wait_for_selector("#nets-points")
    assert _rows(friend, "#nets-points tbody tr") == shown
    pays = friend.evaluate("""() => [...document.querySelectorAll('#transfers-points [data-amount]')].map(e =>
        [e.dataset.from, e.dataset.to, +e.dataset.amount])""")
    for name in ("老张", "小李"):  # what each receives less what each pays is their net
        pid = friend.get_attribute(f"#nets-points tr:has(th:text-is('{name}'))", "data-player")
        assert sum(a for f, t, a in pays if t == pid) - sum(a for f, t, a in pays if f == pid) == points[name]
    _shoot(friend, "club-settle.png")
    found += scan(friend, axe_source, "settle-up with rows")
    assert found == [], "\n".join(found)
    friend.click("#tabbtn-board")
    friend.wait_for_selector("#board")
    assert _rows(friend, "#board tbody tr") == shown

    # the friend's second device (the one-time link of 我的) sees the same history
    friend.goto(f"{base}/me")
    friend.click("#makelink")
    friend.wait_for_selector("#linkurl")
    second_ctx = browser.new_context(**PHONE)
    second = _page(second_ctx, errors)
    second.goto(friend.input_value("#linkurl"))
    second.wait_for_selector("#myrecords")
    assert second.locator("#myrecords tbody tr").count() == 1
    assert int(second.get_attribute("#mytotal-points", "data-points") or "") == points["小李"]
    assert errors == []
    for ctx in (owner_ctx, friend_ctx, second_ctx):
        ctx.close()


def test_a_banned_member_is_listed_for_the_admins_and_the_ban_can_be_lifted(browser: Any, base: str) -> None:
    errors: list[str] = []
    owner_ctx, friend_ctx = browser.new_context(**PHONE), browser.new_context(**PHONE)
    owner = _page(owner_ctx, errors)
    n = _create_club(owner, base, "禁止测试")
    link = _invite_link(owner)
    friend = _page(friend_ctx, errors)
    _join_by_invite(friend, link, "禁止测试")
    fid = _fetch(friend, f"/api/clubs/{n}")["body"]["me"]
    owner.wait_for_selector(f"[data-member='{fid}']")
    owner.click(f"[data-member='{fid}'] .manage summary")
    owner.click(f"[data-member='{fid}'] [data-act='members/{fid}/ban']")
    owner.wait_for_selector(f"#bans [data-ban='{fid}']")
    friend.goto(link)
    friend.wait_for_selector("#joininvite")
    friend.click("#joininvite")
    friend.wait_for_function("() => document.body.innerText.includes('禁止')")  # the invite does not let them back
    assert _fetch(friend, f"/api/clubs/{n}")["status"] == 403
    owner.click(f"#bans [data-unban='{fid}']")
    owner.wait_for_selector("#bans", state="detached")
    friend.goto(link)
    friend.wait_for_selector("#joininvite")
    friend.click("#joininvite")
    friend.wait_for_selector("#clubhead")
    assert _fetch(friend, f"/api/clubs/{n}")["status"] == 200
    assert errors == []
    for ctx in (owner_ctx, friend_ctx):
        ctx.close()
