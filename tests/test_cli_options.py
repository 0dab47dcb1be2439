"""Bad options of `daer play / sim / replay / score / rules`: a clear message and exit 2, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from daer.bots import HeuristicBot
from daer.bots.runner import play_hand
from daer.cli.main import app
from daer.cli.play_cmd import first_dealer
from daer.engine import dumps, new_hand, record_of
from daer.rules import find_rules
from daer.scoring import seats_of

RUNNER = CliRunner()
HAND = "一二三四五六七八九壹贰叁肆伍陆柒捌玖二七"


def usage_error(args: list[str], stdin: str | None = None) -> str:
    """Run a command expected to be refused: exit 2, no traceback; its whole output."""
    res = RUNNER.invoke(app, args, input=stdin)
    assert res.exit_code == 2, res.output
    assert isinstance(res.exception, SystemExit), res.exception  # not an IndexError or any other crash
    assert "Traceback" not in res.output
    return res.output


@pytest.mark.parametrize(
    ("args", "seat_range"),
    [
        (["--seat", "7"], "0-3"),
        (["--seat", "-1"], "0-3"),
        (["--rules", "paohuzi", "--seat", "3"], "0-2"),  # was an IndexError in engine/state.py
    ],
)
def test_play_refuses_a_seat_off_the_table_naming_the_range(args: list[str], seat_range: str) -> None:
    out = usage_error(["play", *args])
    assert "座位号应是 " + seat_range in out and "--seat must be " + seat_range in out


def test_play_on_the_dijia_seat_moves_the_first_deal_so_the_player_plays() -> None:
    rules = find_rules("luzhou")
    assert seats_of(rules, 0)[1] == 2  # dealer 0: seat 2 sits out
    dealer = first_dealer(rules, 2)
    assert seats_of(rules, dealer)[1] != 2 and dealer == 1
    assert first_dealer(rules, 0) == 0 and first_dealer(find_rules("paohuzi"), 2) == 0
    res = RUNNER.invoke(app, ["play", "--seat", "2", "--seed", "3"], input="x\n")
    assert res.exit_code == 0, res.output
    assert "由1号位先坐庄，你来打" in res.output
    assert "请输入列出的编号" in res.output  # the player was asked to act, not left watching
    en = RUNNER.invoke(app, ["play", "--seat", "2", "--seed", "3", "--lang", "en"], input="")
    assert "so seat 1 deals first and you play" in en.output


def test_sim_with_zero_games_is_refused() -> None:
    out = usage_error(["sim", "--games", "0"])
    assert "手数至少 1" in out and "--games must be at least 1" in out
    assert "胜率" not in out


@pytest.mark.parametrize(
    "args",
    [["play"], ["replay", "hand.json"], ["score", HAND], ["rules", "list"], ["rules", "show", "luzhou"]],
)
def test_an_unknown_language_is_refused_listing_zh_and_en(args: list[str]) -> None:
    out = usage_error([*args, "--lang", "fr"])
    assert "zh" in out and "en" in out and "'fr'" in out


def test_sim_bot_count_message_says_what_the_ruleset_needs() -> None:
    out = usage_error(["sim", "--rules", "paohuzi", "--bots", "random,random,random,random", "--games", "2"])
    assert "需要 3 个机器人" in out and "got 4" in out and "3 或 4" not in out
    out = usage_error(["sim", "--bots", "random,random", "--games", "2"])
    assert "需要 3 或 4 个机器人" in out and "坐底" in out and "got 2" in out


@pytest.mark.parametrize("args", [["play", "--bots", "foo"], ["sim", "--bots", "foo,random,random"],
                                  ["play", "--bots", ","]])
def test_an_unknown_bot_lists_the_valid_names_and_strengths(args: list[str]) -> None:
    out = usage_error(args)
    assert "未知的机器人" in out
    for name in ("random", "randomish", "heuristic", "search:N", "easy", "normal", "hard"):
        assert name in out


def test_replay_of_a_missing_file_says_so_in_chinese_first(tmp_path: Path) -> None:
    out = usage_error(["replay", str(tmp_path / "missing.json")])
    assert "找不到牌谱文件" in out and "Errno" not in out
    assert out.index("找不到") < out.index("no such file")


@pytest.mark.parametrize("content", ["not json", "{}", '{"rules": "luzhou", "seed": 1, "actions": [{"type": "x"}]}'])
def test_replay_of_a_malformed_record_says_so(tmp_path: Path, content: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    out = usage_error(["replay", str(path)])
    assert "不是有效的牌谱" in out and "not a valid hand record" in out


def test_replay_refuses_a_seat_off_the_table(tmp_path: Path) -> None:
    st = new_hand(find_rules(), seed=5, dealer=1)
    play_hand(st, {s: HeuristicBot() for s in range(4)})
    path = tmp_path / "hand.json"
    path.write_text(dumps(record_of(st, seed=5)), encoding="utf-8")
    assert "0-3" in usage_error(["replay", str(path), "--seat", "9"])


def test_score_json_blank_line_gets_its_own_error_line_and_is_counted() -> None:
    good = json.dumps({"hand": HAND, "win": {"card": "十"}})
    res = RUNNER.invoke(app, ["score", "--json"], input=f"{good}\n\n   \n{good}\n")
    assert res.exit_code == 2
    results = [json.loads(x) for x in res.stdout.splitlines()]
    assert len(results) == 4  # one output line per input line
    assert results[0]["ok"] and results[3]["ok"]
    assert not results[1]["ok"] and "空行" in results[1]["error"] and "空行" in results[2]["error"]
    assert "input 2" in res.stderr and "input 3" in res.stderr and "input 4" not in res.stderr
    bad_after_blank = RUNNER.invoke(app, ["score", "--json"], input=f"{good}\n\n{{\n")
    assert "input 3: JSON" in bad_after_blank.stderr  # counted from every line, blank ones too


def test_score_waits_in_english_are_written_in_ascii_cards() -> None:
    res = RUNNER.invoke(app, ["score", HAND, "--lang", "en"])
    assert res.exit_code == 0
    assert "waits: x3(9 hu)  x10(15 hu)" in res.output
    assert "叫牌: 三(9胡)  十(15胡)" in RUNNER.invoke(app, ["score", HAND]).output


def test_score_prints_the_arithmetic_from_hu_to_the_payment() -> None:
    out = RUNNER.invoke(app, ["score", HAND, "--win", "十"]).output
    assert "算法: 15胡 → 2等 → 输家各付 (2+1)×1 = 3" in out and "谁付谁:" in out
    en = RUNNER.invoke(app, ["score", HAND, "--win", "十", "--lang", "en"]).output
    assert "arithmetic: 15 hu → deng 2 → each loser pays (2+1)×1 = 3" in en and "who pays whom:" in en
    assert "│ run " in en and "│ 顺 " not in en


def test_a_later_hand_that_seats_the_player_as_dijia_says_so_and_pays_them() -> None:
    res = RUNNER.invoke(app, ["play", "--hands", "4", "--seed", "3"], input="1\n" * 1500)
    assert res.exit_code == 0, res.output
    out = res.output
    at = out.index("这手你坐底（底家）")  # the deal moved: this hand the player sits out, and is told
    rest = out[at:]
    assert "0号位(底家,你)" in rest[: rest.index("累计：")]  # listed in the settlement of that hand
