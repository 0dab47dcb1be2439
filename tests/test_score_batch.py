"""The batch path (daer.calculator.batch) answers exactly as the general calculator, only faster."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from daer.calculator import score
from daer.calculator.batch import score_fast, score_general, score_lines, score_one, score_text, split_requests
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


MELDED = "一二三四五六七八九壹贰叁肆伍陆柒捌"  # with 碰玖玖玖 on the table and the winning 十: 7 列
_TABLE = ("十十拾", "壹贰叁", "三叁叁", "柒捌玖", "伍陆柒", "贰叁肆", "八九十")  # all 7 列 on the table, 6 胡
DEALT_SHORT = json.dumps({"hand": "", "melds": [{"kind": "chi", "cards": c} for c in _TABLE]},
                         ensure_ascii=False)[:-1]  # open: flags may follow
ODD_REQUESTS = [
    # near the common shape: each must get exactly the general calculator's answer
    f'{{"hand": "{HAND}", "win": {{"card": "十"}}, "melds": null}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十"}}, "melds": {{}}}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十"}}, "melds": ""}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十"}}, "melds": [null]}}',
    f'{{"hand": "{MELDED}", "win": {{"card": "十"}}, "melds": [{{"kind": "peng", "cards": "玖玖玖"}}]}}',
    f'{{"hand": "{MELDED}", "win": {{"card": "十"}}, "melds": [{{"kind": "peng", "cards": "玖玖玖", "x": 1}}]}}',
    f'{{"hand": "{MELDED}", "win": {{"card": "十"}}, "melds": [{{"kind": "gang", "cards": "玖玖玖"}}]}}',
    f'{{"hand": "{MELDED}", "win": {{"card": "十"}}, "melds": [{{"kind": "peng", "cards": "玖玖"}}]}}',
    f'{{"hand": "{MELDED}", "win": {{"card": "十"}}, "melds": [{{"kind": "peng"}}]}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十"}}, "seat": true}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十"}}, "seat": 1.0}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十"}}, "seat": 2}}',  # the 底家 cannot win
    f'{{"hand": "{HAND}", "win": {{"card": "十"}}, "seat": -1}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十"}}, "seat": 99999999999999999999}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十"}}, "seat": 3, "dealer": 1}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十"}}, "tianhu": 1}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十"}}, "tianhu": null}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十"}}, "tianhu": true, "dihu": true, "haidi": true}}',
    f'{{"hand": "{HAND}", "hand": "一", "win": {{"card": "十"}}}}',
    f'{{"hand": "一", "hand": "{HAND}", "win": {{"card": "十"}}}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十", "from": "discard"}}}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十", "from": null}}}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十", "from": "self", "x": 1}}}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十十"}}}}',
    f'{{"hand": "{HAND}", "win": {{"card": "x10"}}}}',
    f'{{"hand": "{HAND}", "win": {{"card": 10}}}}',
    f'{{"hand": "{HAND}", "win": {{}}}}',
    f'{{"hand": "{HAND}", "win": null}}',
    f'{{"hand": "{HAND}十"}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十"}}, "lang": [1, {{"a": null}}]}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十"}}, "rules": "泸州"}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十"}}, "rules": "nowhere"}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十"}}, "rules": null}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十"}}, "rules": "luzhou-mingtang"}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十"}}, "options": {{}}}}',
    f'{{"hand": "{HAND}", "win": {{"card": "十"}}, "notes": true}}',
    DEALT_SHORT + "}",  # complete as dealt, 6 胡: not enough, and its waits
    DEALT_SHORT + ', "tianhu": true}',
    '{"hand": "一一一一二二二二三三三三四五六七八九十壹"}',  # 3垅
    '{"hand": "一一一一一", "win": {"card": "一"}}',
    '{"hand": 5}', "{}", "[]", '"x"', '{"hand": "一二 x11"}',
]


@pytest.mark.parametrize("text", ODD_REQUESTS)
def test_odd_requests_get_the_general_answer_byte_for_byte(text: str) -> None:
    data = json.loads(text)
    general, why = score_general(data)
    assert score_text(text.encode()) == (general, why)
    assert score_one(data) == (general, why)
    assert score(data) == json.loads(general)


def test_melds_that_are_not_a_list_are_refused_as_by_the_general_path() -> None:
    for melds in ("null", "{}", '""', "0"):
        text = f'{{"hand": "{HAND}", "win": {{"card": "十"}}, "melds": {melds}}}'.encode()
        assert score_fast(json.loads(text)) is None
        out, why = score_text(text)
        assert why is not None and why.startswith("melds 应是数组") and json.loads(out)["ok"] is False


def test_a_body_of_odd_lines_answers_each_line_as_alone() -> None:
    texts = [*ODD_REQUESTS, "", "{oops", f'{{"hand": "{HAND}", "win": {{"card": "十"}}}}']
    lines, errors = score_lines("\n".join(texts).encode() + b"\n")
    assert lines == [score_text(t.encode())[0] for t in texts]
    assert errors == [(n, why) for n, t in enumerate(texts, 1) if (why := score_text(t.encode())[1]) is not None]
    assert [n for n, _ in errors][-2:] == [len(texts) - 2, len(texts) - 1]


def test_a_dealt_hand_complete_but_short_of_hu_is_answered_by_the_fast_lane_with_its_waits() -> None:
    data = json.loads(DEALT_SHORT + "}")
    fast = score_fast(data)
    assert fast is not None and fast == score_general(data)[0]
    r = json.loads(fast)
    assert (r["complete"], r["ok"], r["hu"], r["waits"]) == (True, False, 6, [])
