"""The installable page: the web app manifest and the table page's offline worker.

``/manifest.webmanifest`` names the app (大贰 · 网上牌桌), its icons (drawn from ``web/icon.svg`` by
``scripts/icons.sh``) and its colours.  ``/sw.js`` is ``web/sw.js`` with its ``BUILD`` line written here: the
version is a hash of the shell's files, so a new release changes the worker's bytes and browsers install it; the
list is the files the worker caches (the page, the replay page, their scripts and styles).  The worker is served
from the root so that its scope is the whole site, and with ``Cache-Control: no-cache`` so that browsers look for
a new version on every visit.  API answers and the WebSocket are never cached (the worker leaves them alone).
"""

from __future__ import annotations

import hashlib
import re
from importlib import resources
from importlib.resources.abc import Traversable

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

SHELL_SUFFIXES = (".html", ".js", ".css", ".svg", ".webmanifest")
"""Files the worker caches at install (PNG icons are fetched by the browser when it installs the app)."""
NOT_SHELL = ("calc", "sw.js", "index.html")
"""Left out: the calculator has its own worker (``/calc-sw.js``); the page itself is cached as ``/``."""
BUILD_LINE = re.compile(r"^const BUILD = .*;.*$", re.MULTILINE)


def shell_files(web: Traversable) -> list[str]:
    """The names of the files in ``web`` that the worker caches, sorted."""
    return sorted(f.name for f in web.iterdir() if f.is_file() and f.name.endswith(SHELL_SUFFIXES)
                  and not f.name.startswith(NOT_SHELL))


def build(web: Traversable) -> tuple[str, list[str]]:
    """(version, URLs): the version hashes every cached file's name and bytes, the page and the manifest included."""
    names = sorted({*shell_files(web), "index.html", "manifest.webmanifest"})
    digest = hashlib.sha256()
    for name in names:
        data = (web / name).read_bytes()
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    urls = ["/", "/manifest.webmanifest", *(f"/static/{n}" for n in shell_files(web))]
    return digest.hexdigest()[:16], urls


def worker_source(web: Traversable) -> bytes:
    """``web/sw.js`` with its BUILD line written."""
    version, urls = build(web)
    data = msgspec.json.encode({"version": version, "files": urls}).decode()
    line = f"const BUILD = {data}; // written by the server"
    text, n = BUILD_LINE.subn(line.replace("\\", "\\\\"), (web / "sw.js").read_text(encoding="utf-8"), count=1)
    if n != 1:
        raise RuntimeError("web/sw.js has no BUILD line")
    return text.encode()


def pwa_routes() -> list[Route]:
    """``/manifest.webmanifest`` and ``/sw.js`` (read once: a new version of the files comes with a restart)."""
    web = resources.files("daer") / "web"
    manifest = (web / "manifest.webmanifest").read_bytes()
    worker = worker_source(web)

    async def manifest_file(_request: Request) -> Response:
        return Response(manifest, media_type="application/manifest+json")

    async def worker_file(_request: Request) -> Response:
        return Response(worker, media_type="text/javascript", headers={"Cache-Control": "no-cache"})

    return [Route("/manifest.webmanifest", manifest_file), Route("/sw.js", worker_file)]
