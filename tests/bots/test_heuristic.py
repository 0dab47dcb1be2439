"""The heuristic bot decides from the view alone: what it keeps between decisions (a cache of the hands that win)
must never change what it computes."""

from __future__ import annotations

import pytest

from daer.bots import HeuristicBot
from daer.engine import new_hand
from daer.engine.actions import Discard
from daer.rules import find_rules


@pytest.mark.parametrize("rules_name", ["luzhou", "paohuzi"])
def test_the_heuristic_bots_wait_value_counts_the_cards_seen_now(rules_name: str) -> None:
    # The wait value counts each winning card still live (4 − held − seen). The bot caches the search for the
    # winning kinds by hand and melds; it cached the weighted total instead, so a hand met again after more of its
    # winning cards were seen kept the live count of the earlier moment (a stale value: a fresh bot disagreed).
    rules = find_rules(rules_name)
    kept = HeuristicBot(rules)
    checked = 0
    for i in range(30):
        state = new_hand(rules, seed=f"heuristic-cache:{i}", dealer=i % rules.table.seats)
        while not state.over and checked < 40:
            seat = state.to_act()[0]
            view = state.view(seat, log=False)
            if isinstance(view.legal[0], Discard):
                counts, melds, seen = kept._counts(view), kept._melds(view), kept._seen(view)
                for k in {a.kind for a in view.legal if isinstance(a, Discard)}:
                    counts[k] -= 1
                    if kept._wait_value(counts, melds, seen) > 0:  # a hand that waits: see one more winning card
                        wins = [w for w in range(len(seen)) if counts[w] + seen[w] < 4
                                and HeuristicBot(rules)._wait_value(counts, melds, [*seen[:w], 4, *seen[w + 1:]])
                                < HeuristicBot(rules)._wait_value(counts, melds, seen)]
                        later = list(seen)
                        later[wins[0]] += 1
                        assert kept._wait_value(counts, melds, later) == HeuristicBot(rules)._wait_value(
                            counts, melds, later) < kept._wait_value(counts, melds, seen), (i, k)
                        checked += 1
                    counts[k] += 1
            state.apply(kept.choose(view))
    assert checked == 40  # enough waiting hands met
