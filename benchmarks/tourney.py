"""A 96-player club tournament's round on a real app in this process: the players register, the round is
started (paired, its decks committed, 24 tables opened), the server's 托管 plays every seat, and the round is
scored.  Prints the wall times and the pairing and standings computation times (docs/benchmarks.md).

    python benchmarks/tourney.py [--players 96] [--hands 4] [--rounds 2]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from starlette.testclient import TestClient

from daer.server import create_app
from daer.server.players.identity import COOKIE
from daer.server.safety.limits import Limits, Rate
from daer.server.tourney.pairing import met_pairs, pair
from daer.server.tourney.scoring import Played, standings

BUCKETS = ("create", "join", "lookup", "player", "signin", "signin_link", "me", "club_new", "club_invite",
           "club_request", "club_act")


def as_(c: TestClient, secret: str | None) -> TestClient:
    c.cookies.clear()
    if secret is not None:
        c.cookies.set(COOKIE, secret, domain="testserver.local")
    return c


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=96)
    ap.add_argument("--hands", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    high = Rate(10**6, 10**6)
    limits = Limits(rates=dict.fromkeys(BUCKETS, high), max_rooms=10**6, max_rooms_per_address=10**6)
    with tempfile.TemporaryDirectory() as tmp, TestClient(
            create_app(f"sqlite:///{Path(tmp) / 'daer.db'}", bot_delay=0.0, limits=limits)) as c:
        as_(c, None).post("/api/rooms", json={"name": "群主", "config": {"timer": 0}})
        owner = str(c.cookies[COOKIE])
        n = as_(c, owner).post("/api/clubs", json={"name": "大赛", "config": {"timer": 0}}).json()["number"]
        secret = as_(c, owner).post(f"/api/clubs/{n}/invites", json={"hours": 1, "uses": 200}).json()["url"]
        secret = secret.split("#invite=")[1]
        t = as_(c, owner).post(f"/api/clubs/{n}/tourneys", json={
            "name": "96人复式赛", "config": {"timer": 0}, "rounds": args.rounds, "hands": args.hands}).json()["id"]
        t0 = time.perf_counter()
        for _ in range(args.players):
            as_(c, None).post("/api/clubs/join", json={"secret": secret})
            as_(c, str(c.cookies[COOKIE])).post(f"/api/clubs/{n}/tourneys/{t}/register", json={})
        print(f"{args.players} players joined and registered: {time.perf_counter() - t0:.1f} s")
        for number in range(1, args.rounds + 1):
            t0 = time.perf_counter()
            res = as_(c, owner).post(f"/api/clubs/{n}/tourneys/{t}/start", json={})
            started = time.perf_counter() - t0
            assert res.status_code == 200, res.text
            while True:
                view = as_(c, owner).get(f"/api/clubs/{n}/tourneys/{t}").json()
                if view["rounds"][number - 1]["status"] == "done":
                    break
                time.sleep(0.2)
            played = time.perf_counter() - t0
            print(f"round {number}: started (paired, committed, {len(view['tables'])} tables dealt) in "
                  f"{started * 1000:.0f} ms; played by 托管 and scored in {played:.1f} s")
        export = as_(c, owner).get(f"/api/clubs/{n}/tourneys/{t}/export.json").json()
    rows = [Played(h["round"], h["table"] - 1, h["hand"], h["seat"], h["player"], h["points"],
                   (h["seat"] - h["position"]) % 4, 4, h["auto"]) for h in export["hands"]]
    people = sorted({r.player for r in rows if r.player is not None})
    t0 = time.perf_counter()
    for _ in range(20):
        lines = standings(people, rows)
    standing_ms = (time.perf_counter() - t0) / 20 * 1000
    ranked = [s.player for s in lines]
    tables: dict[tuple[int, int], list[int]] = {}
    for r in rows:
        if r.player is not None and r.player not in tables.setdefault((r.round, r.table), []):
            tables[(r.round, r.table)].append(r.player)
    met = met_pairs(tables.values())
    t0 = time.perf_counter()
    for _ in range(20):
        pair(ranked, met)
    pair_ms = (time.perf_counter() - t0) / 20 * 1000
    random.seed(1)
    shuffled = ranked[:]
    random.shuffle(shuffled)
    t0 = time.perf_counter()
    pair(shuffled, met)
    print(f"standings of {len(people)} players over {len(rows)} seat-hands: {standing_ms:.1f} ms")
    print(f"Swiss pairing of {len(ranked)} players (after {args.rounds} rounds): {pair_ms:.1f} ms; "
          f"from a shuffled ranking {(time.perf_counter() - t0) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
