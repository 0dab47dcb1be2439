"""``daer review RECORD --seat N``: 复盘 in the terminal — the planted blunder of tests/bots/test_review.py flagged in
the table and detailed below it, the JSON form, and clear errors for a bad file, seat or hand."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent / "bots"))
sys.path.insert(0, str(Path(__file__).resolve().parent / "engine"))

from test_review import SEED, R, replace_actions, scripted

from daer.cli.main import app
from daer.engine import dumps, new_hand

runner = CliRunner()
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def blunder(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    rec, k = scripted(blunder=True)
    path = tmp_path_factory.mktemp("review") / "hand.json"
    path.write_text(dumps(rec), encoding="utf-8")
    return path, k


def test_the_review_flags_the_blunder_and_details_its_options(blunder: tuple[Path, int]) -> None:
    path, k = blunder
    res = runner.invoke(app, ["review", str(path), "--seat", "0", "--worlds", "12"], env={"COLUMNS": "120"})
    assert res.exit_code == 0, res.output
    assert "0号位复盘" in res.output
    row = next(line for line in res.output.splitlines() if re.match(rf"│\s*{k + 1} │", line))
    assert "过" in row and "胡" in row and "这一步可能少赢" in row
    detail = res.output.split(f"第 {k + 1} 步：这一步可能少赢")[1]
    assert "胡：31 胡" in detail and re.search(r"←\s+-?\d+\.\d .*过：", detail)


def test_the_review_in_english_names_cards_as_the_terminal_does(blunder: tuple[Path, int]) -> None:
    path, k = blunder
    res = runner.invoke(app, ["review", str(path), "--seat", "0", "--worlds", "6", "--lang", "en"],
                        env={"COLUMNS": "160"})
    assert res.exit_code == 0, res.output
    assert "Review of seat 0" in res.output and f"Step {k + 1}: this step may have cost" in res.output
    assert not CJK.search(res.output), res.output
    assert re.search(r"\b[xd]\d{1,2}\b", res.output)


def test_the_review_as_json(blunder: tuple[Path, int]) -> None:
    path, k = blunder
    res = runner.invoke(app, ["review", str(path), "--seat", "0", "--worlds", "6", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["seat"] == 0 and data["worlds"] == 6 and k in data["flagged"]
    d = next(x for x in data["decisions"] if x["step"] == k)
    assert d["played"] == {"type": "pass", "seat": 0} and d["best"]["type"] == "hu"
    assert d["flagged"] and d["zh"] == f"这一步可能少赢 {d['loss']:.1f} 分"
    assert [o["mean"] for o in d["options"]] == sorted((o["mean"] for o in d["options"]), reverse=True)


@pytest.mark.parametrize(("args", "words"), [
    (["--seat", "5"], "座位号应是 0-3"),
    (["--seat", "0", "--worlds", "1"], "--worlds 应在 2 到"),
    (["--seat", "0", "--worlds", "100000"], "--worlds 应在 2 到"),
])
def test_a_bad_seat_or_budget_is_a_usage_error(blunder: tuple[Path, int], args: list[str], words: str) -> None:
    res = runner.invoke(app, ["review", str(blunder[0]), *args], env={"COLUMNS": "200"})
    assert res.exit_code == 2 and words in res.output and "Traceback" not in res.output


def test_a_bad_file_or_an_unfinished_hand_is_refused(tmp_path: Path) -> None:
    res = runner.invoke(app, ["review", str(tmp_path / "none.json"), "--seat", "0"])
    assert res.exit_code == 2 and "找不到牌谱文件" in res.output
    bad = tmp_path / "bad.json"
    bad.write_text("not json", encoding="utf-8")
    res = runner.invoke(app, ["review", str(bad), "--seat", "0"])
    assert res.exit_code == 2 and "不是有效的牌谱" in res.output and "Traceback" not in res.output
    rec, k = scripted(blunder=False)
    half = tmp_path / "half.json"
    half.write_text(dumps(replace_actions(rec, rec.actions[:k])), encoding="utf-8")
    res = runner.invoke(app, ["review", str(half), "--seat", "0"])
    assert res.exit_code == 2 and "还没打完" in res.output


def test_the_hands_dijia_has_nothing_to_review(blunder: tuple[Path, int]) -> None:
    out = next(s for s in range(R.table.seats) if s not in new_hand(R, seed=SEED).players)
    res = runner.invoke(app, ["review", str(blunder[0]), "--seat", str(out)])
    assert res.exit_code == 2 and f"座位 {out} 这一局坐底家" in res.output and "Traceback" not in res.output
