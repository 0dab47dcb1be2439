"""The answers a room gave to its seats' action and command ids (重复消息), kept so a repeat gets the same answer.

An acked id's answer is stored in the same transaction as the change it made, before the ack is sent, so
it survives restarts and later hands.  Answers that come with no change — refusals, and acks of commands
that changed nothing (a second ``next``) — are stored alone, but only :data:`STORED_ALONE` of them per seat
(refusals stored before the server started count too): a client could otherwise make the server write for
every message it sends; past that they are kept in memory only.  Each seat's most recent
:data:`IN_MEMORY` answers are held in memory; older ids are looked up in the store — only those the room
has answered before: a set of the hashes of every answered (seat, id) is loaded with the room (one query,
which also counts the stored refusals), so a new id costs no read.
"""

from __future__ import annotations

from collections import OrderedDict

import msgspec

from daer.server import protocol as p
from daer.server.table.port import RoomPort
from daer.store import ReplyRow, Store

IN_MEMORY = 256
"""Answers held in memory per seat (the rest are read back from the store when repeated)."""
STORED_ALONE = 256
"""Answers stored without a change (refusals, no-op acks) per seat of a room and server run; past it they
are remembered in memory only."""
_decoder = msgspec.json.Decoder(p.Ack | p.Error)


class ReplyBook:
    """One room's answers by (seat, id): a bounded memory in front of the store's ``replies`` table."""

    __slots__ = ("_alone", "_known", "code", "memory", "port", "store")

    def __init__(self, store: Store, code: str, port: RoomPort) -> None:
        self.store = store
        self.code = code
        self.port = port
        """Where answers stored alone are written (fenced like every write of the room)."""
        self.memory: dict[int, OrderedDict[str, p.ServerMessage]] = {}
        self._alone: dict[int, int] | None = None
        self._known: set[int] | None = None

    def none_stored(self) -> None:
        """The room was just created by this process: none of its answers is stored, so the first command need
        not read the store to learn that (two reads a room, ~4% of the server's CPU at 1,000 new tables)."""
        self._alone, self._known = {}, set()

    def _load(self) -> None:
        """What the store holds of this room's answers: their keys' hashes and the refusals per seat (one read)."""
        keys, refused = self.store.reply_index(self.code)
        known = {hash(key) for key in keys}
        if self._known is not None:
            known |= self._known
        self._known = known
        if self._alone is None:
            self._alone = refused

    def _answered(self, seat: int, msg_id: str) -> bool:
        """Whether this id may have been answered (no false negatives; a rare false positive costs a read)."""
        if self._known is None:
            self._load()
        assert self._known is not None
        return hash((seat, msg_id)) in self._known

    def get(self, seat: int, msg_id: str) -> p.ServerMessage | None:
        """The first answer to this id, or None when it is new."""
        mem = self.memory.get(seat)
        if mem is not None and msg_id in mem:
            mem.move_to_end(msg_id)
            return mem[msg_id]
        if not self._answered(seat, msg_id):
            return None
        text = self.store.reply(self.code, seat, msg_id)
        if text is None:
            return None
        reply = _decoder.decode(text)
        self.remember(seat, msg_id, reply)
        return reply

    def remember(self, seat: int, msg_id: str, reply: p.ServerMessage) -> None:
        """Hold an answer in memory (it is already stored, or need not be)."""
        if self._known is not None:
            self._known.add(hash((seat, msg_id)))
        mem = self.memory.setdefault(seat, OrderedDict())
        mem[msg_id] = reply
        mem.move_to_end(msg_id)
        while len(mem) > IN_MEMORY:
            mem.popitem(last=False)

    @staticmethod
    def row(seat: int, msg_id: str, reply: p.ServerMessage) -> ReplyRow:
        """An answer as stored with the change it acknowledges."""
        return ReplyRow(seat, msg_id, p.encode(reply), isinstance(reply, p.Error))

    def save(self, seat: int, msg_id: str, reply: p.ServerMessage) -> None:
        """An answer that came with no change (an ack of a command that changed nothing, or a refusal):
        stored while the seat has fewer than :data:`STORED_ALONE` such answers stored, and remembered."""
        if self._alone is None:
            self._load()
        assert self._alone is not None
        if self._alone.get(seat, 0) < STORED_ALONE:
            self.port.save_reply(self.row(seat, msg_id, reply))
            self._alone[seat] = self._alone.get(seat, 0) + 1
        self.remember(seat, msg_id, reply)

    def refuse(self, seat: int, msg_id: str, reply: p.Error) -> None:
        """Remember a refusal (stored as :meth:`save` says)."""
        self.save(seat, msg_id, reply)
