"""合江大贰: no 名堂; an exact multiple of ten pays as the bracket below; no 3垅/4坎 instant wins."""

from __future__ import annotations

import pytest

from daer.calculator import score
from daer.rules import find_rules
from daer.scoring import deng_of, settle

R = find_rules("hejiang")


@pytest.mark.parametrize(("hu", "deng"), [(10, 1), (11, 2), (20, 2), (21, 3), (30, 3), (31, 4), (40, 4), (41, 5)])
def test_round_tens_pay_as_the_bracket_below(hu: int, deng: int) -> None:
    """「30胡跟21胡的钱是一样计算的，而31胡则算31~40区间的」: the 等 brackets already do it."""
    assert deng_of(R, hu) == deng


def test_thirty_pays_like_twenty_one() -> None:
    assert settle(R, hu=30, red=5, winner=1).points == settle(R, hu=21, red=5, winner=1).points
    assert settle(R, hu=31, red=5, winner=1).points != settle(R, hu=30, red=5, winner=1).points


def test_no_mingtang_and_no_instant_wins() -> None:
    assert R.scoring.mode == "deng" and not R.scoring.patterns
    assert (R.win.instant_longs, R.win.instant_kans) == (0, 0)
    five_kan = "一一一二二二三三三四四四五五五六七八九十壹"
    assert score({"rules": "luzhou", "hand": five_kan})["instant"] == "5坎"
    assert score({"rules": "hejiang", "hand": five_kan})["ok"] is False
