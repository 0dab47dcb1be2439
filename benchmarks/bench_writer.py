"""CPU of the store's write path per action, alone: what ``daer serve`` writes for an action on SQLite (not a test).

Run: ``.venv/bin/python benchmarks/bench_writer.py [--rooms 1000] [--actions 60000] [--per-commit 5]``.

``--rooms`` rooms are created with a hand each; then every action is one room's (chosen at random, as tables
interleave) through :meth:`daer.store.Store.append_action`: the room's fenced version, the action's row, and for
one action in three (a person's, the others are bots') the answer to its id.  The queue is committed every
``--per-commit`` actions (the group commit of a 5 ms window at ~1,000 actions a second).  It prints the process CPU
per action (building the statements, SQLite's work, the commits) and the same in calls of the peer
(``mahjong``'s ``estimate_hand_value``, timed in this process: the yardstick of ``load_table.py``), so the write's
share of a served action can be read against ``load_table.py``'s server CPU per action.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time

from sqlalchemy import text

from daer.store import Store
from daer.store.db import ActionRow, ReplyRow, SeatRow
from daer.store.leases import Fence
from load_table import peer_rate

PAYLOAD = '{"t":"discard","seat":1,"card":17}'
"""An action's stored JSON (a discard, the most common action)."""


def run(rooms: int, actions: int, per_commit: int, seed: int) -> float:
    """CPU seconds of ``actions`` actions' writes over ``rooms`` rooms."""
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(f"sqlite:///{tmp}/bench.db")
        store.migrate()
        state = []  # [code, stored version, hand id, next action index]
        for i in range(rooms):
            code = f"B{i:07d}"
            store.create_room(code=code, created_at=0.0, config="{}", scores="[0,0,0,0]", dealer=0,
                              seats=[SeatRow(s, "bot", "b", None, False) for s in range(4)])
            hand = store.start_hand(code=code, number=1, rules="luzhou", overrides="{}", dealer=0, deck="[]",
                                    version=1, fence=Fence("", 0, 0))
            state.append([code, 1, hand, 0])
        store.flush()
        rng = random.Random(seed)
        t0 = time.process_time()
        for k in range(actions):
            room = state[rng.randrange(rooms)]
            code, v, hand, idx = room
            person = k % 3 == 0
            store.append_action(code=code, hand_id=hand, row=ActionRow(idx, v + 1, 1, f"c{k}" if person else None,
                                                                       PAYLOAD),
                                fence=Fence("", 0, v), reply=ReplyRow(1, f"c{k}", '{"t":"ack"}') if person else None)
            room[1], room[3] = v + 1, idx + 1
            if k % per_commit == per_commit - 1:
                store.flush()
        store.flush()
        cpu = time.process_time() - t0
        with store.engine.connect() as conn:  # every write stored, or the figure is of less work
            stored = conn.execute(text("SELECT count(*) FROM actions")).scalar()
        store.close()
        if stored != actions:
            raise SystemExit(f"{stored} of {actions} actions stored")
        return cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rooms", type=int, default=1000)
    ap.add_argument("--actions", type=int, default=60000)
    ap.add_argument("--per-commit", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-peer", action="store_true", help="skip timing the peer")
    args = ap.parse_args()
    peer = None if args.no_peer else peer_rate()
    cpu = run(args.rooms, args.actions, args.per_commit, args.seed)
    us = 1e6 * cpu / args.actions
    line = f"store writes: {us:.1f} µs of CPU per action ({args.rooms} rooms, a commit every {args.per_commit} actions)"
    if peer:
        line += f"; peer {peer:.0f} calls/s: {us * peer / 1e6:.2f} peer calls per action"
    print(line)


if __name__ == "__main__":
    main()
