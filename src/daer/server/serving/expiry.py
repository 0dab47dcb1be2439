"""Rooms expire on a schedule: waiting or idle rooms are closed (never restored), closed ones leave memory.

Records of their hands stay downloadable through the room code (``/api/rooms/{code}/hands/{n}/record``).
"""

from __future__ import annotations

import asyncio
import logging
import time

from daer.server.safety.limits import Limits
from daer.server.serving.manager import RoomManager
from daer.server.table.match import LIVE
from daer.server.table.port import LeaseLost

log = logging.getLogger("daer.server")


def sweep(manager: RoomManager, *, waiting_ttl: float, idle_ttl: float, finished_ttl: float,
          now: float | None = None) -> int:
    """Expire rooms: waiting or between hands past ``waiting_ttl`` seconds without a change, playing with no
    change past ``idle_ttl`` (stored as expired: never restored); finished, dissolved and expired rooms leave
    memory ``finished_ttl`` after their last change.  Returns how many rooms left memory."""
    now = time.monotonic() if now is None else now
    gone = 0
    for code, room in list(manager.rooms.items()):
        age = now - room.touched
        if room.status in LIVE:
            if age <= (idle_ttl if room.status == "playing" else waiting_ttl):
                continue
            try:
                room.perform(room.match.expire())  # stored, then every connection told and closed
            except LeaseLost:
                continue  # another worker serves it now (this copy was stopped)
        elif age <= finished_ttl:
            continue
        else:
            room.close_all("房间已关闭", "the room is closed")
        manager.release(code)  # timers off, lease given up
        gone += 1
    return gone


async def sweep_forever(manager: RoomManager, limits: Limits) -> None:
    """Run :func:`sweep` every ``limits.sweep_every`` seconds until cancelled."""
    while True:
        await asyncio.sleep(limits.sweep_every)
        try:
            n = sweep(manager, waiting_ttl=limits.waiting_ttl, idle_ttl=limits.idle_ttl,
                      finished_ttl=limits.finished_ttl)
            if n:
                log.info("expired %d rooms", n)
            # rooms of a cluster that nobody ever connected to are in no worker's memory: one UPDATE of the
            # waiting rooms (found through the status index, migration 0011), in a worker thread so the loop
            # keeps serving
            n = await asyncio.to_thread(manager.leases.expire_unclaimed, time.time() - limits.waiting_ttl)
            if n:
                log.info("expired %d rooms nobody ever joined", n)
        except Exception:
            log.exception("expiry sweep failed")
