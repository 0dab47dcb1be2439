"""The live club page: every change of a club (seats taken, tables finished, members online, roles) reaches
each open club page as a server-sent event, on any worker (docs/clubs.md, "Live").

One process (SQLite): the hub delivers in process.  Several workers (PostgreSQL): a change is published with
``NOTIFY daer_clubs`` and every worker ``LISTEN``\\s on one connection of its own and delivers to the pages it
holds — PostgreSQL's own notifications, no bus of ours.  An event says only *what kind* of thing changed; the
page fetches the club again, through the same role gate as every request, so nothing reaches a page that its
player may no longer see.  Changes of one club within :data:`COALESCE` seconds are sent as one event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlalchemy import text

if TYPE_CHECKING:
    from daer.store import Store

log = logging.getLogger("daer.server")

CHANNEL = "daer_clubs"
COALESCE = 0.2
"""Seconds a club's changes are gathered into one event."""
QUEUE = 16
"""Events a slow page may have waiting; past it the page is told to fetch everything again, once."""
KINDS = frozenset({"tables", "members", "online", "club", "requests", "invites", "seat_invite", "records",
                   "dissolved", "tourney"})


@dataclass(eq=False, slots=True)
class Sub:
    """One open club page."""

    club_id: int
    player_id: int
    queue: asyncio.Queue[str] = field(default_factory=lambda: asyncio.Queue(QUEUE))
    closed: bool = False
    """This process stops serving the page (it drains): the stream ends, and the page's own reconnection (the
    stream's ``retry``) reaches another worker through the balancer."""


class ClubHub:
    """Subscriptions of this process's open club pages, and the way changes reach them."""

    def __init__(self, store_of: Callable[[], Store]) -> None:
        self.store_of = store_of
        self.subs: dict[int, set[Sub]] = defaultdict(set)
        self._pending: dict[int, set[str]] = {}
        self._listener: asyncio.Task[None] | None = None
        self.listening = asyncio.Event()
        """Set once the PostgreSQL listener is connected (tests wait for it)."""

    @property
    def shared(self) -> bool:
        """Whether changes go through PostgreSQL (several workers may share the store)."""
        return self.store_of().engine.dialect.name == "postgresql"

    # -- subscriptions --------------------------------------------------------------------------------
    def subscribe(self, club_id: int, player_id: int) -> Sub:
        """A page opened."""
        sub = Sub(club_id, player_id)
        self.subs[club_id].add(sub)
        return sub

    def unsubscribe(self, sub: Sub) -> None:
        """A page closed."""
        subs = self.subs.get(sub.club_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self.subs[sub.club_id]

    def close_all(self) -> int:
        """End every open page's stream (a draining worker, like its WebSockets told to reconnect): each is woken
        and ends at once, so a stopping server does not wait for streams that never end.  How many."""
        subs = [sub for subs in self.subs.values() for sub in subs]
        for sub in subs:
            sub.closed = True
            with contextlib.suppress(asyncio.QueueFull):  # a full queue wakes its stream anyway
                sub.queue.put_nowait("")
        return len(subs)

    def online(self, club_id: int) -> set[int]:
        """Players with the club's page open in this process."""
        return {s.player_id for s in self.subs.get(club_id, ())}

    # -- publishing -------------------------------------------------------------------------------------
    def publish(self, club_id: int, kind: str) -> None:
        """Something of kind ``kind`` changed in a club: its pages hear of it within :data:`COALESCE` seconds
        (several changes, one event)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a script): nobody is listening in this process
            self._send(club_id, {kind})
            return
        kinds = self._pending.get(club_id)
        if kinds is None:
            self._pending[club_id] = {kind}
            loop.call_later(COALESCE, self._flush, club_id)
        else:
            kinds.add(kind)

    def _flush(self, club_id: int) -> None:
        kinds = self._pending.pop(club_id, set())
        if kinds:
            self._send(club_id, kinds)

    def _send(self, club_id: int, kinds: set[str]) -> None:
        if not self.shared:
            self.deliver(club_id, ",".join(sorted(kinds)))
            return
        try:
            with self.store_of().engine.begin() as conn:
                conn.execute(text("SELECT pg_notify(:c, :p)"), {"c": CHANNEL,
                                                                 "p": f"{club_id}:{','.join(sorted(kinds))}"})
        except Exception:
            log.exception("could not notify club %d", club_id)
            self.deliver(club_id, ",".join(sorted(kinds)))  # this worker's pages hear of it at least

    def deliver(self, club_id: int, kinds: str) -> None:
        """Hand an event to every page of the club this process holds."""
        for sub in list(self.subs.get(club_id, ())):
            with contextlib.suppress(asyncio.QueueFull):  # a slow page fetches everything at its next event
                sub.queue.put_nowait(kinds)

    # -- PostgreSQL's notifications -----------------------------------------------------------------------
    def start(self) -> None:
        """Listen for other workers' changes (PostgreSQL only)."""
        if self.shared and self._listener is None:
            self._listener = asyncio.create_task(self._listen())

    def stop(self) -> None:
        """Stop listening."""
        if self._listener is not None:
            self._listener.cancel()
            self._listener = None

    async def _listen(self) -> None:
        import psycopg  # noqa: PLC0415 (the postgres extra's driver: imported only on PostgreSQL)

        url = self.store_of().engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    async for note in conn.notifies():
                        head, _, kinds = note.payload.partition(":")
                        if head.isdigit():
                            self.deliver(int(head), kinds)
            except asyncio.CancelledError:
                raise
            except Exception:
                self.listening.clear()
                log.warning("club notifications lost; listening again in 1 s", exc_info=True)
                await asyncio.sleep(1.0)
