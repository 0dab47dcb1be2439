"""A club's day and month roll-ups (``record_days``, ``record_months``, kept by the ``records_rollup`` trigger of
migration 0008) add up to exactly what the records say, over any period of whole CST days — the sums a club's
战绩, settle-up sheet and leaderboards read — and a hand booked twice adds nothing the second time."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from daer.store import Store
from daer.store.periods import OFFSET, cst_day, cst_month, pieces
from daer.store.records import RecordStore

YEAR = 366 * 86400
NOW = 1_796_000_000.0  # 2026-11
ROW = st.tuples(st.integers(0, YEAR), st.sampled_from([1, 2]), st.sampled_from([None, 1, 2, 3]),
                st.integers(0, 3), st.integers(-50, 50), st.booleans(), st.sampled_from([None, 0, 1, 2, 3]))


def _setup(store: Store) -> None:
    with store.engine.begin() as conn:
        conn.execute(text("INSERT INTO players (id, created_at, nickname) VALUES (1, 0, 'a'), (2, 0, 'b'), "
                          "(3, 0, 'c')"))
        for cid in (1, 2):
            conn.execute(text("INSERT INTO clubs (id, number, name, notice, config, owner_id, created_at, "
                              "member_cap, min_hands) VALUES (:c, :n, 'x', '', '{}', 1, 0, 500, 0)"),
                         {"c": cid, "n": f"10000{cid}"})
        conn.execute(text("INSERT INTO rooms (code, created_at, config, status, version, scores, dealer, "
                          "hands_played) VALUES ('R1', 0, '{}', 'finished', 1, '[]', 0, 0)"))


def _insert(store: Store, hand: int, rows: list[tuple[Any, ...]]) -> None:
    with store.engine.begin() as conn:
        conn.execute(text("INSERT INTO hands (id, room_code, number, rules, overrides, dealer, deck, start_version, "
                          "finished) VALUES (:h, 'R1', :h, 'luzhou', '{}', 0, '[]', 1, :t) ON CONFLICT DO NOTHING"),
                     {"h": hand, "t": True})
        for at_off, club, player, seat, points, money, winner in rows:
            at = NOW - YEAR + at_off
            conn.execute(text(
                "INSERT INTO records (hand_id, room_code, hand_number, club_id, player_id, seat, kind, name, rules, "
                "at, points, money, winner, how, hu, mingtang, day, month) VALUES (:h, 'R1', :h, :c, :p, :s, 'human', "
                "'n', 'luzhou', :at, :pts, :m, :w, 'hu', 0, '[]', :d, :mo) ON CONFLICT DO NOTHING"),
                {"h": hand, "c": club, "p": player, "s": seat, "at": at, "pts": points, "m": money, "w": winner,
                 "d": cst_day(at), "mo": cst_month(at)})


def _raw(store: Store, club: int, start: float, end: float) -> dict[tuple[int, bool], tuple[int, int, int]]:
    with store.engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT player_id, money, count(*), sum(CASE WHEN winner = seat THEN 1 ELSE 0 END), sum(points) "
            "FROM records WHERE club_id = :c AND at >= :a AND at < :b AND player_id IS NOT NULL "
            "GROUP BY player_id, money"), {"c": club, "a": start, "b": end}).all()
    return {(int(p), bool(m)): (int(n), int(w), int(s)) for p, m, n, w, s in rows}


def test_the_roll_ups_add_up_to_the_records_over_any_period(db_url: str) -> None:
    store = Store(db_url)
    _setup(store)
    records = RecordStore(store.engine)
    hand = [0]

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(hands=st.lists(st.lists(ROW, min_size=1, max_size=4, unique_by=lambda r: r[3]), min_size=1, max_size=6),
           again=st.booleans(), first=st.integers(0, 400), length=st.integers(1, 200), club=st.sampled_from([1, 2]))
    def check(hands: list[list[tuple[Any, ...]]], again: bool, first: int, length: int, club: int) -> None:
        for rows in hands:
            hand[0] += 1
            _insert(store, hand[0], rows)
            if again:  # booked a second time (a restart): nothing more is counted
                _insert(store, hand[0], rows)
        start = (cst_day(NOW - YEAR) + first) * 86400 - OFFSET
        end = start + length * 86400
        got = {(pid, unit == "money"): (s[f"{unit}_hands"], None, s[unit])
               for pid, s in records._sums(club, start, end).items() for unit in ("points", "money")
               if s[f"{unit}_hands"]}
        want = _raw(store, club, start, end)
        assert {k: (v[0], v[2]) for k, v in got.items()} == {k: (v[0], v[2]) for k, v in want.items()}
        wins = sum(v[1] for v in want.values())
        assert sum(s["wins"] for s in records._sums(club, start, end).values()) == wins

    check()
    store.close()


def test_a_period_splits_into_whole_months_and_the_days_at_its_ends() -> None:
    start = 1_767_196_800.0  # 2026-01-01 00:00 CST (2025-12-31 16:00 UTC)
    days, months = pieces(start, start + 90 * 86400)  # to 2026-04-01: January to March, whole
    assert days == [] and months is not None and months[1] - months[0] == 3
    days, months = pieces(start + 86400 * 10, start + 86400 * 70)  # 01-11 .. 03-12
    assert months is not None and months[1] - months[0] == 1  # February
    assert sum(b - a for a, b in days) == 60 - 28  # the rest of January and the start of March
    days, months = pieces(start + 86400 * 3, start + 86400 * 10)
    assert months is None and days == [(cst_day(start) + 3, cst_day(start) + 10)]
