"""Issue 10 item 8, installable: the manifest and icons, the table page's offline worker, the offline notice."""

from __future__ import annotations

import json
import shutil
import struct
import tomllib
import urllib.request
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, cast

import pytest
from playwright.sync_api import Page
from serving import Server
from test_page_bugs import strict
from test_table import create_room, hand_ids

from daer.server.http.pwa import build, shell_files, worker_source

WEB = Path(__file__).resolve().parents[2] / "src" / "daer" / "web"
OFFLINE_ZH = "离线：连不上服务器"


def fetch(url: str) -> tuple[str, bytes]:
    with urllib.request.urlopen(url, timeout=5) as res:
        return res.headers["content-type"], res.read()


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_manifest_names_the_app_in_chinese_and_its_icons_are_served(server: Server) -> None:
    ctype, body = fetch(f"{server.url}/manifest.webmanifest")
    assert ctype.startswith("application/manifest+json")
    m = json.loads(body)
    assert m["name"].startswith("大贰") and m["short_name"] == "大贰" and m["lang"].startswith("zh")
    assert m["start_url"] == "/" and m["scope"] == "/" and m["display"] == "standalone"
    sizes = {}
    for icon in m["icons"]:
        ctype, data = fetch(f"{server.url}{icon['src']}")
        assert ctype.startswith(icon["type"])
        if icon["type"] == "image/png":
            w, h = png_size(data)
            assert icon["sizes"] == f"{w}x{h}"
            sizes.setdefault(icon["purpose"], set()).add(w)
    assert sizes["any"] == {192, 512}
    assert sizes["maskable"] == {512}
    # the pages name the manifest and the same theme colour
    for page in ("index.html", "replay.html"):
        html = (WEB / page).read_text(encoding="utf-8")
        assert '<link rel="manifest" href="/manifest.webmanifest">' in html
        assert f'<meta name="theme-color" content="{m["theme_color"]}">' in html


def test_the_worker_is_served_from_the_root_with_its_build_written(server: Server) -> None:
    req = urllib.request.Request(f"{server.url}/sw.js")
    with urllib.request.urlopen(req, timeout=5) as res:
        assert res.headers["content-type"].startswith("text/javascript")
        assert res.headers["cache-control"] == "no-cache"
        assert "default-src 'self'" in res.headers["content-security-policy"]
        text = res.read().decode()
    version, urls = build(cast(Traversable, WEB))
    assert f'"version":"{version}"' in text
    assert 'version: "dev"' not in text
    for url in urls:  # every file the worker caches is there to be cached
        assert urllib.request.urlopen(f"{server.url}{url}", timeout=5).status == 200
    assert "/" in urls and "/static/app.js" in urls and "/static/replay.html" in urls
    assert not [u for u in urls if u.startswith("/api") or "calc" in u or u.endswith(".png")]


def test_a_new_version_of_any_shell_file_is_a_new_worker(tmp_path: Path) -> None:
    web = tmp_path / "web"
    shutil.copytree(WEB, web)
    before = worker_source(cast(Traversable, web))
    assert worker_source(cast(Traversable, web)) == before  # the same files, the same bytes: no update
    (web / "newmodule.js").write_text("export const x = 1;\n")
    added = worker_source(cast(Traversable, web))
    assert added != before and b"/static/newmodule.js" in added
    css = web / "style.css"
    css.write_text(css.read_text() + "\n/* changed */\n")
    assert worker_source(cast(Traversable, web)) != added
    assert "calc.js" not in shell_files(cast(Traversable, web))


def controlled(page: Page) -> str:
    """Wait until the table page's worker controls the page; its cache's name."""
    page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=15000)
    names: list[str] = page.evaluate("caches.keys()")
    return next(n for n in names if n.startswith("daer-table-"))


def test_the_table_page_registers_its_worker_and_caches_only_the_shell(server: Server, phone: Any) -> None:
    page = phone.new_page()
    errors = strict(page)
    # a cache left by an older version of the page is deleted when this version's worker takes over
    page.add_init_script("if (!navigator.serviceWorker.controller)"
                         " caches.open('daer-table-0ld').then(c => c.put('/old', new Response('old')))")
    page.goto(server.url)
    page.wait_for_selector("#create")
    page.evaluate("navigator.serviceWorker.ready")
    reg = page.evaluate("navigator.serviceWorker.getRegistration().then(r => [r.scope, r.active.scriptURL])")
    assert reg == [f"{server.url}/", f"{server.url}/sw.js"]
    create_room(page, server)
    page.click("#start")
    hand_ids(page)
    name = controlled(page)
    assert page.evaluate("caches.keys()").count(name) == 1
    assert "daer-table-0ld" not in page.evaluate("caches.keys()")
    version, urls = build(cast(Traversable, WEB))
    assert name == f"daer-table-{version}"
    keys = page.evaluate(f"caches.open('{name}').then(c => c.keys()).then(ks => ks.map(k => new URL(k.url).pathname))")
    assert set(urls) <= set(keys)
    assert not [k for k in keys if k.startswith(("/api", "/ws", "/healthz", "/r/"))]  # no API answer is cached
    assert errors == []


def test_offline_the_table_page_opens_from_its_cache_and_says_the_game_needs_the_server(
        server: Server, phone: Any) -> None:
    page = phone.new_page()
    code = create_room(page, server)
    page.click("#start")
    before = hand_ids(page)
    controlled(page)
    phone.set_offline(True)
    try:
        page.reload()
        page.wait_for_selector("#offline")
        text = page.inner_text("#offline")
        assert text.startswith(OFFLINE_ZH) and "needs the server" in text  # Chinese first
        assert page.url.endswith(f"/r/{code}")
        # the notice is in the flow above the page: it covers nothing
        box = page.locator("#offline").bounding_box()
        app = page.locator("#app").bounding_box()
        assert box is not None and app is not None and box["y"] == 0 and app["y"] >= box["height"]
    finally:
        phone.set_offline(False)
    assert hand_ids(page) == before  # back online: the page reconnects by itself
    page.wait_for_selector("#offline", state="detached", timeout=10000)


def test_when_the_server_is_down_the_cached_page_says_so(tmp_path: Path, phone: Any) -> None:
    srv = Server(tmp_path / "down.db", bot_delay=0.05).start()
    try:
        page = phone.new_page()
        page.goto(srv.url)
        page.wait_for_selector("#create")
        controlled(page)
    finally:
        srv.stop()
    page.reload()  # the network is up, the server is not
    page.wait_for_selector("#offline")
    assert page.inner_text("#offline").startswith(OFFLINE_ZH)
    assert page.locator("#create").count() == 1  # the lobby is drawn from the cache all the same


@pytest.mark.parametrize("lang", ["en"])
def test_the_offline_notice_in_english_mode(server: Server, phone: Any, lang: str) -> None:
    page = phone.new_page()
    page.add_init_script(f"localStorage.setItem('daer.lang', '{lang}');")
    page.goto(server.url)
    page.wait_for_selector("#create")
    controlled(page)
    phone.set_offline(True)
    try:
        page.reload()
        page.wait_for_selector("#offline")
        assert page.inner_text("#offline").startswith("Offline: the server cannot be reached")
    finally:
        phone.set_offline(False)


def test_a_new_version_replaces_the_old_cache_and_the_page_offers_a_reload(
        tmp_path: Path, phone: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same site serving a new release (here: the package copied with one stylesheet changed, on the same
    port): the browser installs the new worker, the old version's cache goes, and the open page offers a reload
    that brings the new files."""
    old = Server(tmp_path / "old.db", bot_delay=0.05).start()
    page = phone.new_page()
    try:
        page.goto(old.url)
        page.wait_for_selector("#create")
        first = controlled(page)
    finally:
        old.stop()
    copy = tmp_path / "src"
    shutil.copytree(WEB.parent, copy / "daer", ignore=shutil.ignore_patterns("__pycache__"))
    css = copy / "daer" / "web" / "style.css"
    css.write_text(css.read_text(encoding="utf-8") + "\n/* release 2 */\n", encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(copy))  # `python -m daer serve` imports the copy
    new = Server(tmp_path / "new.db", bot_delay=0.05, port=old.port).start()
    try:
        page.evaluate("navigator.serviceWorker.getRegistration().then(r => r.update())")
        page.wait_for_selector("#updated #reload", timeout=15000)
        # the new worker deletes the old version's cache as it activates (the page may hear of it a moment before)
        assert page.evaluate("""async n => { for (let i = 0; i < 100; i++) {
            if (!(await caches.keys()).includes(n)) return true;
            await new Promise(r => setTimeout(r, 100)); } }""", first)
        names = page.evaluate("caches.keys()")
        assert len([n for n in names if n.startswith("daer-table-")]) == 1, (first, names)
        page.click("#reload")
        page.wait_for_selector("#create")
        assert page.locator("#updated").count() == 0
        css_now = page.evaluate("fetch('/static/style.css').then(r => r.text())")
        assert css_now.rstrip().endswith("/* release 2 */")
    finally:
        new.stop()


def test_every_file_of_the_page_ships_in_the_package() -> None:
    """A file under web/ that pyproject.toml's package data leaves out is missing from an installed server (the
    page's call-outs in web/voice/ once were): the worker would cache a 404 and the page log an error."""
    patterns = tomllib.loads((WEB.parents[2] / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    pkg = WEB.parent
    shipped = {p for pattern in patterns["daer"] for p in pkg.glob(pattern) if p.is_file()}
    page = {p for p in WEB.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert sorted(str(p.relative_to(pkg)) for p in page - shipped) == []
