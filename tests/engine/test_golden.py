"""Golden playthroughs: a few seeded hands between heuristic bots written out as text and diffed.

Regenerate after an intended change with ``DAER_REGEN_GOLDEN=1 pytest tests/engine/test_golden.py``
and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from daer.bots import HeuristicBot, RandomBot
from daer.bots.base import Bot
from daer.bots.runner import play_hand
from daer.cli.render import grouped_hand, hand_end_text, narrate
from daer.engine import dumps, new_hand, record_of
from daer.rules import find_rules

GOLDEN = Path(__file__).parent / "golden"
CASES = [(1, "heuristic"), (2, "heuristic"), (3, "random"), (4, "heuristic")]


def playthrough(seed: int, kind: str) -> str:
    rules = find_rules()
    st = new_hand(rules, seed=seed, dealer=seed % 4)
    lines = [f"# seed {seed}, {kind} bots, dealer {st.dealer}, 底家 {st.dijia}"]
    for seat in st.players:
        lines.append(f"seat {seat}: {grouped_hand(tuple(st.hands[seat]), 'zh')}")
    bots: dict[int, Bot] = {s: HeuristicBot(rules) if kind == "heuristic" else RandomBot(seed * 10 + s)
                            for s in range(4)}
    play_hand(st, bots)
    lines += [text for ev in st.log if (text := narrate(ev, "zh"))]
    assert st.settlement is not None
    lines.append(hand_end_text(st.view(None), st.settlement, rules, "zh"))
    lines.append("## record")
    lines.append(dumps(record_of(st, seed=seed)))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("seed", "kind"), CASES)
def test_golden_playthrough(seed: int, kind: str) -> None:
    path = GOLDEN / f"seed{seed}_{kind}.txt"
    text = playthrough(seed, kind)
    if os.environ.get("DAER_REGEN_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing {path}; run with DAER_REGEN_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")
