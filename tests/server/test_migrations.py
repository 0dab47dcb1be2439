"""Alembic migrations on SQLite and PostgreSQL: a database made by revision 0001 upgrades in place (the acks of
its stored actions become durable answers), its rooms still load, and migrating again changes nothing."""

from __future__ import annotations

from importlib import resources

import msgspec
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, text

from daer.engine import new_hand
from daer.rules import find_rules
from daer.server.manager import room_from_row
from daer.server.port import Leases
from daer.store import Store


def _config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("daer.store") / "migrations"))
    return cfg


def test_a_0001_database_upgrades_in_place_and_migrating_again_changes_nothing(db_url: str) -> None:
    engine = create_engine(db_url)
    st = new_hand(find_rules(), seed=7)
    acts = []
    for i in range(3):
        seat = st.to_act()[0]
        action = st.legal_actions(seat)[0]
        st.apply(action)
        acts.append({"hand_id": 1, "idx": i, "version": 2 + i, "seat": seat, "client_id": f"id-{i}",
                     "payload": msgspec.json.encode(action).decode()})
    with engine.begin() as conn:
        cfg = _config()
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
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
    engine.dispose()

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
    assert room.pending is None and room.fair is None and room.ready == set()
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
        assert MigrationContext.configure(conn).get_current_revision() == "0003"
        assert conn.execute(text("SELECT count(*) FROM replies")).scalar() == len(acts)
    again.close()
