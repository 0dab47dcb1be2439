"""Hidden information: every frame sent to a seat, across whole hands, carries no card id of another
seat's concealed hand or of the stock; a spectator's frames carry no concealed card at all."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from daer.server import create_app
from daer.server.rooms import Conn, RoomManager

ID_KEYS = {"hand", "ids", "cards", "card"}
VIEW_KEYS = {"seat", "rules", "dealer", "dijia", "players", "phase", "actor", "to_act", "hand", "hand_sizes", "melds",
             "discards", "bottom", "bottoms", "dead", "stock", "offer", "guo", "legal", "result", "log"}


def card_ids(obj: Any, key: str | None = None, out: set[int] | None = None) -> set[int]:
    """Card ids in a decoded frame: under id-carrying keys, discards' second items; never inside ``legal``."""
    out = set() if out is None else out
    if key == "legal":
        return out
    if isinstance(obj, dict):
        for k, v in obj.items():
            card_ids(v, k, out)
    elif isinstance(obj, list):
        for v in obj:
            card_ids(v, key, out)
    elif isinstance(obj, int) and not isinstance(obj, bool) and key in ID_KEYS:
        out.add(obj)
    return out


Frame = tuple[int | None, str, set[int], set[int]]


class Spy:
    """Records every frame pushed to a connection with what was hidden from it at that moment."""

    def __init__(self) -> None:
        self.manager: RoomManager | None = None
        self.frames: list[Frame] = []

    def record(self, conn: Conn, text: str) -> None:
        assert self.manager is not None
        for room in self.manager.rooms.values():
            st = room.state
            hidden: set[int] = set()
            own: set[int] = set()
            if st is not None:
                hidden = set(st.stock) - {st.bottom}  # the shown bottom card (底牌) is public
                for seat, hand in enumerate(st.hands):
                    (own if seat == conn.seat else hidden).update(hand)
            self.frames.append((conn.seat, text, hidden, own))


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Spy:
    s = Spy()
    push = Conn.push

    def spying(self: Conn, text: str | None) -> None:
        if text is not None and s.manager is not None:
            s.record(self, text)
        push(self, text)

    monkeypatch.setattr(Conn, "push", spying)
    return s


def play(ws: Any, seat: int) -> int:
    """Act (last legal action) whenever asked until the match is finished; the number of actions.

    A refused action never leaves the loop waiting on an update that will not come: after ``stale`` (a bot
    moved first) the server sends the state again; after ``too_fast`` (this client outran the rate bound,
    easy with instant bots) it backs off and asks for the state; ``no_hand`` (the hand ended meanwhile) needs
    nothing.  An offered action is never refused as illegal.
    """
    n = 0
    acted = -1
    refused = 0
    while True:
        m = ws.receive_json()
        if m["t"] == "error":
            assert m["code"] in ("stale", "no_hand", "too_fast"), m
            refused += 1
            assert refused < 500
            if m["code"] != "no_hand":
                acted = -1
            if m["code"] == "too_fast":
                time.sleep(0.5)
                ws.send_json({"t": "sync"})
            continue
        if m["t"] != "update":
            continue
        room, view = m["room"], m["view"]
        if room["status"] == "finished":
            return n
        if room["status"] == "between":
            ws.send_json({"t": "cmd", "id": f"n{m['v']}", "name": "next"})
        elif view is not None and view["legal"] and room["status"] == "playing" and m["v"] > acted:
            n += 1
            acted = m["v"]
            ws.send_json({"t": "act", "id": f"a{n}", "v": m["v"], "action": view["legal"][-1]})


def test_no_frame_to_a_seat_or_spectator_carries_a_concealed_card(tmp_path: Path, spy: Spy) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'h.db'}", bot_delay=0.0)
    with TestClient(app) as client:
        spy.manager = app.state.manager
        r = client.post("/api/rooms", json={"name": "A", "config": {"timer": 0, "hands": 4}}).json()
        with client.websocket_connect("/ws") as watcher, client.websocket_connect("/ws") as ws:
            watcher.send_json({"t": "hello", "room": r["code"]})
            ws.send_json({"t": "hello", "room": r["code"], "token": r["token"]})
            ws.send_json({"t": "cmd", "id": "s", "name": "start"})
            assert play(ws, r["seat"]) > 0
    seats = {seat for seat, *_ in spy.frames}
    assert seats == {None, 0}
    views = 0
    for seat, text, hidden, own in spy.frames:
        assert "deck" not in text
        frame = json.loads(text)
        ids = card_ids(frame)
        assert not ids & hidden, (seat, sorted(ids & hidden))
        view = frame.get("view")
        if view is not None:
            views += 1
            assert set(view) == VIEW_KEYS
            assert set(view["hand"]) == (own if seat is not None else set())
            if seat is None:
                assert view["legal"] == []
    assert views > 100
