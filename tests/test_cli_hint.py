"""``daer play --hint``: the bot's suggestion and why, before each of the player's decisions (提示)."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from daer.cli.main import app

runner = CliRunner()
CJK = re.compile(r"[\u4e00-\u9fff]")


def test_play_with_hint_shows_a_hint_before_every_decision() -> None:
    res = runner.invoke(app, ["play", "--seed", "4", "--hint"], input="1\n" * 300)
    assert res.exit_code == 0, res.output
    prompts = res.output.count("选择 choose>")
    hints = [line for line in res.output.splitlines() if line.startswith("提示：")]
    assert prompts > 3 and len(hints) == prompts
    # each names its action first (打 / 碰 / 吃 / 招 / 胡 / 过 / 报牌) and then the reason
    assert all(re.match(r"提示：(打|碰|吃|招|跑|胡|过|报牌)\S*", h) and h.count("：") >= 2 for h in hints), hints


def test_play_hint_in_english_names_cards_as_the_terminal_does() -> None:
    res = runner.invoke(app, ["play", "--seed", "4", "--hint", "--lang", "en"], input="1\n" * 300)
    assert res.exit_code == 0, res.output
    hints = [line for line in res.output.splitlines() if line.startswith("hint: ")]
    assert len(hints) == res.output.count("choose>") > 3
    assert not any(CJK.search(h) for h in hints), hints
    assert any(re.search(r"\b[xd]\d{1,2}\b", h) for h in hints)


def test_play_without_hint_shows_none() -> None:
    res = runner.invoke(app, ["play", "--seed", "4"], input="1\n" * 300)
    assert res.exit_code == 0, res.output
    assert "提示：" not in res.output and res.output.count("选择 choose>") > 3
