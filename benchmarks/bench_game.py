"""Speed of whole hands: random-bot and heuristic-bot hands per second on one core (not a test).

Run: ``.venv/bin/python benchmarks/bench_game.py [--hands N]``.  If RLCard 1.2.0 is
installed, its ``mahjong`` environment with random agents is measured the same way
for comparison (games/s of ``env.run``).
"""

from __future__ import annotations

import argparse
import time

from rich.console import Console
from rich.table import Table

from daer.bots.runner import simulate
from daer.rules import find_rules


def bench_daer(bots: list[str], hands: int) -> float:
    """Hands per second of a seeded simulation with these bots."""
    stats = simulate(find_rules(), bots, hands, seed="bench")
    return stats.hands_per_s


def bench_rlcard(games: int) -> float | str:
    """RLCard mahjong games/s with random agents, or why it could not be measured."""
    try:
        import rlcard  # type: ignore[import-not-found]
        from rlcard.agents import RandomAgent  # type: ignore[import-not-found]
    except ImportError as exc:
        return f"not installed ({exc.name})"
    env = rlcard.make("mahjong", config={"seed": 0})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    start = time.perf_counter()
    for _ in range(games):
        env.run(is_training=False)
    return games / (time.perf_counter() - start)


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=2000)
    args = parser.parse_args()
    rl = bench_rlcard(max(50, args.hands // 10))
    rows: list[tuple[str, str, str, str]] = []
    cases = [
        ("daer random ×3", ["random"] * 3, "≥ 1,000 and ≥ 10× rlcard"),
        ("daer heuristic ×3", ["heuristic"] * 3, "≥ 300"),
        ("daer heuristic + 2 random", ["heuristic", "random", "random"], "-"),
    ]
    for name, bots, target in cases:
        rate = bench_daer(bots, args.hands)
        ratio = f"{rate / rl:,.1f}×" if isinstance(rl, float) else "-"
        rows.append((name, f"{rate:,.0f}", ratio, target))
    rows.append(("rlcard mahjong random ×4 (env.run)", f"{rl:,.0f}" if isinstance(rl, float) else rl, "1.0×", "-"))
    table = Table(title=f"hands/s, one core, {args.hands} hands each (rlcard: games/s)")
    for col in ("case", "hands/s", "vs rlcard", "target"):
        table.add_column(col)
    for row in rows:
        table.add_row(*row)
    Console().print(table)

if __name__ == "__main__":
    main()
