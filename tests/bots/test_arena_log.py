"""``daer arena --log``: a long run stops and goes on, with the summary of an unbroken run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from daer.bots.arena import ArenaLogError, ArenaStats, arena
from daer.cli.main import app
from daer.rules import find_rules

BOTS = ["heuristic", "random"]


class Stop(Exception):
    """Stands for Ctrl-C or a kill in the middle of a run."""


def exact(stats: ArenaStats) -> object:
    """Everything a summary holds but its timings, every float unrounded."""
    return (
        stats.deals,
        [(b.bot, b.hands, b.wins, b.points, b.decisions, b.score.n, b.score.mean, b.score.m2) for b in stats.bots],
        {k: (s.n, s.mean, s.m2) for k, s in stats.diffs.items()},
    )


def stop_after(k: int):  # type: ignore[no-untyped-def]
    def progress(i: int, _stats: ArenaStats) -> None:
        if i == k:
            raise Stop

    return progress


def test_a_run_stopped_midway_and_resumed_sums_up_as_an_unbroken_one(tmp_path: Path) -> None:
    rules = find_rules()
    whole = arena(rules, BOTS, 8, seed=4)
    log = tmp_path / "run.jsonl"
    with pytest.raises(Stop):
        arena(rules, BOTS, 8, seed=4, log=log, progress=stop_after(3))
    lines = log.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["bots"] == BOTS
    assert [json.loads(x)["deal"] for x in lines[1:]] == [0, 1, 2]  # each deal kept as soon as it was played
    played: list[int] = []
    resumed = arena(rules, BOTS, 8, seed=4, log=log, progress=lambda i, _s: played.append(i))
    assert resumed.resumed == 3
    assert exact(resumed) == exact(whole)
    assert played == list(range(1, 9))
    assert len(log.read_text(encoding="utf-8").splitlines()) == 1 + 8
    # a third sitting plays nothing and still sums up the same
    again = arena(rules, BOTS, 8, seed=4, log=log)
    assert again.resumed == 8
    assert exact(again) == exact(whole)


def test_a_longer_run_goes_on_from_a_shorter_one_and_a_shorter_reads_only_its_deals(tmp_path: Path) -> None:
    rules = find_rules()
    log = tmp_path / "run.jsonl"
    arena(rules, BOTS, 3, seed=6, log=log)
    longer = arena(rules, BOTS, 6, seed=6, log=log, workers=2)  # the pool, one deal a task
    assert longer.resumed == 3
    assert exact(longer) == exact(arena(rules, BOTS, 6, seed=6))
    shorter = arena(rules, BOTS, 4, seed=6, log=log)
    assert shorter.resumed == 4
    assert exact(shorter) == exact(arena(rules, BOTS, 4, seed=6))


def test_a_line_cut_short_by_a_kill_is_dropped_and_its_deal_played_again(tmp_path: Path) -> None:
    rules = find_rules()
    log = tmp_path / "run.jsonl"
    arena(rules, BOTS, 4, seed=8, log=log)
    text = log.read_text(encoding="utf-8")
    log.write_text(text[: len(text) - 25], encoding="utf-8")  # the last deal's line half written
    resumed = arena(rules, BOTS, 4, seed=8, log=log)
    assert resumed.resumed == 3
    assert exact(resumed) == exact(arena(rules, BOTS, 4, seed=8))
    assert [json.loads(x)["deal"] for x in log.read_text(encoding="utf-8").splitlines()[1:]] == [0, 1, 2, 3]


def test_a_log_of_another_run_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    rules = find_rules()
    log = tmp_path / "run.jsonl"
    arena(rules, BOTS, 2, seed=1, log=log)
    before = log.read_bytes()
    for kwargs in ({"seed": 2}, {"seed": 1, "bots": ["random", "heuristic"]},
                   {"seed": 1, "rules": find_rules("hejiang")}):
        with pytest.raises(ArenaLogError, match="另一场比赛"):
            arena(kwargs.get("rules", rules), kwargs.get("bots", BOTS), 2, seed=kwargs["seed"],  # type: ignore[arg-type]
                  log=log)
    assert log.read_bytes() == before
    log.write_text(before.decode() + '{"deal": 5}\n', encoding="utf-8")
    with pytest.raises(ArenaLogError, match="第 4 行"):
        arena(rules, BOTS, 2, seed=1, log=log)


def test_the_command_goes_on_from_its_log_and_says_so(tmp_path: Path) -> None:
    runner = CliRunner()
    log = tmp_path / "run.jsonl"
    args = ["arena", "--hands", "4", "--bots", "heuristic,random", "--seed", "3", "--log", str(log)]
    first = runner.invoke(app, [*args[:2], "2", *args[3:], "--json"])
    assert first.exit_code == 0, first.output
    second = runner.invoke(app, [*args, "--json"])
    assert second.exit_code == 0, second.output
    data = json.loads(second.output)
    assert data["resumed"] == 2 and data["deals"] == 4
    plain = runner.invoke(app, ["arena", "--hands", "4", "--bots", "heuristic,random", "--seed", "3", "--json"])
    ref = json.loads(plain.output)
    assert data["diffs"] == ref["diffs"]
    table = runner.invoke(app, args)
    assert table.exit_code == 0 and "局读自记录" in table.output  # the title (rich may wrap it)
    other = runner.invoke(app, [*args[:-2], "--seed", "9", "--log", str(log)])
    assert other.exit_code == 2
    assert "另一场比赛" in other.output and "Traceback" not in other.output
