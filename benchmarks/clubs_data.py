"""战绩 at a club's scale (not a test): a club of ``--members`` members with ``--hands`` recorded hands (four seats
each) spread over a year, then the reads a club page makes, timed.

Run: ``.venv/bin/python benchmarks/clubs_data.py`` (a temporary SQLite file; 500 members, 200,000 hands: 800,000
record rows), ``--db URL`` for another database, ``--pg`` for a throwaway PostgreSQL cluster of its own (``initdb``
on a free loopback port, removed afterwards).  It fills the tables in bulk (``executemany`` in batches), runs
``ANALYZE``, then times ``--reps`` repetitions of each read and prints p50 / p99 in milliseconds:

- the club's 战绩 for a month (:meth:`RecordStore.club_table`),
- a member's history: the first page, the totals and the chart (``history`` + ``totals`` + ``series``),
- the settle-up sheet for a month (``settle``),
- the leaderboard of a season (``leaderboard``),

and the plan of every statement each read sent (``EXPLAIN QUERY PLAN`` / ``EXPLAIN``), to show the indexes used.
The target (docs/benchmarks.md): each at most 50 ms at p99.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import event, insert, text

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "server"))

from daer.store import Store
from daer.store.models import ClubMemberTable, ClubTable, HandTable, PlayerTable, RecordTable, RoomTable
from daer.store.periods import cst_day, cst_month, period_bounds
from daer.store.records import RecordStore

YEAR = 365 * 86400.0
BATCH = 20_000


def fill(store: Store, members: int, hands: int, *, now: float, seed: int = 1) -> int:
    """The club, its members and ``hands`` hands of four seats over the year before ``now``; the club's id."""
    rng = random.Random(seed)
    t0 = time.perf_counter()
    with store.engine.begin() as conn:
        conn.execute(insert(PlayerTable), [{"created_at": now - YEAR, "nickname": f"玩家{i}", "avatar": "c0"}
                                           for i in range(members)])
        pids = [int(r[0]) for r in conn.execute(text("SELECT id FROM players ORDER BY id"))][-members:]
        cid = int(conn.execute(insert(ClubTable).values(
            number="482913", name="老张的圈", notice="", config="{}", owner_id=pids[0], created_at=now - YEAR,
            member_cap=max(500, members), min_hands=10).returning(ClubTable.id)).scalar_one())
        conn.execute(insert(ClubMemberTable), [{"club_id": cid, "player_id": p, "role": "owner" if i == 0 else "member",
                                                "joined_at": now - YEAR} for i, p in enumerate(pids)])
    per_room = 8
    ats = sorted(rng.uniform(now - YEAR, now) for _ in range(hands))
    rooms, hand_rows, recs = [], [], []
    first_hand = 1 + int(store.engine.connect().execute(text("SELECT coalesce(max(id), 0) FROM hands")).scalar() or 0)

    def flush(conn: Any) -> None:
        for table, rows in ((RoomTable, rooms), (HandTable, hand_rows), (RecordTable, recs)):
            if rows:
                conn.execute(insert(table), rows)
                rows.clear()

    with store.engine.begin() as conn:
        for h, at in enumerate(ats):
            code = f"B{h // per_room:07d}"
            number = h % per_room + 1
            if number == 1:
                rooms.append({"code": code, "created_at": at, "config": "{}", "status": "finished", "version": 1,
                              "scores": "[0,0,0,0]", "dealer": 0, "hands_played": per_room})
            hid = first_hand + h
            hand_rows.append({"id": hid, "room_code": code, "number": number, "rules": "luzhou", "overrides": "{}",
                              "dealer": 0, "deck": "[]", "start_version": 1, "finished": True, "points": None})
            seated = rng.sample(pids, 4)
            if rng.random() < 0.05:
                seated[3] = 0  # a bot's seat
            winner = None if rng.random() < 0.1 else rng.randrange(4)
            stake = rng.choice((2, 4, 6, 8, 12, 16, 24))
            money = rng.random() < 0.2
            for s, pid in enumerate(seated):
                pts = 0 if winner is None else 3 * stake if s == winner else -stake
                recs.append({"hand_id": hid, "room_code": code, "hand_number": number, "club_id": cid,
                             "player_id": pid or None, "seat": s, "kind": "human" if pid else "bot",
                             "name": f"玩家{pid}" if pid else "机器人", "rules": "luzhou", "at": at, "points": pts,
                             "money": money, "winner": winner, "how": "huang" if winner is None else "zimo",
                             "hu": 0 if winner is None else 20, "mingtang": "[]", "day": cst_day(at),
                             "month": cst_month(at)})
            if len(recs) >= BATCH:
                flush(conn)
        flush(conn)
    if store.engine.dialect.name == "postgresql":
        with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("SELECT setval(pg_get_serial_sequence('hands', 'id'), (SELECT max(id) FROM hands))"))
            conn.execute(text("VACUUM ANALYZE"))
    else:
        with store.engine.begin() as conn:
            conn.execute(text("ANALYZE"))
    print(f"filled {members} members, {hands} hands ({4 * hands} record rows) in {time.perf_counter() - t0:.1f} s")
    return cid


def capture(store: Store, fn: Callable[[], Any]) -> list[tuple[str, Any]]:
    """The statements (SQL, parameters) that ``fn`` sends."""
    seen: list[tuple[str, Any]] = []

    def note(_conn: Any, _cur: Any, statement: str, parameters: Any, _ctx: Any, _many: bool) -> None:
        seen.append((statement, parameters))

    event.listen(store.engine, "before_cursor_execute", note)
    try:
        fn()
    finally:
        event.remove(store.engine, "before_cursor_execute", note)
    return seen


def plans(store: Store, stmts: list[tuple[str, Any]]) -> list[str]:
    """Each statement's plan, as the database explains it."""
    pg = store.engine.dialect.name == "postgresql"
    out = []
    raw = store.engine.raw_connection()
    try:
        cur = raw.cursor()
        for sql, params in stmts:
            cur.execute(("EXPLAIN " if pg else "EXPLAIN QUERY PLAN ") + sql, params)
            rows = cur.fetchall()
            plan = [str(r[0]) for r in rows] if pg else [f"{'  ' * 0}{r[-1]}" for r in rows]
            out.append(" ".join(sql.split())[:160] + "\n      " + "\n      ".join(plan))
        cur.close()
    finally:
        raw.close()
    return out


def measure(store: Store, cid: int, now: float, reps: int, *, explain: bool = True) -> dict[str, tuple[float, float]]:
    """p50 and p99 (ms) of each read over ``reps`` repetitions; prints the plans."""
    records = RecordStore(store.engine)
    rng = random.Random(7)
    with store.engine.connect() as conn:
        pids = [int(r[0]) for r in conn.execute(text("SELECT player_id FROM club_members WHERE club_id = :c"),
                                                {"c": cid})]
    # the last whole month and season (the current ones may have just begun: a few rows, a flattering time)
    month = period_bounds("month", period_bounds("month", now)[0] - 1)
    last_season = period_bounds("season", now)[0] - 1

    def member(pid: int) -> None:
        records.history(pid), records.totals(pid), records.series(pid)
    reads: dict[str, Callable[[], Any]] = {
        "club 战绩, a month": lambda: records.club_table(cid, *month),
        "member history + totals + series": lambda: member(rng.choice(pids)),
        "settle-up, a month": lambda: records.settle(cid, *month),
        "leaderboard, a season": lambda: records.leaderboard(cid, "season", last_season),
    }
    out = {}
    for name, fn in reads.items():
        fn()  # warm
        times = []
        for _ in range(reps):
            t = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t) * 1000)
        times.sort()
        out[name] = (statistics.median(times), times[min(len(times) - 1, int(0.99 * len(times)))])
        if explain:
            print(f"\n-- {name}")
            for plan in plans(store, capture(store, fn)):
                print("   ", plan)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", help="database URL (default: a temporary SQLite file)")
    ap.add_argument("--pg", action="store_true", help="start a throwaway PostgreSQL cluster on a loopback port")
    ap.add_argument("--members", type=int, default=500)
    ap.add_argument("--hands", type=int, default=200_000)
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--no-explain", action="store_true")
    args = ap.parse_args()
    cluster = None
    url = args.db
    if args.pg:
        from pgcluster import Cluster, unavailable
        why = unavailable()
        if why is not None:
            sys.exit(f"no PostgreSQL: {why}")
        cluster = Cluster()
        url = cluster.database()
    folder = tempfile.TemporaryDirectory(prefix="daer-clubs-")
    url = url or f"sqlite:///{folder.name}/clubs.db"
    store = Store(url)
    now = time.time()
    try:
        cid = fill(store, args.members, args.hands, now=now)
        results = measure(store, cid, now, args.reps, explain=not args.no_explain)
        print(f"\n{store.engine.dialect.name}: {args.members} members, {args.hands} hands, {args.reps} repetitions")
        print(f"{'read':<36} {'p50 ms':>8} {'p99 ms':>8}")
        for name, (p50, p99) in results.items():
            print(f"{name:<36} {p50:8.1f} {p99:8.1f}")
    finally:
        store.close()
        if cluster is not None:
            cluster.stop()
        folder.cleanup()


if __name__ == "__main__":
    main()
