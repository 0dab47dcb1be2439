"""`daer score` and `daer rules`: the calculator's contract for people and for programs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from daer.calculator.batch import score_general
from daer.cli.main import app

RUNNER = CliRunner()
HAND = "一二三四五六七八九壹贰叁肆伍陆柒捌玖二七"


def run(args: list[str], stdin: str | None = None) -> tuple[int, str, str]:
    result = RUNNER.invoke(app, args, input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_json_seed_example_red_10_hu_winner_10_dijia_2_losers_minus_6() -> None:
    # 碰叁 on the table 3 + 碰三 by the winning 三 1 + 壹贰叁 6 = 10 胡; 绞 二二贰 / 七柒柒 / 十十拾 and 六七八 score 0.
    # Red: 二二贰 3 + 七柒柒 3 + 十十拾 3 + 七 1 + 贰 1 = 11 ≥ 10, so 红 ×2: each loser (2 + 1) × 2 = 6,
    # the winner 2 × 6 − 2 = 10, the 底家 2 (seed 000: 「刚好胡红10胡 … 赢家加 … 10分，底家加 … 2分。输家各扣6分」).
    req = {
        "hand": "二二贰 柒柒七 十十拾 六七八 壹贰叁 三三",
        "melds": [{"kind": "peng", "cards": "叁叁叁"}],
        "win": {"card": "三", "from": "other"},
        "seat": 1,
        "dealer": 0,
    }
    code, out, _ = run(["score", "--json"], json.dumps(req, ensure_ascii=False))
    assert code == 0
    r = json.loads(out)
    assert (r["complete"], r["ok"], r["hu"], r["red"], r["deng"]) == (True, True, 10, 11, 1)
    assert [m["id"] for m in r["multipliers"]] == ["red"]
    assert r["points"]["seats"] == [-6, 10, 2, -6]
    assert r["points"]["roles"] == ["loser", "winner", "dijia", "loser"]
    assert {(p["from"], p["to"], p["amount"]) for p in r["payments"]} == {(0, 1, 6), (3, 1, 6), (1, 2, 2)}


def test_json_lines_one_output_line_per_input_line_in_order() -> None:
    lines = [
        {"hand": HAND, "win": {"card": "十", "from": "other"}},
        {"hand": HAND, "win": {"card": "三", "from": "self"}},  # complete, 9 胡: not enough
        {"hand": HAND, "win": {"card": "九"}},  # not complete
    ]
    code, out, _ = run(["score", "--json"], "\n".join(json.dumps(x) for x in lines) + "\n")
    assert code == 0
    results = [json.loads(x) for x in out.splitlines()]
    assert len(results) == 3
    assert results[0]["complete"] and results[0]["ok"] and results[0]["hu"] == 15
    assert results[0]["groups"][0] == {
        "kind": "run", "name": "顺", "cards": "一二三", "cards_ascii": "x1 x2 x3", "hu": 3, "meld": False
    }
    assert results[1]["complete"] and not results[1]["ok"] and results[1]["hu"] == 9
    assert "10" in results[1]["error"]
    assert not results[2]["complete"] and results[2]["hu"] is None and results[2]["error"]


def test_json_single_object_over_several_lines() -> None:
    text = json.dumps({"hand": HAND, "win": {"card": "x10"}}, indent=2, ensure_ascii=False)
    code, out, _ = run(["score", "--json"], text)
    assert code == 0
    assert len(out.splitlines()) == 1
    assert json.loads(out)["hu"] == 15


@pytest.mark.parametrize(
    ("request_line", "needle"),
    [
        ("{not json", "JSON"),
        (json.dumps({"hand": "一二三 x11"}), "x11"),
        (json.dumps({"hand": "一一一一一"}), "只有 4 张"),
        (json.dumps({"hand": "一二", "melds": [{"kind": "gang", "cards": "一一一"}]}), "gang"),
        (json.dumps({"hand": "一二", "melds": [{"kind": "peng", "cards": "一二三"}]}), "碰"),
        (json.dumps({"hand": "一二", "win": {"card": "一二"}}), "一张"),
        (json.dumps({"hand": "一二", "rules": "nowhere"}), "nowhere"),
        (json.dumps({"hand": "一二", "options": {"win.nope": 1}}), "nope"),
        (json.dumps({"hand": "一二", "colour": "red"}), "colour"),
        (json.dumps(["not", "an", "object"]), "JSON 对象"),
    ],
)
def test_malformed_input_gets_an_error_line_and_exit_2_and_the_rest_is_scored(request_line: str, needle: str) -> None:
    good = json.dumps({"hand": HAND, "win": {"card": "十"}})
    code, out, err = run(["score", "--json"], f"{good}\n{request_line}\n{good}\n")
    assert code == 2
    results = [json.loads(x) for x in out.splitlines()]
    assert len(results) == 3
    assert results[0]["ok"] and results[2]["ok"]
    assert not results[1]["ok"] and needle in results[1]["error"]
    assert "input 2" in err and "Traceback" not in err


def test_winner_cannot_be_the_dijia() -> None:
    code, out, _ = run(["score", "--json"], json.dumps({"hand": HAND, "win": {"card": "十"}, "seat": 2}))
    assert code == 0
    r = json.loads(out)
    assert r["complete"] and not r["ok"] and "底家" in r["error"]


def test_instant_win_three_long_without_a_winning_card() -> None:
    code, out, _ = run(["score", "--json"], json.dumps({"hand": "一一一一二二二二三三三三四五六七八九十壹"}))
    r = json.loads(out)
    assert code == 0 and r["ok"] and r["instant"] == "3垅" and r["hu"] >= 12 * 2 + 15


def test_house_rule_override_changes_red_peng() -> None:
    # 二二 + winning 二 is a 碰 of a red small card: 6 胡 in 泸州, 3 under 000's first table (hu.peng = 1/3/3/6)
    req = {"hand": "二二 三四五 四五六 七八九 壹贰叁 肆伍陆 柒捌玖", "win": {"card": "二"}}
    a = json.loads(run(["score", "--json"], json.dumps(req))[1])
    b = json.loads(run(["score", "--json"], json.dumps({**req, "options": {"hu.peng": [1, 3, 3, 6]}}))[1])
    assert a["hu"] == 6 + 6 and b["hu"] == 3 + 6  # 碰二 + 壹贰叁


def test_human_mode_prints_groups_hu_and_payments_in_chinese_and_english() -> None:
    code, out, _ = run(["score", HAND, "--win", "十"])
    assert code == 0
    assert "一二三" in out and "赢家" in out and "底家" in out and "15" in out
    code, out, _ = run(["score", HAND, "--win", "十", "--lang", "en"])
    assert code == 0 and "winner" in out and "x1 x2 x3" in out


def test_human_mode_shows_waits_for_a_hand_one_short() -> None:
    code, out, _ = run(["score", HAND])
    assert code == 0 and "叫牌" in out and "十(15胡)" in out and "三(9胡)" in out


def test_human_mode_bad_card_is_a_message_not_a_traceback() -> None:
    code, _, err = run(["score", "一二三q"])
    assert code == 2 and "未知的牌" in err and "Traceback" not in err


def test_rules_list_and_show() -> None:
    code, out, _ = run(["rules", "list"])
    assert code == 0 and "luzhou" in out and "泸州大贰" in out
    code, out, _ = run(["rules", "show", "luzhou"])
    assert code == 0 and "最少胡数" in out and "hu.peng" in out
    code, out, _ = run(["rules", "show", "luzhou", "--lang", "en"])
    assert code == 0 and "min_hu" in out
    code, _, err = run(["rules", "show", "nowhere"])
    assert code == 2 and "nowhere" in err


def test_the_installed_command_runs_as_a_process() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "daer", "score", "--json"],
        input=json.dumps({"hand": HAND, "win": {"card": "十"}}),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["hu"] == 15


_MODULES_AFTER_SCORING = """
import runpy, sys
sys.argv = ["daer", "score", "--json"]
try:
    runpy.run_module("daer", run_name="__main__")
except SystemExit as exc:
    sys.stderr.write(f"exit {exc.code}\\n")
sys.stderr.write(" ".join(sorted(sys.modules)))
"""


def _score_process(stdin: str) -> tuple[int, list[bytes], list[str], set[str]]:
    """``python -m daer score --json`` on ``stdin``: (exit status, output lines, error lines, modules loaded)."""
    proc = subprocess.run([sys.executable, "-c", _MODULES_AFTER_SCORING], input=stdin.encode(), capture_output=True,
                          check=True)
    *errors, exit_line, modules = proc.stderr.decode().split("\n")
    return int(exit_line.split()[1]), proc.stdout.splitlines(), errors, set(modules.split())


def test_json_command_loads_neither_typer_rich_nor_the_general_calculator_for_common_requests() -> None:
    lines = [{"hand": HAND, "win": {"card": "十", "from": f}} for f in ("self", "other")]
    code, out, errors, modules = _score_process("\n".join(json.dumps(x, ensure_ascii=False) for x in lines))
    assert code == 0 and not errors and [json.loads(x)["hu"] for x in out] == [15, 15]
    assert "msgspec" in modules and "daer.calculator.batch" in modules
    loaded = {m.split(".")[0] for m in modules} | modules
    assert not loaded & {"typer", "rich", "click", "daer.calculator.core", "daer.mingtang", "daer.engine"}


def test_json_command_answers_odd_lines_as_the_general_calculator_in_chinese_first() -> None:
    texts = [json.dumps({"hand": HAND, "win": {"card": "十"}}), "{oops", "", json.dumps({"hand": "一二 x11"}),
             json.dumps({"hand": HAND, "win": {"card": "十"}, "melds": None}), json.dumps({"hand": HAND + "十"}),
             json.dumps({"hand": HAND, "win": {"card": "十"}, "rules": "luzhou-mingtang"})]
    code, out, errors, modules = _score_process("\n".join(texts) + "\n")
    assert code == 2 and "daer.calculator.core" in modules  # loaded when a line needs it
    assert len(out) == len(texts)
    for text, line in zip(texts, out, strict=True):
        if text and text != "{oops":
            assert line == score_general(json.loads(text))[0]
    starts = ["daer score: input 2: JSON 格式有误 bad JSON", "daer score: input 3: 空行 empty line",
              "daer score: input 4: hand: 未知的牌 unknown card", "daer score: input 5: melds 应是数组 melds must"]
    assert len(errors) == len(starts) and all(e.startswith(s) for e, s in zip(errors, starts, strict=True))


def test_json_money_wu_mao_base_in_yuan() -> None:
    """「少的可以五毛钱」: a 0.5 元 基数 through ``daer score --json``: amounts in 元, exact (2.5)."""
    req = {"rules": "luzhou", "options": {"scoring.mode": "money", "scoring.money.unit": 0.5, "scoring.money.first": 5},
           "hand": HAND, "win": {"card": "十", "from": "other"}}
    code, out, _ = run(["score", "--json"], json.dumps(req, ensure_ascii=False))
    assert code == 0
    r = json.loads(out)
    assert r["unit"] == "元" and r["points"]["seats"] == [4, -2.5, 1, -2.5]
    assert '"amount":2.5' in out.replace(" ", "") and [p["amount"] for p in r["payments"]] == [2.5, 2.5, 1]
    code, text, _ = run(["score", HAND, "--win", "十", "--set", "scoring.mode=money", "--set", "scoring.money.unit=0.5",
                         "--set", "scoring.money.first=5"])
    assert code == 0 and "2.5 元" in text and "-2.5" in text


def test_terminal_shows_the_arithmetic_of_deng_play_but_json_only_when_asked() -> None:
    # People at the terminal get the working ((2+1)×1 = 3) under 等 play; a program gets it with "notes": true.
    code, out, _ = run(["score", HAND, "--win", "十"])
    assert code == 0
    assert "算法: 15胡 → 2等 → 输家各付 (2+1)×1 = 3" in out
    code, out, _ = run(["score", "--json"], stdin=json.dumps({"hand": HAND + "十"}))
    assert code == 0 and "notes" not in json.loads(out)
    code, out, _ = run(["score", "--json"], stdin=json.dumps({"hand": HAND + "十", "notes": True}))
    assert code == 0 and json.loads(out)["notes"] == ["(2+1)×1 = 3"]


def test_score_a_wei_on_the_table_ti_hu_and_pao_hu() -> None:
    """`--wei` lays a 偎 (跑胡子): one's own fourth card makes it a 提 (提胡), another's a 跑 (跑胡); `--discard` is
    refused where a win is only on a revealed card."""
    base = ["score", "二二五七七十十壹壹贰贰叁叁伍伍捌捌", "--wei", "陆陆陆", "-w", "陆", "--rules", "paohuzi"]
    code, out, _ = run([*base, "--self"])
    assert code == 0 and "提胡" in out and "30" in out
    code, out, _ = run(base)
    assert code == 0 and "跑胡" in out and "27" in out
    code, _, err = run([*base, "--discard"])
    assert code == 2 and "不能胡别人打出的牌" in err
