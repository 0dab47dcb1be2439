"""Passkeys (WebAuthn, through the ``webauthn`` library): register one on 我的, sign in with it when every
device is lost.

Each ceremony is two POSTs: ``…/begin`` answers the options (``PublicKeyCredentialCreationOptions`` or
``…RequestOptions`` as JSON) with a fresh 32-byte challenge, stored hashed as a single-use secret of
:data:`CHALLENGE_TTL` seconds (bound to the player for a registration); ``…/finish`` takes the browser's
credential, spends the challenge it signed, and lets the library verify origin, RP id, signature and counter.
The RP id is the page's host name; the expected origin the request's ``Origin`` (the guard has checked it).
"""

from __future__ import annotations

import hashlib
from typing import Any
from urllib.parse import urlsplit

import msgspec
import webauthn
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from webauthn.helpers import bytes_to_base64url, parse_client_data_json
from webauthn.helpers.exceptions import InvalidAuthenticationResponse, InvalidJSONStructure, InvalidRegistrationResponse
from webauthn.helpers.parse_authentication_credential_json import parse_authentication_credential_json
from webauthn.helpers.parse_registration_credential_json import parse_registration_credential_json
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from daer.server.players.identity import Players, err, json_body, secret_hash
from daer.server.safety.limits import Limits

CHALLENGE_TTL = 300.0
"""Seconds a passkey challenge may be answered in (once)."""
MAX_PASSKEYS = 10
"""Passkeys one player may register."""
RP_NAME = "大贰"


class CredentialBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``…/finish``: the browser's ``PublicKeyCredential`` as JSON (``toJSON()``)."""

    credential: dict[str, Any]


def _origin(request: Request) -> tuple[str, str]:
    """The expected origin and RP id of a ceremony."""
    origin = request.headers.get("origin") or f"{request.url.scheme}://{request.url.netloc}"
    return origin.rstrip("/"), urlsplit(origin).hostname or ""


def _user_handle(player_id: int) -> bytes:
    """The WebAuthn user handle of a player (opaque: not the id in the clear)."""
    return hashlib.sha256(f"daer-player-handle:{player_id}".encode()).digest()[:16]


def _refused() -> JSONResponse:
    return err(400, "bad_passkey", "通行密钥验证失败，请重试", "the passkey could not be verified; try again")


def _options(options: Any) -> Response:
    return Response(webauthn.options_to_json(options), media_type="application/json",
                    headers={"Cache-Control": "no-store"})


def passkey_routes(players: Players, limits: Limits) -> list[Route]:
    """``/api/me/passkeys/{begin,finish}`` (signed in) and ``/api/passkeys/{begin,finish}`` (signing in)."""

    def live_challenge(kind: str, client_data_json: bytes, player_id: int | None = None) -> bytes | None:
        """The challenge a credential answers, when it is a live one of ``kind`` (and of ``player_id``): spent
        here, so a challenge works once; None otherwise."""
        challenge = parse_client_data_json(client_data_json).challenge
        if players.db.take_token(kind, secret_hash(bytes_to_base64url(challenge)), player_id) is False:
            return None
        return challenge

    async def register_begin(request: Request) -> Response:
        player = players.asking(request, limits)
        if isinstance(player, JSONResponse):
            return player
        have = players.db.passkeys_of(player.id)
        if len(have) >= MAX_PASSKEYS:
            return err(409, "too_many_passkeys", f"最多 {MAX_PASSKEYS} 个通行密钥", f"at most {MAX_PASSKEYS} passkeys")
        _origin_url, rp_id = _origin(request)
        options = webauthn.generate_registration_options(
            rp_id=rp_id, rp_name=RP_NAME, user_name=player.nickname, user_display_name=player.nickname,
            user_id=_user_handle(player.id),
            exclude_credentials=[PublicKeyCredentialDescriptor(id=webauthn.base64url_to_bytes(k["id"]))
                                 for k in have],
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED, user_verification=UserVerificationRequirement.PREFERRED))
        players.db.new_token("passkey_new", secret_hash(bytes_to_base64url(options.challenge)), player.id,
                             CHALLENGE_TTL)
        return _options(options)

    async def register_finish(request: Request) -> Response:
        player = players.asking(request, limits)
        if isinstance(player, JSONResponse):
            return player
        body = await json_body(request, CredentialBody)
        if isinstance(body, Response):
            return body
        origin, rp_id = _origin(request)
        try:
            cred = parse_registration_credential_json(body.credential)
            challenge = live_challenge("passkey_new", cred.response.client_data_json, player.id)
            if challenge is None:
                return _refused()
            done = webauthn.verify_registration_response(credential=cred, expected_challenge=challenge,
                                                         expected_rp_id=rp_id, expected_origin=origin)
        except (InvalidRegistrationResponse, InvalidJSONStructure, ValueError, KeyError, TypeError):
            return _refused()
        credential_id = bytes_to_base64url(done.credential_id)
        if players.db.passkey(credential_id) is not None:
            return err(409, "passkey_known", "这个通行密钥已经登记过了", "this passkey is registered already")
        players.db.add_passkey(player.id, credential_id, bytes_to_base64url(done.credential_public_key),
                               done.sign_count)
        return JSONResponse({"registered": True, "passkeys": len(players.db.passkeys_of(player.id))})

    async def signin_begin(request: Request) -> Response:
        refused = limits.check("signin", request)
        if refused is not None:
            return refused
        _origin_url, rp_id = _origin(request)
        options = webauthn.generate_authentication_options(rp_id=rp_id,
                                                           user_verification=UserVerificationRequirement.PREFERRED)
        players.db.new_token("passkey_in", secret_hash(bytes_to_base64url(options.challenge)), None, CHALLENGE_TTL)
        return _options(options)

    async def signin_finish(request: Request) -> Response:
        refused = limits.check("signin", request)
        if refused is not None:
            return refused
        body = await json_body(request, CredentialBody)
        if isinstance(body, Response):
            return body
        origin, rp_id = _origin(request)
        try:
            cred = parse_authentication_credential_json(body.credential)
            challenge = live_challenge("passkey_in", cred.response.client_data_json)
            if challenge is None:
                return _refused()
            key = players.db.passkey(bytes_to_base64url(cred.raw_id))
            if key is None:
                return err(400, "unknown_passkey", "这个通行密钥不属于任何玩家（账号可能已注销）",
                           "this passkey belongs to no player (the account may be deleted)")
            done = webauthn.verify_authentication_response(
                credential=cred, expected_challenge=challenge, expected_rp_id=rp_id, expected_origin=origin,
                credential_public_key=webauthn.base64url_to_bytes(key.public_key),
                credential_current_sign_count=key.sign_count)
        except (InvalidAuthenticationResponse, InvalidJSONStructure, ValueError, KeyError, TypeError):
            return _refused()
        players.db.passkey_used(key.credential_id, done.new_sign_count)
        res = JSONResponse({"signed_in": True})
        players.sign_in(request, res, key.player_id, "passkey")
        return res

    return [
        Route("/api/me/passkeys/begin", register_begin, methods=["POST"]),
        Route("/api/me/passkeys/finish", register_finish, methods=["POST"]),
        Route("/api/passkeys/begin", signin_begin, methods=["POST"]),
        Route("/api/passkeys/finish", signin_finish, methods=["POST"]),
    ]
