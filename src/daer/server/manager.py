"""The rooms of one server process: new codes, creating, finding and restoring rooms from the store."""

from __future__ import annotations

import logging
import secrets
import time

import msgspec

from daer.engine import GameState
from daer.server import protocol as p
from daer.server.bounds import RoomConfig, RoomError, check_config
from daer.server.dealing import PendingDeal, fairness_of
from daer.server.rooms import CODE_ALPHABET, CODE_LENGTH, EXPIRED, LIVE, Room, action_codec
from daer.server.seating import Seat, token_hash
from daer.store import RoomRow, Store

log = logging.getLogger("daer.server")


class RoomManager:
    """All rooms of one server process, loaded from the store at start."""

    def __init__(self, store: Store, *, bot_delay: float = 0.6, claim_window: float = 0.0) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.claim_window = claim_window
        self.rooms: dict[str, Room] = {}

    def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self.rooms and self.store.load_room(code) is None:
                return code

    def live_rooms(self) -> list[Room]:
        """Rooms in memory that are waiting, playing or between hands."""
        return [r for r in self.rooms.values() if r.status in LIVE]

    def create(self, cfg: RoomConfig, name: str, *, creator: str = "") -> tuple[Room, int, str]:
        """A new room with its creator at seat 0 (the host); returns (room, seat, token).

        Everything is checked before anything is stored: a refused room leaves no row behind.
        """
        rules = check_config(cfg)
        code = self._new_code()
        n = rules.table.seats
        first = PendingDeal.fresh(n)
        room = Room(code=code, config=cfg, rules=rules, store=self.store, bot_delay=self.bot_delay,
                    seats=[Seat(i) for i in range(n)], scores=[0] * n, creator=creator,
                    pending=first, claim_window=self.claim_window)
        token = secrets.token_urlsafe(18)
        host = room.seats[0]
        host.kind, host.name, host.token_hash = "human", name[:24] or "玩家1", token_hash(token)
        self.store.create_room(code=code, created_at=time.time(), config=msgspec.json.encode(cfg).decode(),
                               scores=msgspec.json.encode(room.scores).decode(), dealer=0,
                               seats=[s.row() for s in room.seats], deal_seed=first.seed)
        self.rooms[code] = room
        return room, 0, token

    def get(self, code: str) -> Room | None:
        """A room by code (loaded from the store if this process has not seen it yet; None if expired)."""
        code = code.strip().upper()
        if code in self.rooms:
            return self.rooms[code]
        if not 3 <= len(code) <= 16:
            return None
        self.store.flush()  # a room the expiry sweep just closed is read as closed
        row = self.store.load_room(code)
        if row is None or row.status == EXPIRED:
            return None
        try:
            room = room_from_row(row, self.store, self.bot_delay)
            room.claim_window = self.claim_window
        except (RoomError, msgspec.ValidationError, msgspec.DecodeError) as exc:
            # stored before today's bounds (e.g. a bot with no time cap): closed, never resumed
            log.warning("room %s no longer valid (%s); closing it", code, exc)
            self.store.update_room(code, status=EXPIRED)
            return None
        self.rooms[code] = room
        return room

    def store_failed(self, code: str, exc: BaseException) -> None:
        """A write of this room could not be committed (the store's writer says so): the room goes back to
        what is stored, and its sockets are closed (the messages waiting for that write are dropped); the
        clients reconnect and resume at the stored version."""
        room = self.rooms.get(code)
        if room is None:
            return
        log.error("room %s: write failed (%s); reloading it from the store", code, exc)
        conns = list(room.conns)
        room.conns.clear()
        for c in conns:
            c.abort(p.encode(p.Closed(zh="服务器保存失败，请重新连接",
                                      en="the server could not store a change; reconnect")))
        try:
            room._reload()
        except Exception:
            log.exception("room %s: reload failed; dropping it from memory", code)
            del self.rooms[code]
            return
        for s in room.seats:
            s.online = 0
        room.schedule()

    def restore_all(self) -> int:
        """Load every room that was waiting or playing (re-validated) and restart its clock; returns how many."""
        for code in self.store.room_codes():
            room = self.get(code)
            if room is not None:
                room.schedule()
        return len(self.rooms)


def room_from_row(row: RoomRow, store: Store, bot_delay: float) -> Room:
    """A room rebuilt from the store: the current hand replayed action by action."""
    cfg = msgspec.json.decode(row.config, type=RoomConfig)
    rules = check_config(cfg)
    room = Room(code=row.code, config=cfg, rules=rules, store=store, bot_delay=bot_delay,
                seats=[Seat(s.seat, s.kind, s.name, s.token_hash, s.auto) for s in row.seats],
                scores=msgspec.json.decode(row.scores, type=list[int]), dealer=row.dealer,
                hands_played=row.hands_played, status=row.status, version=row.version,
                ready=set(msgspec.json.decode(row.ready or "[]", type=list[int])),
                pending=PendingDeal.stored(row.deal_seed, row.deal_entropy, len(row.seats)))
    if room.pending is None and room.status in ("waiting", "between"):  # stored before verifiable deals
        room.pending = PendingDeal.fresh(len(room.seats))
        store.update_room(row.code, deal_seed=room.pending.seed)
    h = row.hand
    if h is not None:
        st = GameState(rules, msgspec.json.decode(h.deck, type=list[int]), dealer=h.dealer, hold=True)
        room.hand_id = h.id
        room.fair = fairness_of(h)
        room._install(st, h.start_version)
        for a in h.actions:
            # the windows closed before this action (not stored: each was a public step just before it)
            closed = []
            while st.window_complete():
                st.close_window()
                closed.append(len(st.log))
            public = st.phase != "claim"
            top = a.version - 1 if public else a.version
            room.marks += [(top - len(closed) + 1 + i, n, None) for i, n in enumerate(closed)]
            st.apply(action_codec.decode(a.payload))
            room.marks.append((a.version, len(st.log), None if public else a.seat))
        last = max((v for v, _, _ in room.marks), default=h.start_version)
        while st.window_complete():  # closed before the restart, or due: a restart does not wait for it
            st.close_window()
            last += 1
            room.marks.append((last, len(st.log), None))
        room.version = max(room.version, last)
        if st.over and not h.finished:  # stopped between storing the last action and booking it
            points, fields = room._book(st)
            store.update_room(row.code, **fields)
            room._finish_hand_row(points)
        room._refresh_legal()
    return room
