"""What the match does for a table of friends (:class:`Together`, a part of :class:`daer.server.table.match.Match`),
as data (:class:`~daer.server.table.outcome.Outcome`): the dissolve vote — propose, answer, pass when nobody is
left to ask or the countdown ran out (silence agrees; the vote itself: :mod:`daer.server.social.votes`) — and the
spectators: their view some public steps behind (:mod:`daer.server.social.watching`), the host allowing or
forbidding watching."""

from __future__ import annotations

from typing import Any

import msgspec

from daer.engine import GameState
from daer.engine.events import seen_by
from daer.engine.views import View
from daer.server import protocol as p
from daer.server.safety.bounds import RoomConfig
from daer.server.social import votes
from daer.server.social.votes import Vote
from daer.server.social.watching import Delayed, watch_target
from daer.server.table.outcome import Outcome, RoomWrite, Send
from daer.server.table.seating import Seat


class Together:
    """The vote's and the spectators' part of the match (its fields are the match's)."""

    config: RoomConfig
    hand_start: int
    marks: list[tuple[int, int, int | None]]
    watch_delay: int
    watch: Delayed
    shown: int | None
    seats: list[Seat]
    version: int
    status: str
    vote: Vote | None
    proposed: dict[int, float]
    vote_seconds: float
    deadlines: dict[int, float]

    @property
    def host(self) -> int:
        raise NotImplementedError

    def _bump_room(self, **fields: Any) -> Outcome:
        raise NotImplementedError

    def info(self, seat: int | None, now: float) -> p.RoomInfo:
        raise NotImplementedError

    def waits_of(self, view: View) -> tuple[tuple[int, int], ...]:
        raise NotImplementedError

    # -- spectators ----------------------------------------------------------------------------
    def _watch_update(self, st: GameState, since: int | None, now: float) -> p.Update:
        """A spectator's update: the hand :attr:`watch_delay` public steps behind while it is in play."""
        shown = watch_target(self.version, self.hand_start, self.watch_delay, live=self.status == "playing"
                             and not st.over)
        seen = st if shown >= self.version else self.watch.at(shown)
        self.shown = shown
        full = since is None or not self.hand_start <= since <= shown
        start = 0 if full or since is None else public_start(self.marks, since)
        view = seen.view(None, log=False)
        return p.Update(v=shown, since=None if full else since, full=full, events=seen_by(seen.log[start:], None),
                        view=view, room=self.info(None, now), waits=self.waits_of(view))

    def _set_watch(self, seat: int, msg: p.Command, *, allow: bool) -> Outcome:
        """The host allows (``watch``) or forbids (``nowatch``) spectators; forbidding closes their sockets."""
        if seat != self.host:
            return Outcome(reply=p.error("not_host", "只有房主可以设置是否允许观战", "only the host decides",
                                         id=msg.id, v=self.version))
        if self.config.watch == allow:
            return Outcome()
        self.config = msgspec.structs.replace(self.config, watch=allow)
        out = self._bump_room(config=msgspec.json.encode(self.config).decode())
        out.unwatch = not allow
        return out

    # -- the dissolve vote ---------------------------------------------------------------------

    def vote_info(self, now: float) -> p.VoteInfo | None:
        """The last vote as everyone sees it."""
        v = self.vote
        if v is None:
            return None
        return p.VoteInfo(at=v.at, by=v.by, agreed=tuple(sorted(v.agreed)),
                          asked=tuple(v.asked(self.people())) if v.open else (),
                          left=max(0.0, round(v.ends - now, 1)) if v.open else 0.0, refused=v.refused,
                          passed=v.passed)

    def people(self) -> set[int]:
        """Seats held by a person who plays for themselves (not a bot, not in 托管): they answer votes."""
        return {s.seat for s in self.seats if s.kind == "human" and not s.auto}

    # -- the dissolve vote (daer.server.social.votes) ------------------------------------------
    def _propose(self, seat: int, msg: p.Command, now: float) -> Outcome:
        if self.vote is not None and self.vote.open:
            return Outcome(reply=p.error("vote_open", "已经在投票解散了", "a vote to dissolve is already open",
                                         id=msg.id, v=self.version))
        last = self.proposed.get(seat)
        if last is not None and now - last < votes.PROPOSE_EVERY:
            wait = max(1, round(votes.PROPOSE_EVERY - (now - last)))
            return Outcome(reply=p.error("too_soon", f"每分钟最多发起一次解散，请 {wait} 秒后再试",
                                         f"one proposal a minute; try again in {wait} s", id=msg.id, v=self.version))
        self.proposed[seat] = now
        people = self.people()
        self.vote = Vote(by=seat, ends=now + self.vote_seconds, at=self.version + 1,
                         agreed={s.seat for s in self.seats if s.seat != seat and s.seat not in people})
        if not self.vote.asked(people):  # nobody to ask (the others are bots or in 托管)
            return self._dissolved()
        return self._vote_changed()

    def _answer(self, seat: int, msg: p.Command, now: float, *, agree: bool) -> Outcome:
        v = self.vote
        if v is None or not v.open or now >= v.ends:
            return Outcome(reply=p.error("no_vote", "现在没有解散投票", "no vote to dissolve is open",
                                         id=msg.id, v=self.version))
        if seat not in v.asked(self.people()):
            return Outcome(reply=p.error("voted", "你已经表态了", "you have already answered (or proposed)",
                                         id=msg.id, v=self.version))
        if not agree:
            v.refused = seat
            return self._vote_changed()
        v.agreed.add(seat)
        return self._dissolved() if not v.asked(self.people()) else self._vote_changed()

    def _vote_changed(self) -> Outcome:
        out = self._bump_room(vote=votes.dump(self.vote, self.proposed))
        out.timers = True
        return out

    def _dissolved(self) -> Outcome:
        """The vote passed: the match ends with its scores so far (the update first, then the room closes)."""
        assert self.vote is not None
        self.vote.passed = True
        since = self.version
        self.status = "dissolved"
        self.version += 1
        self.deadlines = {}
        return Outcome(writes=[RoomWrite({"status": self.status, "version": self.version,
                                          "vote": votes.dump(self.vote, self.proposed)})],
                       sends=[Send(since)], closed=("大家同意，房间已解散", "everyone agreed: the room is dissolved"))


def public_start(marks: list[tuple[int, int, int | None]], since: int) -> int:
    """The log length at the last public step at or before version ``since``."""
    for v, n, who in reversed(marks):
        if v <= since and who is None:
            return n
    return 0
