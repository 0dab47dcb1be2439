"""Attacking the club endpoints on loopback (issue 20, item 5): an admin of one club reaching into another,
forged and oversized cookies, guessed invites, out-of-range ids, bodies that are too big, of the wrong type or
from another site, and a bounded fuzz of every endpoint with arbitrary JSON — never a 500, never a change."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from test_clubs import BUCKETS, ENDPOINTS, HIGH, World, _fill, as_, client, new_player, world

from daer.server import create_app
from daer.server.safety.limits import Limits, Rate

__all__ = ["client"]  # the module's fixture, shared


def test_an_admin_of_one_club_cannot_reach_into_another(client: TestClient) -> None:
    a, b = world(client), world(client)
    admin = a.who["owner"]
    n = a.number
    member = b.ids["member"]
    tries = [
        (f"/api/clubs/{n}/members/{member}/remove", {}), (f"/api/clubs/{n}/members/{member}/ban", {}),
        (f"/api/clubs/{n}/members/{member}", {"role": "admin"}), (f"/api/clubs/{n}/invites/{b.invite}/revoke", {}),
        (f"/api/clubs/{n}/requests/{b.request}", {"approve": True}),
        (f"/api/clubs/{n}/templates/{b.template}/delete", {}), (f"/api/clubs/{n}/tables/{b.table}/sit", {}),
        (f"/api/clubs/{n}/seat-invites", {"to": member, "room": b.table}), (f"/api/clubs/{n}/transfer", {"to": member}),
    ]
    for path, body in tries:
        res = as_(client, admin).post(path, json=body)
        assert res.status_code == 404, (path, res.text)
    view = as_(client, b.who["owner"]).get(f"/api/clubs/{b.number}").json()
    assert b.ids["member"] in {m["id"] for m in view["members"]} and view["requests"] and view["invites"]
    assert view["templates"][0]["id"] == b.template


@pytest.mark.parametrize("cookie", ["", "x", "a" * 43, "a" * 129, "a" * 5000, "'; DROP TABLE clubs; --", "\u0000"])
def test_a_forged_cookie_is_nobody(client: TestClient, cookie: str) -> None:
    w = world(client)
    client.cookies.clear()
    res = client.get(f"/api/clubs/{w.number}", headers={"cookie": f"daer_player={cookie}"})
    assert res.status_code == 401


def test_guessed_invites_let_nobody_in_and_guessing_is_rate_limited(tmp_path: Any) -> None:
    rates = {**dict.fromkeys(BUCKETS, HIGH), "signin": Rate(10, 10)}
    app = create_app(f"sqlite:///{tmp_path / 'g.db'}", bot_delay=0.0,
                     limits=Limits(rates=rates, max_rooms_per_address=1000))
    with TestClient(app) as c:
        number = as_(c, new_player(c)).post("/api/clubs", json={"name": "圈"}).json()["number"]
        guesser = new_player(c)
        got = [as_(c, guesser).post("/api/clubs/join", json={"secret": secrets.token_urlsafe(32)}).status_code
               for _ in range(12)]
        assert got[:10] == [404] * 10 and got[-1] == 429
        assert as_(c, guesser).get(f"/api/clubs/{number}").status_code == 403


@pytest.mark.parametrize("path", ["/api/clubs/12345", "/api/clubs/1234567", "/api/clubs/abcdef", "/api/clubs/-12345",
                                  "/api/clubs/%2e%2e%2f", "/api/clubs/000000"])
def test_anything_but_a_club_number_is_no_club(client: TestClient, path: str) -> None:
    res = as_(client, new_player(client)).get(path)
    assert res.status_code == 404


def test_huge_ids_in_a_path_are_no_such_thing(client: TestClient) -> None:
    w = world(client)
    n = w.number
    for path in (f"/api/clubs/{n}/members/{'9' * 40}/remove", f"/api/clubs/{n}/invites/{'9' * 40}/revoke",
                 f"/api/clubs/{n}/requests/-1", f"/api/clubs/{n}/templates/1e9/delete"):
        res = as_(client, w.who["owner"]).post(path, json={"approve": True})
        assert res.status_code == 404, path


def test_a_body_too_big_of_the_wrong_type_or_from_another_site_is_refused(client: TestClient) -> None:
    w = world(client)
    owner = as_(client, w.who["owner"])
    path = f"/api/clubs/{w.number}"
    assert owner.post(path, content=b'{"notice": "' + b"x" * 10_000 + b'"}',
                      headers={"content-type": "application/json"}).status_code == 413
    assert owner.post(path, content=b"notice=x", headers={"content-type": "application/x-www-form-urlencoded"}
                      ).status_code == 415
    assert owner.post(path, json={"notice": "x"}, headers={"origin": "https://evil.example"}).status_code == 403
    assert owner.post(path, content=b"{not json", headers={"content-type": "application/json"}).status_code == 400
    assert owner.get(path).json()["notice"] == "周五八点"


SCALARS = (st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False, allow_infinity=False)
           | st.text(max_size=40))
JSON = st.recursive(SCALARS, lambda kids: st.lists(kids, max_size=4)
                    | st.dictionaries(st.text(max_size=12), kids, max_size=4), max_leaves=12)
FIELDS = st.dictionaries(st.sampled_from(["name", "notice", "config", "hours", "uses", "approve", "role", "to",
                                          "confirm", "room", "secret", "number", "min_hands", "x"]), JSON, max_size=4)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(endpoint=st.sampled_from(sorted(ENDPOINTS)), role=st.sampled_from(["member", "admin", "owner", "stranger"]),
       body=FIELDS | JSON)
def test_fuzzed_bodies_never_break_the_server(client: TestClient, fuzzed_world: World, endpoint: str, role: str,
                                             body: Any) -> None:
    method, path, _body, _want = ENDPOINTS[endpoint]
    if method != "POST" or endpoint in ("dissolve", "leave", "transfer", "remove", "ban", "set_role"):
        path, method = f"/api/clubs/{fuzzed_world.number}", "POST"  # changes that would end the world: edit instead
    res = as_(client, fuzzed_world.who[role]).post(_fill(path, fuzzed_world), json=body)
    assert res.status_code < 500, res.text
    if res.status_code >= 400:
        assert set(res.json()) == {"error", "zh", "en"}
    owner_view = as_(client, fuzzed_world.who["owner"]).get(f"/api/clubs/{fuzzed_world.number}")
    assert owner_view.status_code == 200


@pytest.fixture(scope="module")
def fuzzed_world(client: TestClient) -> World:
    return world(client)


def test_the_invite_landing_is_rate_limited_like_a_sign_in(tmp_path: Any) -> None:
    rates = {**dict.fromkeys(BUCKETS, HIGH), "signin": Rate(5, 5)}
    with TestClient(create_app(f"sqlite:///{tmp_path / 'i.db'}", bot_delay=0.0, limits=Limits(rates=rates))) as c:
        got = [c.get("/api/clubs/invite", params={"secret": secrets.token_urlsafe(32)}).status_code for _ in range(8)]
    assert got[:5] == [404] * 5 and got[-1] == 429
