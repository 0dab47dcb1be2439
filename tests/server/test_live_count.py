"""The manager's count of live rooms (the cap checked on every create, kept instead of a scan of every room)
agrees with a scan after any mix of creates, hands played to the end, dissolves, expiries, rooms leaving memory
and coming back from the store."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from daer.server import protocol as p
from daer.server.safety.bounds import RoomConfig
from daer.server.serving.expiry import sweep
from daer.server.serving.manager import RoomManager
from daer.store import Store

ADDRESSES = ("10.0.0.1", "10.0.0.2", "10.0.0.3")


def assert_agrees(m: RoomManager) -> None:
    live = m.live_rooms()  # the scan
    assert m.live_count() == len(live)
    for address in (*ADDRESSES, ""):  # "" : rooms restored from the store (their creator is not kept)
        assert m.rooms_made_by(address) == sum(r.creator == address for r in live)


async def _play(m: RoomManager, rng: random.Random, steps: int) -> set[str]:
    seen: set[str] = set()
    gone: list[str] = []
    for i in range(steps):
        codes = list(m.rooms)
        op = rng.choice(("create", "create", "start", "finish", "dissolve", "expire", "release", "restore", "run"))
        if op == "create" or not codes:
            m.create(RoomConfig(timer=0, hands=1), "A", creator=rng.choice(ADDRESSES))
        elif op == "restore" and gone:
            m.get(gone.pop(rng.randrange(len(gone))))  # back from the store (None if it was closed)
        else:
            code = rng.choice(codes)
            room = m.rooms[code]
            if op == "start":  # the empty seats get bots; the host's seat in 托管: bots play the hand out
                room.command(0, p.Command(id=f"s{i}", name="start"))
                room.seats[0].auto = True
                room.schedule()
            elif op == "finish":
                room.status = "finished"
            elif op == "dissolve":
                room.command(0, p.Command(id=f"d{i}", name="dissolve"))
            elif op == "expire":  # this room idle for a day: the sweep closes it and takes it out of memory
                room.touched -= 86_400
                sweep(m, waiting_ttl=3_600, idle_ttl=3_600, finished_ttl=3_600)
            elif op == "release":  # out of memory (handed over), lease given up
                m.release(code)
                gone.append(code)
        await asyncio.sleep(0.002 if op == "run" else 0)  # the bots move (hands end: between / finished)
        seen.update(r.status for r in m.rooms.values())
        assert_agrees(m)
    return seen


@pytest.mark.parametrize("seed", range(3))
def test_the_live_count_agrees_with_a_scan_of_every_room(tmp_path: Path, seed: int) -> None:
    m = RoomManager(Store(f"sqlite:///{tmp_path / 'd.db'}"), bot_delay=0.0)
    try:
        seen = asyncio.run(_play(m, random.Random(seed), 150))
    finally:
        for room in list(m.rooms.values()):
            room.stop()
        m.store.close()
    assert {"waiting", "playing", "finished", "dissolved"} <= seen  # the mix did reach each kind of status
