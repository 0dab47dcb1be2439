"""The replay page's data: every step of a finished hand with every hand open, the seats' names and the settlement.

``GET /api/rooms/{code}/hands/{number}/replay`` answers ``{"rules", "names", "steps", "end", "mine"}``: the ruleset's
Chinese title; each seat's name in the room (empty when the room is gone); one step per action after the deal (action
null): the action, the events it caused as the table saw them (for the step list's words), the public view after it
and every seat's hand; and ``end``, the settlement as the table showed it (``room.work``, ``room.payments`` and
``money``: the working 胡 → 等 → multipliers → amounts of :mod:`daer.settlement_work`, each payment with its reason
in Chinese and English), which web/settle.js draws at the replay's last step; ``mine``, the seat the asking player
(its cookie) took in the room, else null.  The page carries no rules: the server replays the record through the
engine.
"""

from __future__ import annotations

from typing import Any

import msgspec

from daer.engine import HandRecord, replay
from daer.rules import resolve_rules
from daer.server.table.settling import work_of
from daer.store import Store


def seat_names(store: Store, code: str) -> dict[int, str]:
    """The names of the room's seats by seat (as they are now: a seat given to a bot is 机器人N)."""
    row = store.load_room(code)
    return {s.seat: s.name for s in row.seats} if row is not None else {}


def replay_body(rec: HandRecord, names: dict[int, str], *, mine: int | None = None) -> bytes:
    """The replay of ``rec`` as JSON (raises :class:`daer.engine.record.RecordError` on a bad record); ``mine``:
    the seat the asking player took in the room (the page offers the 复盘 of that seat first)."""
    st = replay(HandRecord(rules=rec.rules, overrides=rec.overrides, deck=rec.deck, dealer=rec.dealer))

    seen = 0

    def step(act: object) -> dict[str, Any]:
        nonlocal seen
        log = st.view(None).log  # the table's (a spectator's) form of the events
        new, seen = log[seen:], len(log)
        return {"action": act, "events": new, "view": st.view(None, log=False), "hands": [sorted(h) for h in st.hands]}

    steps = [step(None)]
    for act in rec.actions:
        st.apply(act)
        steps.append(step(act))
    rules = resolve_rules(rec.rules, rec.overrides)
    pays = st.settlement.payments if st.settlement is not None else ()
    end = {"work": work_of(rules, st), "money": rules.scoring.mode == "money", "payments": [
        {"payer": x.payer, "payee": x.payee, "amount": x.amount, "zh": x.zh, "en": x.en} for x in pays]}
    return msgspec.json.encode({"rules": rules.title_zh, "names": [names.get(s, "") for s in range(rules.table.seats)],
                                "steps": steps, "end": end, "mine": mine})
