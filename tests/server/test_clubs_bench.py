"""The club-scale benchmark (benchmarks/clubs_data.py) runs at a tiny size: it fills, times every read and
explains every statement (the full size is run by hand: docs/benchmarks.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_clubs_benchmark_runs_at_a_tiny_size() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "clubs_data.py"), "--hands", "200",
                          "--members", "20", "--reps", "3"], capture_output=True, text=True, timeout=120, check=True)
    assert "filled 20 members, 200 hands (800 record rows)" in out.stdout
    for read in ("club 战绩, a month", "member history + totals + series", "settle-up, a month",
                 "leaderboard, a season"):
        assert any(line.startswith(read) and len(line.split()) >= 3 for line in out.stdout.splitlines()), read
    plans = out.stdout.split("\n\n")
    club_reads = [p for p in plans if p.startswith(("-- club 战绩", "-- settle-up", "-- leaderboard"))]
    assert len(club_reads) == 3 and all("record_months" in p and "SEARCH record_months USING" in p for p in club_reads)
    assert "USING INDEX ix_records_player_at" in out.stdout  # a member's history: the player's index
