"""``kill -9`` of a real server in mid-hand loses nothing: every acked action is on disk and seats resume."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from serving import Client, Server, get, post


def _play(clients: list[Client], n: int, start_v: int) -> int:
    """Let the seats act ``n`` times (first legal action of whoever must act); the last acked version."""
    v = start_v
    for _ in range(n):
        for c in clients:
            c.state(lambda m, v=v: m["v"] >= v)
        actor = next((c for c in clients if c.upd and c.upd["view"]["legal"] and c.upd["v"] == v), None)
        if actor is None or actor.upd is None or actor.upd["view"]["result"] is not None:
            break
        reply = actor.act(actor.upd["view"]["legal"][0])
        assert reply["t"] == "ack", reply
        v = reply["v"]
    for c in clients:
        c.state(lambda m, v=v: m["v"] >= v)
    return v


def _finish(clients: list[Client], v: int) -> dict[str, Any]:
    for _ in range(20):
        v = _play(clients, 50, v)
        last = clients[0].upd
        assert last is not None
        if last["view"]["result"] is not None:
            return last
    raise AssertionError((v, [(c.welcome.get("seat"), (c.upd or {}).get("v")) for c in clients]))


def test_kill_9_then_restart_resumes_every_seat_exactly(tmp_path: Path) -> None:
    srv = Server(tmp_path / "daer.db", bot_delay=0.0).start()
    try:
        status, r = post(f"{srv.url}/api/rooms", {"name": "A", "config": {"timer": 0, "hands": 2}})
        assert status == 200
        tokens = [r["token"]] + [post(f"{srv.url}/api/rooms/{r['code']}/join", {"name": n})[1]["token"]
                                 for n in "BCD"]
        clients = [Client(srv, r["code"], t) for t in tokens]
        start = clients[0].cmd("start")
        v = _play(clients, 12, start["v"])
        before = {c.welcome["seat"]: c.upd for c in clients}
        early = start["v"] + 2

        srv.kill9()
        srv.start()

        again = [Client(srv, r["code"], t, v=v) for t in tokens]
        for c in again:
            upd = c.state(lambda m: True)
            seat = c.welcome["seat"]
            old = before[seat]
            assert old is not None
            assert upd["v"] == v
            assert upd["since"] == v
            assert upd["events"] == []
            assert upd["view"] == old["view"]
        # an action id answered before the kill gets the same answer after it, and changes nothing
        first, old_ack = next((c, m) for c in clients for m in c.frames
                              if m["t"] == "ack" and m["id"].startswith(f"{c.prefix}-a"))
        old_id = old_ack["id"]
        seat_client = next(c for c in again if c.welcome["seat"] == first.welcome["seat"])
        assert seat_client.act({"type": "pass", "seat": first.welcome["seat"]}, msg_id=old_id) == old_ack
        # from an older version the missed events come back, not a full state
        late = Client(srv, r["code"], tokens[1], v=early)
        upd = late.state(lambda m: True)
        assert not upd["full"]
        assert upd["events"]
        # the hand goes on to its end, and its record holds every action
        result = _finish(again, v)
        assert sum(result["view"]["result"]["points"]) == 0
        status, info = get(f"{srv.url}/api/rooms/{r['code']}")
        hand = info["hands"][0]
        assert hand["finished"]
        status, rec = get(f"{srv.url}/api/rooms/{r['code']}/hands/{hand['number']}/record")
        assert status == 200
        assert len(rec["actions"]) >= 12
    finally:
        srv.stop()
