"""战绩 (issue 20, items 3 and 6): a finished hand at any table leaves one row per seat, written with the hand's
finish — its player and club found by the statement, never doubled when the hand is booked again — and what is
read from them: a player's history, totals and chart, a club's table, settle-up sheet and leaderboards (weeks of
China Standard Time), the exports, a deleted player's rows renamed with their points kept, and every endpoint
against every role."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from sqlalchemy import insert, select, text, update
from starlette.testclient import TestClient

from daer.server import create_app
from daer.server import protocol as p
from daer.server.players.identity import COOKIE
from daer.server.safety.bounds import RoomConfig
from daer.server.safety.limits import Limits, Rate
from daer.server.serving.manager import RoomManager
from daer.store import Store
from daer.store.clubs import ClubStore
from daer.store.models import HandTable, RecordTable, RoomTable
from daer.store.periods import CST, PeriodError, cst_day, cst_month, period_bounds
from daer.store.players import GONE, PlayerStore
from daer.store.records import HandRecord, RecordStore, SeatResult

DAY = 86400.0


def cst(*ymdhm: int) -> float:
    """A moment of China Standard Time."""
    return datetime(*ymdhm, tzinfo=CST).timestamp()  # type: ignore[misc]


# -- a real hand, on a server ---------------------------------------------------------------------------
async def _play_one_hand(m: RoomManager, code: str) -> None:
    room = m.rooms[code]
    room.command(0, p.Command(id="s", name="start"))  # the empty seats get bots
    room.seats[0].auto = True  # the host's seat in 托管: the bots play the hand out
    room.schedule()
    for _ in range(4000):
        if m.rooms[code].status == "finished":
            return
        await asyncio.sleep(0.001)
    raise AssertionError("the hand did not end")


def _records(store: Store, code: str) -> list[Any]:
    with store.engine.connect() as conn:
        return list(conn.execute(select(RecordTable).where(RecordTable.room_code == code)
                                 .order_by(RecordTable.seat)).all())


def test_a_finished_hand_records_every_seat_with_its_player_and_club_once(db_url: str) -> None:
    store = Store(db_url)
    m = RoomManager(store, bot_delay=0.0, sole=True)
    players, clubs = PlayerStore(store.engine), ClubStore(store.engine)
    owner = players.create("老张", "c1", "a" * 64)
    club = clubs.create(owner, "老张的圈", "", "{}", 500)
    room, seat, _token = m.create(RoomConfig(timer=0, hands=1), "老张")
    players.link_seat(owner, room.code, seat)
    clubs.add_room(room.code, club.id, None, owner)
    plain, _, _ = m.create(RoomConfig(timer=0, hands=1), "路人")  # a room of no club, its seat nobody's
    try:
        asyncio.run(_play_one_hand(m, room.code))
        asyncio.run(_play_one_hand(m, plain.code))
        store.flush()
        rows = _records(store, room.code)
        with store.engine.connect() as conn:
            hand = conn.execute(select(HandTable).where(HandTable.room_code == room.code)).one()
        points = json.loads(hand.points)
        assert [r.seat for r in rows] == [0, 1, 2, 3]
        assert [r.points for r in rows] == points and sum(points) == 0
        assert rows[0].player_id == owner and rows[0].kind == "human" and rows[0].name == "老张"
        assert all(r.player_id is None and r.kind == "bot" for r in rows[1:])
        assert {r.club_id for r in rows} == {club.id} and {r.hand_id for r in rows} == {hand.id}
        assert {r.hand_number for r in rows} == {1} and {r.rules for r in rows} == {"luzhou"}
        result = m.rooms[room.code].state.result  # type: ignore[union-attr]
        assert {r.winner for r in rows} == {result.winner}
        assert rows[0].how in (("huang",) if result.winner is None else ("zimo", "dianpao", "hu", "instant"))
        assert json.loads(rows[0].mingtang) == [*result.flags, *result.multipliers, *([result.name] if result.name
                                                                                      else [])]
        others = _records(store, plain.code)
        assert len(others) == 4 and {r.club_id for r in others} == {None} and {r.player_id for r in others} == {None}
        # booked again (the restore of a hand stored over but not booked): no second row
        rec = HandRecord(room_code=room.code, hand_number=1, rules="luzhou", money=False, winner=None, how="huang",
                         hu=0, mingtang=(), seats=tuple(SeatResult(s, "bot", "x", 0) for s in range(4)))
        fence = m.rooms[room.code].port._fence()
        store.finish_hand(hand.id, hand.points, code=room.code, fence=fence, record=rec)
        assert [(r.points, r.name) for r in _records(store, room.code)] == [(r.points, r.name) for r in rows]
    finally:
        for r in list(m.rooms.values()):
            r.stop()
        store.close()


def test_a_hand_over_but_not_booked_is_recorded_once_when_the_room_is_restored(db_url: str) -> None:
    store = Store(db_url)
    m = RoomManager(store, bot_delay=0.0, sole=True)
    room, _, _ = m.create(RoomConfig(timer=0, hands=1), "A")
    code = room.code
    try:
        asyncio.run(_play_one_hand(m, code))
        m.release(code)
        before = _records(store, code)
        assert len(before) == 4
        with store.engine.begin() as conn:  # as if the process died between the last action and the booking
            conn.execute(update(HandTable).where(HandTable.room_code == code).values(finished=False, points=None))
            conn.execute(update(RoomTable).where(RoomTable.code == code).values(status="playing", hands_played=0))
        again = RoomManager(store, bot_delay=0.0, sole=True)
        assert again.get(code) is not None
        store.flush()
        after = _records(store, code)
        assert [(r.seat, r.points, r.hand_id) for r in after] == [(r.seat, r.points, r.hand_id) for r in before]
        for r in list(again.rooms.values()):
            r.stop()
    finally:
        for r in list(m.rooms.values()):
            r.stop()
        store.close()


# -- reads, over records made here ------------------------------------------------------------------------
class Book:
    """A database with a club and players, and hands recorded directly (as the server writes them)."""

    def __init__(self, url: str) -> None:
        self.store = Store(url)
        self.players = PlayerStore(self.store.engine)
        self.clubs = ClubStore(self.store.engine)
        self.records = RecordStore(self.store.engine)
        self.n = 0

    def player(self, name: str) -> int:
        self.n += 1
        return self.players.create(name, "c0", f"{self.n:064d}")

    def hand(self, at: float, seats: list[tuple[int | None, int]], *, club: int | None = None, winner: int | None = 0,
             money: bool = False, how: str = "zimo") -> None:
        """One hand: (player or None for a bot, points) per seat."""
        self.n += 1
        code = f"R{self.n:05d}"
        with self.store.engine.begin() as conn:
            conn.execute(insert(RoomTable).values(code=code, created_at=at, config="{}", status="finished", version=1,
                                                  scores="[]", dealer=0, hands_played=1))
            hid = conn.execute(insert(HandTable).values(room_code=code, number=1, rules="luzhou", overrides="{}",
                                                        dealer=0, deck="[]", start_version=1, finished=True)
                               .returning(HandTable.id)).scalar_one()
            conn.execute(insert(RecordTable), [
                {"hand_id": hid, "room_code": code, "hand_number": 1, "club_id": club, "player_id": pid, "seat": s,
                 "kind": "human" if pid else "bot", "name": f"p{pid}" if pid else "机器人", "rules": "luzhou",
                 "at": at, "points": pts, "money": money, "winner": winner, "how": how, "hu": 10,
                 "mingtang": '["self_drawn"]', "day": cst_day(at), "month": cst_month(at)}
                for s, (pid, pts) in enumerate(seats)])

    def close(self) -> None:
        self.store.close()


@pytest.fixture
def book(db_url: str) -> Iterator[Book]:
    b = Book(db_url)
    yield b
    b.close()


def test_history_is_newest_first_in_pages_with_every_seats_name_and_the_replay(book: Book) -> None:
    a, b = book.player("阿明"), book.player("小李")
    t0 = cst(2026, 3, 2, 20, 0)
    for i in range(5):
        book.hand(t0 + i * 60, [(a, 30 - i), (b, -(30 - i)), (None, 0), (None, 0)], winner=0 if i % 2 == 0 else 1)
    page = book.records.history(a, limit=3)
    assert [r["points"] for r in page["records"]] == [26, 27, 28]
    first = page["records"][0]
    assert first["names"] == [f"p{a}", f"p{b}", "机器人", "机器人"] and first["seat"] == 0 and first["won"]
    assert first["replay"] == f"/replay/{first['room']}/1" and first["club"] is None and first["mingtang"] == [
        "self_drawn"]
    rest = book.records.history(a, before=page["next"], limit=3)
    assert [r["points"] for r in rest["records"]] == [29, 30] and rest["next"] is None
    assert [r["won"] for r in book.records.history(b)["records"]] == [False, True, False, True, False]


def test_totals_split_points_from_money_and_the_chart_runs_by_cst_day(book: Book) -> None:
    a, b = book.player("阿明"), book.player("小李")
    late = cst(2026, 3, 2, 23, 59)  # a minute before midnight in 泸州 (15:59 UTC)
    book.hand(late, [(a, 10), (b, -10)])
    book.hand(late + 120, [(a, -4), (b, 4)], winner=1)  # 00:01 the next day in CST, the same day in UTC
    book.hand(late + 180, [(a, 250), (b, -250)], money=True)
    assert book.records.totals(a) == {"points": {"hands": 2, "wins": 1, "points": 6},
                                      "money": {"hands": 1, "wins": 1, "points": 250}}
    s = book.records.series(a)
    assert s["points"] == [{"day": "2026-03-02", "points": 10, "total": 10},
                           {"day": "2026-03-03", "points": -4, "total": 6}]
    assert s["money"] == [{"day": "2026-03-03", "points": 250, "total": 250}]


def test_the_chart_keeps_at_most_400_points_and_its_last_total(book: Book) -> None:
    a = book.player("阿明")
    t0 = cst(2025, 1, 1, 12, 0)
    for i in range(450):
        book.hand(t0 + i * DAY, [(a, 1), (None, -1)])
    line = book.records.series(a)["points"]
    assert len(line) <= 400 and line[-1]["total"] == 450 and line[0]["total"] == 1
    assert [x["total"] for x in line] == sorted(x["total"] for x in line)


def _club(book: Book, *members: int) -> int:
    club = book.clubs.create(members[0], "圈", "", "{}", 500)
    for pid in members[1:]:
        assert book.clubs.add_member(club.id, pid, 500) == "joined"
    return club.id


def test_the_club_table_lists_every_member_even_without_a_hand_sorted_by_points(book: Book) -> None:
    a, b, c, idle, outsider = (book.player(n) for n in ("甲", "乙", "丙", "丁", "外人"))
    cid = _club(book, a, b, c, idle)
    t = cst(2026, 3, 3, 20, 0)
    book.hand(t, [(a, -20), (b, 50), (c, -10), (outsider, -20)], club=cid, winner=1)
    book.hand(t + 60, [(a, 5), (b, -5), (None, 0), (None, 0)], club=cid)
    book.hand(t + 120, [(a, 999), (b, -999)])  # not at a club table: not the club's
    rows = book.records.club_table(cid, t - DAY, t + DAY)
    assert [(r["player"], r["hands"], r["wins"], r["points"]) for r in rows] == [
        (b, 2, 1, 45), (idle, 0, 0, 0), (c, 1, 0, -10), (a, 2, 1, -15)]
    assert outsider not in {r["player"] for r in rows}
    assert book.records.club_table(cid, t + DAY, t + 2 * DAY)[0]["hands"] == 0  # another period: nothing


def test_the_settle_up_sheet_settles_every_net_with_the_others_share(book: Book) -> None:
    a, b, c, d = (book.player(n) for n in "甲乙丙丁")
    cid = _club(book, a, b, c, d)
    t = cst(2026, 3, 3, 20, 0)
    book.hand(t, [(a, -30), (b, 30), (c, -10), (d, 10)], club=cid)
    book.hand(t + 60, [(a, 7), (None, -7)], club=cid)  # a bot's share
    book.hand(t + 90, [(a, 300), (b, -300)], club=cid, money=True)
    sheet = book.records.settle(cid, t - DAY, t + DAY)["sheets"]
    pts = sheet["points"]
    assert pts["others"] == -7  # the bot won 7 of the club's members
    nets = {x["player"]: x["net"] for x in pts["nets"]}
    assert nets == {a: -23, b: 30, c: -10, d: 10}
    after = {**nets, None: pts["others"]}
    for tr in pts["transfers"]:
        after[tr["from"]] += tr["amount"]
        after[tr["to"]] -= tr["amount"]
        assert tr["amount"] > 0
    assert set(after.values()) == {0}
    assert len(pts["transfers"]) == 3  # (c → d) apart: 5 nets in two zero groups
    assert sheet["money"]["transfers"] == [{"from": b, "from_name": "乙", "to": a, "to_name": "甲", "amount": 300}]


def test_a_leaderboard_ranks_members_with_enough_hands_and_resets_on_monday_in_cst(book: Book) -> None:
    a, b, c = (book.player(n) for n in "甲乙丙")
    cid = _club(book, a, b, c)
    with book.store.engine.begin() as conn:
        conn.execute(text("UPDATE clubs SET min_hands = 2 WHERE id = :c"), {"c": cid})
    sunday_night = cst(2026, 3, 8, 23, 30)  # Sunday 23:30 in CST (a Sunday 15:30 UTC)
    monday = cst(2026, 3, 9, 0, 10)  # Monday 00:10 in CST: still Sunday in UTC
    book.hand(sunday_night, [(a, 100), (b, -100)], club=cid)
    book.hand(sunday_night + 60, [(a, 100), (b, -100)], club=cid)
    for i in range(3):
        book.hand(monday + i * 60, [(b, 5), (c, -5)], club=cid, winner=0)
    book.hand(monday + 600, [(a, 1), (c, -1)], club=cid)
    week = book.records.leaderboard(cid, "week", monday + 3600)
    assert week["start"] == cst(2026, 3, 9, 0, 0) and week["min_hands"] == 2 and week["unit"] == "points"
    assert [(x["rank"], x["player"], x["points"], x["hands"]) for x in week["ranked"]] == [(1, b, 15, 3),
                                                                                           (2, c, -16, 4)]
    assert week["unranked"] == [{"player": a, "nickname": "甲", "hands": 1}]
    last = book.records.leaderboard(cid, "week", sunday_night + 1000)
    assert [(x["player"], x["points"]) for x in last["ranked"]] == [(a, 200), (b, -200)]
    month = book.records.leaderboard(cid, "month", monday)
    assert [(x["player"], x["points"]) for x in month["ranked"]] == [(a, 201), (c, -16), (b, -185)]
    with pytest.raises(ValueError):
        book.records.leaderboard(cid, "today", monday)


def test_period_bounds_are_cst_days_weeks_months_seasons_and_bounded_ranges() -> None:
    now = cst(2026, 5, 31, 23, 59)
    assert period_bounds("today", now) == (cst(2026, 5, 31, 0, 0), cst(2026, 6, 1, 0, 0))
    assert period_bounds("yesterday", now) == (cst(2026, 5, 30, 0, 0), cst(2026, 5, 31, 0, 0))
    assert period_bounds("week", now) == (cst(2026, 5, 25, 0, 0), cst(2026, 6, 1, 0, 0))
    assert period_bounds("month", cst(2026, 12, 5, 1, 0)) == (cst(2026, 12, 1, 0, 0), cst(2027, 1, 1, 0, 0))
    assert period_bounds("season", now) == (cst(2026, 4, 1, 0, 0), cst(2026, 7, 1, 0, 0))
    assert period_bounds("range", now, "2026-01-01", "2026-01-31") == (cst(2026, 1, 1, 0, 0), cst(2026, 2, 1, 0, 0))
    for bad in (("range", "2026-01-01", None), ("range", "2026-02-01", "2026-01-01"),
                ("range", "2024-01-01", "2026-01-01"), ("range", "2026-13-01", "2026-12-01"), ("forever", None, None),
                ("range", "20260101", "2026-01-02")):
        with pytest.raises(PeriodError) as exc:
            period_bounds(bad[0], now, bad[1], bad[2])
        assert exc.value.zh and exc.value.en


def test_a_deleted_players_rows_show_the_neutral_name_and_every_sum_still_adds_up(book: Book) -> None:
    a, b = book.player("阿明"), book.player("小李")
    cid = _club(book, a, b)
    t = cst(2026, 3, 3, 20, 0)
    book.hand(t, [(a, 12), (b, -12)], club=cid)
    book.hand(t + 60, [(a, -2), (b, 2)], club=cid, winner=1)
    before = book.records.totals(b)
    book.players.delete(a)
    seen = book.records.history(b)["records"]
    assert all(r["names"][0] == GONE for r in seen) and all(r["names"][1] == f"p{b}" for r in seen)
    assert book.records.totals(b) == before
    with book.store.engine.connect() as conn:
        assert conn.execute(text("SELECT sum(points) FROM records")).scalar() == 0
    assert [r["name"] for r in book.records.rows(club_id=cid) if r["player"] == a] == [GONE, GONE]


# -- the endpoints ------------------------------------------------------------------------------------------
HIGH = Rate(100000, 100000)
RATES = dict.fromkeys(("create", "join", "lookup", "player", "signin", "signin_link", "me"), HIGH)


@pytest.fixture
def app(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, bot_delay=0.0, limits=Limits(rates=RATES))) as c:
        yield c


def _player(c: TestClient, name: str) -> str:
    c.cookies.clear()
    res = c.post("/api/rooms", json={"name": name, "config": {"timer": 0}})
    assert res.status_code == 200, res.text
    return str(c.cookies[COOKIE])


def _as(c: TestClient, secret: str | None) -> TestClient:
    c.cookies.clear()
    if secret is not None:
        c.cookies.set(COOKIE, secret, domain="testserver.local")
    return c


def test_every_records_endpoint_answers_each_role(app: TestClient) -> None:
    owner, member, stranger = _player(app, "群主"), _player(app, "成员"), _player(app, "路人")
    engine = app.app.state.manager.store.engine  # type: ignore[attr-defined]
    ids = {s: int(_as(app, s).get("/api/me").json()["id"]) for s in (owner, member, stranger)}
    clubs = ClubStore(engine)
    club = clubs.create(ids[owner], "老张的圈", "", "{}", 500)
    clubs.add_member(club.id, ids[member], 500)
    n = club.number
    club_paths = [f"/api/clubs/{n}/records?period=week", f"/api/clubs/{n}/settle?period=month",
                  f"/api/clubs/{n}/leaderboard?period=season"]
    exports = [f"/api/clubs/{n}/export.json", f"/api/clubs/{n}/export.csv"]
    for path in ["/api/me/records", "/api/me/records.json", "/api/me/records.csv", *club_paths, *exports]:
        res = _as(app, None).get(path)
        assert res.status_code == 401 and res.json()["error"] == "no_player", path
    for path in club_paths + exports:
        res = _as(app, stranger).get(path)
        assert res.status_code == 403 and res.json()["error"] == "not_member", path
    for path in club_paths:
        assert _as(app, member).get(path).status_code == 200, path
    for path in exports:
        assert _as(app, member).get(path).status_code == 403, path
        res = _as(app, owner).get(path)
        assert res.status_code == 200 and "attachment" in res.headers["content-disposition"], path
        assert res.headers["cache-control"] == "no-store"
    assert _as(app, member).get("/api/clubs/000000/records").status_code == 404
    assert _as(app, owner).get(f"/api/clubs/{n}/records").json()["members"][0]["hands"] == 0


def test_bad_query_parameters_are_400_with_a_reason(app: TestClient) -> None:
    owner = _player(app, "群主")
    engine = app.app.state.manager.store.engine  # type: ignore[attr-defined]
    club = ClubStore(engine).create(int(_as(app, owner).get("/api/me").json()["id"]), "圈", "", "{}", 500)
    n = club.number
    for path in (f"/api/clubs/{n}/records?period=forever", f"/api/clubs/{n}/settle?period=range&from=2026-01-01",
                 f"/api/clubs/{n}/settle?period=range&from=2020-01-01&to=2026-01-01",
                 f"/api/clubs/{n}/records?period=range&from=x&to=y", f"/api/clubs/{n}/leaderboard?period=today",
                 "/api/me/records?limit=0", "/api/me/records?limit=201", "/api/me/records?limit=abc",
                 "/api/me/records?before=nan", "/api/me/records?before=-1", "/api/me/records?before=1e999",
                 "/api/me/records?before=" + "9" * 40):
        res = _as(app, owner).get(path)
        assert res.status_code == 400, path
        body = res.json()
        assert body["error"] == "bad_query" and body["zh"] and body["en"], path
    ok = _as(app, owner).get(f"/api/clubs/{n}/records?period=range&from=2026-01-01&to=2026-01-31")
    assert ok.status_code == 200


def test_my_records_and_exports_over_http(app: TestClient) -> None:
    me = _player(app, "阿明")
    engine = app.app.state.manager.store.engine  # type: ignore[attr-defined]
    pid = int(_as(app, me).get("/api/me").json()["id"])
    book = Book.__new__(Book)
    book.store, book.n = app.app.state.manager.store, 100  # type: ignore[attr-defined]
    for i in range(3):
        book.hand(cst(2026, 3, 3, 20, i), [(pid, 10 + i), (None, -10 - i)])
    res = _as(app, me).get("/api/me/records?limit=2")
    body = res.json()
    assert [r["points"] for r in body["records"]] == [12, 11] and body["totals"]["points"]["points"] == 33
    assert body["series"]["points"][-1]["total"] == 33
    more = _as(app, me).get(f"/api/me/records?before={body['next']}").json()
    assert [r["points"] for r in more["records"]] == [10] and "totals" not in more
    data = _as(app, me).get("/api/me/records.json").json()
    assert [r["points"] for r in data["records"]] == [10, 11, 12] and data["player"] == pid
    text_ = _as(app, me).get("/api/me/records.csv").text.lstrip("\ufeff")
    lines = list(csv.DictReader(io.StringIO(text_)))
    assert [int(x["points"]) for x in lines] == [10, 11, 12] and lines[0]["mingtang"] == "self_drawn"
    assert engine is not None
