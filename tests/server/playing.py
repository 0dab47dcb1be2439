"""A room played through a test client: a person (always the first legal action) and three bots."""

from __future__ import annotations

from starlette.testclient import TestClient


def play(c: TestClient, hands: int, quit_after: int | None = None, *, stale: bool = False) -> tuple[str, int]:
    """One room (a person and three bots) through ``hands`` hands, or until the person made ``quit_after``
    actions and leaves mid-hand; with ``stale``, every action is sent once with a stale version first (refused).
    The room's code and the hands played."""
    room = c.post("/api/rooms", json={"name": "A", "config": {"timer": 0, "hands": hands}}).json()
    played = acted = n = 0
    with c.websocket_connect(f"/ws/{room['code']}") as ws:
        ws.send_json({"t": "hello", "room": room["code"], "token": room["token"]})
        ws.send_json({"t": "cmd", "id": "start", "name": "start"})
        while quit_after is None or n < quit_after:
            m = ws.receive_json()
            if m["t"] != "update":
                continue
            status, view = m["room"]["status"], m["view"]
            if status == "finished":
                break
            if status == "between" and m["v"] > acted:
                acted, played = m["v"], played + 1
                ws.send_json({"t": "cmd", "id": f"n{m['v']}", "name": "next"})
            elif status == "playing" and view and view["legal"] and m["v"] > acted:
                acted, n = m["v"], n + 1
                if stale:
                    ws.send_json({"t": "act", "id": f"stale{n}", "v": m["v"] - 1, "action": view["legal"][0]})
                ws.send_json({"t": "act", "id": f"a{n}", "v": m["v"], "action": view["legal"][0]})
    return str(room["code"]), played
