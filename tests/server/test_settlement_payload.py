"""The end of a hand over the wire: every hand revealed (亮牌, ``view.result.hands``) only once the hand is over,
and the settlement's working (``room.work``) that adds up to the payments — for a seat and a spectator."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from serving import Client, Server, get, room


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("settle") / "daer.db", bot_delay=0.0).start()
    yield srv
    srv.stop()


def play_hand(c: Client) -> dict[str, Any]:
    """Play seat 0's last legal choice until the hand is over; the final update."""
    m = c.state(lambda m: m["view"] is not None)
    while not (m["view"] and m["view"]["result"]):
        view = m["view"]
        if view and view["legal"] and m["room"]["status"] == "playing":
            c.act(view["legal"][-1])
        m = c.upd if c.upd is not m else c.until(lambda m: m["t"] == "update")
    return m


@pytest.mark.parametrize("rules", ["luzhou", "paohuzi"])
def test_a_finished_hand_reveals_every_hand_and_sends_its_working(server: Server, rules: str) -> None:
    r = room(server, hands=1, rules=rules)
    c = Client(server, r["code"], r["token"])
    c.cmd("start")
    end = play_hand(c)
    playing = [f for f in c.frames if f["t"] == "update" and f["view"] and f["view"]["phase"] != "over"]
    assert playing and all(f["view"]["result"] is None and f["room"]["work"] is None for f in playing)
    view, info = end["view"], end["room"]
    result = view["result"]
    assert len(result["hands"]) == len(info["seats"]) == len(view["hand_sizes"])
    assert result["hands"][0] == sorted(cid // 4 for cid in view["hand"])  # my own cards, as kinds
    assert [len(h) for h in result["hands"]] == list(view["hand_sizes"])
    work = info["work"]
    assert work["checked"] and work["chain"] and work["lines"]
    assert all(x["zh"] and x["en"] for x in work["lines"])
    if result["winner"] is not None:
        paid = {p["amount"] for p in info["payments"] if p["payee"] == result["winner"]}
        assert any(f"每家付 {a}" in work["chain"][-1]["zh"] for a in paid), (work["chain"], paid)
    # a spectator who comes now sees the same reveal and working
    spectator = Client(server, r["code"])
    seen = spectator.state(lambda m: m["view"] is not None)
    assert seen["view"]["result"]["hands"] == result["hands"]
    assert seen["room"]["work"] == work
    spectator.close()
    c.close()
    # the replay ends with the same settlement (for the replay page's end)
    status, replay = get(f"{server.url}/api/rooms/{r['code']}/hands/1/replay")
    assert status == 200
    assert replay["end"]["work"] == work and replay["end"]["payments"] == info["payments"]
    assert replay["steps"][-1]["view"]["result"]["hands"] == result["hands"]
