"""Club tournaments (issue 21): every endpoint against every role, the bounds, and whole tournaments played by
the server's 托管 for absent players — duplicate scores that add up, Swiss rounds without repeats where they can
be avoided, decks the same at every table, records sealed until the round ends and then verifying."""

from __future__ import annotations

import time
import urllib.parse
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from databases import DATABASES, new_database
from serving import Server
from starlette.testclient import TestClient
from test_clubs import as_, invite, me, new_player
from tourneyflow import check_round, run_tournament, setup
from tourneyflow import wait_round as flow_wait

from daer.engine import HandRecord
from daer.engine.fairness import check, commitment
from daer.server import create_app
from daer.server.players.identity import COOKIE
from daer.server.safety.limits import Limits, Rate
from daer.server.tourney.pairing import met_pairs
from daer.server.tourney.service import set_commitment

HIGH = Rate(100000, 100000)
BUCKETS = ("create", "join", "lookup", "player", "signin", "signin_link", "me", "club_new", "club_invite",
           "club_request", "club_act")


def join_with(c: TestClient, secret: str, player: str | None) -> tuple[int, str | None]:
    res = as_(c, player).post("/api/clubs/join", json={"secret": secret})
    return res.status_code, c.cookies.get(COOKIE) or player


@pytest.fixture(scope="module", params=DATABASES)
def client(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """A server on SQLite, and one on PostgreSQL where it is installed."""
    url = new_database(request, str(request.param), tmp_path_factory.mktemp("tourney"))
    limits = Limits(rates=dict.fromkeys(BUCKETS, HIGH), max_rooms=100_000, max_rooms_per_address=100_000)
    app = create_app(url, bot_delay=0.0, limits=limits)
    with TestClient(app) as c:
        yield c


def club(c: TestClient, members: int) -> tuple[str, str, list[str], dict[str, str | None]]:
    """A club: (number, owner's cookie, members' cookies, the other roles' cookies)."""
    owner = new_player(c)
    res = as_(c, owner).post("/api/clubs", json={"name": "比赛圈", "config": {"timer": 0}})
    assert res.status_code == 201, res.text
    n = res.json()["number"]
    secret = invite(c, n, owner, uses=members + 5)
    people = []
    for _ in range(members):
        status, cookie = join_with(c, secret, None)
        assert status == 200 and cookie is not None
        people.append(cookie)
    roles: dict[str, str | None] = {"stranger": None, "owner": owner, "outsider": new_player(c)}
    for role in ("admin", "member", "banned"):
        _status, roles[role] = join_with(c, secret, None)
    admin, banned = me(c, str(roles["admin"])), me(c, str(roles["banned"]))
    assert as_(c, owner).post(f"/api/clubs/{n}/members/{admin}", json={"role": "admin"}).status_code == 200
    assert as_(c, owner).post(f"/api/clubs/{n}/members/{banned}/ban", json={}).status_code == 200
    return n, owner, people, roles


def new_tourney(c: TestClient, n: str, owner: str, **body: Any) -> int:
    res = as_(c, owner).post(f"/api/clubs/{n}/tourneys", json={"name": "周五复式赛", "config": {"timer": 0},
                                                              "rounds": 3, "hands": 4, **body})
    assert res.status_code == 201, res.text
    return int(res.json()["id"])


def wait_round(c: TestClient, n: str, t: int, cookie: str, number: int, *, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        view = as_(c, cookie).get(f"/api/clubs/{n}/tourneys/{t}").json()
        rounds = view["rounds"]
        if len(rounds) >= number and rounds[number - 1]["status"] == "done":
            return dict(view)
        time.sleep(0.2)
    raise AssertionError(f"round {number} did not end: {view['tables']}")


ROLES = ("stranger", "outsider", "banned", "member", "admin", "owner")
OUT = {"stranger": 401, "outsider": 403, "banned": 403}

# endpoint: (method, path, body, expected by member / admin / owner)
ENDPOINTS: dict[str, tuple[str, str, Any, tuple[int, int, int]]] = {
    "list": ("GET", "", None, (200, 200, 200)),
    "create": ("POST", "", {"name": "赛", "rounds": 1, "hands": 1}, (403, 201, 201)),
    "view": ("GET", "/{t}", None, (200, 200, 200)),
    "standings": ("GET", "/{t}/standings", None, (200, 200, 200)),
    "register": ("POST", "/{t}/register", {}, (200, 200, 200)),
    "withdraw": ("POST", "/{t}/withdraw", {}, (200, 200, 200)),
    "start": ("POST", "/{t}/start", {}, (403, 409, 409)),
    "pause": ("POST", "/{t}/pause", {}, (403, 409, 409)),
    "remove": ("POST", "/{t}/players/999999/remove", {}, (403, 404, 404)),
    "end": ("POST", "/{t}/end", {}, (403, 200, 200)),
    "seat": ("POST", "/{t}/seat", {}, (404, 404, 404)),
    "export.json": ("GET", "/{t}/export.json", None, (200, 200, 200)),
    "export.csv": ("GET", "/{t}/export.csv", None, (200, 200, 200)),
}


@pytest.fixture(scope="module")
def roles_world(client: TestClient) -> tuple[str, dict[str, str | None]]:
    n, _owner, _people, roles = club(client, 0)
    return n, roles


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("endpoint", sorted(ENDPOINTS))
def test_every_tournament_endpoint_checks_the_role(client: TestClient, roles_world: tuple[str, dict[str, str | None]],
                                                   endpoint: str, role: str) -> None:
    n, roles = roles_world
    t = new_tourney(client, n, str(roles["owner"]), rounds=1, hands=1)  # a fresh one: end and start change it
    method, path, body, expected = ENDPOINTS[endpoint]
    want = OUT[role] if role in OUT else expected[("member", "admin", "owner").index(role)]
    c = as_(client, roles[role])
    url = f"/api/clubs/{n}/tourneys" + path.format(t=t)
    res = c.get(url) if method == "GET" else c.post(url, json=body)
    assert res.status_code == want, (endpoint, role, res.text)
    if res.status_code >= 400:
        assert {"error", "zh", "en"} <= set(res.json())
    as_(client, roles["owner"]).post(f"/api/clubs/{n}/tourneys/{t}/end", json={})


@pytest.mark.parametrize(("body", "code"), [
    ({"name": ""}, "bad_name"), ({"name": "x" * 25}, "bad_name"), ({"name": "赛", "rounds": 0}, "bad_format"),
    ({"name": "赛", "hands": 33}, "bad_format"), ({"name": "赛", "rounds": 10**12}, "bad_format"),
    ({"name": "赛", "starts_at": -1}, "bad_start"), ({"name": "赛", "config": {"rules": "nowhere"}}, None),
    ({"name": "赛", "extra": 1}, "bad_request"), ({"name": ["赛"]}, "bad_request"),
])
def test_a_bad_tournament_is_refused_with_a_reason(client: TestClient, roles_world: tuple[str, dict[str, str | None]],
                                                   body: dict[str, Any], code: str | None) -> None:
    n, roles = roles_world
    res = as_(client, roles["admin"]).post(f"/api/clubs/{n}/tourneys", json=body)
    assert res.status_code == 400, res.text
    assert code is None or res.json()["error"] == code


def test_a_tournament_of_another_club_is_not_found(client: TestClient,
                                                   roles_world: tuple[str, dict[str, str | None]]) -> None:
    n, roles = roles_world
    other, owner2, _p, _r = club(client, 0)
    t = new_tourney(client, other, owner2)
    for tail in (f"{t}", f"{t}x", "9" * 40):
        path = f"/api/clubs/{n}/tourneys/{tail}"
        assert as_(client, roles["owner"]).get(path).status_code == 404


def test_registration_closes_at_the_start(client: TestClient) -> None:
    n, owner, people, _roles = club(client, 3)
    t = new_tourney(client, n, owner, rounds=1, hands=1)
    for p in people:
        assert as_(client, p).post(f"/api/clubs/{n}/tourneys/{t}/register", json={}).json() == {"registered": True}
    assert as_(client, people[2]).post(f"/api/clubs/{n}/tourneys/{t}/withdraw", json={}).status_code == 200
    view = as_(client, people[0]).get(f"/api/clubs/{n}/tourneys/{t}").json()
    assert [p["status"] for p in view["players"]] == ["in", "in", "withdrawn"] and view["registered"]
    assert as_(client, owner).post(f"/api/clubs/{n}/tourneys/{t}/start", json={}).json() == {"round": 1}
    res = as_(client, people[2]).post(f"/api/clubs/{n}/tourneys/{t}/register", json={})
    assert res.status_code == 409 and res.json()["error"] == "started"
    view = wait_round(client, n, t, owner, 1)
    assert view["status"] == "finished"
    seated = [s for table in view["tables"] for s in table["seats"]]
    assert sorted(s["kind"] for s in seated) == ["bot", "bot", "human", "human"]  # two people, two bots


def test_a_whole_tournament_of_twelve_over_three_rounds(client: TestClient) -> None:
    n, owner, people, _roles = club(client, 12)
    t = new_tourney(client, n, owner, rounds=3, hands=4)
    ids = [me(client, p) for p in people]
    for p in people:
        assert as_(client, p).post(f"/api/clubs/{n}/tourneys/{t}/register", json={}).status_code == 200
    earlier: list[list[int]] = []
    for number in (1, 2, 3):
        res = as_(client, owner).post(f"/api/clubs/{n}/tourneys/{t}/start", json={})
        assert res.json() == {"round": number}, res.text
        view = as_(client, owner).get(f"/api/clubs/{n}/tourneys/{t}").json()
        tables = view["tables"]
        assert len(tables) == 3 and sorted(s["player"] for tb in tables for s in tb["seats"]) == sorted(ids)
        rnd = view["rounds"][number - 1]
        assert rnd["commitment"] == set_commitment(rnd["commits"])
        # the seeds are revealed exactly when the round is over (its bots play at once: a loaded host's requests may
        # come after the last hand, and a CI run saw it)
        assert (rnd["seeds"] is None) == (rnd["status"] != "done"), rnd
        # sealed while the round runs: no table may fetch any record of the round (its bots play at once, so
        # a round may be over by the time of the request: then, and only then, the record is open; a fast host may
        # finish every round first, so the seal itself is proved on the paced server below)
        code = tables[0]["code"]
        sealed = client.get(f"/api/rooms/{code}/hands/1/record")
        if sealed.status_code == 200:
            over = as_(client, owner).get(f"/api/clubs/{n}/tourneys/{t}").json()["rounds"][number - 1]
            assert over["seeds"] is not None, "a record of a running round was served"
        else:
            assert sealed.status_code == 403 and sealed.json()["error"] == "round_running", sealed.text
        seated = [[s["player"] for s in tb["seats"]] for tb in tables]
        if number == 2:  # 12 players cannot avoid every repeat; the pairing keeps them to one pair a table
            assert all(sum(met_pairs(earlier)[(min(a, b), max(a, b))] for a in tb for b in tb if a < b) <= 1
                       for tb in seated)
        earlier += seated
        view = wait_round(client, n, t, owner, number)
        rnd = view["rounds"][number - 1]
        assert [commitment(s) for s in rnd["seeds"]] == rnd["commits"]
        decks = []
        for tb in view["tables"]:
            for hand in range(1, 5):
                res = client.get(f"/api/rooms/{tb['code']}/hands/{hand}/record")
                assert res.status_code == 200, res.text
                rec = msgspec.json.decode(res.content, type=HandRecord)
                assert rec.fairness is not None and check(rec.fairness, rec.deck) is None  # what daer verify checks
                assert rec.fairness.seed == rnd["seeds"][hand - 1]
                assert rec.dealer == (tb["table"] - 1 + hand - 1) % 4
                decks.append((hand, rec.deck))
        for hand in range(1, 5):  # the same deck at every table
            assert len({tuple(d) for h, d in decks if h == hand}) == 1
    assert view["status"] == "finished"
    lines = view["standings"]
    assert len(lines) == 12 and [x["rank"] for x in lines] == list(range(1, 13))
    ex = as_(client, owner).get(f"/api/clubs/{n}/tourneys/{t}/export.json").json()["hands"]
    # nobody came: 托管 played every hand
    assert all(x["hands"] == 12 and x["auto"] == 12 for x in lines), Counter(h["player"] for h in ex)
    # nobody played a round themselves: every round forfeited, and a forfeit is never a gain
    assert all(x["forfeits"] == [1, 2, 3] and all(v <= 0 for v in x["rounds"].values()) for x in lines)
    assert [x["score"] for x in lines] == sorted((x["score"] for x in lines), reverse=True)
    compared = view["hands_compared"]
    assert len(compared) == 3 * 4 * 4 and all(len(h["tables"]) == 3 for h in compared)
    for h in compared:
        assert abs(sum(x["dup"] for x in h["tables"])) < 0.05
    csv = as_(client, people[0]).get(f"/api/clubs/{n}/tourneys/{t}/export.csv")
    assert csv.status_code == 200 and csv.text.count("\n") == 1 + 3 * 3 * 4 * 4
    # 战绩: every player's history holds the twelve hands, tagged with the tournament; the club's table counts them
    history = as_(client, people[0]).get("/api/me/records").json()["records"]
    tagged = [h for h in history if h["tourney"] is not None]
    assert len(tagged) == 12 and {h["tourney"]["id"] for h in tagged} == {t} and all(h["club"] for h in tagged)
    table = as_(client, people[0]).get(f"/api/clubs/{n}/records?period=today").json()["members"]
    assert sorted(m["hands"] for m in table if m["player"] in ids) == [12] * 12
    met = Counter(met_pairs(earlier).values())
    assert sum(met.values()) >= 30  # three rounds of three tables: many different table-mates met


def test_a_player_takes_their_seat_from_toguan(paced: TestClient) -> None:
    """(Bots paced at 30 ms a move and three hands: the round is still on when the player asks for the seat; on an
    unpaced server a 1-hand round of absent players could end first, and CI saw it.)"""
    client = paced
    n, owner, people, roles = club(client, 4)
    t = new_tourney(client, n, owner, rounds=1, hands=3)
    for p in people:
        as_(client, p).post(f"/api/clubs/{n}/tourneys/{t}/register", json={})
    as_(client, owner).post(f"/api/clubs/{n}/tourneys/{t}/pause", json={})  # not running yet: refused
    assert as_(client, owner).post(f"/api/clubs/{n}/tourneys/{t}/start", json={}).status_code == 200
    res = as_(client, people[1]).post(f"/api/clubs/{n}/tourneys/{t}/seat", json={})
    assert res.status_code == 200, res.text
    seat = res.json()
    assert set(seat) == {"code", "seat", "token"}
    assert as_(client, roles["member"]).post(f"/api/clubs/{n}/tourneys/{t}/seat", json={}).status_code == 404
    wait_round(client, n, t, owner, 1)


@pytest.fixture(scope="module")
def paced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """A server whose bots take 30 ms a move (a hand lasts a second or two: time to sit down in it)."""
    db = tmp_path_factory.mktemp("paced") / "daer.db"
    limits = Limits(rates=dict.fromkeys(BUCKETS, HIGH), max_rooms=100_000, max_rooms_per_address=100_000)
    with TestClient(create_app(f"sqlite:///{db}", bot_delay=0.03, limits=limits)) as c:
        yield c


def test_a_finished_table_waits_and_cannot_see_a_deck_another_table_still_plays(paced: TestClient) -> None:
    """The privacy rule: while one table still plays a hand, the tables that finished it wait at the gate, and no
    record, replay or seed of the round reaches anyone; the round's end opens them."""
    client = paced
    for _attempt in range(3):  # a deck whose hand 1 needs the person (almost every deck)
        n, owner, people, _roles = club(client, 8)
        t = new_tourney(client, n, owner, rounds=1, hands=2)
        for p in people:
            as_(client, p).post(f"/api/clubs/{n}/tourneys/{t}/register", json={})
        assert as_(client, owner).post(f"/api/clubs/{n}/tourneys/{t}/start", json={}).status_code == 200
        view = as_(client, owner).get(f"/api/clubs/{n}/tourneys/{t}").json()
        ids = {me(client, p): p for p in people}
        slow_player = view["tables"][0]["seats"][0]["player"]
        res = as_(client, ids[slow_player]).post(f"/api/clubs/{n}/tourneys/{t}/seat", json={})
        assert res.status_code == 200, res.text
        seat = res.json()
        with client.websocket_connect(f"/ws/{seat['code']}") as ws:
            ws.send_text(msgspec.json.encode({"t": "hello", "room": seat["code"], "token": seat["token"]}).decode())
            ws.send_text(msgspec.json.encode({"t": "cmd", "id": "back", "name": "resume"}).decode())
            ws.send_text(msgspec.json.encode({"t": "cmd", "id": "bye", "name": "leave"}).decode())
            other = view["tables"][1]["code"]
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:  # the other table finishes hand 1, then is held at the gate
                tables = as_(client, owner).get(f"/api/clubs/{n}/tourneys/{t}").json()["tables"]
                if tables[1]["hands_played"] >= 1:
                    break
                time.sleep(0.1)
            time.sleep(1.5)
            tables = as_(client, owner).get(f"/api/clubs/{n}/tourneys/{t}").json()["tables"]
            if tables[0]["hands_played"] >= 1:
                # the person's table ended hand 1 without them (the tables share the deck: a win at the deal, or
                # 托管's moves before the person sat, then a win before their next decision): another deck
                continue
            assert tables[1]["hands_played"] == 1 and tables[1]["status"] == "between", tables
            assert tables[0]["hands_played"] == 0  # the person has not played: their table is still on hand 1
            for url in (f"/api/rooms/{other}/hands/1/record", f"/api/rooms/{other}/hands/1/replay"):
                res = as_(client, ids[tables[1]["seats"][0]["player"]]).get(url)
                assert res.status_code == 403 and res.json()["error"] == "round_running"
            # the seal comes before the look-up: a hand still being played, and one not dealt yet, answer alike (in a
            # cluster the worker asked may not have read a new hand's first write yet)
            for url in (f"/api/rooms/{seat['code']}/hands/1/record", f"/api/rooms/{other}/hands/2/replay",
                        f"/api/rooms/{other}/hands/9/record"):
                res = as_(client, ids[tables[1]["seats"][0]["player"]]).get(url)
                assert res.status_code == 403 and res.json()["error"] == "round_running", (url, res.text)
            res = as_(client, ids[tables[1]["seats"][0]["player"]]).post(f"/api/rooms/{other}/hands/1/review",
                                                                         json={"seat": 0})
            assert res.status_code == 403 and res.json()["error"] == "round_running"  # 复盘: the replay's gate
            info = client.get(f"/api/rooms/{other}").json()["room"]
            assert info["reveal"] is None and info["watch"] is False
            assert as_(client, owner).get(f"/api/clubs/{n}/tourneys/{t}").json()["rounds"][0]["seeds"] is None
            refused = False
            for _ in range(200):  # leaving the seat to a bot is refused
                frame = ws.receive_json()
                if frame.get("code") == "tourney_table" and frame.get("id") == "bye":
                    refused = True
                    break
            assert refused
        break
    else:
        pytest.fail("three decks in a row ended hand 1 at the person's table without them")
    # the organiser removes the player who does not play: a bot takes the seat, the round ends, records open
    res = as_(client, owner).post(f"/api/clubs/{n}/tourneys/{t}/players/{slow_player}/remove", json={})
    assert res.status_code == 200
    view = wait_round(client, n, t, owner, 1)
    assert client.get(f"/api/rooms/{other}/hands/1/record").status_code == 200
    assert slow_player not in [x["player"] for x in view["standings"]]


def test_a_whole_tournament_against_a_real_server(tmp_path: Path) -> None:
    """12 players over 3 rounds against ``daer serve`` in a child process; every record verifies (``daer verify``
    on one of each round)."""
    srv = Server(tmp_path / "daer.db", bot_delay=0.0).start()
    try:
        view = run_tournament(srv.url, tmp_path, players=12, rounds=3, hands=4)
        assert len(view["rounds"]) == 3
    finally:
        srv.stop()


def test_without_bots_the_lowest_ranked_sit_out_and_a_pause_holds_the_round(paced: TestClient) -> None:
    client = paced
    n, owner, people, _roles = club(client, 5)
    t = new_tourney(client, n, owner, rounds=2, hands=2, bots=False)
    for p in people:
        as_(client, p).post(f"/api/clubs/{n}/tourneys/{t}/register", json={})
    assert as_(client, owner).post(f"/api/clubs/{n}/tourneys/{t}/start", json={}).json() == {"round": 1}
    assert as_(client, owner).post(f"/api/clubs/{n}/tourneys/{t}/pause", json={}).status_code == 200
    view = as_(client, owner).get(f"/api/clubs/{n}/tourneys/{t}").json()
    assert view["status"] == "paused" and len(view["tables"]) == 1
    assert all(s["kind"] == "human" for s in view["tables"][0]["seats"])
    out = view["rounds"][0]["byes"]
    assert out == [view["players"][-1]["id"]]  # the last registered: the lowest ranked before any round
    time.sleep(2.5)  # the table finishes its hand and waits: paused, no second hand is dealt
    view = as_(client, owner).get(f"/api/clubs/{n}/tourneys/{t}").json()
    assert view["tables"][0]["hands_played"] <= 1 and view["rounds"][0]["status"] == "running"
    assert as_(client, owner).post(f"/api/clubs/{n}/tourneys/{t}/start", json={}).json()["resumed"] is True
    wait_round(client, n, t, owner, 1)
    assert as_(client, owner).post(f"/api/clubs/{n}/tourneys/{t}/start", json={}).json() == {"round": 2}
    view = as_(client, owner).get(f"/api/clubs/{n}/tourneys/{t}").json()
    assert view["rounds"][1]["byes"] != out  # a second bye goes to someone who has not sat out
    view = wait_round(client, n, t, owner, 2)
    assert sorted(x["hands"] for x in view["standings"]) == [2, 2, 4, 4, 4]  # two byes, two different players


def test_a_round_survives_kill_9_of_the_server(tmp_path: Path) -> None:
    """The server is killed mid-round and started again, three times: every table comes back with its schedule (the
    same decks, the gate, the seeds still sealed; a hand the restart books draws its next deck from the schedule),
    the round ends, and every hand is in the results once."""
    srv = Server(tmp_path / "daer.db", bot_delay=0.02).start()
    try:
        owner, people, n, t, _ids = setup(srv.url, 8, 1, 4)
        assert owner.post(f"/api/clubs/{n}/tourneys/{t}/start", json={}).status_code == 200
        for pause in (1.0, 0.6, 0.9):  # killed three times mid-round, at different moments of the hands
            time.sleep(pause)
            before = owner.get(f"/api/clubs/{n}/tourneys/{t}").json()
            if before["rounds"][0]["status"] != "running":
                break
            srv.kill9()
            srv.start()
        view = owner.get(f"/api/clubs/{n}/tourneys/{t}").json()
        assert view["rounds"][0]["seeds"] is None or view["rounds"][0]["status"] == "done"
        view = flow_wait(owner, n, t, 1)
        check_round(people, view, 1, 4, tmp_path, verify_cli=False)
        assert all(x["hands"] == 4 for x in view["standings"]), view["standings"]
        assert all(x["score"] <= 0 for x in view["standings"] if x["forfeits"])
    finally:
        srv.stop()


def test_a_ruleset_of_three_seats_is_refused(client: TestClient,
                                             roles_world: tuple[str, dict[str, str | None]]) -> None:
    n, roles = roles_world
    body = {"name": "赛", "config": {"rules": "paohuzi"}}
    res = as_(client, roles["admin"]).post(f"/api/clubs/{n}/tourneys", json=body)
    assert res.status_code == 400 and res.json()["error"] == "not_four"


JUNK: list[Any] = [None, 1, -1, 10**30, 1.5, "", "x" * 5000, [], [1, 2], {}, {"a": {"b": [None]}}, True, "赛\u0000"]


@pytest.mark.parametrize("junk", JUNK, ids=range(len(JUNK)))
def test_junk_never_breaks_an_endpoint(client: TestClient, roles_world: tuple[str, dict[str, str | None]],
                                       junk: Any) -> None:
    """Any body, any field, any path: an answer with a reason (4xx), never a traceback."""
    n, roles = roles_world
    t = new_tourney(client, n, str(roles["owner"]), rounds=1, hands=1)
    c = as_(client, roles["owner"])
    base = f"/api/clubs/{n}/tourneys"
    for field in ("name", "config", "rounds", "hands", "starts_at", "bots", "bots_count", "extra"):
        res = c.post(base, json={"name": "赛", field: junk})
        assert res.status_code < 500 and (res.status_code < 400 or {"error", "zh", "en"} <= set(res.json()))
        if res.status_code == 201:
            c.post(f"{base}/{res.json()['id']}/end", json={})
    for tail in ("register", "withdraw", "pause", "seat", "players/1/remove"):
        res = c.post(f"{base}/{t}/{tail}", json=junk)
        assert res.status_code < 500
    bad = urllib.parse.quote(str(junk)[:200], safe="")
    for path in (f"{base}/{bad}", f"{base}/{bad}/standings", f"{base}/{t}/players/{bad}/remove"):
        res = c.get(path) if "remove" not in path else c.post(path, json={})
        assert res.status_code < 500
    res = c.post(base, content=b"\xff\xfe not json", headers={"content-type": "application/json"})
    assert res.status_code == 400
    c.post(f"{base}/{t}/end", json={})
