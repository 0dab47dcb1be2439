"""Structured logs (``daer serve --log-format json``): one JSON object per line with the room, the seat, the
event and the latency; never a seat token, never a card of a concealed hand."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import re
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from serving import TEST_LIMITS, Client, Server, get, post, room

from daer.cards import BIG_CHARS, SMALL_CHARS, format_kinds, kind_of
from daer.engine import loads, new_hand
from daer.rules import resolve_rules
from daer.server.ops.logs import JsonFormatter, TextFormatter, ctx, setup_logging
from daer.server.table.seating import token_hash

_NUMBERS = re.compile(r"\d+(?:\s*[,，]\s*\d+){4,}")
"""Five or more numbers in a row: any list form of a hand of card ids or kinds (a hand holds ~20)."""
_CARD_ASCII = re.compile(r"(?<![A-Za-z0-9])[xd](10|[1-9])(?![A-Za-z0-9])")
"""A card in the ASCII form of ``format_kinds`` (x1…x10, d1…d10; a room code is upper case)."""


def leaks(text: str, secret_words: list[str]) -> list[str]:
    """What in ``text`` could be a secret: one of ``secret_words`` (tokens and their hashes), a run of
    numbers (a hand printed as a list), a card's character (小一…大拾) or its ASCII form (x1…d10)."""
    found = [w for w in secret_words if w in text]
    found += _NUMBERS.findall(text)
    found += [c for c in SMALL_CHARS + BIG_CHARS if c in text]
    found += [m.group(0) for m in _CARD_ASCII.finditer(text)]
    return found


def _format(formatter: logging.Formatter, record: Any) -> str:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter)
    logger = logging.getLogger(f"daer.test.{secrets.token_hex(4)}")
    logger.propagate = False
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    record(logger)
    return stream.getvalue()


def test_a_json_line_carries_the_context_and_drops_what_is_not_listed() -> None:
    token = secrets.token_urlsafe(18)
    out = _format(JsonFormatter(), lambda log: log.warning(
        "two\nlines", extra=ctx("slow_act", room="ABCDEFGHJKLM", seat=2, latency_ms=123.4, token=token,
                                hand=[3, 4, 5, 6, 7, 8])))
    assert out.count("\n") == 1  # one record, one line, even with a newline in the message
    line = json.loads(out)
    assert line["event"] == "slow_act" and line["level"] == "WARNING" and line["msg"] == "two\nlines"
    assert (line["room"], line["seat"], line["latency_ms"]) == ("ABCDEFGHJKLM", 2, 123.4)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", line["ts"])
    assert line["dropped"] == ["hand", "token"]
    assert token not in out and "[3, 4" not in out


def test_a_library_s_private_record_attributes_are_not_listed_as_dropped() -> None:
    # Ray installs a record factory that adds ``_ray_timestamp_ns`` to every record (found in the full run)
    old = logging.getLogRecordFactory()

    def factory(*args: object, **kwargs: object) -> logging.LogRecord:
        record = old(*args, **kwargs)
        record._lib_timestamp_ns = 1  # type: ignore[attr-defined]
        return record

    logging.setLogRecordFactory(factory)
    try:
        line = json.loads(_format(JsonFormatter(), lambda log: log.warning("x", extra=ctx("e", seat=1, token="t"))))
    finally:
        logging.setLogRecordFactory(old)
    assert line["dropped"] == ["token"] and "_lib_timestamp_ns" not in line


def test_tokens_are_scrubbed_from_messages_and_tracebacks_in_both_formats() -> None:
    token = secrets.token_urlsafe(18)

    def record(log: logging.Logger) -> None:
        try:
            raise ValueError(f"bad hello {token}")
        except ValueError:
            log.exception("failed for %s", token, extra=ctx("error", room="ABCDEFGHJKLM"))

    for formatter in (JsonFormatter(), TextFormatter()):
        out = _format(formatter, record)
        assert token not in out
        assert out.count("[token]") == 2  # the message and the traceback
        assert "ABCDEFGHJKLM" in out  # a room code (12 characters) is not mistaken for a token


def test_debug_is_daer_s_own_a_library_s_debug_lines_stay_out(capsys: pytest.CaptureFixture[str]) -> None:
    root, ours = logging.getLogger(), logging.getLogger("daer")
    saved = (list(root.handlers), root.level, ours.level)
    try:
        setup_logging("json", "debug", worker="m1:8001")
        logging.getLogger("websockets.server").debug("< TEXT '{\"t\": \"hello\", ...}'")  # would quote frames
        logging.getLogger("daer.server").debug("act", extra=ctx("act", room="ABCDEFGHJKLM"))
        logging.getLogger("uvicorn.error").info("started")
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
        ours.setLevel(saved[2])
    lines = [json.loads(x) for x in capsys.readouterr().err.splitlines()]
    assert [(x["logger"], x["event"]) for x in lines] == [("daer.server", "act"), ("uvicorn.error", "log")]
    assert {x["worker"] for x in lines} == {"m1:8001"}  # every line says which worker of a cluster wrote it


def test_the_leak_detector_finds_a_hand_in_any_usual_form() -> None:
    st = new_hand(resolve_rules("luzhou"), seed=1)
    hand = st.hands[1]
    kinds = [kind_of(c) for c in hand]
    for text in (str(hand), json.dumps(sorted(hand)), str(tuple(kinds)), format_kinds(kinds),
                 format_kinds(kinds, ascii=True)):
        assert leaks(f"dealt {text} to seat 1", []), text
    assert not leaks('{"room": "D2QTKPTYDRB5", "seat": 1, "points": "[12,-4,-4,-4]", "v": 17}', [])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("logs") / "daer.db", bot_delay=0.0,
                 args=(*TEST_LIMITS, "--log-format", "json", "--log-level", "debug")).start()
    yield srv
    srv.stop()


def test_the_logs_of_a_played_hand_hold_its_story_but_no_token_and_no_concealed_card(server: Server) -> None:
    r = room(server, hands=1)
    code = r["code"]
    status, joined = post(f"{server.url}/api/rooms/{code}/join", {"name": "B"})
    assert status == 200
    other = Client(server, code, joined["token"])
    assert other.cmd("leave")["t"] == "ack"  # a bot takes seat 1 at the start
    other.close()
    watcher = Client(server, code)  # a spectator
    c = Client(server, code, r["token"])
    assert c.cmd("start")["t"] == "ack"
    m = c.state(lambda m: True)
    acted = 0
    while m["room"]["status"] != "finished":
        view = m["view"]
        if view and view["legal"] and m["room"]["status"] == "playing":
            reply = c.act(view["legal"][-1])
            assert reply["t"] == "ack" or reply["code"] == "stale"
            acted += reply["t"] == "ack"
        m = c.upd if c.upd is not m else c.until(lambda m: m["t"] == "update")
    c.close()
    watcher.close()
    status, text = get(f"{server.url}/api/rooms/{code}/hands/1/record")
    assert status == 200
    rec = loads(json.dumps(text))
    dealt = new_hand(resolve_rules(rec.rules, rec.overrides), deck=list(rec.deck), dealer=rec.dealer)
    server.stop()  # every line written and flushed

    lines = [ln for ln in server.log.read_text().splitlines() if not ln.startswith("daer serve: http")]
    records = [json.loads(ln) for ln in lines]  # every line is one JSON object
    mine = [x for x in records if x.get("room") == code]
    events = {x["event"] for x in mine}
    assert {"room_created", "seat_joined", "connected", "command", "hand_started", "action", "act",
            "hand_ended", "disconnected"} <= events
    acts = [x for x in mine if x["event"] in ("act", "slow_act")]
    assert len(acts) >= acted > 0
    assert all(x["seat"] == 0 and x["latency_ms"] >= 0 and x["kind"] for x in acts)
    assert any(x["event"] == "connected" and x["spectator"] for x in mine)
    ended = next(x for x in mine if x["event"] == "hand_ended")
    assert ended["hand"] == 1 and sum(json.loads(ended["points"])) == 0
    assert not any("dropped" in x for x in records), [x for x in records if "dropped" in x]

    tokens = [r["token"], joined["token"]]
    secret_words = [*tokens, *(token_hash(t) for t in tokens)]
    hands = [h for h in dealt.hands if h]
    assert len(hands) == 3 and all(leaks(str(h), []) for h in hands)  # concealed hands were dealt; each is found
    assert leaks(server.log.read_text(), secret_words) == []


def test_a_room_moving_between_workers_is_logged_with_its_code(db_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """Handed over, taken over and lease lost: each a line with its event and the room's code, so the gathered
    logs of a cluster follow a table from one worker to the next."""
    from sqlalchemy import text  # noqa: PLC0415

    from daer.server.safety.bounds import RoomConfig  # noqa: PLC0415
    from daer.server.serving.manager import RoomManager  # noqa: PLC0415
    from daer.store import Store  # noqa: PLC0415

    a, b = (RoomManager(Store(db_url), bot_delay=0.0, worker=w, lease_ttl=30.0, sole=False) for w in "ab")
    try:
        code = a.create(RoomConfig(timer=0), "A")[0].code
        assert a.get(code) is not None
        with contextlib.suppress(Exception):
            b.get(code)  # "moved": b asks a for the room
        a.rooms[code].port.since -= 60
        with caplog.at_level(logging.INFO, logger="daer"):
            a.keep_leases()  # a hands it over
            assert b.get(code) is not None
            with b.store.engine.begin() as conn:  # b stops renewing (dead) and its lease runs out
                conn.execute(text("UPDATE rooms SET lease_until = 0 WHERE code = :c"), {"c": code})
            a.keep_leases()  # a takes it over
            b.keep_leases()  # b comes back: its lease is gone
        seen = {(getattr(r, "daer", {}).get("event"), getattr(r, "daer", {}).get("room")) for r in caplog.records}
        assert {("handed_over", code), ("taken_over", code), ("lease_lost", code)} <= seen, seen
    finally:
        for m in (a, b):
            m.store.close()


def test_at_info_a_command_writes_no_line_but_a_room_s_lifecycle_does(tmp_path: Any) -> None:
    """At the default level (INFO) the per-command lines are DEBUG (start, next... one per seat and hand: the
    hands' own lines tell the story), so a table's moves write nothing per action; the lifecycle stays: the room
    created, a seat joined and left, each hand started and ended."""
    srv = Server(tmp_path / "daer.db", bot_delay=0.0,
                 args=(*TEST_LIMITS, "--log-format", "json", "--log-level", "info")).start()
    try:
        r = room(srv, hands=2)
        code = r["code"]
        status, joined = post(f"{srv.url}/api/rooms/{code}/join", {"name": "B"})
        assert status == 200
        other = Client(srv, code, joined["token"])
        assert other.cmd("leave")["t"] == "ack"  # a bot takes seat 1
        other.close()
        c = Client(srv, code, r["token"])
        assert c.cmd("entropy", entropy="ab12")["t"] == "ack"
        assert c.cmd("start")["t"] == "ack"
        m = c.state(lambda m: True)
        while m["room"]["status"] != "between":  # hand 1 of 2 played to its end
            view = m["view"]
            if view and view["legal"] and m["room"]["status"] == "playing":
                c.act(view["legal"][-1])
            m = c.upd if c.upd is not m else c.until(lambda m: m["t"] == "update")
        assert c.cmd("next")["t"] == "ack"
        c.close()
    finally:
        srv.stop()
    mine = [x for x in map(json.loads, srv.log.read_text().splitlines()[1:]) if x.get("room") == code]
    commands = [x["name"] for x in mine if x["event"] == "command"]
    assert commands == ["leave"]  # not entropy, start or next
    events = {x["event"] for x in mine}
    assert {"room_created", "seat_joined", "hand_started", "hand_ended"} <= events
    assert not events & {"act", "action"}
    assert all(x["level"] == "INFO" for x in mine)
