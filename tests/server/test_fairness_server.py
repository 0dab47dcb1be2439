"""Commit–reveal over the wire: a hand's commitment is sent before its deal, its seed revealed when it is over
(and not before), the seats' entropy is mixed in, and the record verifies — on SQLite and on PostgreSQL."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from databases import DATABASES, new_database
from serving import Client, Server, get, post
from typer.testing import CliRunner

from daer.cli.main import app
from daer.engine.fairness import derive_deck


@pytest.fixture(scope="module", params=DATABASES)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("fair")
    srv = Server(folder / "daer.db", bot_delay=0.0, url=new_database(request, request.param, folder)).start()
    yield srv
    srv.stop()


def _play_out(c: Client) -> dict[str, Any]:
    """Act (last legal action) until the hand is over; the update that ends it."""
    m = c.state(lambda m: True)
    while m["view"] is None or m["view"]["result"] is None:
        if m["view"] and m["view"]["legal"] and m["room"]["status"] == "playing":
            reply = c.act(m["view"]["legal"][-1])
            assert reply["t"] == "ack" or reply["code"] == "stale", reply
        m = c.upd if c.upd is not m else c.until(lambda m: m["t"] == "update")
        assert m is not None
    return m


def test_the_commitment_comes_before_the_deal_and_the_seed_after_the_hand(server: Server, tmp_path: Path) -> None:
    status, r = post(f"{server.url}/api/rooms", {"name": "A", "config": {"timer": 0, "hands": 2}})
    assert status == 200
    c = Client(server, r["code"], r["token"])
    waiting = c.state(lambda m: True)
    commit = waiting["room"]["commit"]
    assert re.fullmatch(r"[0-9a-f]{64}", commit)
    assert waiting["room"]["reveal"] is None
    assert c.cmd("entropy", entropy="NOT-HEX")["code"] == "bad_entropy"
    mine = "00ff" * 8
    assert c.cmd("entropy", entropy=mine)["t"] == "ack"
    assert c.cmd("entropy", entropy="abcd")["t"] == "ack"  # a seat's first entropy counts
    assert c.cmd("start")["t"] == "ack"
    dealt = c.state(lambda m: m["room"]["status"] == "playing")
    assert dealt["room"]["commit"] == commit
    end = _play_out(c)
    before_end = [json.dumps(f) for f in c.frames[: c.frames.index(end)]]
    reveal = end["room"]["reveal"]
    assert reveal["commitment"] == commit
    assert hashlib.sha256(bytes.fromhex(reveal["seed"])).hexdigest() == commit
    assert reveal["entropy"] == [mine, "", "", ""]
    assert not any(reveal["seed"] in text for text in before_end)
    # the next hand is committed to already, with a fresh seed
    assert end["room"]["commit"] not in (None, commit)
    status, rec = get(f"{server.url}/api/rooms/{r['code']}/hands/{dealt['room']['hand_no']}/record")
    assert status == 200
    assert rec["version"] == 2
    assert rec["fairness"] == {"scheme": "daer-deal-v1", **reveal}
    assert rec["deck"] == derive_deck(reveal["seed"], reveal["entropy"])
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(rec), encoding="utf-8")
    res = CliRunner().invoke(app, ["verify", str(path)])
    assert res.exit_code == 0, res.output
    rec["fairness"]["entropy"] = ["", "", "", ""]
    path.write_text(json.dumps(rec), encoding="utf-8")
    assert CliRunner().invoke(app, ["verify", str(path)]).exit_code == 1
