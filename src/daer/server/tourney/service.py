"""A server's club tournaments: rounds started (paired, their decks committed, their tables opened and dealt),
each hand's results booked, the gate that holds a finished table until every table finished the hand, the round
ended (seeds revealed) and the standings (docs/tournaments.md).

A table is a room of the server (``RoomManager.create(seated=False)``) whose match deals the round's
:class:`~daer.server.table.schedule.Schedule`; every registered player's seat starts in 托管 and is theirs to take
over from the tournament page (``seat``).  The rooms of a round are told apart by ``tourney_rooms``.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import msgspec

from daer.engine.fairness import commitment, new_seed
from daer.server.clubs.access import Clubs
from daer.server.clubs.live import ClubHub
from daer.server.safety.bounds import RoomConfig
from daer.server.serving.manager import RoomManager
from daer.server.table.outcome import Outcome, RoomWrite, Send
from daer.server.table.rooms import Room
from daer.server.table.schedule import Schedule
from daer.server.table.seating import token_hash
from daer.server.tourney.pairing import byes, met_pairs, pair
from daer.server.tourney.scoring import Played, Standing, comparison, dealer_of, standings
from daer.store.tournaments import TableRow, TourneyRow, TourneyStore

log = logging.getLogger("daer.server")

BOT_ID = -1
"""A bot's place in the pairing (bots never rank)."""
TURN_TIMER = 30.0
"""Seconds a turn lasts at a tournament table whose config has no timer: a person who went away must not hold
every table of the round at the gate (their seat falls to 托管)."""


def set_commitment(commits: list[str]) -> str:
    """One fingerprint of a round's deal set: SHA-256 of the seeds' commitments joined by ``|``."""
    return hashlib.sha256("|".join(commits).encode("ascii")).hexdigest()


def table_config(config: str, hands: int) -> RoomConfig:
    """A tournament table's room config: the tournament's, ``hands`` hands (the round's decks), the deal passing
    every hand (轮庄: the same deck must meet the same positions at every table), no spectators, bots where the
    field is short, and a turn timer (:data:`TURN_TIMER` unless the config sets one)."""
    cfg = msgspec.json.decode(config, type=RoomConfig)
    return msgspec.structs.replace(cfg, hands=hands, dealer_rule="rotate", watch=False, fill=True,
                                   timer=cfg.timer or TURN_TIMER)


class Tourneys:
    """The tournaments of one server: ``Tourneys(clubs, manager_of, hub)``; :meth:`serve` once the manager is made."""

    def __init__(self, clubs: Clubs, manager_of: Callable[[], RoomManager], hub: ClubHub) -> None:
        self.clubs = clubs
        self.manager_of = manager_of
        self.hub = hub
        self._stores: dict[int, TourneyStore] = {}
        self._tables: dict[str, TableRow | None] = {}
        """Room code → its table (None: not a tournament's)."""
        self._booked: dict[str, int] = {}
        """Room code → hands booked into the results."""

    @property
    def db(self) -> TourneyStore:
        store = self.manager_of().store
        got = self._stores.get(id(store))
        if got is None:
            got = self._stores[id(store)] = TourneyStore(store.engine)
        return got

    def serve(self, manager: RoomManager) -> None:
        """Hear of restored rooms (their schedules given back) and of every room's hands."""
        manager.restorers.append(self.restored)
        manager.listeners.append(self.room_changed)
        manager.leavers.append(self.forget)

    def forget(self, code: str) -> None:
        """A room left this process's memory: its table and booked hands are read again if it comes back
        (:meth:`restored` books from the match), so these follow the rooms held, not every room ever served."""
        self._tables.pop(code, None)
        self._booked.pop(code, None)

    def table(self, code: str) -> TableRow | None:
        if code not in self._tables:
            if len(self._tables) > 65536:
                self._tables.clear()
            self._tables[code] = self.db.table_of(code)
        return self._tables[code]

    def sealed(self, code: str) -> bool:
        """The room is a table of a round still under way: its records and replays stay closed."""
        t = self.table(code.strip().upper())
        return t is not None and self.db.round_status(t.tourney_id, t.round) != "done"

    # -- the gate ---------------------------------------------------------------------------------------
    def gate(self, tourney_id: int, number: int, hand: int) -> bool:
        """May a table of round ``number`` deal hand ``hand``: the tournament runs and every table of the round
        finished hand ``hand - 1``."""
        t = self.db.get(tourney_id)
        if t is None or t.status != "running" or t.round != number:
            return False
        return all(played >= hand - 1 for played in self.progress(tourney_id, number).values())

    def progress(self, tourney_id: int, number: int) -> dict[int, int]:
        """Table → hands it finished (from memory where this worker serves it, else from the store)."""
        served = self.manager_of().rooms
        out = {}
        for t in self.db.tables(tourney_id, number):
            room = served.get(t.code)
            if room is not None:
                out[t.table] = room.match.hands_played
            else:
                row = self.manager_of().store.load_room(t.code)
                out[t.table] = 0 if row is None else row.hands_played
        return out

    def schedule_of(self, t: TableRow) -> Schedule | None:
        seeds = self.db.seeds(t.tourney_id, t.round)
        if seeds is None:
            return None
        done = self.db.round_status(t.tourney_id, t.round) == "done"
        return Schedule(tuple(seeds), gate=lambda hand: self.gate(t.tourney_id, t.round, hand), private=not done)

    def restored(self, room: Room) -> None:
        """A table loaded from the store deals its round's decks again (a hand the load itself booked drew its next
        deal before the schedule was back: that deal is replaced by the schedule's); a hand stored but not yet booked
        when the server stopped is booked once the load's writes are committed."""
        t = self.table(room.code)
        if t is None:
            return
        m = room.match
        m.schedule = self.schedule_of(t)
        if m.schedule is None:
            return
        want = m.schedule.pending(m.hands_played + 1, len(m.seats)) if m.status in ("waiting", "between") else None
        if want is not None and (m.pending is None or m.pending.seed != want.seed):
            m.pending = want
            room.port.update_room(deal_seed=want.seed, deal_entropy=None)
        self._booked[room.code] = m.hands_played
        self.manager_of().store.writer.after_commit(lambda: self._guarded(self._backfill, t))

    def _backfill(self, t: TableRow) -> None:
        """Book a table's stored hands missing from the results (from their stored points: whether a seat ended in
        托管 is not known), and end the round if that was its last hand."""
        booked = self.db.booked_hands(t)
        for _id, number, finished, points in self.manager_of().store.hands_of(t.code):
            if finished and points and number not in booked:
                pts = msgspec.json.decode(points, type=list[int])
                self.db.add_hand(t, number, dealer_of(t.table, number, len(pts)), pts, [False] * len(pts))
        tourney = self.db.get(t.tourney_id)
        if tourney is not None and all(n >= tourney.hands for n in self.progress(t.tourney_id, t.round).values()):
            self.end_round(tourney, t.round)

    # -- a round ------------------------------------------------------------------------------------------
    def ranking(self, t: TourneyRow) -> list[int]:
        """The players in, best first: by the standings (registration order before the first round)."""
        players = [p["id"] for p in self.db.players(t.id) if p["status"] == "in"]
        return [s.player for s in self.standings(t, players)]

    def start_round(self, t: TourneyRow) -> int:
        """Pair the next round, commit its decks, open its tables and deal their first hand; the round's number."""
        manager = self.manager_of()
        cfg = table_config(t.config, t.hands)
        rules_seats = 4
        ranked = self.ranking(t)
        earlier = [[p for p in tr.seats if p is not None] for tr in self.db.tables(t.id)]
        met = met_pairs(earlier)
        had = {int(p) for r in self.db.rounds(t.id) for p in r["byes"]}
        out: list[int] = []
        if t.bots:
            field = ranked + [BOT_ID - i for i in range(-len(ranked) % rules_seats)]
        else:
            out = byes(ranked, rules_seats, had)
            field = [p for p in ranked if p not in out]
        bots = [p for p in field if p < 0]
        tables = pair([p for p in field if p >= 0], met, rules_seats) if not bots else _with_bots(
            [p for p in field if p >= 0], bots, met, rules_seats)
        number = t.round + 1
        seeds = [new_seed() for _ in range(t.hands)]
        commits = [commitment(s) for s in seeds]
        names = {p["id"]: p["nickname"] for p in self.db.players(t.id)}
        made: list[tuple[Room, list[int | None]]] = []
        for members in tables:
            made_here, _seat, _token = manager.create(cfg, "", creator=f"tourney:{t.id}", seated=False)
            room = manager.get(made_here.code) or made_here  # a cluster's worker takes the new room's lease
            seats: list[int | None] = [p if p >= 0 else None for p in members]
            made.append((room, seats))
        self.db.add_round(t.id, number, seeds=seeds, commits=commits, commitment=set_commitment(commits),
                          byes=out, tables=[(room.code, seats) for room, seats in made])
        for table_no, (room, seats) in enumerate(made):
            self._tables.pop(room.code, None)
            self._open(room, TableRow(room.code, t.id, number, table_no, seats), names)
        self.hub.publish(t.club_id, "tourney")
        return number

    def _open(self, room: Room, tr: TableRow, names: dict[int, str]) -> None:
        """Seat the table (players in 托管 until they take their seat, bots), give it its schedule and deal."""
        m = room.match
        m.schedule = self.schedule_of(tr)
        assert m.schedule is not None
        for s, pid in enumerate(tr.seats):
            seat = m.seats[s]
            if pid is None:
                seat.kind, seat.name = "bot", f"机器人{s + 1}"
            else:
                seat.kind, seat.name, seat.auto = "human", names.get(pid, "玩家")[:24], True
                seat.token_hash = token_hash(secrets.token_urlsafe(18))  # nobody holds it until they ask
                self.clubs.players.db.link_seat(pid, room.code, s)
        m.dealer = dealer_of(tr.table, 1, len(m.seats))
        m.pending = m.schedule.pending(1, len(m.seats))
        assert m.pending is not None
        m.version += 1
        room.perform(Outcome(writes=[RoomWrite({"version": m.version, "dealer": m.dealer,
                                                "deal_seed": m.pending.seed}, [s.row() for s in m.seats])]))
        self._booked[room.code] = 0
        room.perform(m.deal(time.monotonic()))

    # -- hands end ----------------------------------------------------------------------------------------
    def room_changed(self, room: Room) -> None:
        """A served room's hand ended (or its seats or status changed): book a tournament table's hand, let the
        other tables deal when it was the last to finish, and end the round with its last hand."""
        t = self.table(room.code)
        if t is None:
            return
        m = room.match
        st = m.state
        if m.hands_played > self._booked.get(room.code, 0) and st is not None and st.over and st.result is not None:
            self._booked[room.code] = m.hands_played
            hand, dealer, points = m.hands_played, st.dealer, list(st.result.points)
            auto = [s.kind == "human" and s.auto for s in m.seats]
            # booked once the hand's own rows are committed: a crash in between replays the hand, never books it twice
            self.manager_of().store.writer.after_commit(
                lambda: self._guarded(self._hand_done, room, t, hand, dealer, points, auto))
            return
        tourney = self.db.get(t.tourney_id)
        if tourney is not None:
            self.hub.publish(tourney.club_id, "tourney")

    @staticmethod
    def _guarded(fn: Callable[..., None], *args: Any) -> None:
        """Run ``fn`` from the writer's commit without letting it fail the writer."""
        try:
            fn(*args)
        except Exception:
            log.exception("tourney: booking a hand failed")

    def _hand_done(self, room: Room, t: TableRow, hand: int, dealer: int, points: list[int],  # noqa: PLR0917
                   auto: list[bool]) -> None:
        """A table's hand is stored: book it, wake the tables held at the gate, end the round with its last hand."""
        self.db.add_hand(t, hand, dealer, points, auto)
        for other in self.db.tables(t.tourney_id, t.round):
            r = self.manager_of().rooms.get(other.code)
            if r is not None and r is not room and r.status == "between":
                r.schedule()
        tourney = self.db.get(t.tourney_id)
        if tourney is None:
            return
        if all(n >= tourney.hands for n in self.progress(t.tourney_id, t.round).values()):
            self.end_round(tourney, t.round)
        self.hub.publish(tourney.club_id, "tourney")

    def end_round(self, t: TourneyRow, number: int) -> None:
        """The round is over: its seeds revealed (records and replays open), the tournament finished after its
        last round."""
        if not self.db.end_round(t.id, number):
            return
        for tr in self.db.tables(t.id, number):
            self._tables.pop(tr.code, None)
            room = self.manager_of().rooms.get(tr.code)
            if room is not None and room.match.schedule is not None:
                room.match.schedule.private = False
        if number >= t.rounds:
            self.db.change(t.id, status="finished")
        log.info("tourney %d: round %d over", t.id, number)

    def stop_round(self, t: TourneyRow) -> None:
        """The organiser ended the tournament: the tables still playing close (a hand in play is not counted)."""
        for tr in self.db.tables(t.id, t.round):
            room = self.manager_of().rooms.get(tr.code)
            if room is None or room.status not in ("waiting", "playing", "between"):
                continue
            m = room.match
            m.status = "finished"
            m.version += 1
            room.perform(Outcome(writes=[RoomWrite({"status": "finished", "version": m.version})],
                                 sends=[Send(None)], closed=("比赛已结束", "the tournament was ended")))
        self.end_round(t, t.round)
        self.db.change(t.id, status="finished")

    def poke(self, t: TourneyRow) -> None:
        """The tables of the round under way look at their gate again (the tournament resumed)."""
        for tr in self.db.tables(t.id, t.round):
            room = self.manager_of().rooms.get(tr.code)
            if room is not None:
                room.schedule()

    def unseat(self, t: TourneyRow, player_id: int) -> None:
        """A removed player's seat of the round under way goes to a bot."""
        for tr in self.db.tables(t.id, t.round):
            room = self.manager_of().rooms.get(tr.code)
            if room is None or player_id not in tr.seats:
                continue
            m = room.match
            s = m.seats[tr.seats.index(player_id)]
            s.kind, s.name, s.token_hash, s.auto = "bot", f"机器人{s.seat + 1}", None, False
            since = m.version
            m.version += 1
            room.perform(Outcome(writes=[RoomWrite({"version": m.version}, [s.row()])], sends=[Send(since)],
                                 timers=True))

    # -- reading ------------------------------------------------------------------------------------------
    def played(self, t: TourneyRow) -> list[Played]:
        return [Played(r.round, r.table, r.hand, r.seat, r.player, r.points, r.dealer, 4, r.auto)
                for r in self.db.results(t.id)]

    def standings(self, t: TourneyRow, players: list[int] | None = None) -> list[Standing]:
        if players is None:
            players = [p["id"] for p in self.db.players(t.id) if p["status"] == "in"]
        return standings(players, self.played(t), bots_count=t.bots_count)

    def comparison(self, t: TourneyRow) -> list[dict[str, object]]:
        """Every hand's comparison across tables, of the rounds that are over."""
        done = {r["number"] for r in self.db.rounds(t.id) if r["status"] == "done"}
        return comparison([r for r in self.played(t) if r.round in done], bots_count=t.bots_count)

    def tables_json(self, t: TourneyRow, number: int, names: dict[int, str]) -> list[dict[str, Any]]:
        """The round's tables: who sits where, and how far each is."""
        served = self.manager_of().rooms
        out = []
        for tr in self.db.tables(t.id, number):
            room = served.get(tr.code)
            row = None if room is not None else self.manager_of().store.load_room(tr.code)
            seats = room.seats if room is not None else (row.seats if row is not None else [])
            played = room.match.hands_played if room is not None else (row.hands_played if row else 0)
            status = room.status if room is not None else (row.status if row else "finished")
            out.append({"table": tr.table + 1, "code": tr.code, "status": status, "hands_played": played,
                        "hands": t.hands, "seats": [
                            {"seat": s.seat, "player": tr.seats[s.seat] if s.seat < len(tr.seats) else None,
                             "name": names.get(tr.seats[s.seat] or 0, s.name) if s.seat < len(tr.seats) else s.name,
                             "kind": s.kind, "auto": bool(s.auto),
                             "online": bool(getattr(s, "online", 0))} for s in seats]})
        return out


def _with_bots(people: list[int], bots: list[int], met: dict[tuple[int, int], int] | Any,
               size: int) -> list[list[int]]:
    """Tables for the people with the bots at the last table (the lowest ranked sit with them)."""
    k = size - len(bots)
    last = people[len(people) - k:] if k else []
    tables = pair(people[: len(people) - k], met, size) if len(people) > k else []
    return [*tables, [*last, *bots]]


def score_of(x: Fraction) -> float:
    return round(float(x), 2)


__all__ = ["Tourneys", "set_commitment", "table_config"]
