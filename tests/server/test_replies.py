"""The answer book of a room: answers stored alone are bounded per seat, acks come back after a restart."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from daer.server import protocol as p
from daer.server.table.port import RoomPort
from daer.server.table.replies import IN_MEMORY, STORED_ALONE, ReplyBook
from daer.store import SeatRow, Store


def _room(store: Store, code: str) -> RoomPort:
    """A stored room whose lease this test holds (epoch 1): the port its answers are written through."""
    store.create_room(code=code, created_at=0, config="{}", scores="[0,0,0,0]", dealer=0,
                      seats=[SeatRow(s, "empty", "", None, False) for s in range(4)], owner="test", ttl=60)
    return RoomPort(store, code, "test", 1, 0)


def test_answers_stored_alone_are_bounded_per_seat_and_survive_a_restart(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    port = _room(store, "ROOM1")
    book = ReplyBook(store, "ROOM1", port)
    n = STORED_ALONE + 20
    for i in range(n):
        book.save(0, f"n{i}", p.Ack(id=f"n{i}", v=i))
    book.refuse(1, "bad", p.error("illegal", "不行", "no", id="bad", v=3))
    with store.engine.connect() as conn:
        per_seat = dict(conn.execute(text("SELECT seat, count(*) FROM replies GROUP BY seat")).all())
    assert per_seat == {0: STORED_ALONE, 1: 1}
    assert len(book.memory[0]) == IN_MEMORY
    assert book.get(0, f"n{n - 1}") == p.Ack(id=f"n{n - 1}", v=n - 1)  # in memory
    restarted = ReplyBook(store, "ROOM1", port)
    assert restarted.get(0, "n0") == p.Ack(id="n0", v=0)  # from the store
    assert restarted.get(0, f"n{STORED_ALONE - 1}") is not None
    assert restarted.get(0, f"n{STORED_ALONE}") is None  # past the bound: memory only, gone with the restart
    refused = restarted.get(1, "bad")
    assert isinstance(refused, p.Error) and refused.code == "illegal"
    assert restarted.get(2, "n0") is None  # answers are per seat
    store.close()


def test_a_new_id_costs_no_read_of_the_store(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    port = _room(store, "ROOM2")
    ReplyBook(store, "ROOM2", port).save(0, "old", p.Ack(id="old", v=1))
    reads: list[str] = []
    real = store.reply

    def counted(code: str, seat: int, client_id: str) -> str | None:
        reads.append(client_id)
        return real(code, seat, client_id)

    store.reply = counted  # type: ignore[method-assign]
    book = ReplyBook(store, "ROOM2", port)
    assert all(book.get(0, f"new{i}") is None for i in range(100))
    assert reads == []
    assert book.get(0, "old") == p.Ack(id="old", v=1)
    assert reads == ["old"]
    store.close()


def test_a_room_just_created_reads_nothing_to_answer_and_bounds_its_answers_all_the_same(tmp_path: Path) -> None:
    from daer.server.safety.bounds import RoomConfig  # noqa: PLC0415
    from daer.server.serving.manager import RoomManager  # noqa: PLC0415

    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    room, seat, _token = RoomManager(store).create(RoomConfig(timer=0), "A")
    reads: list[str] = []
    for name in ("reply_index", "reply"):
        real = getattr(store, name)
        setattr(store, name, lambda *a, _real=real, _name=name: reads.append(_name) or _real(*a))
    book = room.replies
    assert book.get(seat, "c1") is None
    for i in range(STORED_ALONE + 5):
        book.save(seat, f"n{i}", p.Ack(id=f"n{i}", v=0))
    assert reads == []  # nothing of a new room is stored yet: nothing read
    store.writer.flush()
    with store.engine.connect() as conn:
        stored = conn.execute(text("SELECT count(*) FROM replies WHERE room_code = :c"), {"c": room.code}).scalar()
    assert stored == STORED_ALONE
    store.close()


def test_a_loaded_room_reads_its_answers_keys_and_refusals_in_one_query(tmp_path: Path) -> None:
    """A room loaded from the store learns which ids it answered and how many refusals each seat has stored with
    one read (two before: each was a round trip on the event loop as a room of a cluster loaded), and bounds the
    answers stored alone by the refusals already there."""
    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    port = _room(store, "ROOM3")
    first = ReplyBook(store, "ROOM3", port)
    for i in range(STORED_ALONE - 2):
        first.refuse(1, f"r{i}", p.error("illegal", "不行", "no", id=f"r{i}", v=0))
    first.save(0, "ok", p.Ack(id="ok", v=0))
    store.writer.flush()
    reads: list[str] = []
    real = store.reply_index
    store.reply_index = lambda code: reads.append(code) or real(code)  # type: ignore[method-assign]
    book = ReplyBook(store, "ROOM3", port)
    assert book.get(0, "ok") == p.Ack(id="ok", v=0)
    assert book.get(0, "new") is None
    for i in range(5):
        book.refuse(1, f"s{i}", p.error("illegal", "不行", "no", id=f"s{i}", v=0))
    assert reads == ["ROOM3"]  # one read for both
    store.writer.flush()
    with store.engine.connect() as conn:
        stored = conn.execute(text("SELECT count(*) FROM replies WHERE room_code = 'ROOM3' AND refused")).scalar()
    assert stored == STORED_ALONE  # two more stored, three remembered in memory only
    store.close()
