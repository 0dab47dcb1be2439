"""提示 (hint) as a room option (``RoomConfig.hint``): off by default, refused with money play, and the suggestion
goes only to the seat that has something to decide, in that seat's own update — never to another seat or a
spectator.  A room without it never computes one."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from serving import Client, Server, post, room

from daer.bots import HeuristicBot
from daer.engine import new_hand
from daer.rules import find_rules, preset_names
from daer.server import protocol as p
from daer.server.safety.bounds import RoomConfig, RoomError, check_config
from daer.server.table import hinting
from daer.server.table.match import Match
from daer.server.table.seating import Seat

MONEY = {"scoring.mode": "money"}


def test_hint_is_off_by_default() -> None:
    assert RoomConfig().hint is False


def test_hint_with_money_play_is_refused_chinese_first() -> None:
    with pytest.raises(RoomError) as err:
        check_config(RoomConfig(hint=True, overrides=MONEY))
    assert err.value.code == "bad_hint"
    assert "付钱" in err.value.zh and "提示" in err.value.zh and "money" in err.value.en
    check_config(RoomConfig(overrides=MONEY))  # money play alone is fine
    check_config(RoomConfig(hint=True))  # and hints alone


def match_of(name: str, *, hint: bool) -> Match:
    rules = find_rules(name)
    n = rules.table.seats
    return Match(code="T", config=RoomConfig(rules=name, hint=hint), rules=rules,
                 seats=[Seat(s) for s in range(n)], scores=[0] * n, status="playing")


@pytest.mark.parametrize("name", preset_names())
def test_only_the_seat_to_decide_gets_the_hint_in_its_own_update(name: str) -> None:
    match = match_of(name, hint=True)
    rules = match.rules
    hinted = 0
    for i in range(2):
        st = new_hand(rules, seed=f"room-hint:{name}:{i}", dealer=i % rules.table.seats, hold=True)
        match.install(st, 0)
        bots = [HeuristicBot(rules) for _ in range(rules.table.seats)]
        while not st.over:
            for seat in range(rules.table.seats):
                upd = match.update_for(seat, None, 0.0)
                assert upd.view is not None
                if upd.view.to_act:
                    assert isinstance(upd.hint, p.Hint) and upd.hint.action in upd.view.legal
                    assert upd.hint.zh and upd.hint.en
                    hinted += 1
                else:
                    assert upd.hint is msgspec.UNSET  # left out of the frame
            assert match.update_for(None, None, 0.0).hint is msgspec.UNSET  # a spectator
            if st.window_complete():
                st.close_window()
                continue
            s = st.to_act()[0]
            st.apply(bots[s].choose(st.view(s, log=False)))
        assert all(match.update_for(s, None, 0.0).hint is msgspec.UNSET for s in range(rules.table.seats))
    assert hinted > 10
    assert match.info(0, 0.0).hint is True


def test_a_room_without_hints_never_computes_one(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: Any) -> None:
        raise AssertionError("a hint was computed in a room without the option")

    monkeypatch.setattr(hinting, "hinter_for", refuse)
    match = match_of("luzhou", hint=False)
    rules = match.rules
    st = new_hand(rules, seed="no-hint", dealer=0, hold=True)
    match.install(st, 0)
    bots = [HeuristicBot(rules) for _ in range(rules.table.seats)]
    steps = 0
    while not st.over:
        for seat in range(rules.table.seats):
            upd = match.update_for(seat, None, 0.0)
            assert upd.hint is msgspec.UNSET and '"hint":{' not in p.encode(upd)  # left out of the frame
        if st.window_complete():
            st.close_window()
            continue
        s = st.to_act()[0]
        st.apply(bots[s].choose(st.view(s, log=False)))
        steps += 1
    assert steps > 10 and match.info(0, 0.0).hint is False


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("hint") / "daer.db").start()
    yield srv
    srv.stop()


def test_hint_with_money_play_is_refused_by_the_server(server: Server) -> None:
    status, answer = post(f"{server.url}/api/rooms", {"name": "A", "config": {"hint": True, "overrides": MONEY}})
    assert status == 400
    assert answer["error"] == "bad_hint" and "提示" in answer["zh"] and answer["en"]


def test_over_the_websocket_the_hint_reaches_only_the_seat_to_act(server: Server) -> None:
    r = room(server, hint=True, hands=1)
    status, joined = post(f"{server.url}/api/rooms/{r['code']}/join", {"name": "B"})
    assert status == 200
    a = Client(server, r["code"], r["token"])
    b = Client(server, r["code"], joined["token"])
    watcher = Client(server, r["code"])
    assert a.cmd("start")["t"] == "ack"
    people = [a, b]
    hinted = 0
    acted: set[tuple[int, int, int]] = set()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if a.upd is not None and a.upd["view"] is not None and a.upd["view"]["phase"] == "over":
            break
        for c in people:  # whoever of the two people must decide now follows the hint; bots play the other seats
            with contextlib.suppress(TimeoutError):
                while True:
                    c.recv(timeout=0.05)
            u = c.upd
            if u is None or u["view"] is None or not u["view"]["to_act"] or u["view"]["phase"] == "over":
                continue
            key = (c.welcome["seat"], u["v"], u["p"])
            if key in acted:
                continue
            acted.add(key)
            assert u.get("hint") is not None and u["hint"]["action"] in u["view"]["legal"]
            hinted += c.act(u["hint"]["action"])["t"] == "ack"
    assert a.upd is not None and a.upd["view"]["phase"] == "over" and hinted > 0
    with contextlib.suppress(TimeoutError):
        while True:
            watcher.recv(timeout=0.3)
    for c in people:
        for f in c.frames:
            if f["t"] == "update" and f["view"] is not None:
                assert ("hint" in f) == (f["view"]["to_act"] and f["view"]["phase"] != "over"), f
                if "hint" in f:
                    assert f["hint"]["zh"] and f["hint"]["en"]
    watched = [f for f in watcher.frames if f["t"] == "update"]
    assert watched and all("hint" not in f for f in watched)
    assert all(f["room"]["hint"] is True for f in watched)
    for c in (a, b, watcher):
        c.close()
