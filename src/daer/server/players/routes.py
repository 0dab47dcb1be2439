"""The 我的 endpoints (``/api/me…``) and the second device's one-time link (docs/protocol.md, "Players").

Every endpoint reads who asks from the cookie only — none takes a player id — so a player can reach only
their own data; a request without a live player's cookie gets 401 (``no_player``).  POSTs pass the guard
(:mod:`daer.server.safety.guard`: JSON content type, an allowed Origin) like the room API.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from importlib import resources
from typing import Any

import msgspec
import segno
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from daer.server.players.identity import (
    AVATARS,
    NICK_MAX,
    Players,
    clean_nickname,
    err,
    json_body,
    new_secret,
    secret_hash,
)
from daer.server.players.passkeys import passkey_routes
from daer.server.safety.limits import Limits
from daer.store.players import PlayerRow

LINK_TTL = 600.0
"""Seconds a second device's sign-in link lasts (it is spent by its first use)."""


class ProfileBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/me``: a new nickname and/or avatar."""

    nickname: str | None = None
    avatar: str | None = None


class RedeemBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/me/link/redeem``: the secret of a one-time link."""

    secret: str


class DeleteBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/me/delete``: ``confirm`` must be ``"删除"`` (a slip of the finger deletes nothing)."""

    confirm: str


def me_json(players: Players, player: PlayerRow) -> dict[str, Any]:
    """What ``GET /api/me`` answers."""
    return {"signed_in": True, "id": player.id, "nickname": player.nickname, "avatar": player.avatar,
            "created_at": player.created_at,
            "devices": len(players.db.sessions(player.id)), "passkeys": len(players.db.passkeys_of(player.id)),
            "avatars": list(AVATARS), "nickname_max": NICK_MAX}


def player_routes(players: Players, limits: Limits,
                  on_delete: Callable[[int, list[tuple[str, int]]], None]) -> list[Route]:
    """The routes; ``on_delete`` gets a deleted player's id and the seats their name left (live rooms rename them
    too; their clubs let them go)."""

    def asking(request: Request) -> PlayerRow | JSONResponse:
        return players.asking(request, limits)

    async def page(_request: Request) -> Response:
        return FileResponse(str(resources.files("daer") / "web" / "me.html"))

    async def me(request: Request) -> Response:
        player = asking(request)
        if isinstance(player, JSONResponse):  # who am I: "nobody" is an answer, not an error
            return JSONResponse({"signed_in": False}) if player.status_code == 401 else player
        return JSONResponse(me_json(players, player))

    async def edit(request: Request) -> Response:
        player = asking(request)
        if isinstance(player, JSONResponse):
            return player
        body = await json_body(request, ProfileBody)
        if isinstance(body, Response):
            return body
        nickname = None
        if body.nickname is not None:
            nickname = clean_nickname(body.nickname)
            if nickname is None:
                return err(400, "bad_nickname", f"昵称须是 1–{NICK_MAX} 个字，不能有控制字符",
                           f"a nickname is 1–{NICK_MAX} characters, no control characters")
        if body.avatar is not None and body.avatar not in AVATARS:
            return err(400, "bad_avatar", "没有这个头像", f"no such avatar; one of {list(AVATARS)}")
        players.db.update(player.id, nickname=nickname, avatar=body.avatar)
        fresh = players.current(request)
        assert fresh is not None
        return JSONResponse(me_json(players, fresh))

    async def sign_out(request: Request) -> Response:
        player = asking(request)
        if isinstance(player, JSONResponse):
            return player
        secret = players.secret_of(request)
        if secret is not None:
            players.db.drop_session(secret_hash(secret))
        res = JSONResponse({"signed_out": 1})
        players.clear_cookie(request, res)
        return res

    async def sign_out_others(request: Request) -> Response:
        player = asking(request)
        if isinstance(player, JSONResponse):
            return player
        return JSONResponse({"signed_out": players.db.drop_other_sessions(player.id, player.session_id)})

    async def export(request: Request) -> Response:
        player = asking(request)
        if isinstance(player, JSONResponse):
            return player
        data = {"format": "daer-player-export/1", "exported_at": time.time(), **players.db.export(player)}
        return Response(msgspec.json.encode(data), media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="daer-player-{player.id}.json"',
                                 "Cache-Control": "no-store"})

    async def delete_me(request: Request) -> Response:
        player = asking(request)
        if isinstance(player, JSONResponse):
            return player
        body = await json_body(request, DeleteBody)
        if isinstance(body, Response):
            return body
        if body.confirm != "删除":
            return err(400, "not_confirmed", "请输入“删除”确认注销", 'type "删除" to confirm the deletion')
        seats = players.db.delete(player.id)
        on_delete(player.id, seats)
        res = JSONResponse({"deleted": True, "seats_renamed": len(seats)})
        players.clear_cookie(request, res)
        return res

    async def new_link(request: Request) -> Response:
        player = asking(request)
        if isinstance(player, JSONResponse):
            return player
        refused = limits.check("signin_link", request)
        if refused is not None:
            return refused
        secret = new_secret()
        players.db.new_token("link", secret_hash(secret), player.id, LINK_TTL)
        url = f"{request.url.scheme}://{request.url.netloc}/me#link={secret}"
        qr = segno.make(url, error="m").svg_data_uri(scale=4, border=2)
        return JSONResponse({"url": url, "qr": qr, "expires_in": int(LINK_TTL)}, headers={"Cache-Control": "no-store"})

    async def redeem(request: Request) -> Response:
        refused = limits.check("signin", request)  # a stranger may ask (that is the point): counted per address
        if refused is not None:
            return refused
        body = await json_body(request, RedeemBody)
        if isinstance(body, Response):
            return body
        owner = False if len(body.secret) > 128 else players.db.take_token("link", secret_hash(body.secret))
        if isinstance(owner, bool):
            return err(400, "bad_link", "链接无效、已用过或已过期，请在原设备上重新生成",
                       "the link is invalid, used or expired; make a new one on the first device")
        res = JSONResponse({"signed_in": True})
        players.sign_in(request, res, owner, "link")
        return res

    return [
        Route("/me", page), Route("/api/me", me), Route("/api/me", edit, methods=["POST"]),
        Route("/api/me/signout", sign_out, methods=["POST"]),
        Route("/api/me/signout-others", sign_out_others, methods=["POST"]),
        Route("/api/me/export", export), Route("/api/me/delete", delete_me, methods=["POST"]),
        Route("/api/me/links", new_link, methods=["POST"]),
        Route("/api/me/link/redeem", redeem, methods=["POST"]),
        *passkey_routes(players, limits),
    ]
