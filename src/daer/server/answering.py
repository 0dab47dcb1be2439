"""How a room answers commands: every answer stored before it is sent, seat entropy for the next deal.

A mixin of :class:`daer.server.rooms.Room`: :meth:`Answering.command` looks a repeated id up first
(:class:`daer.server.replies.ReplyBook`), then runs the room's ``_command``; a change the command makes
is stored together with its ack (:meth:`Answering._answer_row`), a command that changes nothing stores
its ack alone, a refusal is remembered (``docs/protocol.md``, durability).
"""

from __future__ import annotations

from typing import Any

from daer.engine.fairness import is_entropy
from daer.server import protocol as p
from daer.server.dealing import PendingDeal
from daer.server.port import RoomPort
from daer.server.replies import ReplyBook
from daer.store import ReplyRow, Store


class Answering:
    """Command answers and seat entropy of a room (the attributes are the room's)."""

    code: str
    store: Store
    port: RoomPort
    status: str
    version: int
    replies: ReplyBook
    answering: tuple[int, str] | None
    pending: PendingDeal | None

    def broadcast(self, since: int | None) -> None:
        """Send every connection its update (the room's)."""
        raise NotImplementedError

    def _command(self, seat: int, msg: p.Command) -> p.ServerMessage:
        raise NotImplementedError

    def command(self, seat: int | None, msg: p.Command) -> p.ServerMessage:
        """start / next / resume / leave / dissolve / entropy; the answer is stored before it is sent, and a
        repeated id gets it again (across restarts and hands)."""
        if seat is None:
            return p.error("not_seated", "观众不能操作", "spectators cannot do this", id=msg.id, v=self.version)
        known = self.replies.get(seat, msg.id)
        if known is not None:
            return known
        if msg.entropy is not None and not is_entropy(msg.entropy):
            reply: p.ServerMessage = p.error("bad_entropy", "随机数须是 1 到 64 位小写十六进制",
                                             "entropy must be 1-64 lowercase hex digits", id=msg.id, v=self.version)
        else:
            self.answering = (seat, msg.id)
            try:
                reply = self._command(seat, msg)
            finally:
                unsaved, self.answering = self.answering, None
        if isinstance(reply, p.Error):
            self.replies.refuse(seat, msg.id, reply)
        elif unsaved is not None:  # nothing was stored with it
            self.replies.save(seat, msg.id, reply)
        else:
            self.replies.remember(seat, msg.id, reply)
        return reply

    def _answer_row(self) -> ReplyRow | None:
        """The ack of the command being answered, stored with the change it made (at the new version)."""
        if self.answering is None:
            return None
        seat, msg_id = self.answering
        self.answering = None
        return self.replies.row(seat, msg_id, p.Ack(id=msg_id, v=self.version))

    def _entropy(self, seat: int, msg: p.Command) -> dict[str, Any]:
        """Add a seat's entropy to the next deal; the room fields to store (none if nothing changed)."""
        if msg.entropy is None or self.pending is None or self.status not in ("waiting", "between"):
            return {}
        return {"deal_entropy": self.pending.entropy_json()} if self.pending.add(seat, msg.entropy) else {}

    def _bump_room(self, **fields: Any) -> None:
        """A stored change of room fields (and the command's answer) at a new version, then broadcast."""
        since = self.version
        self.version += 1
        self.port.update_room(version=self.version, reply=self._answer_row(), **fields)
        self.broadcast(since)

