"""Invitations that preview (issue 24 items 6 and 7): ``/r/CODE`` fetched as a chat app's crawler would (no script
run, a crawler's User-Agent) carries Open Graph and Twitter card tags with the host's invitation, a description
and a picture that is served — no token, no other player's name; the page's "share to…" button hands the Web
Share API the same words and the link."""

from __future__ import annotations

import html.parser
import urllib.request
from typing import Any

from serving import Server, post, room
from test_page_bugs import strict
from test_table import create_room

CRAWLER = "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php) MicroMessenger"


class Meta(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: dict[str, str] = {}
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "meta" and (a.get("property") or a.get("name")) and a.get("content") is not None:
            self.tags[str(a.get("property") or a.get("name"))] = str(a["content"])
        self._in_title = tag == "title"

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False


def crawl(url: str) -> tuple[Meta, str]:
    req = urllib.request.Request(url, headers={"User-Agent": CRAWLER})
    with urllib.request.urlopen(req, timeout=10) as res:
        body = res.read().decode()
    m = Meta()
    m.feed(body)
    return m, body


def test_a_room_link_previews_with_the_hosts_invitation_and_a_picture(server: Server) -> None:
    status, made = post(f"{server.url}/api/rooms", {"name": "小明", "config": {"timer": 0, "hands": 8}})
    assert status == 200
    code = made["code"]
    _, joined = post(f"{server.url}/api/rooms/{code}/join", {"name": "秘密的名字"})
    m, body = crawl(f"{server.url}/r/{code}")
    assert m.tags["og:title"] == "小明 邀请你打泸州大贰 · 8局 · 还差2人" == m.title
    assert m.tags["twitter:title"] == m.tags["og:title"] and m.tags["twitter:card"] == "summary_large_image"
    assert code in m.tags["og:description"] and "不限时" in m.tags["og:description"]
    assert m.tags["og:url"] == f"{server.url}/r/{code}"
    with urllib.request.urlopen(m.tags["og:image"], timeout=10) as res:  # the picture is served
        assert res.headers["content-type"] == "image/png" and res.read(8) == b"\x89PNG\r\n\x1a\n"
    assert (m.tags["og:image:width"], m.tags["og:image:height"]) == ("1200", "630")
    # nothing private: no token, no other player's name
    assert made["token"] not in body and joined["token"] not in body and "秘密的名字" not in body
    assert "/static/app.js" in body  # still the page itself for a person


def test_names_are_escaped_and_unknown_rooms_preview_the_site(server: Server) -> None:
    status, made = post(f"{server.url}/api/rooms", {"name": '"><script>x</script>', "config": {"timer": 0}})
    assert status == 200
    m, body = crawl(f"{server.url}/r/{made['code']}")
    assert "<script>x" not in body and m.tags["og:title"].startswith('"><script>x</script> 邀请你打')
    m, _ = crawl(f"{server.url}/r/NOSUCHROOM2")
    assert m.tags["og:title"] == "大贰 · 网上牌桌" and m.tags["og:url"] == f"{server.url}/"
    r = room(server)
    assert r["code"]


def test_share_to_hands_the_web_share_api_the_same_words(server: Server, browser: Any) -> None:
    ctx = browser.new_context(viewport={"width": 360, "height": 740})
    ctx.add_init_script("navigator.share = (d) => { window.shared = d; return Promise.resolve(); };")
    page = ctx.new_page()
    errors = strict(page)
    try:
        code = create_room(page, server, "小明")
        page.click("#sharelink")
        page.wait_for_function("() => window.shared")
        shared = page.evaluate("window.shared")
        m, _ = crawl(f"{server.url}/r/{code}")
        assert shared["title"] == shared["text"] == m.tags["og:title"]
        assert shared["url"].endswith(f"/r/{code}")
        assert errors == []
    finally:
        ctx.close()
