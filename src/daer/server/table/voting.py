"""The dissolve vote as the match runs it (:class:`Voting`, a part of :class:`daer.server.table.match.Match`):
propose, answer, pass when nobody is left to ask or the countdown ran out (silence agrees), as data
(:class:`~daer.server.table.outcome.Outcome`).  The vote itself: :mod:`daer.server.social.votes`."""

from __future__ import annotations

from typing import Any

from daer.server import protocol as p
from daer.server.social import votes
from daer.server.social.votes import Vote
from daer.server.table.outcome import Outcome, RoomWrite, Send
from daer.server.table.seating import Seat


class Voting:
    """The vote's part of the match (its fields are the match's)."""

    seats: list[Seat]
    version: int
    status: str
    vote: Vote | None
    proposed: dict[int, float]
    vote_seconds: float
    deadlines: dict[int, float]

    def _bump_room(self, **fields: Any) -> Outcome:
        raise NotImplementedError

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
