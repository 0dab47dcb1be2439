"""``kill -9`` of a real server loses nothing: every acked action and command is stored, seats resume at their
version, and a repeated id gets its first answer across restarts and hands — on SQLite and on PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from serving import Client, Server, get, post


def _settle(clients: list[Client], v: int) -> int:
    """The version at which the table waits for a seat (or the hand is over), from version ``v`` on.

    A claim window that the last answer completed closes just after that answer's ack, as a public step of
    its own (and a card nobody may take opens and closes one by itself), so the table may move on further.
    """
    while True:
        ups = [c.state(lambda m, v=v: m["v"] >= v) for c in clients]
        top = max(u["v"] for u in ups)
        if top > v:
            v = top
            continue
        if any(u["view"] is not None and (u["view"]["legal"] or u["view"]["result"] is not None) for u in ups):
            return v
        v += 1


def _play(clients: list[Client], n: int, start_v: int) -> int:
    """Let the seats act ``n`` times (first legal action of whoever must act); the version the table then waits at."""
    v = start_v
    for _ in range(n):
        v = _settle(clients, v)
        actor = next((c for c in clients if c.upd and c.upd["view"]["legal"] and c.upd["v"] == v), None)
        if actor is None or actor.upd is None or actor.upd["view"]["result"] is not None:
            break
        reply = actor.act(actor.upd["view"]["legal"][0])
        assert reply["t"] == "ack", reply
        v = reply["v"]
    return _settle(clients, v)


def _finish(clients: list[Client], v: int) -> dict[str, Any]:
    for _ in range(20):
        v = _play(clients, 50, v)
        last = clients[0].upd
        assert last is not None
        if last["view"]["result"] is not None:
            return last
    raise AssertionError((v, [(c.welcome.get("seat"), (c.upd or {}).get("v")) for c in clients]))


def _table(srv: Server, **config: Any) -> tuple[str, list[str]]:
    """A room of four people (no bots, no timer); its code and the seats' tokens."""
    status, r = post(f"{srv.url}/api/rooms", {"name": "A", "config": {"timer": 0, **config}})
    assert status == 200
    return r["code"], [r["token"]] + [post(f"{srv.url}/api/rooms/{r['code']}/join", {"name": n})[1]["token"]
                                      for n in "BCD"]


def test_kill_9_then_restart_resumes_every_seat_exactly(tmp_path: Path, db_url: str) -> None:
    srv = Server(tmp_path / "daer.db", bot_delay=0.0, url=db_url).start()
    try:
        code, tokens = _table(srv, hands=2)
        clients = [Client(srv, code, t) for t in tokens]
        start = clients[0].cmd("start")
        v = _play(clients, 12, start["v"])
        before = {c.welcome["seat"]: c.upd for c in clients}
        early = start["v"] + 2

        srv.kill9()
        srv.start()

        again = [Client(srv, code, t, v=v) for t in tokens]
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
        late = Client(srv, code, tokens[1], v=early)
        upd = late.state(lambda m: True)
        assert not upd["full"]
        assert upd["events"]
        # the hand goes on to its end, and its record holds every action
        result = _finish(again, v)
        assert sum(result["view"]["result"]["points"]) == 0
        status, info = get(f"{srv.url}/api/rooms/{code}")
        hand = info["hands"][0]
        assert hand["finished"]
        status, rec = get(f"{srv.url}/api/rooms/{code}/hands/{hand['number']}/record")
        assert status == 200
        # every action acked, before the kill or after it, is in the record, and nothing else (a random deal may end
        # the hand after fewer than 12 actions, e.g. a win offered early, so the count is the acks', not a constant)
        acked = {m["id"] for c in [*clients, *again] for m in c.frames if m["t"] == "ack" and "-a" in m["id"]}
        assert len(rec["actions"]) == len(acked) > 0
    finally:
        srv.stop()


def test_an_acked_next_survives_kill_9_and_old_ids_keep_their_first_answer(tmp_path: Path, db_url: str) -> None:
    # regression (issue 9): an acked `next` lived only in memory, so after kill -9 a timer-0 room waited
    # forever; and an action id of an earlier hand was answered `illegal` after a restart
    srv = Server(tmp_path / "daer.db", bot_delay=0.0, url=db_url).start()
    try:
        code, tokens = _table(srv, hands=3)
        clients = [Client(srv, code, t) for t in tokens]
        _finish(clients, clients[0].cmd("start")["v"])
        old = next((c, m) for c in clients for m in c.frames if m["t"] == "ack" and m["id"].startswith(f"{c.prefix}-a"))
        ready = clients[2].cmd("next", entropy="abc123")
        assert ready["t"] == "ack"
        assert clients[2].state(lambda m: m["v"] >= ready["v"])["room"]["ready"] == [2]

        srv.kill9()
        srv.start()

        again = [Client(srv, code, t, v=ready["v"]) for t in tokens]
        upd = again[0].state(lambda m: True)
        assert upd["v"] == ready["v"]
        assert upd["room"]["status"] == "between"
        assert upd["room"]["ready"] == [2]
        seat_of = {c.welcome["seat"]: c for c in again}
        # the same ids, after the restart: the first answers, nothing changed
        assert seat_of[2].cmd("next", msg_id=ready["id"]) == ready
        client, ack = old
        assert seat_of[client.welcome["seat"]].act({"type": "pass", "seat": client.welcome["seat"]},
                                                   msg_id=ack["id"]) == ack
        # the other three get ready: the next hand is dealt (seat 2 is not asked again)
        for s in (0, 1, 3):
            assert seat_of[s].cmd("next")["t"] == "ack"
        dealt = again[0].state(lambda m: m["room"]["status"] == "playing")
        assert dealt["room"]["hand_no"] == 2
        # an id of hand 1 is still answered as it was, now during hand 2 and after another restart
        srv.kill9()
        srv.start()
        back = Client(srv, code, tokens[client.welcome["seat"]])
        back.state(lambda m: True)
        assert back.act({"type": "pass", "seat": client.welcome["seat"]}, msg_id=ack["id"]) == ack
        status, info = get(f"{srv.url}/api/rooms/{code}")
        assert status == 200
        assert [h["number"] for h in info["hands"]] == [1, 2]
    finally:
        srv.stop()


def test_refused_ids_keep_their_answer_across_a_restart(tmp_path: Path, db_url: str) -> None:
    srv = Server(tmp_path / "daer.db", bot_delay=0.0, url=db_url).start()
    try:
        code, tokens = _table(srv)
        guest = Client(srv, code, tokens[1])
        refused = guest.cmd("start", msg_id="g-start")
        assert refused["code"] == "not_host"
        host = Client(srv, code, tokens[0])
        assert host.cmd("leave")["t"] == "ack"
        srv.kill9()
        srv.start()
        # seat 1 is now the host, but its old id keeps its first answer (it did not start the match)
        guest = Client(srv, code, tokens[1])
        assert guest.cmd("start", msg_id="g-start") == refused
        assert guest.state(lambda m: True)["room"]["status"] == "waiting"
    finally:
        srv.stop()
