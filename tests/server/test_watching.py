"""Spectators who cannot help (issue 24 item 4): while a hand is in play they are shown the table a set number of
public steps behind — each delayed frame is exactly the live spectator's frame of that version — and it catches
up when the hand ends; the host may forbid watching (spectators are told and closed, new ones refused).  That
the delayed frames carry no concealed card is the wire property of ``test_hidden`` (run with the default delay)."""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_hidden import SEED, FixedDeal, played

from daer.engine import Action, GameState
from daer.rules import find_rules
from daer.server import protocol as p
from daer.server.safety.bounds import RoomConfig
from daer.server.serving.manager import RoomManager
from daer.server.social.watching import WATCH_DELAY
from daer.server.table.seating import Conn
from daer.store import Store


@pytest.fixture
def store() -> Iterator[Store]:
    base = Path(tempfile.mkdtemp())
    s = Store(f"sqlite:///{base / 'w.db'}")
    yield s
    s.close()
    shutil.rmtree(base, ignore_errors=True)


def watch_frames(store: Store, delay: int, deck: list[int], actions: list[Action]) -> list[tuple[int, dict[str, Any]]]:
    """(live version when sent, frame) of every update a spectator gets while the hand of ``actions`` is played."""
    mgr = RoomManager(store, bot_delay=0.0, watch_delay=delay)
    room, _, _ = mgr.create(RoomConfig(rules="luzhou", timer=0, hands=1), "A")
    for c in "BCD":
        room.join(c)
    room.pending = FixedDeal(SEED, [""] * 4, cards=deck)
    got: list[tuple[int, dict[str, Any]]] = []

    class Watcher(Conn):
        __slots__ = ()

        def push(self, text: str | None) -> None:
            got.append((room.version, json.loads(text or "{}")))
            super().push(text)

    watcher = Watcher(None, limit=1 << 20)
    room.conns.add(watcher)
    room.command(0, p.Command(id="start", name="start"))
    n = dict.fromkeys(range(4), 0)
    try:
        for a in actions:
            st = room.state
            assert st is not None
            while st.window_complete():
                room.close_window()
            n[a.seat] += 1
            assert isinstance(room.act(a.seat, p.Act(id=f"a{n[a.seat]}", v=room.version, action=a)), p.Ack)
        while room.state is not None and room.state.window_complete():
            room.close_window()
    finally:
        for h in (room.handle, room.watchdog):
            if h is not None:
                h.cancel()
        room.conns.clear()
    return [(v, f) for v, f in got if f.get("t") == "update"]


def hand(i: int) -> tuple[GameState, list[int]]:
    st, deck = played("luzhou", i)
    return st, deck


def test_a_spectator_is_shown_the_table_the_set_steps_behind_then_caught_up_at_the_end(store: Store) -> None:
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        checked = 0
        for i in range(6):
            st, deck = hand(i)
            if len(st.actions) < 12:
                continue
            live = watch_frames(store, 0, deck, list(st.actions))
            late = watch_frames(store, WATCH_DELAY, deck, list(st.actions))
            by_v = {f["v"]: f["view"] for _, f in live}  # the live spectator's view at each version
            start = late[0][1]["v"]
            behind = 0
            for at, f in late:
                view = f["view"]
                if view["phase"] == "over":
                    assert f["v"] == at  # the hand is over: nothing left on offer, shown as it is
                    continue
                assert f["v"] == max(start, at - WATCH_DELAY), (f["v"], at)
                assert view == by_v[f["v"]], "a delayed frame is the table as it was at its version"
                behind += f["v"] < at
            assert behind >= 5
            assert late[-1][1]["v"] == live[-1][1]["v"] and late[-1][1]["view"] == live[-1][1]["view"]
            checked += 1
        assert checked >= 3
    finally:
        loop.close()
        asyncio.set_event_loop(None)


def _log_of(frames: list[tuple[int, dict[str, Any]]]) -> list[Any]:
    log: list[Any] = []
    v = None
    for _, f in frames:
        if f["full"]:
            log = list(f["events"])
        else:
            assert f["since"] == v, (f["since"], v)
            log += f["events"]
        v = f["v"]
    return log


def test_a_delayed_spectator_catches_up_events_without_a_gap(store: Store) -> None:
    """Each delayed frame's events follow the previous frame's version: the log built from them is the live
    spectator's log, nothing missed or doubled."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        st, deck = hand(1)
        live = _log_of(watch_frames(store, 0, deck, list(st.actions)))
        late = _log_of(watch_frames(store, WATCH_DELAY, deck, list(st.actions)))
        assert len(live) > 10 and late == live
    finally:
        loop.close()
        asyncio.set_event_loop(None)


def test_the_host_forbids_watching_spectators_are_closed_and_only_the_host_may(store: Store) -> None:
    mgr = RoomManager(store, bot_delay=0.0)
    room, _, _ = mgr.create(RoomConfig(timer=0), "A")
    room.join("B")
    watcher = Conn(None)
    room.conns.add(watcher)
    refused = room.command(1, p.Command(id="n", name="nowatch"))
    assert isinstance(refused, p.Error) and refused.code == "not_host" and room.config.watch
    assert isinstance(room.command(0, p.Command(id="n", name="nowatch")), p.Ack)
    assert not room.config.watch and watcher not in room.conns
    frames = []
    while not watcher.queue.empty():
        frame = watcher.queue.get_nowait()
        frames.append(frame.decode() if isinstance(frame, bytes) else frame)
    assert any(f is not None and "房主不允许观战" in f for f in frames) and frames[-1] is None
    assert room.info(0).watch is False
    stored = store.load_room(room.code)
    store.flush()
    stored = store.load_room(room.code)
    assert stored is not None and json.loads(stored.config)["watch"] is False
    assert isinstance(room.command(0, p.Command(id="w", name="watch")), p.Ack) and room.config.watch


@pytest.mark.parametrize("first_look", [0, 10])
def test_random_rooms_keep_the_delayed_log_a_prefix_of_the_live_one(store: Store, first_look: int) -> None:
    """The spectators' copy of the hand is the live hand's past: its log a prefix of the live log at every step.
    It is dealt only when a spectator first looks (``first_look`` steps in; no spectator, no second copy of the
    hand: it cost every room a deal and a hand's memory), and one who arrives late is shown the same."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    rng = random.Random(5)
    try:
        deck = hand(rng.randrange(50))[1]
        mgr = RoomManager(store, bot_delay=0.0, watch_delay=3)
        room, _, _ = mgr.create(RoomConfig(rules="luzhou", timer=0, hands=1), "A")
        room.pending = FixedDeal(SEED, [""] * 4, cards=deck)
        room.command(0, p.Command(id="start", name="start"))
        m = room.match
        steps = 0
        for _ in range(400):
            out = m.due(0.0)
            if out is None and m.status == "playing" and m.state is not None:
                movers = m.movers() or m.state.to_act()
                out = m.play(movers[0], m.state.legal_actions(movers[0])[0], 0.0)
            if out is None:
                break
            room.perform(out)
            steps += 1
            if m.state is not None and m.status == "playing":
                if steps < first_look:
                    assert m.watch.behind is None  # nobody has looked yet
                    continue
                u = m.update_for(None, None, 0.0)
                assert u.v == max(m.hand_start, m.version - 3)
                shadow = m.watch.behind
                assert shadow is not None and m.state.log[: len(shadow.log)] == shadow.log
                # every step up to the shown version applied to the copy, none past it
                assert m.watch.applied == len([v for v, _a in m.watch.steps if v <= u.v])
        assert steps > first_look
        for h in (room.handle, room.watchdog):
            if h is not None:
                h.cancel()
    finally:
        loop.close()
        asyncio.set_event_loop(None)
    assert find_rules("luzhou").table.seats == 4

