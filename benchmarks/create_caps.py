"""CPU per room created (not a test): the app's two cap checks (live rooms, rooms of the address) and
``RoomManager.create`` for N rooms in one process, the first and last 200 and the checks alone.

Run: ``PYTHONPATH=DIR/src .venv/bin/python benchmarks/create_caps.py 2000`` (DIR: an export of another commit,
to compare before and after in one session; a manager without ``live_count`` is measured with the scan).
"""

from __future__ import annotations

import sys
import tempfile
import time

from daer.server.safety.bounds import RoomConfig
from daer.server.serving.manager import RoomManager
from daer.store import Store


def main(n: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        m = RoomManager(Store(f"sqlite:///{d}/c.db"), bot_delay=0.0)
        counted = hasattr(m, "live_count")
        cost: list[float] = []
        checks: list[float] = []
        for _ in range(n):
            t = time.process_time()
            _ = m.live_count() if counted else len(m.live_rooms())  # type: ignore[attr-defined,unused-ignore]
            m.rooms_made_by("10.0.0.1")
            checks.append(time.process_time() - t)
            m.create(RoomConfig(timer=0), "A", creator="10.0.0.1")
            cost.append(time.process_time() - t)
        m.store.close()
    kind = "count" if counted else "scan"
    print(f"{kind}: {n} creates, CPU per create: first 200 {sum(cost[:200]) / 200 * 1e6:.0f} µs, "
          f"last 200 {sum(cost[-200:]) / 200 * 1e6:.0f} µs, all {sum(cost):.2f} s; the cap checks alone, last 200: "
          f"{sum(checks[-200:]) / 200 * 1e6:.0f} µs")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
