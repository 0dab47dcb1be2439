"""The request-id answers of one process: a repeat in flight waits for the first, and nothing is left behind."""

from __future__ import annotations

import asyncio

from daer.server.http.answers import Answers


def test_requests_with_one_key_take_turns_and_leave_no_lock_behind() -> None:
    answers = Answers()
    order: list[str] = []

    async def request(name: str, key: tuple[str, ...]) -> None:
        async with answers.turn(key):
            order.append(f"{name} in")
            await asyncio.sleep(0.01)
            order.append(f"{name} out")

    async def main() -> None:
        await asyncio.gather(request("first", ("join", "R", "a", "1")), request("repeat", ("join", "R", "a", "1")),
                             request("other", ("join", "R", "a", "2")))

    asyncio.run(main())
    assert order.index("first out") < order.index("repeat in")  # the repeat waited for the first
    assert order.index("other in") < order.index("first out")  # another key did not wait
    assert answers.busy == {} and answers.holders == {}


def test_answers_leave_after_their_time_and_past_the_size() -> None:
    """What is kept follows the last ``ttl`` seconds of requests, not every request until ``size`` is reached."""
    now = [0.0]
    answers = Answers(size=3, ttl=10.0, clock=lambda: now[0])
    for i in range(3):
        answers.put(("create", "a", str(i)), {"code": str(i)})
    assert answers.get(("create", "a", "0")) == {"code": "0"}
    now[0] = 5.0
    answers.put(("create", "a", "3"), {"code": "3"})  # past the size: the oldest leaves
    assert list(answers.kept) == [("create", "a", str(i)) for i in (1, 2, 3)]
    now[0] = 11.0
    answers.put(("create", "a", "4"), {"code": "4"})  # 1 and 2 are past their time
    assert list(answers.kept) == [("create", "a", "3"), ("create", "a", "4")]
    assert answers.get(("create", "a", "3")) == {"code": "3"}
    now[0] = 16.0
    answers.put(("create", "a", "3"), {"code": "3"})  # a repeat put is as new as the last
    assert list(answers.kept) == [("create", "a", "4"), ("create", "a", "3")]
    now[0] = 25.0
    answers.put(("create", "a", "5"), {"code": "5"})
    assert list(answers.kept) == [("create", "a", "3"), ("create", "a", "5")]
