"""亲友圈 clubs (issue 20, items 2 and 5): every club endpoint against every role — a stranger (no cookie), a
player holding an invite not yet used, a member, an admin, the owner, a banned, a removed and a deleted player
— one test per cell; then the flows: invites (expiry, uses, revocation), join requests, roles, bans that
outlast new invites, standing tables that always have an open table, and the bounds of everything sent."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy import text
from starlette.testclient import TestClient

from daer.server import create_app
from daer.server.clubs.members import INVITES_MAX
from daer.server.clubs.routes import NAME_MAX, NOTICE_MAX, OWNED_MAX
from daer.server.clubs.tables import MAX_TEMPLATES
from daer.server.players.identity import COOKIE
from daer.server.protocol import Command, Error
from daer.server.safety.bounds import RoomConfig, check_config
from daer.server.safety.limits import Limits, Rate
from daer.server.table.match import Match
from daer.server.table.seating import Seat

HIGH = Rate(100000, 100000)
BUCKETS = ("create", "join", "lookup", "player", "signin", "signin_link", "me", "club_new", "club_invite",
           "club_request", "club_act")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("clubs") / "daer.db"
    limits = Limits(rates=dict.fromkeys(BUCKETS, HIGH), max_rooms=100_000, max_rooms_per_address=100_000)
    app = create_app(f"sqlite:///{db}", bot_delay=0.0, limits=limits)
    with TestClient(app) as c:
        yield c


def as_(c: TestClient, secret: str | None) -> TestClient:
    c.cookies.clear()
    if secret is not None:
        c.cookies.set(COOKIE, secret, domain="testserver.local")
    return c


def new_player(c: TestClient) -> str:
    """A fresh player (made at a first seat of a room of no club): its cookie's secret."""
    as_(c, None)
    assert c.post("/api/rooms", json={"name": "路人", "config": {"timer": 0}}).status_code == 200
    return str(c.cookies[COOKIE])


def me(c: TestClient, secret: str) -> int:
    return int(as_(c, secret).get("/api/me").json()["id"])


@dataclass
class World:
    """A club with a player in every role, and something of each kind to act on."""

    number: str
    who: dict[str, str | None] = field(default_factory=dict)
    ids: dict[str, int] = field(default_factory=dict)
    invite: int = 0
    secret: str = ""
    request: int = 0
    template: int = 0
    table: str = ""


def invite(c: TestClient, number: str, owner: str, uses: int = 50) -> str:
    res = as_(c, owner).post(f"/api/clubs/{number}/invites", json={"hours": 1, "uses": uses})
    assert res.status_code == 200, res.text
    return str(res.json()["url"].split("#invite=")[1])


def join_with(c: TestClient, secret: str, player: str | None) -> tuple[int, str | None]:
    res = as_(c, player).post("/api/clubs/join", json={"secret": secret})
    return res.status_code, c.cookies.get(COOKIE) or player


def world(c: TestClient) -> World:
    owner = new_player(c)
    res = as_(c, owner).post("/api/clubs", json={"name": "老张的圈", "notice": "周五八点", "config": {"timer": 0}})
    assert res.status_code == 201, res.text
    w = World(res.json()["number"])
    w.who["owner"], w.who["stranger"] = owner, None
    secret = invite(c, w.number, owner)
    for role in ("admin", "member", "victim", "banned", "removed", "deleted"):
        status, cookie = join_with(c, secret, None)
        assert status == 200
        w.who[role] = cookie
        w.ids[role] = me(c, str(cookie))
    n = w.number
    assert as_(c, owner).post(f"/api/clubs/{n}/members/{w.ids['admin']}", json={"role": "admin"}).status_code == 200
    assert as_(c, owner).post(f"/api/clubs/{n}/members/{w.ids['banned']}/ban", json={}).status_code == 200
    assert as_(c, owner).post(f"/api/clubs/{n}/members/{w.ids['removed']}/remove", json={}).status_code == 200
    assert as_(c, w.who["deleted"]).post("/api/me/delete", json={"confirm": "删除"}).status_code == 200
    w.who["invited"] = new_player(c)  # holds a live invite, not used
    w.secret = invite(c, n, owner)
    w.invite = int(as_(c, owner).get(f"/api/clubs/{n}").json()["invites"][-1]["id"])
    asker = new_player(c)
    assert as_(c, asker).post("/api/clubs/requests", json={"number": n}).json()["status"] == "pending"
    w.request = int(as_(c, owner).get(f"/api/clubs/{n}").json()["requests"][0]["id"])
    res = as_(c, owner).post(f"/api/clubs/{n}/templates", json={"name": "泸州8局", "config": {"timer": 0}})
    assert res.status_code == 201, res.text
    w.template = int(res.json()["id"])
    w.table = str(as_(c, owner).get(f"/api/clubs/{n}").json()["tables"][0]["code"])
    return w


ROLES = ("stranger", "invited", "member", "admin", "owner", "banned", "removed", "deleted")
OUTSIDE = {"stranger": 401, "invited": 403, "banned": 403, "removed": 403, "deleted": 401}


def _row(member: int, admin: int, owner: int) -> dict[str, int]:
    return {**OUTSIDE, "member": member, "admin": admin, "owner": owner}


ENDPOINTS: dict[str, tuple[str, str, Any, dict[str, int]]] = {
    # name: (method, path, body, expected status by role); {n} {invite} {request} {victim} {banned} {template}
    # {table} are filled from the world
    "show": ("GET", "/api/clubs/{n}", None, _row(200, 200, 200)),
    "edit": ("POST", "/api/clubs/{n}", {"notice": "改了"}, _row(403, 200, 200)),
    "new_invite": ("POST", "/api/clubs/{n}/invites", {"hours": 2, "uses": 3}, _row(403, 200, 200)),
    "revoke_invite": ("POST", "/api/clubs/{n}/invites/{invite}/revoke", {}, _row(403, 200, 200)),
    "answer_request": ("POST", "/api/clubs/{n}/requests/{request}", {"approve": True}, _row(403, 200, 200)),
    "set_role": ("POST", "/api/clubs/{n}/members/{victim}", {"role": "admin"}, _row(403, 403, 200)),
    "remove": ("POST", "/api/clubs/{n}/members/{victim}/remove", {}, _row(403, 200, 200)),
    "ban": ("POST", "/api/clubs/{n}/members/{victim}/ban", {}, _row(403, 200, 200)),
    "unban": ("POST", "/api/clubs/{n}/members/{banned}/unban", {}, _row(403, 200, 200)),
    "leave": ("POST", "/api/clubs/{n}/leave", {}, _row(200, 200, 409)),
    "transfer": ("POST", "/api/clubs/{n}/transfer", {"to": "{victim}"}, _row(403, 403, 200)),
    "dissolve": ("POST", "/api/clubs/{n}/dissolve", {"confirm": "解散"}, _row(403, 403, 200)),
    "new_template": ("POST", "/api/clubs/{n}/templates", {"name": "快桌", "config": {"timer": 0}},
                     _row(403, 201, 201)),
    "delete_template": ("POST", "/api/clubs/{n}/templates/{template}/delete", {}, _row(403, 200, 200)),
    "new_table": ("POST", "/api/clubs/{n}/tables", {}, _row(200, 200, 200)),
    "sit": ("POST", "/api/clubs/{n}/tables/{table}/sit", {}, _row(200, 200, 200)),
    "seat_invite": ("POST", "/api/clubs/{n}/seat-invites", {"to": "{victim}", "room": "{table}"},
                    _row(200, 200, 200)),
    "events_refused": ("GET", "/api/clubs/{n}/events", None, {**OUTSIDE}),
    "records": ("GET", "/api/clubs/{n}/records?period=month", None, _row(200, 200, 200)),
    "settle": ("GET", "/api/clubs/{n}/settle?period=week", None, _row(200, 200, 200)),
    "leaderboard": ("GET", "/api/clubs/{n}/leaderboard?period=season", None, _row(200, 200, 200)),
    "export_json": ("GET", "/api/clubs/{n}/export.json", None, _row(403, 403, 200)),
    "export_csv": ("GET", "/api/clubs/{n}/export.csv", None, _row(403, 403, 200)),
}


def _fill(value: Any, w: World) -> Any:
    names = {"n": w.number, "invite": w.invite, "request": w.request, "victim": w.ids["victim"],
             "banned": w.ids["banned"], "template": w.template, "table": w.table}
    if isinstance(value, str):
        if value.startswith("{") and value.endswith("}") and value[1:-1] in names and value[1:-1] != "n":
            whole = names[value[1:-1]]
            return whole if isinstance(whole, int) else str(whole)
        return value.format(**names)
    if isinstance(value, dict):
        return {k: _fill(v, w) for k, v in value.items()}
    return value


CELLS = [(e, r) for e, (_m, _p, _b, want) in ENDPOINTS.items() for r in ROLES if r in want]


@pytest.mark.parametrize(("endpoint", "role"), CELLS, ids=[f"{e}-{r}" for e, r in CELLS])
def test_every_club_endpoint_answers_each_role_as_its_role_allows(client: TestClient, endpoint: str,
                                                                   role: str) -> None:
    w = world(client)
    method, path, body, want = ENDPOINTS[endpoint]
    c = as_(client, w.who[role])
    res = c.request(method, _fill(path, w), json=_fill(body, w)) if method == "POST" else c.get(_fill(path, w))
    assert res.status_code == want[role], (endpoint, role, res.text)
    if res.status_code >= 400:  # a refusal says why, Chinese first, and changes nothing
        assert set(res.json()) == {"error", "zh", "en"}
        view = as_(client, w.who["owner"]).get(f"/api/clubs/{w.number}")
        assert view.status_code == 200 and view.json()["notice"] == "周五八点"
        assert {m["id"] for m in view.json()["members"]} >= {w.ids["victim"], w.ids["admin"]}


def test_my_clubs_lists_only_the_clubs_a_player_belongs_to(client: TestClient) -> None:
    w = world(client)
    for role in ROLES:
        res = as_(client, w.who[role]).get("/api/clubs")
        if role in ("stranger", "deleted"):
            assert res.status_code == 401
            continue
        numbers = {c["number"] for c in res.json()["clubs"]}
        assert (w.number in numbers) == (role in ("member", "admin", "owner")), role
    mine = {c["number"]: c for c in as_(client, w.who["admin"]).get("/api/clubs").json()["clubs"]}
    assert mine[w.number]["role"] == "admin" and mine[w.number]["members"] == 4  # owner, admin, member, victim


def test_members_see_no_requests_invites_or_bans_and_admins_do(client: TestClient) -> None:
    w = world(client)
    member = as_(client, w.who["member"]).get(f"/api/clubs/{w.number}").json()
    admin = as_(client, w.who["admin"]).get(f"/api/clubs/{w.number}").json()
    assert member["requests"] == member["invites"] == member["bans"] == []
    assert admin["requests"] and admin["invites"] and admin["bans"][0]["player"] == w.ids["banned"]


# -- invites -----------------------------------------------------------------------------------------------
def test_an_invite_lets_in_as_many_as_its_uses_and_no_more(client: TestClient) -> None:
    w = world(client)
    secret = invite(client, w.number, str(w.who["owner"]), uses=2)
    assert [join_with(client, secret, None)[0] for _ in range(3)] == [200, 200, 404]


def test_a_revoked_or_expired_invite_lets_nobody_in(client: TestClient) -> None:
    w = world(client)
    assert as_(client, w.who["owner"]).post(f"/api/clubs/{w.number}/invites/{w.invite}/revoke",
                                            json={}).status_code == 200
    assert join_with(client, w.secret, w.who["invited"])[0] == 404
    other = invite(client, w.number, str(w.who["owner"]))
    with client.app.state.manager.store.engine.begin() as conn:  # type: ignore[attr-defined]
        conn.execute(text("UPDATE club_invites SET expires_at = :t"), {"t": time.time() - 1})
    assert join_with(client, other, w.who["invited"])[0] == 404
    assert as_(client, None).get("/api/clubs/invite", params={"secret": other}).status_code == 404


def test_invite_secrets_are_stored_only_as_hashes(client: TestClient) -> None:
    w = world(client)
    with client.app.state.manager.store.engine.connect() as conn:  # type: ignore[attr-defined]
        stored = [str(r[0]) for r in conn.execute(text("SELECT secret_hash FROM club_invites")).all()]
    assert w.secret not in stored and all(len(h) == 64 for h in stored)


def test_a_banned_player_cannot_come_back_with_a_new_invite_or_a_request(client: TestClient) -> None:
    w = world(client)
    fresh = invite(client, w.number, str(w.who["owner"]))
    assert join_with(client, fresh, w.who["banned"])[0] == 403
    res = as_(client, w.who["banned"]).post("/api/clubs/requests", json={"number": w.number})
    assert res.status_code == 403 and res.json()["error"] == "banned"
    assert as_(client, w.who["owner"]).post(f"/api/clubs/{w.number}/members/{w.ids['banned']}/unban",
                                            json={}).status_code == 200
    assert join_with(client, fresh, w.who["banned"])[0] == 200


def test_a_removed_member_may_be_invited_back(client: TestClient) -> None:
    w = world(client)
    assert join_with(client, invite(client, w.number, str(w.who["owner"])), w.who["removed"])[0] == 200
    assert as_(client, w.who["removed"]).get(f"/api/clubs/{w.number}").status_code == 200


def test_the_invite_page_shows_only_the_name_and_the_member_count(client: TestClient) -> None:
    w = world(client)
    res = as_(client, None).get("/api/clubs/invite", params={"secret": w.secret})
    assert res.status_code == 200 and res.json() == {"number": w.number, "name": "老张的圈", "members": 4}
    assert "set-cookie" not in res.headers  # looking makes no player


# -- requests and roles --------------------------------------------------------------------------------------
def test_a_request_by_number_waits_for_an_admin_and_approval_makes_a_member(client: TestClient) -> None:
    w = world(client)
    asker = new_player(client)
    assert as_(client, asker).post("/api/clubs/requests", json={"number": w.number}).json()["status"] == "pending"
    assert as_(client, asker).get(f"/api/clubs/{w.number}").status_code == 403
    rid = next(r["id"] for r in as_(client, w.who["admin"]).get(f"/api/clubs/{w.number}").json()["requests"]
               if r["player"] == me(client, asker))
    assert as_(client, w.who["admin"]).post(f"/api/clubs/{w.number}/requests/{rid}",
                                            json={"approve": True}).json()["status"] == "joined"
    assert as_(client, asker).get(f"/api/clubs/{w.number}").status_code == 200
    again = as_(client, w.who["admin"]).post(f"/api/clubs/{w.number}/requests/{rid}", json={"approve": True})
    assert again.status_code == 404  # answered once


def test_an_admin_cannot_remove_another_admin_or_the_owner(client: TestClient) -> None:
    w = world(client)
    owner_id = me(client, str(w.who["owner"]))
    as_(client, w.who["owner"]).post(f"/api/clubs/{w.number}/members/{w.ids['victim']}", json={"role": "admin"})
    for target in (w.ids["victim"], owner_id):
        res = as_(client, w.who["admin"]).post(f"/api/clubs/{w.number}/members/{target}/remove", json={})
        assert res.status_code == 403
    assert as_(client, w.who["owner"]).post(f"/api/clubs/{w.number}/members/{w.ids['victim']}/remove",
                                            json={}).status_code == 200


def test_transfer_makes_the_member_the_owner_and_the_old_owner_an_admin(client: TestClient) -> None:
    w = world(client)
    as_(client, w.who["owner"]).post(f"/api/clubs/{w.number}/transfer", json={"to": w.ids["member"]})
    assert as_(client, w.who["member"]).get(f"/api/clubs/{w.number}").json()["role"] == "owner"
    assert as_(client, w.who["owner"]).get(f"/api/clubs/{w.number}").json()["role"] == "admin"
    assert as_(client, w.who["owner"]).post(f"/api/clubs/{w.number}/dissolve",
                                            json={"confirm": "解散"}).status_code == 403


def test_a_dissolved_club_is_gone_for_everyone(client: TestClient) -> None:
    w = world(client)
    res = as_(client, w.who["owner"]).post(f"/api/clubs/{w.number}/dissolve", json={"confirm": "解散吧"})
    assert res.status_code == 400  # a slip of the finger dissolves nothing
    assert as_(client, w.who["owner"]).post(f"/api/clubs/{w.number}/dissolve",
                                            json={"confirm": "解散"}).status_code == 200
    for role in ("owner", "admin", "member"):
        assert as_(client, w.who[role]).get(f"/api/clubs/{w.number}").status_code == 404
    assert join_with(client, invite_secret_after(w), w.who["invited"])[0] == 404


def invite_secret_after(w: World) -> str:
    return w.secret


def test_a_deleted_owner_hands_the_club_to_its_admin(client: TestClient) -> None:
    w = world(client)
    assert as_(client, w.who["owner"]).post("/api/me/delete", json={"confirm": "删除"}).status_code == 200
    assert as_(client, w.who["admin"]).get(f"/api/clubs/{w.number}").json()["role"] == "owner"


# -- tables ----------------------------------------------------------------------------------------------------
def test_a_club_table_is_joined_only_through_the_club(client: TestClient) -> None:
    w = world(client)
    res = as_(client, w.who["member"]).post(f"/api/rooms/{w.table}/join", json={"name": "x"})
    assert res.status_code == 403 and res.json()["error"] == "club_table"
    sat = as_(client, w.who["member"]).post(f"/api/clubs/{w.number}/tables/{w.table}/sit", json={})
    assert sat.status_code == 200 and sat.json()["code"] == w.table
    table = as_(client, w.who["owner"]).get(f"/api/clubs/{w.number}").json()["tables"][0]
    assert table["seats"][sat.json()["seat"]]["player"] == w.ids["member"]


def test_a_table_of_another_club_cannot_be_sat_at_through_this_one(client: TestClient) -> None:
    a, b = world(client), world(client)
    res = as_(client, a.who["member"]).post(f"/api/clubs/{a.number}/tables/{b.table}/sit", json={})
    assert res.status_code == 404


def test_every_template_always_has_an_open_table(client: TestClient) -> None:
    w = world(client)
    manager = client.app.state.manager  # type: ignore[attr-defined]
    room = manager.get(w.table)
    room.status = "finished"  # the match ended
    view = as_(client, w.who["member"]).get(f"/api/clubs/{w.number}").json()
    codes = [t["code"] for t in view["tables"] if t["template"] and t["template"]["id"] == w.template]
    assert len(codes) == 1 and codes[0] != w.table
    assert view["templates"][0]["room"] == codes[0]


def test_an_ad_hoc_table_has_the_clubs_rules_and_seats_its_opener(client: TestClient) -> None:
    w = world(client)
    as_(client, w.who["owner"]).post(f"/api/clubs/{w.number}", json={"config": {"rules": "paohuzi", "timer": 0}})
    res = as_(client, w.who["member"]).post(f"/api/clubs/{w.number}/tables", json={})
    assert res.status_code == 200
    tables = {t["code"]: t for t in as_(client, w.who["member"]).get(f"/api/clubs/{w.number}").json()["tables"]}
    mine = tables[res.json()["code"]]
    assert mine["rules"] == "paohuzi" and mine["template"] is None and mine["seats"][0]["player"] == w.ids["member"]


def test_a_seat_invite_reaches_only_the_invited_member(client: TestClient) -> None:
    w = world(client)
    as_(client, w.who["member"]).post(f"/api/clubs/{w.number}/seat-invites", json={"to": w.ids["victim"],
                                                                                    "room": w.table})
    assert as_(client, w.who["victim"]).get(f"/api/clubs/{w.number}").json()["seat_invites"][0]["room"] == w.table
    assert as_(client, w.who["admin"]).get(f"/api/clubs/{w.number}").json()["seat_invites"] == []
    as_(client, w.who["victim"]).post(f"/api/clubs/{w.number}/tables/{w.table}/sit", json={})
    assert as_(client, w.who["victim"]).get(f"/api/clubs/{w.number}").json()["seat_invites"] == []


def test_a_table_without_bots_starts_only_once_every_seat_is_taken() -> None:
    cfg = RoomConfig(fill=False, timer=0)
    m = Match(code="T", config=cfg, rules=check_config(cfg), seats=[Seat(i) for i in range(4)], scores=[0] * 4)
    m.join("甲", "h" * 64)
    out = m.command(0, Command(id="s", name="start"), 0.0)
    assert isinstance(out.reply, Error) and out.reply.code == "not_full" and not out.writes
    assert m.status == "waiting" and [s.kind for s in m.seats].count("empty") == 3
    for i in range(1, 4):
        m.join(f"客{i}", str(i) * 64)
    assert m.command(0, Command(id="t", name="start"), 0.0).writes and m.status == "playing"


# -- bounds --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("body", "code"), [
    ({"name": ""}, "bad_name"), ({"name": "x" * (NAME_MAX + 1)}, "bad_name"), ({"name": "a\u0000b"}, "bad_name"),
    ({"name": "圈", "notice": "x" * (NOTICE_MAX + 1)}, "bad_notice"),
    ({"name": "圈", "notice": "\u202e"}, "bad_notice"), ({"name": "圈", "config": {"rules": "../etc"}}, "bad_rules"),
    ({"name": "圈", "config": {"hands": 999}}, "bad_hands"),
    ({"name": "圈", "owner": 1}, "bad_request"), ({"name": 5}, "bad_request"),
])
def test_a_bad_club_is_refused_with_a_reason_and_stores_nothing(client: TestClient, body: dict[str, Any],
                                                                code: str) -> None:
    player = new_player(client)
    res = as_(client, player).post("/api/clubs", json=body)
    assert res.status_code == 400 and res.json()["error"] == code, res.text
    assert as_(client, player).get("/api/clubs").json()["clubs"] == []


def test_a_notice_keeps_its_line_breaks_and_hostile_text_is_kept_as_text(client: TestClient) -> None:
    player = new_player(client)
    hostile = '<img src=x onerror="alert(1)">'
    res = as_(client, player).post("/api/clubs", json={"name": hostile[:NAME_MAX], "notice": f"第一行\n{hostile}"})
    view = as_(client, player).get(f"/api/clubs/{res.json()['number']}").json()
    assert view["name"] == hostile[:NAME_MAX] and view["notice"] == f"第一行\n{hostile}"


@pytest.mark.parametrize("body", [{"hours": 0, "uses": 1}, {"hours": 721, "uses": 1}, {"hours": 1, "uses": 0},
                                  {"hours": 1, "uses": 501}, {"hours": "1"}])
def test_an_invite_out_of_bounds_is_refused(client: TestClient, body: dict[str, Any]) -> None:
    w = world(client)
    res = as_(client, w.who["owner"]).post(f"/api/clubs/{w.number}/invites", json=body)
    assert res.status_code == 400


def test_the_caps_on_clubs_templates_and_invites_hold(client: TestClient) -> None:
    player = new_player(client)
    made = [as_(client, player).post("/api/clubs", json={"name": f"圈{i}"}).status_code for i in range(OWNED_MAX + 1)]
    assert made == [201] * OWNED_MAX + [409]
    w = world(client)
    owner = w.who["owner"]
    statuses = [as_(client, owner).post(f"/api/clubs/{w.number}/templates", json={"name": f"桌{i}"}).status_code
                for i in range(MAX_TEMPLATES)]
    assert statuses == [201] * (MAX_TEMPLATES - 1) + [409]  # the world made one already
    live = len(as_(client, owner).get(f"/api/clubs/{w.number}").json()["invites"])
    statuses = [as_(client, owner).post(f"/api/clubs/{w.number}/invites", json={}).status_code
                for _ in range(INVITES_MAX - live + 1)]
    assert statuses[-1] == 409 and set(statuses[:-1]) == {200}


def test_clubs_are_made_at_a_rate_per_address(tmp_path: Any) -> None:
    rates = {**dict.fromkeys(BUCKETS, HIGH), "club_new": Rate(1, 2)}
    with TestClient(create_app(f"sqlite:///{tmp_path / 'r.db'}", bot_delay=0.0,
                               limits=Limits(rates=rates))) as c:
        player = new_player(c)
        got = [as_(c, player).post("/api/clubs", json={"name": f"圈{i}"}).status_code for i in range(3)]
    assert got == [201, 201, 429]


def test_a_stranger_touching_a_club_becomes_a_player_and_a_bare_view_makes_nobody(client: TestClient) -> None:
    w = world(client)
    for path in ("/clubs", f"/club/{w.number}", "/api/clubs", f"/api/clubs/{w.number}"):
        assert "set-cookie" not in as_(client, None).get(path).headers, path
    res = as_(client, None).post("/api/clubs/join", json={"secret": w.secret})
    assert res.status_code == 200 and COOKIE in res.headers["set-cookie"]


def test_a_standing_table_may_offer_hints_but_not_with_money_play(client: TestClient) -> None:
    w = world(client)
    owner = as_(client, w.who["owner"])
    res = owner.post(f"/api/clubs/{w.number}/templates", json={"name": "练习桌", "config": {"timer": 0, "hint": True}})
    assert res.status_code == 201, res.text
    view = owner.get(f"/api/clubs/{w.number}").json()
    code = next(t["room"] for t in view["templates"] if t["name"] == "练习桌")
    assert client.app.state.manager.get(code).config.hint is True  # type: ignore[attr-defined]
    money = {"timer": 0, "hint": True, "overrides": {"scoring.mode": "money"}}
    refused = owner.post(f"/api/clubs/{w.number}/templates", json={"name": "钱桌", "config": money})
    assert refused.status_code == 400 and refused.json()["error"] == "bad_hint", refused.text
    assert [t["name"] for t in owner.get(f"/api/clubs/{w.number}").json()["templates"]].count("钱桌") == 0
