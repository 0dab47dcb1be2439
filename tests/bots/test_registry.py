"""Bots by name and strength, and the duplicate arena."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from daer.bots import STRENGTHS, bot_names, is_bot, make_bot
from daer.bots.arena import arena, lineups
from daer.cli.main import app
from daer.rules import find_rules


@pytest.mark.parametrize("name", bot_names())
def test_every_name_makes_a_bot(name: str) -> None:
    bot = make_bot(name, 1)
    assert bot.name == STRENGTHS.get(name, name)


def test_search_budget_in_the_name() -> None:
    assert make_bot("search:7", 1).worlds == 7  # type: ignore[attr-defined]
    assert is_bot("search:7") and not is_bot("search:0") and not is_bot("search:x")


def test_unknown_bot() -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("alphago", 1)


def test_lineups_rotate_every_bot_through_every_position() -> None:
    for bots in (["a", "b"], ["a", "b", "c"]):
        lus = lineups(bots, 3)
        for b in bots:
            per_pos = [sum(lu[p] == b for lu in lus) for p in range(3)]
            assert len(set(per_pos)) == 1


def test_arena_heuristic_beats_random() -> None:
    stats = arena(find_rules(), ["heuristic", "random"], 60, seed=1)
    assert stats.hands == 180
    (diff,) = stats.diffs.values()
    assert diff.mean - diff.ci95 > 0


def test_arena_command_json() -> None:
    result = CliRunner().invoke(app, ["arena", "--hands", "5", "--bots", "heuristic,random", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["deals"] == 5 and data["hands"] == 15
    assert [b["bot"] for b in data["bots"]] == ["heuristic", "random"]
    assert data["diffs"][0]["vs"] == "random"


def test_arena_command_table_and_errors() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["arena", "--hands", "3", "--bots", "heuristic,randomish,random"])
    assert result.exit_code == 0, result.output
    assert "heuristic" in result.output
    assert runner.invoke(app, ["arena", "--bots", "heuristic,nobody"]).exit_code != 0
    assert runner.invoke(app, ["arena", "--bots", "heuristic,heuristic"]).exit_code != 0


def test_play_with_a_strength() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["play", "--strength", "easy", "--seed", "2", "--lang", "en"], input="1\n" * 300)
    assert result.exit_code == 0, result.output
    assert "running scores" in result.output
    assert runner.invoke(app, ["play", "--strength", "expert"]).exit_code != 0
