"""The club endpoints of membership: invite links, join requests, roles, removing and banning, leaving,
transferring and dissolving (docs/clubs.md).  Each passes the role gate (:class:`daer.server.clubs.access.Clubs`)
on every request.
"""

from __future__ import annotations

import msgspec
import segno
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from daer.server.clubs.access import Asked, Clubs, path_int, with_cookie
from daer.server.clubs.live import ClubHub
from daer.server.players.identity import err, json_body, new_secret, no_player, secret_hash
from daer.server.safety.limits import Limits
from daer.store.clubs import ClubRow

INVITE_HOURS = (1, 720)
"""Hours an invite link may last."""
INVITE_USES = (1, 500)
"""Players an invite link may let in."""
INVITES_MAX = 20
"""Live invite links a club may have."""
REQUESTS_MAX = 200
"""Pending join requests a club may have."""
JOINED_MAX = 50
"""Clubs one player may belong to."""


class InviteBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/clubs/{n}/invites``: how long the link lasts and how many it lets in."""

    hours: int = 72
    uses: int = 20


class SecretBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/clubs/join``: an invite link's secret."""

    secret: str


class NumberBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/clubs/requests``: the club number asked to join."""

    number: str


class AnswerBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/clubs/{n}/requests/{id}``."""

    approve: bool


class RoleBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/clubs/{n}/members/{pid}``."""

    role: str


class ToBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/clubs/{n}/transfer``."""

    to: int


class ConfirmBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/clubs/{n}/dissolve``: ``confirm`` must be ``"解散"``."""

    confirm: str


def too_many_joined() -> JSONResponse:
    """409: the asker belongs to :data:`JOINED_MAX` clubs already."""
    return err(409, "too_many_joined", f"每人最多加入 {JOINED_MAX} 个亲友圈", f"at most {JOINED_MAX} clubs each")


def member_routes(clubs: Clubs, limits: Limits, hub: ClubHub) -> list[Route]:
    """The routes."""
    players = clubs.players
    acting = clubs.acting

    # -- invites and requests -----------------------------------------------------------------------------
    async def new_invite(request: Request) -> Response:
        asked = acting(request, "admin")
        if isinstance(asked, JSONResponse):
            return asked
        refused = limits.check("club_invite", request)
        if refused is not None:
            return refused
        body = await json_body(request, InviteBody)
        if isinstance(body, Response):
            return body
        if not INVITE_HOURS[0] <= body.hours <= INVITE_HOURS[1] or not INVITE_USES[0] <= body.uses <= INVITE_USES[1]:
            return err(400, "bad_invite", "有效期须是 1–720 小时，次数 1–500 次", "hours must be 1-720, uses 1-500")
        if len(clubs.db.invites(asked.club.id)) >= INVITES_MAX:
            return err(409, "too_many_invites", f"最多同时有 {INVITES_MAX} 个邀请链接，请先撤销旧的",
                       f"at most {INVITES_MAX} live invite links; revoke one first")
        secret = new_secret()
        iid = clubs.db.new_invite(asked.club.id, asked.player.id, secret_hash(secret), body.hours * 3600.0, body.uses)
        url = f"{request.url.scheme}://{request.url.netloc}/clubs#invite={secret}"
        qr = segno.make(url, error="m").svg_data_uri(scale=4, border=2)
        hub.publish(asked.club.id, "invites")
        return JSONResponse({"id": iid, "url": url, "qr": qr, "expires_in": body.hours * 3600, "max_uses": body.uses},
                            headers={"Cache-Control": "no-store"})

    async def revoke_invite(request: Request) -> Response:
        asked = acting(request, "admin")
        if isinstance(asked, JSONResponse):
            return asked
        iid = path_int(request, "id")
        if iid is None or not clubs.db.revoke_invite(asked.club.id, iid):
            return err(404, "no_invite", "没有这个邀请链接", "no such invite")
        hub.publish(asked.club.id, "invites")
        return JSONResponse({"revoked": iid})

    async def invite_info(request: Request) -> Response:
        refused = limits.check("signin", request)  # a stranger asks: counted per address
        if refused is not None:
            return refused
        secret = request.query_params.get("secret", "")
        club = clubs.db.invite_club(secret_hash(secret)) if 0 < len(secret) <= 128 else None
        if club is None:
            return err(404, "bad_invite", "邀请链接无效、已用完或已过期", "the invite is invalid, used up or expired")
        return JSONResponse({"number": club.number, "name": club.name, "members": clubs.db.member_count(club.id)})

    def _joined(status: str, club: ClubRow | None, res: Response) -> Response:
        if status == "banned":
            return err(403, "banned", "你已被禁止加入这个亲友圈", "you are banned from this club")
        if status == "full":
            return err(409, "club_full", "亲友圈人数已满", "the club is full")
        if status == "bad" or club is None:
            return err(404, "bad_invite", "邀请链接无效、已用完或已过期", "the invite is invalid, used up or expired")
        if status == "joined":
            hub.publish(club.id, "members")
        return with_cookie(res, {"number": club.number, "name": club.name, "status": status})

    async def join(request: Request) -> Response:
        refused = limits.check("signin", request)
        if refused is not None:
            return refused
        body = await json_body(request, SecretBody)
        if isinstance(body, Response):
            return body
        if not 0 < len(body.secret) <= 128:
            return err(404, "bad_invite", "邀请链接无效、已用完或已过期", "the invite is invalid, used up or expired")
        res = Response()
        if clubs.db.invite_club(secret_hash(body.secret)) is None:
            return _joined("bad", None, res)
        player = players.touch(request, res)
        if player is None:
            return no_player()
        if len(clubs.db.clubs_of(player.id)) >= JOINED_MAX:
            return too_many_joined()
        status, club = clubs.db.use_invite(secret_hash(body.secret), player.id)
        return _joined(status, club, res)

    async def ask(request: Request) -> Response:
        refused = limits.check("club_request", request)
        if refused is not None:
            return refused
        body = await json_body(request, NumberBody)
        if isinstance(body, Response):
            return body
        club = clubs.club(body.number.strip())
        if club is None:
            return err(404, "no_club", "没有这个亲友圈号", "no club has this number")
        res = Response()
        player = players.touch(request, res)
        if player is None:
            return no_player()
        if len(clubs.db.requests(club.id)) >= REQUESTS_MAX:
            return err(409, "too_many_requests", "这个亲友圈待处理的申请太多，请稍后再试",
                       "the club has too many pending requests; try later")
        status = clubs.db.request(club.id, player.id)
        if status == "banned":
            return err(403, "banned", "你已被禁止加入这个亲友圈", "you are banned from this club")
        if status == "pending":
            hub.publish(club.id, "requests")
        return with_cookie(res, {"number": club.number, "name": club.name, "status": status})

    async def answer(request: Request) -> Response:
        asked = acting(request, "admin")
        if isinstance(asked, JSONResponse):
            return asked
        body = await json_body(request, AnswerBody)
        if isinstance(body, Response):
            return body
        rid = path_int(request, "id")
        status, _pid = ("bad", None) if rid is None else clubs.db.answer_request(asked.club, rid, body.approve)
        if status == "bad":
            return err(404, "no_request", "没有这个申请（或已处理）", "no such pending request")
        if status == "full":
            return err(409, "club_full", "亲友圈人数已满", "the club is full")
        hub.publish(asked.club.id, "members")
        return JSONResponse({"status": status})

    # -- members ----------------------------------------------------------------------------------------
    def _target(request: Request, asked: Asked) -> tuple[int, str | None] | JSONResponse:
        pid = path_int(request, "pid")
        if pid is None:
            return err(404, "no_member", "没有这个成员", "no such member")
        return pid, clubs.db.role_of(asked.club.id, pid)

    async def set_role(request: Request) -> Response:
        asked = acting(request, "owner")
        if isinstance(asked, JSONResponse):
            return asked
        body = await json_body(request, RoleBody)
        if isinstance(body, Response):
            return body
        target = _target(request, asked)
        if isinstance(target, JSONResponse):
            return target
        pid, role = target
        if body.role not in ("admin", "member"):
            return err(400, "bad_role", "角色须是 admin（管理员）或 member（成员）；转让群主请用“转让”",
                       "role must be admin or member (transfer the club to make an owner)")
        if role is None or role == "owner":
            return err(404, "no_member", "没有这个成员", "no such member")
        clubs.db.set_role(asked.club.id, pid, body.role)
        hub.publish(asked.club.id, "members")
        return JSONResponse({"id": pid, "role": body.role})

    def _removing(request: Request, ban: bool) -> Response:
        asked = acting(request, "admin")
        if isinstance(asked, JSONResponse):
            return asked
        target = _target(request, asked)
        if isinstance(target, JSONResponse):
            return target
        pid, role = target
        if pid == asked.player.id:
            return err(400, "self", "不能移出自己（请用“退出”）", "you cannot remove yourself (leave instead)")
        if role is None and not ban:
            return err(404, "no_member", "没有这个成员", "no such member")
        if role == "owner" or (role == "admin" and asked.role != "owner"):
            return err(403, "not_owner", "只有群主可以移出管理员，群主不能被移出",
                       "only the owner may remove an admin; nobody removes the owner")
        if ban and role is None and pid not in {r["player"] for r in clubs.db.requests(asked.club.id)}:
            return err(404, "no_member", "只能禁止本圈成员或申请加入的人", "ban a member or someone asking to join")
        clubs.db.remove(asked.club.id, pid, ban_by=asked.player.id if ban else None)
        hub.publish(asked.club.id, "members")
        return JSONResponse({"id": pid, "removed": True, "banned": ban})

    async def remove(request: Request) -> Response:
        return _removing(request, False)

    async def ban(request: Request) -> Response:
        return _removing(request, True)

    async def unban(request: Request) -> Response:
        asked = acting(request, "admin")
        if isinstance(asked, JSONResponse):
            return asked
        pid = path_int(request, "pid")
        if pid is None:
            return err(404, "no_member", "没有这个玩家", "no such player")
        clubs.db.unban(asked.club.id, pid)
        hub.publish(asked.club.id, "members")
        return JSONResponse({"id": pid, "banned": False})

    async def leave(request: Request) -> Response:
        asked = acting(request, "member")
        if isinstance(asked, JSONResponse):
            return asked
        if asked.role == "owner":
            return err(409, "owner_leaves", "群主请先把亲友圈转让给别人，或解散它",
                       "the owner transfers the club (or dissolves it) first")
        clubs.db.remove(asked.club.id, asked.player.id)
        hub.publish(asked.club.id, "members")
        return JSONResponse({"left": asked.club.number})

    async def transfer(request: Request) -> Response:
        asked = acting(request, "owner")
        if isinstance(asked, JSONResponse):
            return asked
        body = await json_body(request, ToBody)
        if isinstance(body, Response):
            return body
        if body.to == asked.player.id or clubs.db.role_of(asked.club.id, body.to) is None:
            return err(404, "no_member", "只能转让给本圈的其他成员", "transfer to another member of the club")
        clubs.db.transfer(asked.club.id, asked.player.id, body.to)
        hub.publish(asked.club.id, "members")
        return JSONResponse({"owner": body.to})

    async def dissolve(request: Request) -> Response:
        asked = acting(request, "owner")
        if isinstance(asked, JSONResponse):
            return asked
        body = await json_body(request, ConfirmBody)
        if isinstance(body, Response):
            return body
        if body.confirm != "解散":
            return err(400, "not_confirmed", "请输入“解散”确认", 'type "解散" to confirm')
        clubs.db.dissolve(asked.club.id)
        hub.publish(asked.club.id, "dissolved")
        return JSONResponse({"dissolved": asked.club.number})

    return [
        Route("/api/clubs/join", join, methods=["POST"]), Route("/api/clubs/invite", invite_info),
        Route("/api/clubs/requests", ask, methods=["POST"]),
        Route("/api/clubs/{n}/invites", new_invite, methods=["POST"]),
        Route("/api/clubs/{n}/invites/{id}/revoke", revoke_invite, methods=["POST"]),
        Route("/api/clubs/{n}/requests/{id}", answer, methods=["POST"]),
        Route("/api/clubs/{n}/members/{pid}", set_role, methods=["POST"]),
        Route("/api/clubs/{n}/members/{pid}/remove", remove, methods=["POST"]),
        Route("/api/clubs/{n}/members/{pid}/ban", ban, methods=["POST"]),
        Route("/api/clubs/{n}/members/{pid}/unban", unban, methods=["POST"]),
        Route("/api/clubs/{n}/leave", leave, methods=["POST"]),
        Route("/api/clubs/{n}/transfer", transfer, methods=["POST"]),
        Route("/api/clubs/{n}/dissolve", dissolve, methods=["POST"]),
    ]
