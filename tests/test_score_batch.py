"""The batch path (daer.calculator.batch) answers exactly as the general calculator, only faster."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from daer.calculator import score
from daer.calculator.batch import score_fast, score_general, score_lines, split_requests
from daer.cards import format_kinds, from_counts
from daer.hands.samples import random_complete
from daer.rules import preset_names

HAND = "一二三四五六七八九壹贰叁肆伍陆柒捌玖二七"


def random_request(rng: random.Random, rules: str) -> dict[str, Any]:
    s = random_complete(rng)
    ascii_ = rng.random() < 0.1
    req: dict[str, Any] = {"hand": format_kinds(from_counts(s.hand), ascii=ascii_)}
    if rules != "luzhou" or rng.random() < 0.5:
        req["rules"] = rules
    if s.melds:
        req["melds"] = [{"kind": m.kind.value, "cards": format_kinds(m.cards)} for m in s.melds]
    if s.win is not None:
        req["win"] = {"card": format_kinds([s.win]), "from": rng.choice(["self", "other"])}
        if rng.random() < 0.2:
            del req["win"]["from"]
    for flag in ("tianhu", "dihu", "haidi"):
        if rng.random() < 0.1:
            req[flag] = rng.random() < 0.5
    for key in ("seat", "dealer"):
        if rng.random() < 0.5:
            req[key] = rng.randrange(4)
    roll = rng.random()
    if roll < 0.05:  # a card short or over: not complete
        req["hand"] += rng.choice(["", "三"]) if rng.random() < 0.5 else ""
        req["hand"] = req["hand"][1:] if rng.random() < 0.5 else req["hand"] + "九"
    elif roll < 0.08:
        req["hand"] += "一一一一"  # a fifth copy somewhere, most of the time
    return req


@pytest.mark.parametrize("rules", sorted(preset_names()))
def test_fast_path_gives_the_same_bytes_as_the_general_path(rules: str) -> None:
    rng = random.Random(f"batch-{rules}")
    fast = 0
    for _ in range(400):
        req = random_request(rng, rules)
        data = json.loads(json.dumps(req))
        general, _ = score_general(data)
        got = score_fast(data)
        if got is not None:
            fast += 1
            assert got == general, req
        assert json.loads(general) == score(data)
    if rules in ("luzhou", "hejiang"):  # 等 play values a hand by its 胡 alone: the fast path answers most requests
        assert fast > 200


def test_lines_in_order_one_per_request_and_errors_numbered() -> None:
    good = json.dumps({"hand": HAND, "win": {"card": "十"}}, ensure_ascii=False)
    body = f"{good}\n\n{{oops\n{json.dumps({'hand': HAND, 'colour': 1})}\n{good}\n".encode()
    lines, errors = score_lines(body)
    results = [json.loads(x) for x in lines]
    assert [r["ok"] for r in results] == [True, False, False, False, True]
    assert results[0]["hu"] == 15 and results[4] == results[0]
    assert [n for n, _ in errors] == [2, 3, 4]
    assert "空行" in results[1]["error"] and "JSON" in results[2]["error"] and "colour" in errors[2][1]


def test_one_object_over_several_lines_is_one_request() -> None:
    body = json.dumps({"hand": HAND, "win": {"card": "x10"}}, indent=2).encode()
    assert len(list(split_requests(body))) == 1
    lines, errors = score_lines(body)
    assert len(lines) == 1 and not errors and json.loads(lines[0])["hu"] == 15


def test_empty_body_has_no_lines() -> None:
    assert score_lines(b"  \n\n") == ([], [])
