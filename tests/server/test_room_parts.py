"""A room around its match, driven without a server (issue 12 item 7's leftovers): bots are made once per seat
and kept across hands; a room that is over stores nothing more for its seats' commands."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from daer.bots.base import Bot
from daer.rules.model import Ruleset
from daer.server import protocol as p
from daer.server.safety import bounds
from daer.server.safety.bounds import RoomConfig
from daer.server.serving.manager import RoomManager
from daer.server.table import rooms
from daer.server.table.port import RoomPort
from daer.server.table.rooms import Room
from daer.store import Store


def play_out(room: Room, steps: int = 5000) -> None:
    """Step the room's clock by hand until the match is over (every seat played by the server)."""
    for _ in range(steps):
        if room.status not in ("playing", "between"):
            break
        room._step()
    if room.handle is not None:
        room.handle.cancel()
    assert room.status == "finished"


def test_bots_are_made_once_per_seat_and_kept_across_hands(tmp_path: Path, loop: asyncio.AbstractEventLoop,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    made: Counter[str] = Counter()

    def counting(name: str, rules: Ruleset, seed: str) -> Bot:
        made[seed] += 1
        return bounds.bot_for(name, rules, seed)

    monkeypatch.setattr(rooms, "bot_for", counting)
    mgr = RoomManager(Store(f"sqlite:///{tmp_path / 'd.db'}"), bot_delay=0.0)
    room, _seat, _token = mgr.create(RoomConfig(timer=0, hands=3), "A")
    room.command(0, p.Command(id="s", name="start"))
    room.command(0, p.Command(id="l", name="leave"))  # the host leaves: a bot plays seat 0 from now on
    play_out(room)
    mgr.store.flush()
    assert [n for _i, n, f, _pt in mgr.store.hands_of(room.code) if f] == [1, 2, 3]
    assert made and max(made.values()) == 1, made  # each seat's bot made once, not at every deal
    assert len(made) <= len(room.seats)  # only bot seats' bots, no 托管 bot nobody needed


def test_a_finished_room_stores_nothing_for_leave_resume_dissolve(tmp_path: Path, loop: asyncio.AbstractEventLoop,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    mgr = RoomManager(Store(f"sqlite:///{tmp_path / 'd.db'}"), bot_delay=0.0)
    room, _seat, _token = mgr.create(RoomConfig(timer=0, hands=1), "A")
    seat, _ = room.join("B")
    room.command(0, p.Command(id="s", name="start"))
    room.seats[seat].auto = True  # in 托管: the server plays it too
    room.command(0, p.Command(id="l", name="leave"))
    play_out(room)
    mgr.store.flush()
    stored = mgr.store.load_room(room.code)
    assert stored is not None and stored.status == "finished"
    writes: list[Any] = []
    for name in ("update_room", "append_action", "start_hand", "finish_hand", "save_reply"):
        monkeypatch.setattr(RoomPort, name, lambda _self, *a, _n=name, **k: writes.append((_n, a, k)))
    v = room.version
    seats = [s.row() for s in room.seats]
    for i, name in enumerate(("resume", "leave", "next", "dissolve", "leave")):
        reply = room.command(seat, p.Command(id=f"x{i}", name=name))
        assert isinstance(reply, p.Ack) and reply.v == v
    assert room.command(seat, p.Command(id="x1", name="leave")) == p.Ack(id="x1", v=v)  # a repeat: same answer
    assert writes == []
    assert room.version == v and room.status == "finished" and [s.row() for s in room.seats] == seats


def test_a_deal_the_store_refused_is_not_kept_in_memory(tmp_path: Path, loop: asyncio.AbstractEventLoop,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A write that fails (the database is gone, not a lost lease) leaves the room as stored, not ahead of it."""
    mgr = RoomManager(Store(f"sqlite:///{tmp_path / 'd.db'}"), bot_delay=0.0)
    room, _seat, _token = mgr.create(RoomConfig(timer=0, hands=1), "A")

    def down(_self: RoomPort, **_kw: Any) -> int:
        raise RuntimeError("the database is down")

    monkeypatch.setattr(RoomPort, "start_hand", down)
    with pytest.raises(RuntimeError):
        room.command(0, p.Command(id="s", name="start"))
    assert room.status == "waiting" and room.state is None and room.version == 0
    assert [s.kind for s in room.seats] == ["human", "empty", "empty", "empty"]
    monkeypatch.undo()
    assert isinstance(room.command(0, p.Command(id="s2", name="start")), p.Ack) and room.status == "playing"
