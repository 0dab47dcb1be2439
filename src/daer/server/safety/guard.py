"""HTTP hardening as one ASGI middleware: security headers, allowed origins, JSON-only POST bodies.

- Every HTTP answer carries a Content-Security-Policy with no inline script or style attribute
  (``frame-ancestors 'none'``), ``X-Content-Type-Options: nosniff``, ``X-Frame-Options: DENY`` and
  ``Referrer-Policy: no-referrer`` (replay and room links carry the room code).
- A WebSocket handshake or a state-changing request (POST, PUT, PATCH, DELETE) whose ``Origin`` is not
  allowed is refused (403; the socket is closed before it opens).  Allowed: the configured origins, or by
  default the page's own origin (the ``Host`` header).  A request without ``Origin`` (not a browser:
  scripts, the tests) is let through — the origin check guards browsers against other sites.
- A state-changing request must say ``Content-Type: application/json`` (or ``application/x-ndjson``,
  JSON Lines for ``POST /api/score``; 415 otherwise), so no ``<form>`` or ``text/plain`` cross-site
  request reaches the API.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import msgspec
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
]
UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}
JSON_TYPES = frozenset({"application/json", "application/x-ndjson"})
"""Content types a state-changing request may have (neither is one a cross-site form can send)."""


def _header(scope: Scope, name: bytes) -> str | None:
    for k, v in scope.get("headers", ()):
        if k == name:
            return str(v.decode("latin-1"))
    return None


def origin_allowed(origin: str | None, host: str | None, allowed: tuple[str, ...]) -> bool:
    """True when a request from ``origin`` may change state on the server reached as ``host``."""
    if origin is None:
        return True
    origin = origin.rstrip("/")
    if allowed:
        return origin in allowed
    if host is None:
        return False
    return urlsplit(origin).netloc.lower() == host.lower()


class Guard:
    """The middleware (``Guard(app, allowed_origins)``)."""

    def __init__(self, app: ASGIApp, allowed_origins: tuple[str, ...] = ()) -> None:
        self.app = app
        self.allowed = tuple(o.rstrip("/") for o in allowed_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "websocket":
            if not origin_allowed(_header(scope, b"origin"), _header(scope, b"host"), self.allowed):
                await send({"type": "websocket.close", "code": 1008, "reason": "origin not allowed"})
                return
            await self.app(scope, receive, send)
            return
        if kind != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] in UNSAFE:
            if not origin_allowed(_header(scope, b"origin"), _header(scope, b"host"), self.allowed):
                await _refuse(send, 403, "bad_origin", "不允许从这个网站发出请求", "origin not allowed")
                return
            ctype = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
            if ctype not in JSON_TYPES:
                await _refuse(send, 415, "bad_content_type", "请求须是 JSON（Content-Type: application/json）",
                              "Content-Type must be application/json")
                return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _refuse(send: Send, status: int, code: str, zh: str, en: str) -> None:
    body = msgspec.json.encode({"error": code, "zh": zh, "en": en})
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *HEADERS]})
    await send({"type": "http.response.body", "body": body})
