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
