"""The arena spread over processes (--workers) and Ray (--ray): the same results as one process."""

from __future__ import annotations

import importlib
import json
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest
from typer.testing import CliRunner

from daer.bots import spread as spread_mod
from daer.bots.arena import ArenaStats, arena, lineups, play_deal
from daer.bots.spread import SpreadError, chunks, spread
from daer.cli.main import app
from daer.rules import find_rules

TIMINGS = {"seconds", "sec_per_decision", "sec_per_decision_max"}


def without_timings(stats: ArenaStats) -> dict[str, Any]:
    """The ``--json`` summary with the wall-clock figures taken out (they differ run to run)."""
    data = stats.to_json()
    for key in TIMINGS:
        data.pop(key, None)
    for b in data["bots"]:  # type: ignore[attr-defined]
        for key in TIMINGS:
            b.pop(key, None)
    return data


def test_two_workers_give_the_same_summary_as_one(monkeypatch: pytest.MonkeyPatch) -> None:
    pools: list[int] = []

    class CountedPool(ProcessPoolExecutor):
        def __init__(self, max_workers: int, **kwargs: Any) -> None:
            pools.append(max_workers)
            super().__init__(max_workers, **kwargs)

    monkeypatch.setattr(spread_mod, "ProcessPoolExecutor", CountedPool)
    rules = find_rules()
    one = arena(rules, ["heuristic", "random"], 6, seed=5)
    assert pools == []
    two = arena(rules, ["heuristic", "random"], 6, seed=5, workers=2)
    assert pools == [2]  # the deals really went through a pool of two processes
    assert without_timings(two) == without_timings(one)
    assert one.deals == two.deals == 6
    # every float of the paired difference, not only the rounded JSON
    (d1,), (d2,) = one.diffs.values(), two.diffs.values()
    assert (d1.n, d1.mean, d1.m2) == (d2.n, d2.mean, d2.m2)
    assert [b.decisions for b in one.bots] == [b.decisions for b in two.bots] != [0, 0]


def test_a_deal_is_the_same_alone_or_in_a_run() -> None:
    """Deal 4 depends only on (seed, 4): played alone it gives what it gave inside the run."""
    rules = find_rules()
    names = ("heuristic", "randomish", "random")
    lus = tuple(lineups(list(names), rules.table.players))
    alone = play_deal(rules, names, lus, 9, 4)
    in_run = [r for r in spread(lambda ix: [play_deal(rules, names, lus, 9, i) for i in ix], 6) if r.deal == 4]
    assert in_run[0].per_hand == alone.per_hand and in_run[0].points == alone.points
    other_seed = play_deal(rules, names, lus, 10, 4)
    assert other_seed.points != alone.points or other_seed.decisions != alone.decisions


def test_spread_keeps_index_order_over_chunks() -> None:
    assert [list(c) for c in chunks(10, 4)] == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert sum(len(c) for c in chunks(101, 16)) == 101
    # ``list`` as the work: each chunk gives back its own indices, so the output shows the order
    assert list(spread(list, 23, workers=2)) == list(range(23))
    with pytest.raises(ValueError, match="at least one worker"):
        list(spread(list, 3, workers=0))


def test_arena_command_workers_and_bad_values(monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    args = ["arena", "--hands", "4", "--bots", "heuristic,random", "--seed", "2", "--json"]
    one = json.loads(runner.invoke(app, args).output)
    two = json.loads(runner.invoke(app, [*args, "--workers", "2"]).output)
    assert one["diffs"] == two["diffs"] and one["deals"] == two["deals"] == 4
    bad = runner.invoke(app, [*args, "--workers", "0"])
    assert bad.exit_code == 2 and "at least one process" in bad.output

    real = importlib.import_module

    def no_ray(name: str, package: str | None = None) -> Any:
        if name == "ray":
            raise ImportError("No module named 'ray'")
        return real(name, package)

    monkeypatch.setattr(spread_mod.importlib, "import_module", no_ray)
    missing = runner.invoke(app, [*args, "--ray", "local"])
    assert missing.exit_code == 2 and "pip install 'daer[ray]'" in missing.output
    assert "Traceback" not in missing.output
    with pytest.raises(SpreadError, match="Ray is not installed"):
        arena(find_rules(), ["heuristic", "random"], 2, ray="local")


def test_ray_gives_the_same_summary_as_one_process() -> None:
    ray = pytest.importorskip("ray", reason="Ray is an optional extra: pip install 'daer[ray]'")
    rules = find_rules()
    one = arena(rules, ["heuristic", "random"], 6, seed=7)
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        on_ray = arena(rules, ["heuristic", "random"], 6, seed=7, ray="local")
    finally:
        ray.shutdown()
    assert without_timings(on_ray) == without_timings(one)
