"""Every value a client supplies is bounded, and refused whole (400, Chinese first, nothing stored)."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import msgspec
import pytest
from serving import Client, Server, get, post

from daer.bots import SearchBot
from daer.rules import find_rules, preset_names
from daer.rules.house import house_options, value_at
from daer.server.safety import bounds
from daer.server.safety.bounds import RoomConfig, bot_for
from daer.store import SeatRow, Store


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("bounds") / "daer.db").start()
    yield srv
    srv.stop()


def rooms_stored(server: Server) -> int:
    with sqlite3.connect(server.db) as db:
        return int(db.execute("select count(*) from rooms").fetchone()[0])


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"config": {"overrides": {"table.seats": 100000}}}, "bad_overrides"),
        ({"config": {"overrides": {"table.seats": 0}}}, "bad_overrides"),
        ({"config": {"overrides": {"table.dealer_cards": 80}}}, "bad_overrides"),
        ({"config": {"overrides": {"win.min_hu": 1000}}}, "bad_overrides"),
        ({"config": {"overrides": {"win.min_hu": 4}}}, "bad_overrides"),
        ({"config": {"overrides": {"win.min_hu": True}}}, "bad_overrides"),
        ({"config": {"overrides": {"play.chi": 1}}}, "bad_overrides"),
        ({"config": {"overrides": {"win.instant_longs": 2}}}, "bad_overrides"),
        ({"config": {"overrides": {"scoring.mode": "mingtang"}}}, "bad_overrides"),
        ({"config": {"overrides": {"scoring.money.unit": 10**9}}}, "bad_overrides"),
        ({"config": {"overrides": {"scoring.money.unit": 0.001}}}, "bad_overrides"),
        ({"config": {"overrides": {"scoring.money.unit": 0}}}, "bad_overrides"),
        ({"config": {"overrides": {"scoring.money.unit": "五毛"}}}, "bad_overrides"),
        ({"config": {"overrides": {"scoring.money.unit": "nan"}}}, "bad_overrides"),
        ({"config": {"overrides": {"play.guo_zhang": 1.5}}}, "bad_overrides"),
        ({"config": {"overrides": {"x" * 65: True}}}, "bad_config"),
        ({"config": {"hands": 0}}, "bad_hands"),
        ({"config": {"hands": 65}}, "bad_hands"),
        ({"config": {"timer": -1}}, "bad_timer"),
        ({"config": {"timer": 601}}, "bad_timer"),
        ({"config": {"bot": "search:999999999"}}, "bad_bot"),
        ({"config": {"bot": "search:0"}}, "bad_bot"),
        ({"config": {"bot": "nobody"}}, "bad_bot"),
        ({"config": {"bot": "oracle"}}, "bad_bot"),  # it sees every card: measurement only
        ({"config": {"rules": "x" * 33}}, "bad_config"),
        ({"config": {"dealer_rule": "never"}}, "bad_dealer_rule"),
        ({"name": "名" * 25}, "bad_request"),
        ({"name": 7}, "bad_request"),
        ({"rid": "r" * 65}, "bad_request"),
        ({"rid": ""}, "bad_request"),
        ({"colour": "red"}, "bad_request"),
    ],
)
def test_each_bound_is_refused_whole_in_chinese_then_english_and_nothing_is_stored(
        server: Server, body: dict[str, Any], code: str) -> None:
    before = rooms_stored(server)
    status, answer = post(f"{server.url}/api/rooms", {"name": "A", **body})
    assert status == 400, answer
    assert answer["error"] == code
    assert answer["zh"] and answer["en"] and answer["zh"] != answer["en"]
    assert rooms_stored(server) == before


@pytest.mark.parametrize("config", [
    {"overrides": {"play.guo_zhang": False, "win.min_hu": 15, "scoring.mode": "money", "scoring.money.unit": 5}},
    {"overrides": {"scoring.mode": "money", "scoring.money.unit": 0.5}},
    {"overrides": {"scoring.mode": "money", "scoring.money.unit": "0.5"}},
    {"bot": "search:2000"}, {"bot": "hard"}, {"bot": "easy"}, {"hands": 64, "timer": 600},
    {"rules": "paohuzi", "overrides": {"scoring.huayang.self_drawn_deng": 2}},
])
def test_values_within_the_bounds_are_accepted(server: Server, config: dict[str, Any]) -> None:
    status, answer = post(f"{server.url}/api/rooms", {"name": "名" * 24, "config": config})
    assert status == 200, answer


def test_the_options_players_may_change_are_served_per_preset_with_type_range_default_and_labels(
        server: Server) -> None:
    status, opts = get(f"{server.url}/api/options")
    assert status == 200
    assert set(opts["house"]) == set(preset_names())
    luzhou = {o["path"]: o for o in opts["house"]["luzhou"]}
    assert "table.seats" not in luzhou
    assert luzhou["play.guo_zhang"] == {"path": "play.guo_zhang", "type": "bool", "zh": luzhou["play.guo_zhang"]["zh"],
                                        "en": luzhou["play.guo_zhang"]["en"], "default": True, "values": [],
                                        "min": None, "max": None}
    assert luzhou["win.min_hu"]["min"] == 5 and luzhou["win.min_hu"]["max"] == 40
    assert "scoring.money.unit" not in {o["path"] for o in opts["house"]["luzhou-mingtang"]}
    assert opts["bounds"]["hands"] == [1, 64] and opts["bounds"]["search_worlds"] == bounds.MAX_SEARCH_WORLDS


def test_the_options_name_every_ruleset_in_chinese_and_english_with_its_one_line_description(server: Server) -> None:
    status, opts = get(f"{server.url}/api/options")
    assert status == 200
    by_name = {r["name"]: r for r in opts["rulesets"]}
    assert list(by_name) == preset_names() == opts["presets"]
    for name, r in by_name.items():
        rules = find_rules(name)
        assert (r["zh"], r["en"]) == (rules.title_zh, rules.title_en)
        assert (r["description_zh"], r["description_en"]) == (rules.description_zh, rules.description_en)
        assert r["zh"] != name and r["description_zh"] and r["description_en"], name
    assert by_name["luzhou"]["zh"] == "泸州大贰" and by_name["paohuzi"]["zh"] == "跑胡子"


@pytest.mark.parametrize("unit", [0.5, "0.5", "2.50", 3])
def test_a_wumao_base_is_a_house_rule_players_may_choose(unit: object) -> None:
    """000_…: 「少的可以五毛钱」 — a room may play for 0.5 元 a 棒, counted exactly (in 分, never float)."""
    cfg = RoomConfig(rules="luzhou", overrides={"scoring.mode": "money", "scoring.money.unit": unit})
    rules = bounds.check_config(cfg)
    assert rules.scoring.money.unit == Decimal(str(unit))
    assert rules.scoring.money.unit_fen == int(Decimal(str(unit)) * 100)


@pytest.mark.parametrize("preset", preset_names())
def test_every_offered_option_exists_and_its_default_is_within_its_own_bounds(preset: str) -> None:
    rules = find_rules(preset)
    for opt in house_options(preset):
        assert opt.check(value_at(rules, opt.path)) is None, opt.path
        assert opt.zh and opt.en


def test_ids_codes_and_tokens_over_the_one_length_limit_are_clean_errors(server: Server) -> None:
    _, r = post(f"{server.url}/api/rooms", {"name": "A", "config": {"timer": 0}})
    c = Client(server, r["code"], r["token"])
    c.cmd("start")
    upd = c.state(lambda m: m["view"] is not None)
    for msg in ({"t": "act", "id": "x" * 65, "v": upd["v"], "action": {"type": "pass", "seat": 0}},
                {"t": "cmd", "id": "y" * 65, "name": "next"},
                {"t": "sync", "v": -1}, {"t": "sync", "v": 2**60}):
        c.send(msg)
        assert c.until(lambda m: m["t"] == "error")["code"] == "bad_message"
    c.send({"t": "ping"})
    assert c.until(lambda m: m["t"] in ("pong", "error"))["t"] == "pong"
    for hello in ({"t": "hello", "room": "R" * 17}, {"t": "hello", "room": r["code"], "token": "t" * 65}):
        other = Client(server, "X")  # a fresh socket whose first hello failed (no room X)
        assert other.welcome["code"] == "no_room"
        other.send(hello)
        assert other.until(lambda m: m["t"] == "error")["code"] == "bad_message"
    with sqlite3.connect(server.db) as db:
        assert db.execute("select max(length(client_id)) from actions").fetchone()[0] in (None, *range(65))


@pytest.mark.parametrize("path", [
    "/api/hands/9223372036854775808/record", "/api/hands/1/record", "/api/hands/1/replay",
    "/api/rooms/ABCDE/hands/9223372036854775808/record", "/api/rooms/ABCDE/hands/0/replay",
    "/api/rooms/ABCDE/hands/1/record", "/api/rooms/" + "A" * 40 + "/hands/1/record",
])
def test_hand_numbers_out_of_range_and_bare_hand_ids_are_404(server: Server, path: str) -> None:
    status, body = get(f"{server.url}{path}")
    assert status == 404, body
    assert body["zh"] and body["en"]


def test_a_search_bot_is_capped_in_worlds_and_in_seconds_per_decision() -> None:
    bot = bot_for("search:2000", find_rules(), "s")
    assert isinstance(bot, SearchBot)
    assert bot.seconds == bounds.BOT_SECONDS and bot.worlds == 2000
    clocked = bot_for("search", find_rules(), "s")
    assert isinstance(clocked, SearchBot) and clocked.seconds is not None and clocked.seconds <= bounds.BOT_SECONDS


def test_rooms_stored_before_the_bounds_are_revalidated_at_restart_and_not_resumed(tmp_path: Path) -> None:
    db = tmp_path / "daer.db"
    store = Store(f"sqlite:///{db}")
    for code, cfg in (("OLDOK", RoomConfig(timer=0)), ("OLDBAD", RoomConfig(timer=0, bot="search:999999999"))):
        store.create_room(code=code, created_at=0.0, config=msgspec.json.encode(cfg).decode(), scores="[0,0,0,0]",
                          dealer=0, seats=[SeatRow(i, "empty", "", None, False) for i in range(4)])
    store.close()
    srv = Server(db).start()
    try:
        assert get(f"{srv.url}/api/rooms/OLDOK")[0] == 200  # old 5-character codes keep working
        status, body = get(f"{srv.url}/api/rooms/OLDBAD")
        assert status == 404 and body["error"] == "no_room"
        log = srv.log.read_text()
        assert "OLDBAD no longer valid" in log and "Traceback" not in log
    finally:
        srv.stop()
    with sqlite3.connect(db) as conn:
        assert conn.execute("select status from rooms where code='OLDBAD'").fetchone()[0] == "expired"


def test_new_room_codes_are_twelve_characters(server: Server) -> None:
    _, r = post(f"{server.url}/api/rooms", {"name": "A"})
    assert len(r["code"]) == 12
    assert json.dumps(r["code"]).isascii()


@pytest.mark.slow
def test_rooms_of_search_bots_do_not_stall_other_rooms(tmp_path: Path) -> None:
    srv = Server(tmp_path / "daer.db").start()
    try:
        def all_bots(bot: str) -> str:
            _, r = post(f"{srv.url}/api/rooms", {"name": "A", "config": {"timer": 0, "hands": 1, "bot": bot}})
            c = Client(srv, r["code"], r["token"])
            c.cmd("start")
            c.cmd("leave")
            return str(r["code"])

        for _ in range(8):
            all_bots("search:2000")
        code = all_bots("normal")
        start = time.monotonic()
        while time.monotonic() - start < 120:
            _status, info = get(f"{srv.url}/api/rooms/{code}")
            if info["room"]["status"] == "finished":
                break
            time.sleep(0.5)
        assert info["room"]["status"] == "finished"
        print(f"a heuristic table finished its hand in {time.monotonic() - start:.1f} s beside 8 search:2000 rooms")
        assert "Traceback" not in srv.log.read_text()
    finally:
        srv.stop()
