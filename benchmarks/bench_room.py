"""CPU of the rooms' own work per action, in one process without sockets (not a test).

Run: ``.venv/bin/python benchmarks/bench_room.py [--rooms 40] [--hands 3]``, or with ``PYTHONPATH=OTHER/src`` to
compare another checkout in the same session (give it the same built ``daer/hands/_fasthand`` extension).

Each room has a person in 托管 at seat 0 with one connection (so one seat's update is built, encoded and queued
for every version, as for the one person of a ``benchmarks/load_table.py`` table) and three heuristic bots; the
store is a temporary SQLite database whose writer is started (one group commit per loop tick, as in ``daer
serve``).  Every room takes a step per loop tick until its match is over.  It prints the process CPU per
version and per applied action: the match, the engine, the bots, the store's statements and commits and the
updates — everything ``daer serve`` does for an action except the sockets, uvicorn and the event loop's own
bookkeeping (which ``load_table.py``'s server CPU per action includes).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from typing import Any

from daer.server import protocol as p
from daer.server.ops.metrics import ACTIONS_BY
from daer.server.safety.bounds import RoomConfig
from daer.server.serving.manager import RoomManager
from daer.server.table.seating import Conn, token_hash
from daer.store import Store


def actions() -> float:
    """Actions applied so far (``daer_actions_total``; also from a checkout before its tallies)."""
    counters: list[Any] = list(ACTIONS_BY.values())
    return float(sum(c.snapshot()[1] if hasattr(c, "snapshot") else c._value.get() for c in counters))


async def run(rooms: int, hands: int) -> tuple[float, int, int, int]:
    """(CPU seconds, versions, actions, frames) of ``rooms`` matches of ``hands`` hands played out."""
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(f"sqlite:///{tmp}/bench.db")
        manager = RoomManager(store, bot_delay=0.0)
        live = []
        for _ in range(rooms):
            room, _seat, token = manager.create(RoomConfig(timer=0, hands=hands), "A")
            conn = Conn(0, limit=1 << 20, gate=store.writer)
            conn.holder = token_hash(token)
            room.conns.add(conn)
            live.append((room, conn))
        store.writer.start(asyncio.get_running_loop())
        for room, _conn in live:
            room.command(0, p.Command(id="s", name="start"))
            room.seats[0].auto = True  # 托管: the server plays the person's seat too
            if room.handle is not None:
                room.handle.cancel()
                room.handle = None
        await asyncio.sleep(0)
        acts0 = actions()
        v0 = sum(room.version for room, _ in live)
        frames = 0
        t0 = time.process_time()
        going = live
        while going:
            for room, _conn in going:
                room._step()
                if room.handle is not None:  # the next step is this loop's, not the room's timer
                    room.handle.cancel()
                    room.handle = None
            await asyncio.sleep(0)  # the tick's group commit, then the frames are released
            for _room, conn in going:
                while not conn.queue.empty():
                    conn.queue.get_nowait()
                    frames += 1
            going = [(room, conn) for room, conn in going if room.status in ("playing", "between")]
        cpu = time.process_time() - t0
        store.writer.stop()
        store.close()
        acts = int(actions() - acts0)
        return cpu, sum(room.version for room, _ in live) - v0, acts, frames


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rooms", type=int, default=40)
    ap.add_argument("--hands", type=int, default=3)
    args = ap.parse_args()
    cpu, versions, acts, frames = asyncio.run(run(args.rooms, args.hands))
    print(f"{args.rooms} rooms × {args.hands} hands: {acts} actions, {versions} versions, {frames} frames; "
          f"{cpu * 1e6 / max(versions, 1):.0f} µs CPU per version, {cpu * 1e6 / max(acts, 1):.0f} µs per action")


if __name__ == "__main__":
    main()
