"""Invitations that preview (issue 24): ``/r/CODE`` answers the page with Open Graph and Twitter card tags, so a
room link pasted into WeChat, QQ or another chat app shows a card — 「小明 邀请你打泸州大贰 · 8局 · 还差2人」, a
line of the room's options and the committed picture ``web/og.png`` (drawn from ``scripts/og-card.html``).

Only what anyone with the link can see already: the host's name, the ruleset, hands, timer and free seats —
never a token, an address or another player's name.  The room is read from the store (a crawler takes no lease).
"""

from __future__ import annotations

import html
from importlib import resources
from typing import Any

import msgspec

from daer.rules import find_rules
from daer.store import RoomRow, Store

WEB = resources.files("daer") / "web"
OG_SIZE = (1200, 630)


def invite_words(row: RoomRow | None) -> tuple[str, str]:
    """(title, description) of a room's link, Chinese (the page's first language)."""
    if row is None:
        return "大贰 · 网上牌桌", "四川纸牌大贰、跑胡子的网上牌桌：开个房间，把链接发给朋友。"
    cfg: dict[str, Any] = msgspec.json.decode(row.config)
    try:
        title = find_rules(str(cfg.get("rules", "luzhou"))).title_zh
    except Exception:
        title = "大贰"
    humans = [s for s in row.seats if s.kind == "human"]
    host = humans[0].name if humans else "朋友"
    hands = int(cfg.get("hands", 8))
    free = sum(s.kind == "empty" for s in row.seats)
    if row.status == "waiting":
        state = f"还差{free}人" if free else "人齐了，可以观战"
    elif row.status in ("playing", "between"):
        state = f"正在打第{min(row.hands_played + 1, hands)}局，可以观战"
    else:
        state = "房间已结束"
    timer = float(cfg.get("timer", 30))
    desc = (f"房间 {row.code} · {title} · {hands}局 · " + (f"每步{timer:g}秒" if timer else "不限时")
            + " · 点开链接入座或观战，不用下载。")
    return f"{host} 邀请你打{title} · {hands}局 · {state}", desc


def invite_page(store: Store, code: str, base: str) -> str:
    """The page (``index.html``) with the room's preview tags; ``base``: the site's origin as the request saw it."""
    row = store.load_room(code) if 3 <= len(code) <= 16 and code.isalnum() else None
    title, desc = invite_words(row)
    url = f"{base}/r/{code}" if row is not None else f"{base}/"
    image = f"{base}/static/og.png"
    tags = {
        "og:type": "website", "og:site_name": "大贰 · 网上牌桌", "og:title": title, "og:description": desc,
        "og:url": url, "og:image": image, "og:image:width": str(OG_SIZE[0]), "og:image:height": str(OG_SIZE[1]),
        "og:locale": "zh_CN",
    }
    twitter = {"twitter:card": "summary_large_image", "twitter:title": title, "twitter:description": desc,
               "twitter:image": image}
    e = html.escape
    head = "".join(f'<meta property="{k}" content="{e(v)}">\n' for k, v in tags.items())
    head += "".join(f'<meta name="{k}" content="{e(v)}">\n' for k, v in twitter.items())
    head += f'<meta name="description" content="{e(desc)}">\n'
    page = (WEB / "index.html").read_text(encoding="utf-8")
    page = page.replace("<title>大贰 · 网上牌桌</title>", f"<title>{e(title)}</title>", 1)
    return page.replace("</head>", head + "</head>", 1)
