"""The dissolve vote (issue 24 item 1): any seated person proposes once the match has started, every other person
answers within the countdown (silence agrees when it runs out; bots and 托管 seats agree), one refusal ends it and
names the refuser, a passed vote ends the match with its scores; at most one proposal a seat a minute; the host's
immediate dissolve only before the first deal; a vote survives a restart."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from test_match import fingerprint, new_match

from daer.server import protocol as p
from daer.server.safety.bounds import RoomConfig
from daer.server.serving.manager import RoomManager
from daer.server.social import votes
from daer.server.table.match import Match
from daer.server.table.seating import token_hash
from daer.store import Store


def three_people(timer: float = 0) -> Match:
    m = new_match(timer=timer)
    m.join("B", token_hash("t1"))
    m.join("C", token_hash("t2"))
    m.command(0, p.Command(id="s", name="start"), now=0.0)
    return m


def cmd(m: Match, seat: int, name: str, now: float = 1.0, id: str = "x") -> p.Ack | p.Error | None:
    return m.command(seat, p.Command(id=id, name=name), now=now).reply


def test_any_seat_proposes_the_bot_agrees_and_each_person_answers() -> None:
    m = three_people()
    v0 = m.version
    assert isinstance(cmd(m, 1, "dissolve"), p.Ack) and m.version == v0 + 1
    info = m.info(0, 1.0).vote
    assert info is not None and info.by == 1 and info.agreed == (3,) and info.asked == (0, 2) and info.left == 60.0
    assert isinstance(cmd(m, 0, "agree"), p.Ack) and m.status == "playing"
    out = m.command(2, p.Command(id="y", name="agree"), now=2.0)
    assert m.status == "dissolved" and out.closed is not None and out.sends  # the last update, then closed
    info = m.info(None, 2.0).vote
    assert info is not None and info.passed and info.asked == ()


def test_one_refusal_ends_the_vote_names_the_refuser_and_the_match_goes_on() -> None:
    m = three_people()
    cmd(m, 0, "dissolve")
    out = m.command(2, p.Command(id="r", name="refuse"), now=5.0)
    assert isinstance(out.reply, p.Ack) and out.writes and m.status == "playing"
    info = m.info(1, 5.0).vote
    assert info is not None and info.refused == 2 and not info.passed and info.asked == ()
    # the vote is over: answering it now is refused and changes nothing
    before = fingerprint(m)
    late = cmd(m, 1, "agree", now=6.0)
    assert isinstance(late, p.Error) and late.code == "no_vote" and fingerprint(m) == before
    assert m.due(1000.0) is None or m.status != "dissolved"


def test_silence_agrees_when_the_countdown_runs_out() -> None:
    m = three_people()
    m.vote_seconds = 30.0
    cmd(m, 0, "dissolve", now=10.0)
    cmd(m, 1, "agree", now=11.0)
    base = m._wake(20.0, 99.0, 0.0)  # what the hand itself waits for (a window, a bot, or the people: None)
    assert m.wake(20.0, 99.0, 0.0) == pytest.approx(20.0 if base is None else min(base, 20.0))  # the countdown too
    out = m.due(39.9)
    assert m.status == "playing" and (out is None or out.closed is None)
    out = m.due(40.0)
    assert out is not None and out.closed is not None and m.status == "dissolved"


def test_at_most_one_proposal_a_minute_and_none_while_one_is_open() -> None:
    m = three_people()
    cmd(m, 0, "dissolve", now=0.0)
    again = cmd(m, 1, "dissolve", now=1.0)
    assert isinstance(again, p.Error) and again.code == "vote_open"
    cmd(m, 1, "refuse", now=2.0)
    before = fingerprint(m)
    soon = cmd(m, 0, "dissolve", now=59.0)
    assert isinstance(soon, p.Error) and soon.code == "too_soon" and "秒后再试" in soon.zh and fingerprint(m) == before
    assert isinstance(cmd(m, 0, "dissolve", now=60.0), p.Ack)


def test_answers_from_the_proposer_twice_or_without_a_vote_are_refused() -> None:
    m = three_people()
    none = cmd(m, 1, "agree")
    assert isinstance(none, p.Error) and none.code == "no_vote"
    cmd(m, 0, "dissolve")
    own = cmd(m, 0, "agree")
    assert isinstance(own, p.Error) and own.code == "voted"
    cmd(m, 1, "agree")
    twice = cmd(m, 1, "refuse")
    assert isinstance(twice, p.Error) and twice.code == "voted" and m.vote is not None and m.vote.open


def test_the_hosts_immediate_dissolve_only_before_the_first_deal() -> None:
    m = new_match()
    m.join("B", token_hash("t1"))
    refused = cmd(m, 1, "dissolve")
    assert isinstance(refused, p.Error) and refused.code == "not_host" and m.status == "waiting"
    m.command(0, p.Command(id="s", name="start"), now=0.0)
    cmd(m, 0, "dissolve")  # a vote now: seat 1 is asked
    assert m.status == "playing" and m.vote is not None and m.vote.asked(m.people()) == [1]


def test_with_only_bots_and_tuoguan_seats_left_the_vote_passes_at_once() -> None:
    m = three_people()
    m.seats[1].auto = m.seats[2].auto = True
    out = m.command(0, p.Command(id="d", name="dissolve"), now=0.0)
    assert out.closed is not None and m.status == "dissolved"


def test_spectators_cannot_vote(tmp_path: Path) -> None:
    mgr = RoomManager(Store(f"sqlite:///{tmp_path / 'v.db'}"), bot_delay=0.0)
    room, _, _ = mgr.create(RoomConfig(timer=0), "A")
    reply = room.command(None, p.Command(id="d", name="dissolve"))
    assert isinstance(reply, p.Error) and reply.code == "not_seated"


def test_a_vote_and_the_last_proposals_survive_a_restart(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'v.db'}"
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        store = Store(url)
        mgr = RoomManager(store, bot_delay=0.0, worker="w", vote_seconds=45.0)
        room, _, _ = mgr.create(RoomConfig(timer=0), "A")
        room.join("B")
        room.join("C")
        room.command(0, p.Command(id="s", name="start"))
        assert isinstance(room.command(1, p.Command(id="d", name="dissolve")), p.Ack)
        assert isinstance(room.command(0, p.Command(id="a", name="agree")), p.Ack)
        code, version = room.code, room.version
        for h in (room.handle, room.watchdog):
            if h is not None:
                h.cancel()
        store.flush()
        store.close()
        again = RoomManager(Store(url), bot_delay=0.0, worker="w", vote_seconds=45.0)
        back = again.get(code)
        assert back is not None and back.version == version
        info = back.info(2).vote
        assert info is not None and info.by == 1 and 0 in info.agreed and info.asked == (2,)
        assert 40.0 < info.left <= 45.0
        soon = back.command(1, p.Command(id="d2", name="dissolve"))
        assert isinstance(soon, p.Error) and soon.code in ("vote_open", "too_soon")
        assert isinstance(back.command(2, p.Command(id="r", name="refuse")), p.Ack)
        soon = back.command(1, p.Command(id="d3", name="dissolve"))
        assert isinstance(soon, p.Error) and soon.code == "too_soon"  # its proposal a minute ago was stored
        for h in (back.handle, back.watchdog):
            if h is not None:
                h.cancel()
        again.store.close()
    finally:
        loop.close()
        asyncio.set_event_loop(None)


def test_a_stored_vote_that_is_not_json_is_no_vote() -> None:
    assert votes.load("{not json") == (None, {})
    assert votes.load(None) == (None, {})
