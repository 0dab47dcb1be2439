"""Who asks: the player cookie, the player it signs in, and a player made at a first seat.

The cookie ``daer_player`` holds 32 random bytes (``secrets.token_urlsafe``); the store keeps only its
SHA-256.  It is ``HttpOnly``, ``SameSite=Lax``, ``Path=/``, ``Secure`` when the page is served over https,
and lasts :data:`COOKIE_DAYS` days from the last seat taken or sign-in.  A player is made only by a seat taken
(``POST /api/rooms``, ``POST /api/rooms/{code}/join``) — never by a page view — at most as often as the
``player`` rate of :mod:`daer.server.safety.limits` allows per address; past it the seat is still given,
unlinked.
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from daer.server.safety.limits import Limits, address_of
from daer.store.players import PlayerRow, PlayerStore

if TYPE_CHECKING:
    from daer.store import Store

COOKIE = "daer_player"
COOKIE_DAYS = 400
"""How long a device stays signed in without a visit that renews it (browsers cap cookies at 400 days)."""
MAX_SECRET = 128
"""A cookie or secret longer than this is not one of ours (never hashed, never looked up)."""
AVATARS = tuple(f"c{i}" for i in range(8))
"""The avatars: the nickname's first character on one of eight colours (``c0``…``c7``, drawn by the page)."""
NICK_MAX = 16
"""Characters a nickname may have (after trimming); at least one."""
MAX_BODY = 4096
"""Bytes a player request's body may have (a passkey's answer is the largest: ~1.5 kB)."""


def new_secret() -> str:
    """A fresh secret: 32 random bytes, base64url (43 characters)."""
    return secrets.token_urlsafe(32)


def secret_hash(secret: str) -> str:
    """What the store keeps of a secret: SHA-256 hex (the secret has 256 random bits: no salt or slow hash
    is needed against guessing)."""
    return hashlib.sha256(f"daer-player:{secret}".encode()).hexdigest()


def err(status: int, code: str, zh: str, en: str) -> JSONResponse:
    """An error answer, Chinese first (the room API's shape)."""
    return JSONResponse({"error": code, "zh": zh, "en": en}, status_code=status)


def no_player() -> JSONResponse:
    """401: the request carries no cookie of a live player."""
    return err(401, "no_player", "你还没有登录（坐下打一局或加入亲友圈就会自动创建玩家）",
               "not signed in (taking a seat or joining a club makes a player)")


Body = TypeVar("Body", bound=msgspec.Struct)


async def json_body(request: Request, kind: type[Body]) -> Body | Response:
    """The request's body as ``kind`` (bounded, unknown fields refused), or a 400/413 answer."""
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            return err(413, "too_big", f"请求太大（上限 {MAX_BODY} 字节）",
                       f"request too large (limit {MAX_BODY} bytes)")
    try:
        return msgspec.json.decode(raw or b"{}", type=kind)
    except msgspec.ValidationError as exc:
        return err(400, "bad_request", f"请求不对：{exc}", f"bad request: {exc}")
    except msgspec.DecodeError:
        return err(400, "bad_json", "请求不是有效的 JSON", "request body is not valid JSON")


def clean_nickname(text: str) -> str | None:
    """A nickname as kept (trimmed), or None when it is empty, too long or holds control characters."""
    text = unicodedata.normalize("NFC", text).strip()
    if not 1 <= len(text) <= NICK_MAX:
        return None
    if any(unicodedata.category(ch)[0] == "C" for ch in text):
        return None
    return text


def default_nickname() -> str:
    """A new player's nickname when their seat had no name: 玩家 and four digits."""
    return f"玩家{secrets.randbelow(10000):04d}"


class Players:
    """The players of a server: ``Players(store_of, limits)``; ``store_of`` gives the started store."""

    def __init__(self, store_of: Callable[[], Store], limits: Limits) -> None:
        self.store_of = store_of
        self.limits = limits
        self._stores: dict[int, PlayerStore] = {}

    @property
    def db(self) -> PlayerStore:
        """The player tables of the server's store."""
        store = self.store_of()
        got = self._stores.get(id(store))
        if got is None:
            got = self._stores[id(store)] = PlayerStore(store.engine)
        return got

    @staticmethod
    def secret_of(request: Request) -> str | None:
        """The cookie's secret, if it has the shape of one."""
        secret = request.cookies.get(COOKIE)
        return secret if secret and len(secret) <= MAX_SECRET else None

    def asking(self, request: Request, limits: Limits) -> PlayerRow | JSONResponse:
        """The live player of a request to a signed-in endpoint (counted in the ``me`` bucket), or the 429 / 401
        answer to give instead."""
        refused = limits.check("me", request)
        if refused is not None:
            return refused
        player = self.current(request)
        return no_player() if player is None else player

    def current(self, request: Request) -> PlayerRow | None:
        """The live player the request's cookie signs in (None: a stranger, signed out, or deleted)."""
        secret = self.secret_of(request)
        return None if secret is None else self.db.by_session(secret_hash(secret))

    @staticmethod
    def set_cookie(request: Request, response: Response, secret: str) -> None:
        """Sign this device in (the cookie's attributes: the module's docstring)."""
        response.set_cookie(COOKIE, secret, max_age=COOKIE_DAYS * 86400, path="/", httponly=True, samesite="lax",
                            secure=request.url.scheme == "https")

    @staticmethod
    def clear_cookie(request: Request, response: Response) -> None:
        """Forget the cookie on this device."""
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax",
                               secure=request.url.scheme == "https")

    def sign_in(self, request: Request, response: Response, player_id: int, how: str) -> None:
        """A new session of ``player_id`` on this device (a session it held before is signed out)."""
        old = self.secret_of(request)
        if old is not None:
            self.db.drop_session(secret_hash(old))
        secret = new_secret()
        self.db.add_session(player_id, secret_hash(secret), how)
        self.set_cookie(request, response, secret)

    def seated(self, request: Request, response: Response, code: str, seat: int, name: str) -> int | None:
        """A seat was taken: link it to the asking player, made now (cookie set on ``response``) when the
        request has none and the address's ``player`` rate allows; the player's id (None: unlinked)."""
        player = self.current(request)
        if player is not None:
            pid = player.id
            self.set_cookie(request, response, str(self.secret_of(request)))  # a seat renews the cookie's life
        else:
            if self.limits.retry_after("player", address_of(request)) > 0:
                return None
            secret = new_secret()
            pid = self.db.create(clean_nickname(name) or default_nickname(), AVATARS[secrets.randbelow(len(AVATARS))],
                                 secret_hash(secret))
            self.set_cookie(request, response, secret)
        self.db.link_seat(pid, code, seat)
        return pid

    def touch(self, request: Request, response: Response) -> PlayerRow | None:
        """The asking player, made now (cookie set on ``response``) for a person without one — the first touch
        of a club — when the address's ``player`` rate allows (None: it does not)."""
        player = self.current(request)
        if player is not None:
            return player
        if self.limits.retry_after("player", address_of(request)) > 0:
            return None
        secret = new_secret()
        self.db.create(default_nickname(), AVATARS[secrets.randbelow(len(AVATARS))], secret_hash(secret),
                       how="club")
        self.set_cookie(request, response, secret)
        return self.db.by_session(secret_hash(secret))

    def nickname(self, request: Request) -> str:
        """The asking player's nickname, for a seat taken without a typed name ("" for a stranger)."""
        player = self.current(request)
        return "" if player is None else player.nickname

    def seated_answer(self, request: Request, answer: dict[str, object], code: str, seat: int,
                      name: str) -> JSONResponse:
        """The answer to a create or a join, its seat linked to the asking player (:meth:`seated`)."""
        res = JSONResponse(answer)
        self.seated(request, res, code, seat, name)
        return res
