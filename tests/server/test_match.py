"""The match alone (daer.server.table.match, issue 12 item 7): a plain state machine driven with no store, no socket and
no event loop — unit tests of its authority checks, and a random simulation (plain seeds and Hypothesis) that
sends random commands from random seats and checks the invariants: only typed errors, a refused command changes
nothing, nothing changes without a row to store, every hand replays from its stored record, and a match rebuilt
from the stored rows is the live one."""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from daer.engine import Action, GameState, IllegalActionError
from daer.server import protocol as p
from daer.server.safety.bounds import RoomConfig, RoomError, check_config
from daer.server.table.dealing import PendingDeal
from daer.server.table.match import Match
from daer.server.table.outcome import ActionWrite, FinishWrite, HandWrite, Outcome, RoomWrite
from daer.server.table.seating import Seat, token_hash

action_codec = msgspec.json.Decoder(Action)


def new_match(rules: str = "luzhou", hands: int = 2, timer: float = 30.0, seed: str = "ab" * 32) -> Match:
    cfg = RoomConfig(rules=rules, hands=hands, timer=timer)
    ruleset = check_config(cfg)
    n = ruleset.table.seats
    seats = [Seat(i) for i in range(n)]
    seats[0].kind, seats[0].name, seats[0].token_hash = "human", "A", token_hash("t0")
    return Match(code="TESTROOM", config=cfg, rules=ruleset, seats=seats, scores=[0] * n,
                 pending=PendingDeal(seed, [""] * n))


@dataclass
class Stored:
    """What a store holds after performing the match's writes (a model of the rooms/hands/actions tables)."""

    room: dict[str, Any] = field(default_factory=dict)
    seats: dict[int, tuple[str, str, str | None, bool]] = field(default_factory=dict)
    hands: list[dict[str, Any]] = field(default_factory=list)

    def perform(self, out: Outcome, match: Match) -> None:
        for w in out.writes:
            if isinstance(w, HandWrite):
                self.hands.append({"number": w.number, "deck": msgspec.json.decode(w.deck, type=list[int]),
                                   "dealer": w.dealer, "start": w.version, "actions": [], "points": None})
                self.room.update(status="playing", version=w.version, ready="[]")
                for s in w.seats:
                    self.seats[s.seat] = (s.kind, s.name, s.token_hash, s.auto)
                match.hand_id = len(self.hands)  # the store names the hand
            elif isinstance(w, ActionWrite):
                assert match.hand_id == len(self.hands)
                hand = self.hands[-1]
                assert w.row.idx == len(hand["actions"])
                hand["actions"].append((w.row.version, w.row.seat, w.row.payload))
                self.room.update(version=w.row.version, **w.room)
                if w.points is not None:
                    hand["points"] = w.points
                for s in w.seats:
                    self.seats[s.seat] = (s.kind, s.name, s.token_hash, s.auto)
            elif isinstance(w, RoomWrite):
                self.room.update(w.fields)
                for s in w.seats or []:
                    self.seats[s.seat] = (s.kind, s.name, s.token_hash, s.auto)
            elif isinstance(w, FinishWrite):
                self.hands[-1]["points"] = w.points

    def restore(self, live: Match) -> Match:
        """A match rebuilt from the stored rows, as the manager does after a restart."""
        m = new_match(live.config.rules, live.config.hands, live.config.timer)
        m.version = self.room.get("version", 0)
        m.status = self.room.get("status", "waiting")
        m.scores = msgspec.json.decode(self.room.get("scores", msgspec.json.encode(m.scores)), type=list[int])
        m.hands_played = self.room.get("hands_played", 0)
        m.dealer = self.room.get("dealer", 0)
        for s, (kind, name, holder, auto) in self.seats.items():
            m.seats[s] = Seat(s, kind, name, holder, auto)
        if self.hands:
            h = self.hands[-1]
            st = GameState(m.rules, h["deck"], dealer=h["dealer"], hold=True)
            acts = [(v, s, action_codec.decode(a)) for v, s, a in h["actions"]]
            m.replay(st, h["start"], acts, finished=h["points"] is not None, now=0.0)
        return m


def fingerprint(m: Match) -> Any:
    """Everything of the match that the store keeps or a seat sees."""
    st = m.state
    return (m.status, m.version, [s.row() for s in m.seats], list(m.scores), m.dealer, m.hands_played,
            sorted(m.ready), None if m.pending is None else (m.pending.seed, list(m.pending.entropy)),
            None if st is None else (len(st.actions), len(st.log), st.phase))


def replays(hand: dict[str, Any], rules: Any) -> GameState:
    """A stored hand replayed from its record alone: deck, dealer, actions, windows closed between them."""
    st = GameState(rules, hand["deck"], dealer=hand["dealer"], hold=True)
    for _v, _s, payload in hand["actions"]:
        while st.window_complete():
            st.close_window()
        st.apply(action_codec.decode(payload))
    while st.window_complete():
        st.close_window()
    return st


# -- unit tests ---------------------------------------------------------------------------------------
def test_only_the_host_starts_and_empty_seats_become_bots() -> None:
    m = new_match()
    seat, out = m.join("B", token_hash("t1"))
    assert seat == 1 and out.writes and m.version == 1
    before = fingerprint(m)
    refused = m.command(1, p.Command(id="s", name="start"), now=0.0)
    assert isinstance(refused.reply, p.Error) and refused.reply.code == "not_host"
    assert not refused.writes and fingerprint(m) == before
    out = m.command(0, p.Command(id="s", name="start"), now=0.0)
    assert isinstance(out.reply, p.Ack) and out.reply.v == m.version and m.status == "playing"
    assert isinstance(out.writes[0], HandWrite) and out.dealt and out.sends
    assert [s.kind for s in m.seats] == ["human", "human", "bot", "bot"]


def test_an_action_for_another_seat_or_at_a_stale_version_changes_nothing() -> None:
    m = new_match()
    m.command(0, p.Command(id="s", name="start"), now=0.0)
    while m.state is not None and m.state.window_complete():
        m.close_window(0.0)
    assert m.state is not None
    actor = m.state.to_act()[0]
    action = m.state.legal_actions(actor)[0]
    before = fingerprint(m)
    other = (actor + 1) % 4
    wrong = m.act(other, p.Act(id="x", v=m.version, action=action), now=0.0)
    stale = m.act(actor, p.Act(id="y", v=m.version + 1, action=action), now=0.0)
    for out, code in ((wrong, "not_your_seat"), (stale, "stale")):
        assert isinstance(out.reply, p.Error) and out.reply.code == code and out.keep == "none" and not out.writes
    assert fingerprint(m) == before


def test_the_clock_is_data_a_bot_seat_wakes_the_server_a_person_does_not() -> None:
    m = new_match(timer=0)
    assert m.wake(0.0, 0.5, 0.0) is None  # waiting: nothing to do until the host starts
    m.command(0, p.Command(id="s", name="start"), now=0.0)
    while m.state is not None and m.state.window_complete():
        assert m.wake(0.0, 0.5, 0.0) == 0.0  # a complete window is due at once (no claim window)
        m.close_window(0.0)
    assert m.state is not None
    if m.movers():
        assert m.wake(0.0, 0.5, 0.0) == 0.5
    else:
        assert m.state.to_act() == [0] and m.wake(0.0, 0.5, 0.0) is None


def test_a_turn_timer_that_runs_out_puts_the_seat_into_tuoguan() -> None:
    m = new_match(timer=10)
    m.join("B", token_hash("t1"))
    m.join("C", token_hash("t2"))
    m.join("D", token_hash("t3"))
    m.command(0, p.Command(id="s", name="start"), now=100.0)
    while m.state is not None and m.state.window_complete():
        m.close_window(100.0)
    assert m.state is not None and m.state.phase != "claim"
    actor = m.state.to_act()[0]
    assert m.deadlines[actor] == 110.0 and m.wake(100.0, 0.5, 0.0) == 10.0
    assert not m.run_out(109.0).writes
    out = m.run_out(110.0)
    assert m.seats[actor].auto and out.writes and m.movers() == [actor]


def test_dissolve_closes_the_room_and_is_host_only() -> None:
    m = new_match()
    m.join("B", token_hash("t1"))
    assert isinstance(m.command(1, p.Command(id="d", name="dissolve"), now=0.0).reply, p.Error)
    out = m.command(0, p.Command(id="d", name="dissolve"), now=0.0)
    assert m.status == "dissolved" and out.closed is not None and out.writes


def test_a_room_dissolved_with_a_window_due_restores_as_it_was_stopped() -> None:
    # Found by the Hypothesis simulation: a room dissolved while a claim window was complete but not yet closed
    # came back from the store with the window closed and its version advanced (31 against 27).
    m = new_match()
    stored = Stored(room={"version": 0, "status": "waiting"},
                    seats={s.seat: (s.kind, s.name, s.token_hash, s.auto) for s in m.seats})
    stored.perform(m.command(0, p.Command(id="s", name="start"), now=0.0), m)
    for _ in range(200):  # the clock's steps and the server's moves until a window is due
        assert m.state is not None and not m.state.over
        if m.state.window_complete():
            break
        movers = m.movers()
        seat = movers[0] if movers else m.state.to_act()[0]
        stored.perform(m.play(seat, m.state.legal_actions(seat)[0], 0.0), m)
    assert m.state is not None and m.state.window_complete()
    stored.perform(m.command(0, p.Command(id="d", name="dissolve"), now=0.0), m)
    back = stored.restore(m)
    assert (back.version, back.status) == (m.version, "dissolved")
    assert back.state is not None and back.state.window_complete()  # left as it was stopped


def test_a_hand_that_ended_restores_with_the_windows_closed_after_its_last_action() -> None:
    # Found by test_kill9: a hand that ended through claim windows closed after its last stored action came back
    # between hands with those windows open (its record 4 events short of what the players had been sent).
    m = new_match()
    stored = Stored(room={"version": 0, "status": "waiting"},
                    seats={s.seat: (s.kind, s.name, s.token_hash, s.auto) for s in m.seats})
    stored.perform(m.command(0, p.Command(id="s", name="start"), now=0.0), m)
    for _ in range(3000):
        if m.status != "playing":
            break
        assert m.state is not None
        due = m.due(0.0)
        if due is not None:
            stored.perform(due, m)
            continue
        movers = m.movers()
        seat = movers[0] if movers else m.state.to_act()[0]
        legal = m.state.legal_actions(seat)
        stored.perform(m.play(seat, legal[-1], 0.0), m)
    assert m.status == "between" and m.state is not None
    back = stored.restore(m)
    assert back.state is not None and back.version == m.version
    assert len(back.state.log) == len(m.state.log)


def test_bad_entropy_is_refused() -> None:
    m = new_match()
    before = fingerprint(m)
    out = m.command(0, p.Command(id="e", name="entropy", entropy="NOT HEX"), now=0.0)
    assert isinstance(out.reply, p.Error) and out.reply.code == "bad_entropy" and fingerprint(m) == before


# -- random simulation -------------------------------------------------------------------------------
COMMANDS = ("start", "next", "resume", "leave", "dissolve", "entropy")


def simulate(rng: random.Random, steps: int = 400) -> tuple[Match, Stored]:
    """Random commands from random seats (people joining, leaving, acting legally and not, timers running out,
    the clock's steps); the invariants are checked after every one."""
    m = new_match(hands=rng.choice([1, 2, 3]), timer=rng.choice([0.0, 5.0]))
    stored = Stored(room={"version": 0, "status": "waiting"},
                    seats={s.seat: (s.kind, s.name, s.token_hash, s.auto) for s in m.seats})
    now = 0.0
    finished = 0
    n = len(m.seats)
    for i in range(steps):
        now += rng.choice([0.0, 0.5, 3.0])
        before = fingerprint(m)
        kept = copy.deepcopy(before)
        seat = rng.randrange(n)
        roll = rng.random()
        try:
            if roll < 0.06:
                _seat, out = m.join(f"P{i}", token_hash(f"t{i}"), rng.choice([None, seat]))
            elif roll < 0.25:
                name = rng.choices(COMMANDS, weights=(3, 6, 3, 2, 0.1, 3))[0]  # rarely the end of it all
                entropy = rng.choice([None, None, f"{rng.getrandbits(64):x}", "xyz"])
                out = m.command(seat, p.Command(id=f"c{i}", name=name, entropy=entropy), now)
            elif roll < 0.75 and m.state is not None and not m.state.over:
                legal = [(s, a) for s in range(n) for a in m.state.legal_actions(s)]
                if legal and rng.random() < 0.85:
                    actor, action = rng.choice(legal)
                    if rng.random() < 0.1:
                        actor = seat  # perhaps someone else's action
                else:
                    actor, action = seat, rng.choice(legal)[1] if legal else None  # type: ignore[assignment]
                if action is None:
                    continue
                v = m.version if rng.random() < 0.9 else rng.randrange(0, m.version + 2)
                out = m.act(actor, p.Act(id=f"a{i}", v=v, action=action), now)
            elif roll < 0.85:
                movers = m.movers()
                if movers and m.state is not None:
                    s = movers[0]
                    out = m.play(s, m.state.legal_actions(s)[0], now)
                else:
                    out = m.run_out(now)
            else:
                due = m.due(now)
                if due is None:
                    continue
                out = due
        except (RoomError, IllegalActionError):
            assert fingerprint(m) == kept, "a refused command changed the match"
            continue
        if isinstance(out.reply, p.Error):
            assert fingerprint(m) == kept and not out.writes, f"refused {out.reply.code} changed the match"
        closed = kept[-1] is not None and m.state is not None and kept[-1][2] == "claim" and (
            len(m.state.actions) == kept[-1][0] and m.version == kept[1] + 1)  # the step closed a claim window
        if not out.writes and not closed:
            assert fingerprint(m) == kept, "the match changed with nothing to store"
        else:
            assert m.version >= kept[1]
        stored.perform(out, m)
        assert stored.room["version"] <= m.version, "the store is ahead of the match"
        if stored.room["version"] != m.version:  # claim windows closed since the last write, not stored
            assert m.status == "playing" and m.state is not None
            back = stored.restore(m)  # a restart now: its replay closes them again, at the same versions
            due = m.state.window_complete()  # a complete window (and any it leads to): a restart closes it at once
            assert back.version > m.version if due else back.version == m.version, \
                "a restart would not come back at the version shown"
            if not due:
                for s in range(n):
                    assert back.update_for(s, None, now).view == m.update_for(s, None, now).view
        if m.state is not None and i % 10 == 0:  # each update carries its own seat's hand only
            assert m.update_for(None, None, now).view.hand == ()  # type: ignore[union-attr]
            for s in range(n):
                view = m.update_for(s, None, now).view
                assert view is not None and view.seat == s and view.hand == tuple(sorted(m.state.hands[s]))
        for hand in stored.hands[finished:]:
            if hand["points"] is not None:  # a finished hand replays from its record to the same points
                st = replays(hand, m.rules)
                assert st.over and st.result is not None
                assert msgspec.json.encode(st.result.points).decode() == hand["points"]
                finished += 1
    while m.status == "playing" and m.state is not None and m.state.window_complete():
        stored.perform(m.close_window(now), m)  # a restart closes a due window at once: the clock would have
    back = stored.restore(m)
    assert (back.version, back.status, back.scores, back.hands_played) == (m.version, m.status, m.scores,
                                                                            m.hands_played)
    if m.status == "playing" and m.state is not None and back.state is not None:
        for s in range(n):
            assert back.state.view(s, log=False) == m.state.view(s, log=False)
            assert back.update_for(s, None, now).view == m.update_for(s, None, now).view
    return m, stored


@pytest.mark.parametrize("seed", range(12))
def test_random_commands_keep_the_invariants(seed: int) -> None:
    m, stored = simulate(random.Random(seed))
    assert m.version > 0 and stored.room


@settings(max_examples=15, deadline=None)
@given(hs.randoms(use_true_random=False))
def test_random_commands_keep_the_invariants_hypothesis(rng: random.Random) -> None:
    simulate(rng, steps=250)


def test_the_simulation_plays_whole_hands() -> None:
    """The random driver reaches what it must check: hands are finished and replayed."""
    played = sum(len([h for h in simulate(random.Random(100 + s), steps=900)[1].hands if h["points"]])
                 for s in range(4))
    assert played >= 4


def test_the_match_module_does_no_io() -> None:
    """The match and its outcomes import nothing that waits, writes or reads a clock (the room does all that)."""
    import ast  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    import daer.server.table.match as match_module  # noqa: PLC0415
    import daer.server.table.outcome as outcome_module  # noqa: PLC0415

    banned = {"asyncio", "time", "socket", "logging", "secrets", "sqlalchemy", "daer.store.db",
              "daer.server.table.port", "daer.server.table.rooms", "daer.server.table.audience",
              "daer.server.table.clock", "daer.server.table.thinking"}
    for module in (match_module, outcome_module):
        tree = ast.parse(Path(str(module.__file__)).read_text())
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {str(n.module) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not names & banned, names & banned
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        assert not used & {"Store", "RoomPort", "Conn", "Audience"}, used
