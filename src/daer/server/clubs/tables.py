"""A club's tables: standing tables (常驻桌) that always have an open table, ad-hoc tables opened with the
club's rules, and the list a club page shows (docs/clubs.md, "Standing tables").

A template's open table is a room made with every seat empty (``RoomManager.create(seated=False)``); the first
person to sit is its host.  When the table's match ends (or the room closes) the next one opens: on the worker
that served the room, when it sees the status change, and again whenever a club page is asked for (a worker
that died with the room is thus covered too).  Two workers opening at once open one table: the template's open
table changes by a compare-and-set (``ClubStore.open_table``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import msgspec

from daer.server.clubs.access import Clubs
from daer.server.clubs.live import ClubHub
from daer.server.safety.bounds import RoomConfig, RoomError
from daer.server.serving.manager import RoomManager
from daer.server.table.match import LIVE
from daer.server.table.rooms import Room
from daer.store.clubs import ClubRow, tables_view

log = logging.getLogger("daer.server")

MAX_TEMPLATES = 8
"""Standing tables a club may define."""
MAX_ADHOC = 20
"""Ad-hoc tables a club may have open at once."""
CACHE = 65536
"""Rooms whose club (or none) is remembered at most (each is forgotten when its room leaves this process's memory:
:meth:`ClubTables.forget`; the cap bounds the lookups of rooms served elsewhere)."""


def club_creator(club_id: int) -> str:
    """The creator a club's standing tables are made by (not an address: no per-address cap applies)."""
    return f"club:{club_id}"


class ClubTables:
    """The tables of the clubs, for one server (``ClubTables(clubs, manager_of, hub)``)."""

    def __init__(self, clubs: Clubs, manager_of: Callable[[], RoomManager], hub: ClubHub) -> None:
        self.clubs = clubs
        self.manager_of = manager_of
        self.hub = hub
        self._of: dict[str, tuple[int, int | None] | None] = {}
        """Room code → (club id, template id), None for a room of no club (a room's club never changes)."""

    def club_of(self, code: str) -> tuple[int, int | None] | None:
        """(club id, template id) of a room; None for a room of no club."""
        if code in self._of:
            return self._of[code]
        got = self.clubs.db.club_of_room(code)
        if len(self._of) >= CACHE:
            self._of.clear()
        self._of[code] = got
        return got

    def forget(self, code: str) -> None:
        """A room left this process's memory (``RoomManager.leavers``): its club is looked up again if asked."""
        self._of.pop(code, None)

    # -- rooms change -------------------------------------------------------------------------------------
    def room_changed(self, room: Room) -> None:
        """A served room's seats or status changed, or a hand ended (``RoomManager.listeners``)."""
        of = self.club_of(room.code)
        if of is None:
            return
        club_id, template = of
        self.hub.publish(club_id, "tables")
        self.hub.publish(club_id, "records")
        if room.status not in LIVE and template is not None:
            try:
                asyncio.get_running_loop().call_soon(self._reopen, club_id)
            except RuntimeError:
                self._reopen(club_id)

    def _reopen(self, club_id: int) -> None:
        club = self.clubs.db.by_id(club_id)
        if club is not None:
            try:
                self.ensure(club)
            except Exception:
                log.exception("could not open club %d's next table", club_id)

    # -- standing tables ------------------------------------------------------------------------------------
    def ensure(self, club: ClubRow) -> int:
        """Give every template of the club an open table; how many were opened."""
        opened = 0
        templates = self.clubs.db.templates(club.id)
        status = {t["code"]: t["status"] for t in tables_view(self.clubs.db.engine,
                                                               [t["room"] for t in templates if t["room"]])}
        served = self.manager_of().rooms
        status.update({code: served[code].status for code in status if code in served})  # newer than the store
        for t in templates:
            code = t["room"]
            if code is not None and status.get(code) in LIVE:
                continue
            cfg = msgspec.json.decode(t["config"], type=RoomConfig)
            room, _seat, _token = self.manager_of().create(cfg, "", creator=club_creator(club.id), seated=False)
            self.clubs.db.add_room(room.code, club.id, int(t["id"]), None)
            self._of[room.code] = (club.id, int(t["id"]))
            if self.clubs.db.open_table(int(t["id"]), code, room.code):
                opened += 1
            else:  # another worker opened the next table first: this one is left to expire unseen
                log.info("club %d: template %s opened elsewhere", club.id, t["id"])
        if opened:
            self.hub.publish(club.id, "tables")
        return opened

    def open_adhoc(self, club: ClubRow, cfg: RoomConfig, name: str, player_id: int,
                   creator: str) -> tuple[Room, int, str]:
        """An ad-hoc table with the asker at seat 0: (room, seat, token).  Raises ``RoomError``."""
        if len(self.clubs.db.rooms_of(club.id)) - len(self.clubs.db.templates(club.id)) >= MAX_ADHOC:
            raise RoomError("too_many_tables", f"亲友圈同时最多开 {MAX_ADHOC} 桌", f"at most {MAX_ADHOC} open tables")
        room, seat, token = self.manager_of().create(cfg, name, creator=creator)
        self.clubs.db.add_room(room.code, club.id, None, player_id)
        self._of[room.code] = (club.id, None)
        self.hub.publish(club.id, "tables")
        return room, seat, token

    # -- what a club page lists ---------------------------------------------------------------------------
    def listing(self, club: ClubRow) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """(tables, templates) of a club page: each template's open table first, then the live ad-hoc tables."""
        self.ensure(club)
        templates = self.clubs.db.templates(club.id)
        names = {t["room"]: {"id": t["id"], "name": t["name"]} for t in templates if t["room"]}
        adhoc = [c for c in self.clubs.db.rooms_of(club.id) if c not in names and self.club_of(c) == (club.id, None)]
        rows = tables_view(self.clubs.db.engine, [*names, *adhoc])
        served = self.manager_of().rooms
        tables = []
        for r in rows:
            if r["code"] in served:  # this worker serves the room: its memory is newer than the store
                r["status"] = served[r["code"]].status
            if r["status"] not in LIVE:
                continue
            cfg = msgspec.json.decode(r["config"])
            tables.append({"code": r["code"], "template": names.get(r["code"]), "status": r["status"],
                           "rules": cfg.get("rules", ""), "hands": cfg.get("hands", 0),
                           "hand_no": r["hands_played"] + (1 if r["status"] == "playing" else 0),
                           "fill": cfg.get("fill", True), "seats": r["seats"]})
        shown = [{"id": t["id"], "name": t["name"], "config": msgspec.json.decode(t["config"]), "room": t["room"]}
                 for t in templates]
        return tables, shown
