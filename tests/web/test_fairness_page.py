"""The verifiable deal in the browser: the page adds its own entropy to every deal, ``web/fairness.js``
derives the same deck as ``daer.engine.fairness``, and the replay page shows ✓ for a real hand, ✗ when tampered."""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path
from typing import Any

from serving import Server, get

from daer.engine.fairness import commitment, derive_deck

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_table import create_room, play_to_settlement  # a sibling test module

DERIVE = """async ([seed, entropy]) => {
  const f = await import("/static/fairness.js");
  return [await f.commitmentOf(seed), await f.deriveDeck(seed, entropy)];
}"""


def test_javascript_and_python_derive_the_same_deck(server: Server, browser: Any) -> None:
    page = browser.new_page()
    page.goto(server.url)
    cases = [([""] * 4), (["0f" * 32, "", "a", "123456"]), (["deadbeef", "00", "", "ff" * 16])]
    for i, entropy in enumerate(cases * 2):
        seed = hashlib.sha256(f"seed {i}".encode()).hexdigest()
        commit, deck = page.evaluate(DERIVE, [seed, entropy])
        assert commit == commitment(seed)
        assert deck == derive_deck(seed, entropy)
    page.close()


def test_the_page_adds_entropy_and_the_replay_page_verifies_the_deal(server: Server, phone: Any) -> None:
    page = phone.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    code = create_room(page, server)
    page.click("#start")
    play_to_settlement(page)
    status, info = get(f"{server.url}/api/rooms/{code}")
    assert status == 200
    number = info["hands"][0]["number"]
    status, rec = get(f"{server.url}/api/rooms/{code}/hands/{number}/record")
    assert status == 200
    added = rec["fairness"]["entropy"][0]
    assert re.fullmatch("[0-9a-f]{32}", added)  # the page's 16 random bytes, as lowercase hex
    assert rec["fairness"]["entropy"][1:] == ["", "", ""]  # bots add none
    replay = phone.new_page()
    replay.goto(f"{server.url}/replay/{code}/{number}")
    replay.wait_for_selector("#fair")
    replay.wait_for_function("document.querySelector('#fair').textContent.includes('✓')")
    deck = rec["deck"]
    tampered = {**rec, "deck": [deck[1], deck[0], *deck[2:]]}
    result = replay.evaluate("async (rec) => (await import('/static/fairness.js')).verifyRecord(rec)", tampered)
    assert result["ok"] is False and result["en"]
    assert errors == []
