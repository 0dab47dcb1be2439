"""Alembic migrations on SQLite and PostgreSQL: a database made by revision 0001 upgrades in place (the acks of
its stored actions become durable answers), its rooms still load, and migrating again changes nothing; 0007 adds
the player tables to a database with rooms in it, and goes back."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from typing import Any

import msgspec
import pytest
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, create_engine, inspect, text

from daer.engine import new_hand
from daer.rules import find_rules
from daer.server.table.port import Leases
from daer.server.table.rooms import room_from_row
from daer.store import Store
from daer.store.players import PlayerStore


def _config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("daer.store") / "migrations"))
    return cfg


HEAD = ScriptDirectory.from_config(_config()).get_current_head()
"""The newest revision (the chain's one head)."""


@contextmanager
def _migrated(db_url: str, revision: str, *, down: bool = False) -> Iterator[Connection]:
    """A connection to the database upgraded (or, with ``down``, downgraded) to ``revision`` only, in one
    transaction: a test fills it as a server of that schema would have, before the next revisions run."""
    engine = create_engine(db_url)
    try:
        with engine.begin() as conn:
            cfg = _config()
            cfg.attributes["connection"] = conn
            (command.downgrade if down else command.upgrade)(cfg, revision)
            yield conn
    finally:
        engine.dispose()


def test_a_0001_database_upgrades_in_place_and_migrating_again_changes_nothing(db_url: str) -> None:
    st = new_hand(find_rules(), seed=7)
    acts = []
    for i in range(3):
        seat = st.to_act()[0]
        action = st.legal_actions(seat)[0]
        st.apply(action)
        acts.append({"hand_id": 1, "idx": i, "version": 2 + i, "seat": seat, "client_id": f"id-{i}",
                     "payload": msgspec.json.encode(action).decode()})
    with _migrated(db_url, "0001") as conn:
        conn.execute(text("INSERT INTO rooms (code, created_at, config, status, version, scores, dealer, hands_played)"
                          " VALUES ('OLD01', 0, '{\"timer\": 0}', 'playing', 4, '[0,0,0,0]', 0, 0)"))
        for s in range(4):
            conn.execute(text("INSERT INTO seats (room_code, seat, kind, name, token_hash, auto) "
                              "VALUES ('OLD01', :s, 'bot', 'b', NULL, :f)"), {"s": s, "f": False})
        conn.execute(text("INSERT INTO hands (id, room_code, number, rules, overrides, dealer, deck, start_version,"
                          " finished, points) VALUES (1, 'OLD01', 1, 'luzhou', '{}', 0, :deck, 1, :f, NULL)"),
                     {"deck": msgspec.json.encode(st.deck).decode(), "f": False})
        for a in acts:
            conn.execute(text("INSERT INTO actions (hand_id, idx, version, seat, client_id, payload) "
                              "VALUES (:hand_id, :idx, :version, :seat, :client_id, :payload)"), a)

    store = Store(db_url)  # upgrades to head
    for a in acts:
        reply = store.reply("OLD01", int(str(a["seat"])), str(a["client_id"]))
        assert reply is not None
        assert msgspec.json.decode(reply) == {"t": "ack", "id": a["client_id"], "v": a["version"]}
    leases = Leases(store, "test", sole=False)
    epoch = leases.take("OLD01")
    assert epoch == 1  # an old room has no lease: the first worker asking takes it
    row = store.load_room("OLD01")
    assert row is not None
    room = room_from_row(row, store, 0.0, leases.port("OLD01", epoch, row.version, lambda: None))
    assert room.state is not None
    assert room.state.actions == st.actions
    assert room.pending is None and room.match.fair is None and room.ready == set()
    # a room waiting for its next hand gets a committed seed as it loads, before anyone sees it
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE rooms SET status = 'between' WHERE code = 'OLD01'"))
    between = store.load_room("OLD01")
    assert between is not None
    pending = room_from_row(between, store, 0.0, leases.port("OLD01", epoch, between.version, lambda: None)).pending
    assert pending is not None
    reloaded = store.load_room("OLD01")
    assert reloaded is not None and reloaded.deal_seed == pending.seed
    store.close()

    again = Store(db_url)  # nothing left to do
    with again.engine.connect() as conn:
        assert MigrationContext.configure(conn).get_current_revision() == HEAD
        assert conn.execute(text("SELECT count(*) FROM replies")).scalar() == len(acts)
    again.close()


def _hand(conn: Any, hand_id: int, number: int, seed: int, *, n_actions: int, finished: bool,
          version: int, code: str = "DUP01") -> list[Any]:
    """A stored hand of ``code`` (a real deck, ``n_actions`` legal actions from version ``version + 1``)."""
    st = new_hand(find_rules(), seed=seed)
    conn.execute(text("INSERT INTO hands (id, room_code, number, rules, overrides, dealer, deck, start_version,"
                      " finished, points) VALUES (:id, :code, :n, 'luzhou', '{}', 0, :deck, :v, :f, :pts)"),
                 {"id": hand_id, "code": code, "n": number, "deck": msgspec.json.encode(st.deck).decode(),
                  "v": version, "f": finished, "pts": "[0,0,0,0]" if finished else None})
    for i in range(n_actions):
        seat = st.to_act()[0]
        action = st.legal_actions(seat)[0]
        st.apply(action)
        conn.execute(text("INSERT INTO actions (hand_id, idx, version, seat, client_id, payload) "
                          "VALUES (:h, :i, :v, :s, NULL, :p)"),
                     {"h": hand_id, "i": i, "v": version + 1 + i, "s": seat,
                      "p": msgspec.json.encode(action).decode()})
    return list(st.actions)


def test_0003_sets_duplicate_hands_aside_and_keeps_the_record_that_got_furthest(db_url: str) -> None:
    """Two processes dealt the same hand numbers before leases existed: the upgrade to 0003 (a unique index on
    (room_code, number)) must still succeed; it keeps the finished hand over an unfinished one, the longer record
    over the shorter, then the later written, and moves the others with their actions to hands_dropped /
    actions_dropped."""
    with _migrated(db_url, "0002") as conn:
        conn.execute(text("INSERT INTO rooms (code, created_at, config, status, version, scores, dealer, hands_played)"
                          " VALUES ('DUP01', 0, '{\"timer\": 0, \"hands\": 4}', 'playing', 40, '[0,0,0,0]', 0, 2)"))
        for s in range(4):
            conn.execute(text("INSERT INTO seats (room_code, seat, kind, name, token_hash, auto) "
                              "VALUES ('DUP01', :s, 'bot', 'b', NULL, :f)"), {"s": s, "f": False})
        _hand(conn, 1, 1, 11, n_actions=2, finished=False, version=1)  # hand 1 twice: this fork stopped early
        _hand(conn, 2, 1, 12, n_actions=1, finished=True, version=1)  # the finished one is kept
        _hand(conn, 3, 2, 13, n_actions=4, finished=False, version=10)  # hand 2: the longer record is kept
        _hand(conn, 4, 2, 14, n_actions=2, finished=False, version=10)
        _hand(conn, 5, 3, 15, n_actions=3, finished=False, version=20)  # hand 3 three times, equal records:
        _hand(conn, 6, 3, 16, n_actions=3, finished=False, version=20)  # the last written is kept
        kept = _hand(conn, 7, 3, 17, n_actions=3, finished=False, version=20)
        conn.execute(text("UPDATE rooms SET version = 23 WHERE code = 'DUP01'"))

    store = Store(db_url)  # upgrades to head: refused before (the unique index met the duplicates)
    with store.engine.connect() as conn:
        assert MigrationContext.configure(conn).get_current_revision() == HEAD
        hands = conn.execute(text("SELECT number, id FROM hands ORDER BY number")).all()
        assert [tuple(h) for h in hands] == [(1, 2), (2, 3), (3, 7)]
        dropped = conn.execute(text("SELECT id, number, kept_id FROM hands_dropped ORDER BY id")).all()
        assert [tuple(d) for d in dropped] == [(1, 1, 2), (4, 2, 3), (5, 3, 7), (6, 3, 7)]
        moved = conn.execute(text("SELECT hand_id, count(*) FROM actions_dropped GROUP BY hand_id ORDER BY hand_id"))
        assert [tuple(m) for m in moved] == [(1, 2), (4, 2), (5, 3), (6, 3)]
        assert conn.execute(text("SELECT count(*) FROM actions WHERE hand_id IN (1, 4, 5, 6)")).scalar() == 0
    leases = Leases(store, "test", sole=False)
    epoch = leases.take("DUP01")
    assert epoch is not None
    row = store.load_room("DUP01")
    assert row is not None and row.hand is not None and row.hand.id == 7
    room = room_from_row(row, store, 0.0, leases.port("DUP01", epoch, row.version, lambda: None))
    assert room.state is not None and room.state.actions == kept  # the kept hand replays from its record
    store.close()

    again = Store(db_url)  # nothing left to do
    with again.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM hands_dropped")).scalar() == 4
    again.close()


def test_0005_keeps_one_room_per_create_request_and_refuses_a_second(db_url: str) -> None:
    """Two workers made a room each for one create request before 0005: the upgrade (a unique index on the
    create keys) must still succeed; the key stays with the room created first (a repeat finds it), the other
    room keeps its seats, and from then on a second room for the key is refused whole."""
    key = "create:" + "a" * 40
    with _migrated(db_url, "0004") as conn:
        for code, created in (("LATE1", 20.0), ("EARLY", 10.0)):
            conn.execute(text("INSERT INTO rooms (code, created_at, config, status, version, scores, dealer, "
                              "hands_played, creator) VALUES (:c, :t, '{\"timer\": 0}', 'waiting', 0, '[0,0,0,0]', "
                              "0, 0, 'me')"), {"c": code, "t": created})
            conn.execute(text("INSERT INTO replies (room_code, seat, client_id, reply, refused) "
                              "VALUES (:c, -1, :k, '{\"seat\": 0, \"holder\": \"h\"}', :f)"),
                         {"c": code, "k": key, "f": False})
            conn.execute(text("INSERT INTO replies (room_code, seat, client_id, reply, refused) "  # a join key: per
                              "VALUES (:c, -1, 'join:x', '{}', :f)"), {"c": code, "f": False})  # room, not unique

    store = Store(db_url)
    with store.engine.connect() as conn:
        assert MigrationContext.configure(conn).get_current_revision() == HEAD
        rows = conn.execute(text("SELECT room_code, client_id FROM replies ORDER BY room_code, client_id")).all()
        assert [tuple(r) for r in rows] == [("EARLY", key), ("EARLY", "join:x"), ("LATE1", "join:x")]
    assert store.room_of_request("me", key) == "EARLY"
    with pytest.raises(Exception) as refused, store.engine.begin() as conn:
        conn.execute(text("INSERT INTO replies (room_code, seat, client_id, reply, refused) "
                          "VALUES ('LATE1', -1, :k, '{}', :f)"), {"k": key, "f": False})
    assert "unique" in str(refused.value).lower()
    store.close()


def test_0007_adds_the_player_tables_to_a_0006_database_with_rooms_in_it_and_goes_back(db_url: str) -> None:
    """A database at 0006 (the schema before players) holding a room and its seats upgrades to the player
    tables: the old room loads, its seats belong to nobody, a player can take one of them; the downgrade drops the
    tables and leaves the rooms; upgrading again works."""
    with _migrated(db_url, "0006") as conn:
        conn.execute(text("INSERT INTO rooms (code, created_at, config, status, version, scores, dealer, hands_played,"
                          " creator) VALUES ('OLD07', 0, '{\"timer\": 0}', 'waiting', 1, '[0,0,0,0]', 0, 0, 'me')"))
        for s in range(4):
            conn.execute(text("INSERT INTO seats (room_code, seat, kind, name, token_hash, auto) "
                              "VALUES ('OLD07', :s, :k, :n, NULL, :f)"),
                         {"s": s, "k": "human" if s == 0 else "empty", "n": "老王" if s == 0 else "", "f": False})

    store = Store(db_url)
    with store.engine.connect() as conn:
        assert MigrationContext.configure(conn).get_current_revision() == HEAD
        tables = set(inspect(conn).get_table_names())
        assert {"players", "player_sessions", "player_tokens", "player_passkeys", "player_seats"} <= tables
        assert conn.execute(text("SELECT count(*) FROM player_seats")).scalar() == 0
        indexes = {i["name"] for i in inspect(conn).get_indexes("player_seats")}
        assert {"ix_player_seats_player_id", "ix_player_seats_room_seat"} <= indexes
    row = store.load_room("OLD07")
    assert row is not None and row.seats[0].name == "老王"
    players = PlayerStore(store.engine)
    pid = players.create("老王", "c1", "h" * 64)
    players.link_seat(pid, "OLD07", 0)
    assert players.seats_of(pid) == [{"room": "OLD07", "seat": 0, "joined_at": players.seats_of(pid)[0]["joined_at"],
                                      "name": "老王"}]
    store.close()

    with _migrated(db_url, "0006", down=True) as conn:
        assert "players" not in set(inspect(conn).get_table_names())
        assert conn.execute(text("SELECT count(*) FROM seats WHERE room_code = 'OLD07'")).scalar() == 4
    again = Store(db_url)
    with again.engine.connect() as conn:
        assert MigrationContext.configure(conn).get_current_revision() == HEAD
        assert conn.execute(text("SELECT count(*) FROM players")).scalar() == 0
    again.close()


def test_0008_adds_the_club_and_record_tables_to_a_0007_database_with_a_room_and_a_player_and_goes_back(
        db_url: str) -> None:
    """A database at 0007 holding a room and a player upgrades to the club and record tables (empty: hands of
    before have no records); the room loads, the player keeps their seat; the downgrade drops the new tables and
    keeps the rest; upgrading again works."""
    with _migrated(db_url, "0007") as conn:
        conn.execute(text("INSERT INTO rooms (code, created_at, config, status, version, scores, dealer, hands_played,"
                          " creator) VALUES ('OLD08', 0, '{\"timer\": 0}', 'waiting', 1, '[0,0,0,0]', 0, 0, 'me')"))
        for s in range(4):
            conn.execute(text("INSERT INTO seats (room_code, seat, kind, name, token_hash, auto) "
                              "VALUES ('OLD08', :s, :k, :n, NULL, :f)"),
                         {"s": s, "k": "human" if s == 0 else "empty", "n": "老王" if s == 0 else "", "f": False})
        pid = conn.execute(text("INSERT INTO players (created_at, nickname, avatar) VALUES (0, '老王', 'c1') "
                                "RETURNING id")).scalar()
        conn.execute(text("INSERT INTO player_seats (player_id, room_code, seat, joined_at) "
                          "VALUES (:p, 'OLD08', 0, 0)"), {"p": pid})
    new = {"clubs", "club_members", "club_bans", "club_invites", "club_requests", "club_templates", "club_rooms",
           "club_seat_invites", "records", "record_days", "record_months"}
    store = Store(db_url)
    with store.engine.connect() as conn:
        assert MigrationContext.configure(conn).get_current_revision() == HEAD
        assert new <= set(inspect(conn).get_table_names())
        assert conn.execute(text("SELECT count(*) FROM records")).scalar() == 0
        indexes = {i["name"] for i in inspect(conn).get_indexes("records")}
        assert {"ix_records_player_at", "ix_records_club_at", "uq_records_hand_seat"} <= indexes
    row = store.load_room("OLD08")
    assert row is not None and row.seats[0].name == "老王"
    assert [s["room"] for s in PlayerStore(store.engine).seats_of(int(pid or 0))] == ["OLD08"]
    store.close()

    with _migrated(db_url, "0007", down=True) as conn:
        tables = set(inspect(conn).get_table_names())
        assert not new & tables and {"players", "player_seats", "rooms"} <= tables
        assert conn.execute(text("SELECT count(*) FROM player_seats")).scalar() == 1
    again = Store(db_url)
    with again.engine.connect() as conn:
        assert MigrationContext.configure(conn).get_current_revision() == HEAD
        assert conn.execute(text("SELECT count(*) FROM records")).scalar() == 0
    with again.engine.begin() as conn:  # the roll-up trigger came back with the tables
        conn.execute(text("INSERT INTO clubs (id, number, name, notice, config, owner_id, created_at, member_cap, "
                          "min_hands) VALUES (1, '123456', 'x', '', '{}', :p, 0, 500, 0)"), {"p": pid})
        conn.execute(text("INSERT INTO hands (id, room_code, number, rules, overrides, dealer, deck, start_version, "
                          "finished) VALUES (1, 'OLD08', 1, 'luzhou', '{}', 0, '[]', 1, :t)"), {"t": True})
        conn.execute(text("INSERT INTO records (hand_id, room_code, hand_number, club_id, player_id, seat, kind, "
                          "name, rules, at, points, money, winner, how, hu, mingtang, day, month) VALUES (1, 'OLD08', "
                          "1, 1, :p, 0, 'human', '老王', 'luzhou', 0, 7, :f, 0, 'zimo', 10, '[]', 0, 23880)"),
                     {"p": pid, "f": False})
    with again.engine.connect() as conn:
        assert conn.execute(text("SELECT hands, wins, points FROM record_days")).one() == (1, 1, 7)
        assert conn.execute(text("SELECT hands, points FROM record_months")).one() == (1, 7)
    again.close()


def test_0010_drops_the_index_that_repeats_the_unique_one_and_a_hands_actions_still_load_by_it(db_url: str) -> None:
    """``ix_actions_hand_id`` repeats the first column of the unique ``(hand_id, idx)`` index: 0010 drops it (one
    entry less to write for every stored action), the downgrade puts it back, and upgrading again works."""
    with _migrated(db_url, "0009") as conn:
        assert "ix_actions_hand_id" in {i["name"] for i in inspect(conn).get_indexes("actions")}
    store = Store(db_url)
    with store.engine.connect() as conn:
        assert "ix_actions_hand_id" not in {i["name"] for i in inspect(conn).get_indexes("actions")}
        uniques = [sorted(u["column_names"]) for u in inspect(conn).get_unique_constraints("actions")]
        assert ["hand_id", "idx"] in uniques  # what serves a hand's actions now
    store.close()
    with _migrated(db_url, "0009", down=True) as conn:
        assert "ix_actions_hand_id" in {i["name"] for i in inspect(conn).get_indexes("actions")}
    again = Store(db_url)
    with again.engine.connect() as conn:
        assert MigrationContext.configure(conn).get_current_revision() == HEAD
    again.close()


def test_0011_indexes_the_rooms_by_status_and_goes_back(db_url: str) -> None:
    """0011 adds ``ix_rooms_status`` (the live rooms' queries read only them), the downgrade drops it, and upgrading
    again puts it back."""
    with _migrated(db_url, "0010") as conn:
        assert "ix_rooms_status" not in {i["name"] for i in inspect(conn).get_indexes("rooms")}
    store = Store(db_url)
    with store.engine.connect() as conn:
        assert {"name": "ix_rooms_status", "column_names": ["status"]}.items() <= next(
            i for i in inspect(conn).get_indexes("rooms") if i["name"] == "ix_rooms_status").items()
    store.close()
    with _migrated(db_url, "0010", down=True) as conn:
        assert "ix_rooms_status" not in {i["name"] for i in inspect(conn).get_indexes("rooms")}
    again = Store(db_url)
    with again.engine.connect() as conn:
        assert "ix_rooms_status" in {i["name"] for i in inspect(conn).get_indexes("rooms")}
        assert MigrationContext.configure(conn).get_current_revision() == HEAD
    again.close()


def _keys(conn: Connection) -> set[tuple[str, str]]:
    return {(t, fk["referred_table"]) for t in ("actions", "replies") for fk in inspect(conn).get_foreign_keys(t)}


def test_0012_drops_the_write_paths_foreign_keys_on_postgresql_only_and_goes_back(db_url: str) -> None:
    """0012 drops the foreign keys of ``actions`` and ``replies`` on PostgreSQL (each checked row locks its parent);
    SQLite keeps them; the downgrade adds them back, and a room's hand still plays and loads after the upgrade."""
    with _migrated(db_url, "0011") as conn:
        assert _keys(conn) == {("actions", "hands"), ("replies", "rooms")}
    store = Store(db_url)
    with store.engine.connect() as conn:
        kept = _keys(conn)
    both = {("actions", "hands"), ("replies", "rooms")}
    assert kept == (set() if store.engine.dialect.name == "postgresql" else both)
    with store.engine.begin() as conn:
        conn.execute(text("INSERT INTO rooms (code, created_at, config, status, version, scores, dealer, hands_played)"
                          " VALUES ('NEW01', 0, '{\"timer\": 0}', 'playing', 1, '[0,0,0,0]', 0, 0)"))
        for s in range(4):
            conn.execute(text("INSERT INTO seats (room_code, seat, kind, name, token_hash, auto) "
                              "VALUES ('NEW01', :s, 'bot', 'b', NULL, :f)"), {"s": s, "f": False})
        played = _hand(conn, 1, 1, 5, n_actions=4, finished=False, version=1, code="NEW01")
    row = store.load_room("NEW01")
    assert row is not None
    leases = Leases(store, "test", sole=False)
    epoch = leases.take("NEW01")
    room = room_from_row(row, store, 0.0, leases.port("NEW01", epoch, row.version, lambda: None))
    assert room.state is not None and room.state.actions == played
    store.close()
    with _migrated(db_url, "0011", down=True) as conn:
        assert _keys(conn) == {("actions", "hands"), ("replies", "rooms")}  # the rows there are checked again
    again = Store(db_url)
    with again.engine.connect() as conn:
        assert _keys(conn) == kept
        assert MigrationContext.configure(conn).get_current_revision() == HEAD == "0012"
    again.close()
