"""The room's pace (节奏, ``RoomConfig.pace``): fast / normal / slow stretch the server's bot delay and claim
window alike (so a claim window stays at least the bot delay, docs/protocol.md "Timing"); anything else is refused."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serving import Server, get, post

from daer.server.safety import bounds
from daer.server.safety.bounds import RoomConfig
from daer.server.serving.manager import RoomManager
from daer.server.table import clock
from daer.server.table.dealing import PendingDeal
from daer.store import Store


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("pace") / "daer.db").start()
    yield srv
    srv.stop()


@pytest.mark.parametrize("pace", ["quick", "", "0.1", "FAST"])
def test_a_pace_not_offered_is_refused_in_chinese_then_english(server: Server, pace: str) -> None:
    status, answer = post(f"{server.url}/api/rooms", {"name": "A", "config": {"pace": pace}})
    assert status == 400
    assert answer["error"] == "bad_pace"
    assert "节奏" in answer["zh"] and "pace" in answer["en"]


@pytest.mark.parametrize("pace", list(bounds.PACES))
def test_each_offered_pace_makes_a_room(server: Server, pace: str) -> None:
    status, answer = post(f"{server.url}/api/rooms", {"name": "A", "config": {"pace": pace}})
    assert status == 200, answer


@pytest.mark.parametrize("pace", list(bounds.PACES))
def test_the_room_json_says_its_pace_so_the_page_can_show_it(server: Server, pace: str) -> None:
    status, made = post(f"{server.url}/api/rooms", {"name": "A", "config": {"pace": pace}})
    assert status == 200, made
    status, body = get(f"{server.url}/api/rooms/{made['code']}")
    assert status == 200, body
    assert body["room"]["pace"] == pace


def test_a_room_made_without_a_pace_says_normal(server: Server) -> None:
    status, made = post(f"{server.url}/api/rooms", {"name": "A", "config": {}})
    assert status == 200, made
    assert get(f"{server.url}/api/rooms/{made['code']}")[1]["room"]["pace"] == "normal"


BOT_DELAY, CLAIM_WINDOW = 0.1, 0.2


def delays_of_an_all_bot_room(tmp_path: Path, pace: str, monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every delay the room's clock asked its runner for while four bots played for 0.6 s."""
    delays: list[float] = []
    later = clock.Runner.later

    def record(runner: clock.Runner, room: Any, wait: float, now: float) -> clock.Queued:
        delays.append(wait)
        return later(runner, room, wait, now)

    monkeypatch.setattr(clock.Runner, "later", record)

    async def main() -> None:
        mgr = RoomManager(Store(f"sqlite:///{tmp_path / 'd.db'}"), bot_delay=BOT_DELAY, claim_window=CLAIM_WINDOW)
        room, _seat, _token = mgr.create(RoomConfig(timer=0, hands=1, pace=pace), "A")
        for seat in room.seats:
            seat.kind, seat.token_hash = "bot", None
        room.pending = PendingDeal("ab" * 32, [""] * len(room.seats))  # a fixed deal: a random one can end at once
        room.deal()
        await asyncio.sleep(0.6)
        if room.handle is not None:
            room.handle.cancel()

    asyncio.run(main())
    return delays


@pytest.mark.parametrize("pace", list(bounds.PACES))
def test_the_pace_stretches_the_bot_delay_and_the_claim_window_alike(tmp_path: Path, pace: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    factor = bounds.PACES[pace]
    delays = delays_of_an_all_bot_room(tmp_path, pace, monkeypatch)
    assert delays
    assert BOT_DELAY * factor in delays  # a bot's move waits the stretched delay
    assert max(delays) <= CLAIM_WINDOW * factor + 1e-9  # a claim window is held no longer than stretched
    assert bounds.pace_factor(RoomConfig(pace=pace)) == factor
