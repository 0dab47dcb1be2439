"""Players (issue 20, item 1): made at a first seat and never by a page view, the cookie's attributes, only
hashes stored, 我的 edits bounded, a second device's one-time link, sign out (this / every other device),
export, delete — and every endpoint against every role: a stranger (no cookie), a forged cookie, the player,
another player, a deleted player."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import text
from starlette.testclient import TestClient

from daer.server import create_app
from daer.server.players.identity import COOKIE, secret_hash
from daer.server.safety.limits import Limits, Rate
from daer.store import Store

HIGH = Rate(100000, 100000)
RATES = dict.fromkeys(("create", "join", "lookup", "player", "signin", "signin_link", "me"), HIGH)


def _app(db_url: str, **rates: Rate) -> TestClient:
    return TestClient(create_app(db_url, bot_delay=0.0, limits=Limits(rates={**RATES, **rates})))


@pytest.fixture
def client(tmp_path: Any) -> Iterator[TestClient]:
    with _app(f"sqlite:///{tmp_path / 'daer.db'}") as c:
        yield c


def as_(c: TestClient, secret: str | None) -> TestClient:
    """The client as the device holding ``secret`` (None: no cookie)."""
    c.cookies.clear()
    if secret is not None:
        c.cookies.set(COOKIE, secret, domain="testserver.local")  # where the jar keeps the server's own
    return c


def seat(c: TestClient, name: str = "阿明", secret: str | None = None) -> tuple[str | None, dict[str, Any]]:
    """Create a room from the device holding ``secret``: (the device's cookie afterwards, the answer)."""
    as_(c, secret)
    res = c.post("/api/rooms", json={"name": name, "config": {"timer": 0}})
    assert res.status_code == 200, res.text
    return c.cookies.get(COOKIE) or secret, res.json()


def signed_in(c: TestClient) -> bool:
    """Whether the client's cookie signs a live player in (``GET /api/me`` answers a stranger 200 too)."""
    res = c.get("/api/me")
    assert res.status_code == 200
    return bool(res.json()["signed_in"])


def players_in(c: TestClient) -> int:
    with c.app.state.manager.store.engine.connect() as conn:  # type: ignore[attr-defined]
        return int(conn.execute(text("SELECT count(*) FROM players")).scalar() or 0)


# -- made at a first seat, never by a view --------------------------------------------------------------
def test_a_page_view_or_a_crawler_makes_no_player(client: TestClient) -> None:
    for path in ("/", "/me", "/r/ABCDE", "/api/options", "/api/me", "/api/rooms/ABCDE", "/robots.txt"):
        res = as_(client, None).get(path)
        assert "set-cookie" not in res.headers, path
    assert players_in(client) == 0


def test_a_first_seat_makes_a_player_with_a_hashed_httponly_lax_cookie(client: TestClient) -> None:
    as_(client, None)
    res = client.post("/api/rooms", json={"name": "阿明", "config": {"timer": 0}})
    cookie = res.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert "Secure" not in cookie and "Max-Age=34560000" in cookie  # plain http: not Secure; 400 days
    secret = client.cookies[COOKIE]
    assert len(secret) >= 43  # 32 random bytes
    me = client.get("/api/me").json()
    assert me["nickname"] == "阿明" and me["avatar"] in me["avatars"] and me["devices"] == 1
    with client.app.state.manager.store.engine.connect() as conn:  # type: ignore[attr-defined]
        stored = conn.execute(text("SELECT secret_hash FROM player_sessions")).scalars().all()
        seats = conn.execute(text("SELECT room_code, seat FROM player_seats")).all()
    assert stored == [secret_hash(secret)] and secret not in stored[0]
    assert [tuple(s) for s in seats] == [(res.json()["code"], res.json()["seat"])]


def test_over_https_the_cookie_is_secure(tmp_path: Any) -> None:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'd.db'}", limits=Limits(rates=dict(RATES))),
                    base_url="https://testserver") as c:
        res = c.post("/api/rooms", json={"name": "A", "config": {"timer": 0}})
        assert "Secure" in res.headers["set-cookie"]


def test_the_seats_a_player_takes_are_theirs_and_a_friend_needs_no_sign_up(client: TestClient) -> None:
    secret, made = seat(client, "阿明")
    friend = as_(client, None).post(f"/api/rooms/{made['code']}/join", json={"name": "小红"})
    assert friend.status_code == 200  # no sign-up: a player is made for the friend on the way
    friend_secret = client.cookies[COOKIE]
    assert friend_secret != secret
    second = seat(client, "", secret)[1]  # no name typed: the seat takes the player's nickname
    mine = as_(client, secret).get("/api/me/export").json()
    assert [(s["room"], s["name"]) for s in mine["seats"]] == [(second["code"], "阿明"), (made["code"], "阿明")]
    theirs = as_(client, friend_secret).get("/api/me/export").json()
    assert [(s["room"], s["seat"], s["name"]) for s in theirs["seats"]] == [(made["code"], 1, "小红")]


def test_players_made_per_address_are_rate_limited_and_the_seat_is_still_given(tmp_path: Any) -> None:
    with _app(f"sqlite:///{tmp_path / 'd.db'}", player=Rate(0, 2)) as c:
        made = [seat(c, f"P{i}") for i in range(3)]
        assert all(m[1]["token"] for m in made)  # every seat given
        assert [m[0] is not None for m in made] == [True, True, False]  # the third made no player
        assert players_in(c) == 2


# -- 我的: bounded edits, rendered as text by the page (tests/web/test_me.py) -----------------------------------
@pytest.mark.parametrize("body", [{"nickname": ""}, {"nickname": "   "}, {"nickname": "x" * 17},
                                  {"nickname": "a\u0000b"}, {"nickname": "a\nb"}, {"avatar": "c99"},
                                  {"avatar": "<svg>"}, {"nickname": 5}, {"extra": 1}])
def test_a_bad_edit_is_refused_clearly_and_changes_nothing(client: TestClient, body: dict[str, Any]) -> None:
    secret, _ = seat(client, "阿明")
    before = as_(client, secret).get("/api/me").json()
    res = client.post("/api/me", json=body)
    assert res.status_code == 400 and res.json()["zh"] and res.json()["en"]
    assert client.get("/api/me").json() == before


def test_an_edit_changes_nickname_and_avatar_and_a_hostile_one_is_kept_verbatim(client: TestClient) -> None:
    secret, _ = seat(client, "阿明")
    res = as_(client, secret).post("/api/me", json={"nickname": "  <b>x</b>&\"'  ", "avatar": "c3"})
    assert res.status_code == 200
    me = client.get("/api/me").json()
    assert me["nickname"] == "<b>x</b>&\"'" and me["avatar"] == "c3"
    assert client.get("/api/me").headers["content-type"].startswith("application/json")


def test_posts_need_json_and_an_allowed_origin(client: TestClient) -> None:
    secret, _ = seat(client, "阿明")
    as_(client, secret)
    plain = client.post("/api/me", content=json.dumps({"nickname": "坏人"}), headers={"content-type": "text/plain"})
    assert plain.status_code == 415
    evil = client.post("/api/me", json={"nickname": "坏人"}, headers={"origin": "https://evil.example"})
    assert evil.status_code == 403
    for path in ("/api/me/delete", "/api/me/signout", "/api/me/links", "/api/me/signout-others"):
        res = client.post(path, json={"confirm": "删除"}, headers={"origin": "https://evil.example"})
        assert res.status_code == 403
    assert client.get("/api/me").json()["nickname"] == "阿明"


# -- a second device ------------------------------------------------------------------------------------------
def test_a_one_time_link_signs_a_second_device_in_once(client: TestClient) -> None:
    secret, _ = seat(client, "阿明")
    link = as_(client, secret).post("/api/me/links", json={}).json()
    assert link["qr"].startswith("data:image/svg+xml") and link["expires_in"] == 600
    key = link["url"].split("#link=")[1]
    assert len(key) >= 43
    with client.app.state.manager.store.engine.connect() as conn:  # type: ignore[attr-defined]
        assert conn.execute(text("SELECT secret_hash FROM player_tokens")).scalars().all() == [secret_hash(key)]
    res = as_(client, None).post("/api/me/link/redeem", json={"secret": key})
    assert res.status_code == 200 and "HttpOnly" in res.headers["set-cookie"]
    second = client.cookies[COOKIE]
    assert second != secret
    assert as_(client, second).get("/api/me").json()["id"] == as_(client, secret).get("/api/me").json()["id"]
    assert client.get("/api/me").json()["devices"] == 2
    again = as_(client, None).post("/api/me/link/redeem", json={"secret": key})
    assert again.status_code == 400 and again.json()["error"] == "bad_link" and "set-cookie" not in again.headers


def test_an_expired_link_or_a_guessed_one_signs_nobody_in(client: TestClient) -> None:
    secret, _ = seat(client, "阿明")
    key = as_(client, secret).post("/api/me/links", json={}).json()["url"].split("#link=")[1]
    with client.app.state.manager.store.engine.begin() as conn:  # type: ignore[attr-defined]
        conn.execute(text("UPDATE player_tokens SET expires_at = :t"), {"t": time.time() - 1})
    for guess in (key, key[:-1] + ("A" if key[-1] != "A" else "B"), "", "x" * 5000):
        res = as_(client, None).post("/api/me/link/redeem", json={"secret": guess})
        assert res.status_code in (400, 413) and "set-cookie" not in res.headers


def test_sign_in_links_are_rate_limited(tmp_path: Any) -> None:
    with _app(f"sqlite:///{tmp_path / 'd.db'}", signin_link=Rate(0, 2), signin=Rate(0, 3)) as c:
        secret, _ = seat(c, "阿明")
        as_(c, secret)
        assert [c.post("/api/me/links", json={}).status_code for _ in range(3)] == [200, 200, 429]
        tries = [as_(c, None).post("/api/me/link/redeem", json={"secret": f"guess{i}"}).status_code for i in range(4)]
        assert tries == [400, 400, 400, 429]


def test_sign_out_and_sign_out_every_other_device(client: TestClient) -> None:
    secret, _ = seat(client, "阿明")
    devices = [secret]
    for _ in range(2):
        key = as_(client, secret).post("/api/me/links", json={}).json()["url"].split("#link=")[1]
        as_(client, None).post("/api/me/link/redeem", json={"secret": key})
        devices.append(client.cookies[COOKIE])
    assert as_(client, devices[1]).post("/api/me/signout-others", json={}).json() == {"signed_out": 2}
    assert [signed_in(as_(client, d)) for d in devices] == [False, True, False]
    res = as_(client, devices[1]).post("/api/me/signout", json={})
    assert res.status_code == 200 and f'{COOKIE}=""' in res.headers["set-cookie"]
    assert not signed_in(as_(client, devices[1]))


# -- export and delete ------------------------------------------------------------------------------------------
def test_export_is_the_players_own_data_and_no_secret(client: TestClient) -> None:
    secret, made = seat(client, "阿明")
    res = as_(client, secret).get("/api/me/export")
    assert res.status_code == 200 and "attachment" in res.headers["content-disposition"]
    data = res.json()
    assert data["format"] == "daer-player-export/1" and data["player"]["nickname"] == "阿明"
    assert data["seats"][0]["room"] == made["code"] and len(data["devices"]) == 1
    assert secret not in res.text and secret_hash(secret) not in res.text


def test_delete_erases_the_name_and_secrets_and_shared_seats_say_deleted(client: TestClient) -> None:
    secret, made = seat(client, "阿明")
    friend_secret = as_(client, None).post(f"/api/rooms/{made['code']}/join", json={"name": "小红"}) and \
        client.cookies[COOKIE]
    key = as_(client, secret).post("/api/me/links", json={}).json()["url"].split("#link=")[1]
    wrong = client.post("/api/me/delete", json={"confirm": "yes"})
    assert wrong.status_code == 400 and signed_in(client)
    res = client.post("/api/me/delete", json={"confirm": "删除"})
    assert res.status_code == 200 and res.json()["seats_renamed"] == 1
    assert not signed_in(as_(client, secret))
    assert as_(client, None).post("/api/me/link/redeem", json={"secret": key}).status_code == 400
    room = as_(client, None).get(f"/api/rooms/{made['code']}").json()["room"]
    assert [s["name"] for s in room["seats"][:2]] == ["已注销玩家", "小红"]  # the live room too
    store: Store = client.app.state.manager.store  # type: ignore[attr-defined]
    with store.engine.connect() as conn:
        row = conn.execute(text("SELECT nickname, avatar, deleted_at FROM players ORDER BY id LIMIT 1")).one()
        assert row[0] is None and row[1] is None and row[2] is not None
        left = {t: conn.execute(text(f"SELECT count(*) FROM {t} WHERE player_id = 1")).scalar()
                for t in ("player_sessions", "player_tokens", "player_passkeys")}
        assert left == {"player_sessions": 0, "player_tokens": 0, "player_passkeys": 0}
        names = conn.execute(text("SELECT name FROM seats WHERE room_code = :c ORDER BY seat"),
                             {"c": made["code"]}).scalars().all()
        assert "阿明" not in names and "已注销玩家" in names
    assert as_(client, friend_secret).get("/api/me").json()["nickname"] == "小红"  # the friend is untouched


# -- every endpoint, every role ---------------------------------------------------------------------------------
SIGNED_IN = [("GET", "/api/me", None), ("POST", "/api/me", {"nickname": "改名"}),
             ("POST", "/api/me/signout-others", {}), ("GET", "/api/me/export", None),
             ("POST", "/api/me/links", {}), ("POST", "/api/me/passkeys/begin", {}),
             ("POST", "/api/me/passkeys/finish", {"credential": {"id": "x"}}),
             ("POST", "/api/me/signout", {}), ("POST", "/api/me/delete", {"confirm": "删除"})]
OPEN = [("POST", "/api/me/link/redeem", {"secret": "not-a-link"}), ("POST", "/api/passkeys/begin", {}),
        ("POST", "/api/passkeys/finish", {"credential": {"id": "x"}})]
ROLES = ["stranger", "forged", "player", "other", "deleted"]
EXPECTED = {  # status per (path, role): signed-in endpoints 401 for all but a live player
    **{(path, role): 401 for _m, path, _b in SIGNED_IN for role in ("stranger", "forged", "deleted")},
    **{("/api/me", role): 200 for role in ("stranger", "forged", "deleted")},  # GET: {"signed_in": false} …
    **{(path, role): 200 for _m, path, _b in SIGNED_IN for role in ("player", "other")},
    **{("/api/me/passkeys/finish", role): 400 for role in ("player", "other")},  # a junk credential
    **{("/api/me/link/redeem", role): 400 for role in ROLES},  # anyone may try a link: a wrong one is refused
    **{("/api/passkeys/begin", role): 200 for role in ROLES},
    **{("/api/passkeys/finish", role): 400 for role in ROLES},
}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("method", "path", "body"), SIGNED_IN + OPEN,
                         ids=[f"{m} {p}" for m, p, _b in SIGNED_IN + OPEN])
def test_every_endpoint_checks_who_asks(client: TestClient, method: str, path: str, body: dict[str, Any] | None,
                                        role: str) -> None:
    mine, _ = seat(client, "阿明")
    other, _ = seat(client, "小红")
    assert mine is not None and other is not None
    gone, _ = seat(client, "走了")
    assert as_(client, gone).post("/api/me/delete", json={"confirm": "删除"}).status_code == 200
    secret = {"stranger": None, "forged": "f" * 43, "player": mine, "other": other, "deleted": gone}[role]
    as_(client, secret)
    res = client.get(path) if method == "GET" else client.post(path, json=body)
    expected = EXPECTED[(path, role)]
    if method == "POST" and path == "/api/me" and role in ("stranger", "forged", "deleted"):
        expected = 401  # … but an edit needs a player
    assert res.status_code == expected, res.text
    if method == "GET" and path == "/api/me":
        assert res.json()["signed_in"] is (role in ("player", "other"))
    # whatever was asked, the first player's data is theirs alone
    after = as_(client, mine).get("/api/me")
    if role == "player" and path in ("/api/me/signout", "/api/me/delete"):
        assert after.json() == {"signed_in": False}
        return
    assert after.status_code == 200 and after.json()["nickname"] == ("改名" if role == "player" and path == "/api/me"
                                                                     and method == "POST" else "阿明")
    if role == "other" and res.status_code == 200 and path == "/api/me/export":
        assert res.json()["player"]["nickname"] == "小红"  # another player's export is their own


def test_a_registration_challenge_is_bound_to_its_player_and_spent_once(client: TestClient) -> None:
    mine, _ = seat(client, "阿明")
    other, _ = seat(client, "小红")
    options = as_(client, mine).post("/api/me/passkeys/begin", json={}).json()
    assert options["rp"]["id"] == "testserver" and options["authenticatorSelection"]["residentKey"] == "required"
    assert len(options["challenge"]) >= 43
    with client.app.state.manager.store.engine.connect() as conn:  # type: ignore[attr-defined]
        row = conn.execute(text("SELECT kind, player_id FROM player_tokens")).one()
    assert tuple(row) == ("passkey_new", 1)
    store = client.app.state.manager.store  # type: ignore[attr-defined]
    from daer.store.players import PlayerStore  # noqa: PLC0415
    db = PlayerStore(store.engine)
    hashed = secret_hash(options["challenge"])
    assert db.take_token("passkey_new", hashed, 2) is False  # another player's answer to it: refused
    assert db.take_token("passkey_new", hashed, 1) == 1
    assert db.take_token("passkey_new", hashed, 1) is False  # spent
    assert as_(client, other).get("/api/me").json()["passkeys"] == 0


def test_a_player_from_seat_to_deletion_on_sqlite_and_postgresql(db_url: str) -> None:
    with _app(db_url) as c:
        secret, made = seat(c, "阿明")
        assert as_(c, secret).post("/api/me", json={"nickname": "明哥", "avatar": "c5"}).status_code == 200
        key = c.post("/api/me/links", json={}).json()["url"].split("#link=")[1]
        assert as_(c, None).post("/api/me/link/redeem", json={"secret": key}).status_code == 200
        second = c.cookies[COOKIE]
        assert as_(c, None).post("/api/me/link/redeem", json={"secret": key}).status_code == 400
        me = as_(c, second).get("/api/me").json()
        assert (me["nickname"], me["avatar"], me["devices"]) == ("明哥", "c5", 2)
        assert as_(c, second).get("/api/me/export").json()["seats"][0]["room"] == made["code"]
        assert c.post("/api/me/delete", json={"confirm": "删除"}).status_code == 200
        assert [signed_in(as_(c, s)) for s in (secret, second)] == [False, False]


def test_a_later_seat_renews_the_cookie_and_a_repeated_link_adds_nothing(client: TestClient) -> None:
    secret, made = seat(client, "阿明")
    as_(client, secret)
    res = client.post(f"/api/rooms/{made['code']}/join", json={"name": ""})
    assert res.status_code == 200 and f"{COOKIE}={secret}" in res.headers["set-cookie"]  # the same secret, renewed
    from daer.store.players import PlayerStore  # noqa: PLC0415
    db = PlayerStore(client.app.state.manager.store.engine)  # type: ignore[attr-defined]
    pid = client.get("/api/me").json()["id"]
    db.link_seat(pid, made["code"], 0)  # the create answered again (another worker): no second row
    assert [(s["room"], s["seat"]) for s in db.seats_of(pid)] == [(made["code"], 1), (made["code"], 0)]
