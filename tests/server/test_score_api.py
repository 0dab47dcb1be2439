"""POST /api/score: the contract of `daer score --json` over HTTP, and its bounds."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from daer.server import create_app
from daer.server.http.score_api import MAX_SCORE_BODY, MAX_SCORE_LINES
from daer.server.safety.limits import Limits, Rate

HAND = "一二三四五六七八九壹贰叁肆伍陆柒捌玖二七"
GOOD = {"hand": HAND, "win": {"card": "十", "from": "other"}}
JSON = {"Content-Type": "application/json"}
NDJSON = {"Content-Type": "application/x-ndjson"}


def client_for(tmp: Path, limits: Limits | None = None) -> TestClient:
    return TestClient(create_app(f"sqlite:///{tmp / 'daer.db'}", limits=limits or Limits(
        rates={"score": Rate(100_000, 100_000)})))


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client_for(tmp_path_factory.mktemp("score")) as c:
        yield c


def cli(body: str) -> tuple[list[dict[str, object]], int]:
    proc = subprocess.run([sys.executable, "-m", "daer", "score", "--json"], input=body.encode(),
                          capture_output=True, check=False)
    return [json.loads(x) for x in proc.stdout.splitlines()], proc.returncode


def test_one_object_in_one_object_out_same_as_the_cli(client: TestClient) -> None:
    body = json.dumps({**GOOD, "seat": 1, "dealer": 0}, ensure_ascii=False)
    r = client.post("/api/score", content=body.encode(), headers=JSON)
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    assert r.headers["x-score-errors"] == "0"
    got = json.loads(r.text)
    assert got["ok"] and got["hu"] == 15 and got["points"]["seats"] == [-3, 5, 1, -3]
    assert [got] == cli(body)[0]


def test_json_lines_one_line_per_input_line_errors_per_line_same_as_the_cli(client: TestClient) -> None:
    lines = [
        json.dumps(GOOD, ensure_ascii=False),
        "{not json",
        "",
        json.dumps({"hand": HAND, "melds": [{"kind": "peng", "cards": "一二三"}]}, ensure_ascii=False),
        json.dumps({**GOOD, "rules": "luzhou-mingtang"}, ensure_ascii=False),
        json.dumps({"hand": HAND}, ensure_ascii=False),  # one short, judged as dealt: not complete
    ]
    body = "\n".join(lines) + "\n"
    r = client.post("/api/score", content=body.encode(), headers=NDJSON)
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
    got = [json.loads(x) for x in r.text.splitlines()]
    assert len(got) == len(lines)
    assert [g["ok"] for g in got] == [True, False, False, False, True, False]
    assert "JSON" in got[1]["error"] and "空行" in got[2]["error"] and "碰" in got[3]["error"]
    assert r.headers["x-score-errors"] == "3"
    expected, status = cli(body)
    assert got == expected and status == 2


def test_too_large_body_is_413_with_a_chinese_first_message(client: TestClient) -> None:
    r = client.post("/api/score", content=b" " * (MAX_SCORE_BODY + 1), headers=JSON)
    assert r.status_code == 413 and r.json()["error"] == "too_big" and "请求太大" in r.json()["zh"]


def test_too_many_lines_is_413_naming_the_limit(client: TestClient) -> None:
    body = "\n".join(["{}"] * (MAX_SCORE_LINES + 1)).encode()
    r = client.post("/api/score", content=body, headers=NDJSON)
    assert r.status_code == 413 and r.json()["error"] == "too_many_lines"
    assert str(MAX_SCORE_LINES) in r.json()["zh"]
    ok = client.post("/api/score", content="\n".join(["{}"] * MAX_SCORE_LINES).encode(), headers=NDJSON)
    assert ok.status_code == 200 and len(ok.text.splitlines()) == MAX_SCORE_LINES


def test_empty_body_is_400(client: TestClient) -> None:
    r = client.post("/api/score", content=b"\n  \n", headers=JSON)
    assert r.status_code == 400 and "请求为空" in r.json()["zh"]


def test_only_post(client: TestClient) -> None:
    assert client.get("/api/score").status_code == 405


def test_rate_limited_per_address_with_retry_after(tmp_path: Path) -> None:
    with client_for(tmp_path, Limits(rates={"score": Rate(60, 3)})) as c:
        body = json.dumps(GOOD, ensure_ascii=False).encode()
        assert [c.post("/api/score", content=body, headers=NDJSON).status_code for _ in range(3)] == [200, 200, 200]
        r = c.post("/api/score", content=body, headers=NDJSON)
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1 and "请求太频繁" in r.json()["zh"]


def test_a_big_batch_costs_more_tokens(tmp_path: Path) -> None:
    with client_for(tmp_path, Limits(rates={"score": Rate(60, 5)})) as c:
        body = "\n".join([json.dumps(GOOD, ensure_ascii=False)] * 400).encode()  # 1 + 4 tokens
        assert c.post("/api/score", content=body, headers=NDJSON).status_code == 200
        assert c.post("/api/score", content=body, headers=NDJSON).status_code == 429


def test_a_form_post_is_refused_json_lines_allowed(client: TestClient) -> None:
    body = json.dumps(GOOD, ensure_ascii=False).encode()
    assert client.post("/api/score", content=body, headers={"Content-Type": "text/plain"}).status_code == 415
    assert client.post("/api/score", content=body, headers=NDJSON).status_code == 200
