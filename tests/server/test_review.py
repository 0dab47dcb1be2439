"""复盘 over HTTP: ``POST /api/rooms/{code}/hands/{n}/review`` answers whoever may see the replay (every hand is open
there already), for any seat, from the bot pool; it refuses an unfinished hand, a seat not at the table and a bad
body; and the queue holds one review per address and a few in all, past which it answers 429 in Chinese first."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from daer.engine import HandRecord
from daer.server import create_app
from daer.server import protocol as p
from daer.server.players.identity import COOKIE
from daer.server.safety.limits import Limits, Rate
from daer.server.serving.manager import RoomManager
from daer.server.table.reviewing import FULL, MINE_BUSY, PENDING, Busy, Reviews

HIGH = Rate(100000, 100000)
RATES = dict.fromkeys(("create", "join", "lookup", "player", "signin", "signin_link", "me", "review"), HIGH)


async def _play_one_hand(m: RoomManager, code: str) -> None:
    room = m.rooms[code]
    room.command(0, p.Command(id="s", name="start"))  # the empty seats get bots
    for seat in room.seats:
        seat.auto = True  # every seat in 托管: the bots play the hand out
    room.schedule()
    for _ in range(6000):
        if any(f for _i, _n, f, _pt in m.store.hands_of(code)):
            return
        await asyncio.sleep(0.002)
    raise AssertionError("the hand did not end")


def _as(c: TestClient, secret: str | None) -> TestClient:
    c.cookies.clear()
    if secret is not None:
        c.cookies.set(COOKIE, secret, domain="testserver.local")
    return c


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, str, dict[str, str]]]:
    """A one-hand room of two players (the host at seat 0, a guest at seat 1) and bots, its hand played out: the
    client, the room's code and the players' cookies."""
    db = f"sqlite:///{tmp_path_factory.mktemp('review') / 'daer.db'}"
    with TestClient(create_app(db, bot_delay=0.0, limits=Limits(rates=RATES))) as c:
        res = c.post("/api/rooms", json={"name": "小明", "config": {"timer": 0, "hands": 1}})
        assert res.status_code == 200, res.text
        code, host = res.json()["code"], str(c.cookies[COOKIE])
        c.cookies.clear()
        res = c.post(f"/api/rooms/{code}/join", json={"name": "小红"})
        assert res.status_code == 200 and res.json()["seat"] == 1, res.text
        guest = str(c.cookies[COOKIE])
        manager = c.app.state.manager  # type: ignore[attr-defined]
        assert c.portal is not None
        c.portal.call(_play_one_hand, manager, code)
        yield c, code, {"host": host, "guest": guest}


def review(c: TestClient, code: str, seat: Any, number: int = 1) -> Any:
    """Ask, and again while the answer is 202 (being computed), as the page does."""
    for _ in range(120):
        res = c.post(f"/api/rooms/{code}/hands/{number}/review", json={"seat": seat})
        if res.status_code != 202:
            return res
        assert res.json()["error"] == "review_pending" and res.headers["retry-after"] == "2"
        time.sleep(0.5)
    raise AssertionError("the review was never made")


@pytest.mark.parametrize("who", ["host", "guest", "stranger"])
def test_whoever_may_see_the_replay_may_review_a_seat(table: tuple[TestClient, str, dict[str, str]],
                                                      who: str) -> None:
    c, code, cookies = table
    _as(c, cookies.get(who))
    replay = c.get(f"/api/rooms/{code}/hands/1/replay")
    assert replay.status_code == 200
    assert replay.json()["mine"] == {"host": 0, "guest": 1, "stranger": None}[who]  # the page's own seat
    for seat in (0, 1):
        res = review(c, code, seat)
        assert res.status_code == 200, res.text
        body = res.json()
        assert body["seat"] == seat and body["worlds"] == 32 and body["decisions"]
        steps = replay.json()["steps"]
        for d in body["decisions"]:  # each a decision of that seat, its action the replay's step
            assert steps[d["step"] + 1]["action"] == d["played"] and d["played"]["seat"] == seat
            assert d["options"][0]["action"] == d["best"] and d["zh"] == ("这一步可能少赢" in d["zh"]) * d["zh"]
        assert body["flagged"] == [d["step"] for d in sorted((d for d in body["decisions"] if d["flagged"]),
                                                            key=lambda d: (-d["loss"], d["step"]))]


def test_the_same_review_is_kept_and_answered_again(table: tuple[TestClient, str, dict[str, str]]) -> None:
    c, code, cookies = table
    first = review(_as(c, cookies["host"]), code, 0)
    again = review(_as(c, None), code, 0)
    assert first.status_code == again.status_code == 200 and first.content == again.content


def test_an_unfinished_hand_a_seat_not_at_the_table_and_a_bad_body_are_refused(
        table: tuple[TestClient, str, dict[str, str]]) -> None:
    c, code, cookies = table
    _as(c, cookies["host"])
    res = review(c, code, 0, number=2)  # a one-hand match: no such hand
    assert res.status_code == 404 and res.json()["error"] == "no_hand"
    res = review(c, "NOSUCH", 0)
    assert res.status_code == 404
    for seat in (4, -1, 99, "0", None):
        res = review(c, code, seat)
        assert res.status_code == 400 and res.json()["zh"], seat
    out = c.get(f"/api/rooms/{code}/hands/1/replay").json()["steps"][0]["view"]["dijia"]
    res = review(c, code, out)  # the 底家 of the hand: it made no decision (from the pool's worker)
    assert res.status_code == 400 and res.json()["error"] == "cannot_review" and "底家" in res.json()["zh"]
    res = c.post(f"/api/rooms/{code}/hands/1/review", json={"seat": 0, "worlds": 5000})
    assert res.status_code == 400  # the budget is the server's, never the client's
    res = c.post(f"/api/rooms/{code}/hands/1/review", content=b"x" * 10000,
                 headers={"content-type": "application/json"})
    assert res.status_code == 413


def test_an_unfinished_hand_is_refused_to_everyone(tmp_path: Any) -> None:
    db = f"sqlite:///{tmp_path / 'daer.db'}"
    with TestClient(create_app(db, bot_delay=0.0, limits=Limits(rates=RATES))) as c:
        res = c.post("/api/rooms", json={"name": "小明", "config": {"timer": 0, "hands": 1}})
        code, host = res.json()["code"], str(c.cookies[COOKIE])
        manager = c.app.state.manager  # type: ignore[attr-defined]
        room = manager.rooms[code]
        assert c.portal is not None
        c.portal.call(lambda: room.command(0, p.Command(id="s", name="start")))
        c.portal.call(manager.store.writer.synced)  # the deal stored, as before any client hears of it
        for secret in (host, None):
            res = review(_as(c, secret), code, 0)
            assert res.status_code == 403 and res.json()["error"] == "not_finished"


# -- the queue's bounds, with a review that waits for the test to let it finish ------------------------------
REC = HandRecord(seed=1)


class Gate:
    """A stand-in for the pool: each review waits until the test opens the gate; counts the reviews made."""

    def __init__(self) -> None:
        self.open = asyncio.Event()
        self.made = 0

    async def run(self, _record: HandRecord, seat: int) -> bytes:
        await self.open.wait()
        self.made += 1
        return b'{"seat": %d}' % seat


def test_one_review_per_address_a_few_in_all_and_each_made_once() -> None:
    async def go() -> None:
        gate = Gate()
        reviews = Reviews(gate.run, queue=2)
        first = asyncio.ensure_future(reviews.ask(("A", 1, 0), "1.1.1.1", REC, 0))
        await asyncio.sleep(0)
        assert await reviews.ask(("A", 1, 1), "1.1.1.1", REC, 1) is MINE_BUSY  # one at a time per address
        same = asyncio.ensure_future(reviews.ask(("A", 1, 0), "2.2.2.2", REC, 0))  # the same review: shared
        other = asyncio.ensure_future(reviews.ask(("A", 1, 2), "3.3.3.3", REC, 2))
        await asyncio.sleep(0)
        full = await reviews.ask(("A", 1, 3), "4.4.4.4", REC, 3)
        assert full is FULL and isinstance(full, Busy) and full.status == 429 and full.zh.startswith("复盘")
        gate.open.set()
        assert await first == await same == b'{"seat": 0}' and await other == b'{"seat": 2}'
        assert gate.made == 2
        assert await reviews.ask(("A", 1, 0), "1.1.1.1", REC, 0) == b'{"seat": 0}'  # kept: not made again
        assert await reviews.ask(("A", 1, 3), "4.4.4.4", REC, 3) == b'{"seat": 3}'  # room again in the queue
        assert gate.made == 3

    asyncio.run(go())


def test_a_long_review_answers_202_goes_on_and_keeps_its_address_busy() -> None:
    async def go() -> None:
        gate = Gate()
        reviews = Reviews(gate.run, wait=0.05)
        assert await reviews.ask(("A", 1, 0), "1.1.1.1", REC, 0) is PENDING
        assert PENDING.status == 202 and PENDING.zh.startswith("复盘正在计算")
        assert await reviews.ask(("A", 1, 1), "1.1.1.1", REC, 1) is MINE_BUSY  # its review is still computing
        assert await reviews.ask(("A", 1, 0), "1.1.1.1", REC, 0) is PENDING  # asking again: the same one
        gate.open.set()
        await asyncio.sleep(0.01)
        assert reviews.kept(("A", 1, 0)) == b'{"seat": 0}' and gate.made == 1
        assert await reviews.ask(("A", 1, 1), "1.1.1.1", REC, 1) == b'{"seat": 1}'  # free again once done

    asyncio.run(go())


def test_reviews_compute_one_at_a_time() -> None:
    async def go() -> None:
        busy, most = 0, 0

        async def run(_record: HandRecord, seat: int) -> bytes:
            nonlocal busy, most
            busy += 1
            most = max(most, busy)
            await asyncio.sleep(0.01)
            busy -= 1
            return b"{}"

        reviews = Reviews(run, queue=4)
        await asyncio.gather(*(reviews.ask(("A", 1, s), f"10.0.0.{s}", REC, s) for s in range(4)))
        assert most == 1

    asyncio.run(go())
