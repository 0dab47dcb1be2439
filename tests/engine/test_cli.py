"""The sim / play / replay commands, through typer's test runner."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from daer.bots import HeuristicBot
from daer.bots.runner import play_hand
from daer.cli.main import app
from daer.engine import dumps, new_hand, record_of
from daer.rules import find_rules

runner = CliRunner()


def test_sim_json_sums_to_zero() -> None:
    res = runner.invoke(app, ["sim", "--games", "40", "--bots", "heuristic,random,heuristic", "--seed", "3",
                              "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["hands"] == 40 and len(data["seats"]) == 4
    assert sum(s["points"] for s in data["seats"]) == 0
    assert data["seats"][3]["bot"] == "底家" and data["hands_per_s"] > 0


def test_sim_table_and_bad_bot() -> None:
    res = runner.invoke(app, ["sim", "--games", "5", "--bots", "random,random,random,random"])
    assert res.exit_code == 0 and "random" in res.output
    bad = runner.invoke(app, ["sim", "--games", "5", "--bots", "nobody,random,random"])
    assert bad.exit_code != 0 and "Traceback" not in bad.output


def test_replay_steps_through_a_saved_hand(tmp_path: Path) -> None:
    st = new_hand(find_rules(), seed=5, dealer=1)
    play_hand(st, {s: HeuristicBot() for s in range(4)})
    path = tmp_path / "hand.json"
    path.write_text(dumps(record_of(st, seed=5)), encoding="utf-8")
    res = runner.invoke(app, ["replay", str(path)])
    assert res.exit_code == 0, res.output
    assert "得分" in res.output
    bad = tmp_path / "bad.json"
    bad.write_text("not json", encoding="utf-8")
    res = runner.invoke(app, ["replay", str(bad)])
    assert res.exit_code == 2 and "Traceback" not in res.output


def test_play_bad_input_then_eof_leaves_cleanly() -> None:
    res = runner.invoke(app, ["play", "--seed", "2"], input="x\n99\n")
    assert res.exit_code == 0, res.output
    assert "请输入列出的编号" in res.output and "再见" in res.output


def test_play_a_whole_hand_in_english() -> None:
    res = runner.invoke(app, ["play", "--seed", "4", "--lang", "en"], input="1\n" * 300)
    assert res.exit_code == 0, res.output
    assert "who pays whom:" in res.output


def test_sim_takes_strengths_and_search_budgets_like_the_arena() -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["sim", "--games", "3", "--bots", "easy,normal,search:2", "--seed", "1", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert [s["bot"] for s in data["seats"]][:3] == ["easy", "normal", "search:2"]
    assert sum(s["points"] for s in data["seats"]) == 0


def test_play_money_house_rule_with_a_wu_mao_base_shows_yuan(tmp_path: Path) -> None:
    """「少的可以五毛钱」: a house rule in money play with a 0.5 元 基数 — the terminal writes amounts in 元."""
    rule = tmp_path / "wumao.toml"
    rule.write_text('base = "luzhou"\nname = "wumao"\ntitle_zh = "五毛"\ntitle_en = "wu mao"\n'
                    '[scoring]\nmode = "money"\n[scoring.money]\nunit = 0.5\nfirst = 5\n', encoding="utf-8")
    res = runner.invoke(app, ["play", "--seed", "4", "--rules", str(rule), "--hands", "1"], input="1\n" * 300)
    assert res.exit_code == 0, res.output
    assert "元" in res.output.split("累计：")[-1]
    assert "谁付谁" in res.output and " 元  (" in res.output
