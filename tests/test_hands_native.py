"""The two fast paths — native accelerator and cached pure Python — against the slow reference."""

from __future__ import annotations

import os
import random

import pytest

from daer.hands import iter_arrangements
from daer.hands.analysis import all_kinds
from daer.hands.evaluate import Evaluator, evaluator_for
from daer.hands.samples import Sample, random_complete, random_one_short
from daer.rules import find_rules, with_overrides

RULES = find_rules("luzhou")


def _evaluators() -> list[Evaluator]:
    return [Evaluator(RULES, native=True), Evaluator(RULES, native=False)]


def test_native_accelerator_is_built_unless_pure_python_is_asked() -> None:
    # the README's install builds it; DAER_PURE_PYTHON=1 is the documented way to turn it off
    assert evaluator_for(RULES).native is (not os.environ.get("DAER_PURE_PYTHON"))
    assert not Evaluator(RULES, native=False).native


def _perturbed(rng: random.Random, s: Sample) -> Sample | None:
    hand = list(s.hand)
    k = rng.randrange(20)
    if hand[k]:
        hand[k] -= 1
        hand[rng.randrange(20)] += 1
    if max(all_kinds(tuple(hand), s.melds, s.win)) > 4:
        return None
    return Sample(tuple(hand), s.melds, s.win)


def _reference(rules, s: Sample) -> int | None:  # type: ignore[no-untyped-def]
    return max((sum(g.hu for g in a) for a in iter_arrangements(rules, s.hand, s.melds, s.win)), default=None)


@pytest.mark.parametrize("native", [True, False], ids=["native", "python"])
@pytest.mark.parametrize("rules_name", ["luzhou", "red-peng-3-6"])
def test_best_hu_equals_exhaustive_search(native: bool, rules_name: str) -> None:
    rules = RULES if rules_name == "luzhou" else with_overrides(RULES, {"hu.peng": [1, 3, 3, 6]})
    ev = Evaluator(rules, native=native)
    rng = random.Random(7 if native else 8)
    checked = 0
    while checked < 1500:
        s = random_complete(rng)
        if checked % 2:
            s = _perturbed(rng, s) or s
        got = ev.best(s.hand, s.melds, s.win)
        assert (None if got is None else got[0]) == _reference(rules, s), s
        if got is not None:
            # the arrangement uses exactly the hand's cards and its 胡 adds up
            cards = sorted(c for _, group, _ in got[1] for c in group)
            mine = sorted(k for k in range(20) for _ in range(s.hand[k] + (s.win == k)))
            assert cards == mine
        checked += 1


@pytest.mark.parametrize("native", [True, False], ids=["native", "python"])
def test_waits_equal_one_evaluation_per_kind(native: bool) -> None:
    ev = Evaluator(RULES, native=native)
    rng = random.Random(11)
    for i in range(1500):
        s = random_one_short(rng)
        if i % 2:
            s = _perturbed(rng, s) or s
        used = all_kinds(s.hand, s.melds, None)
        available = [4 - n for n in used]
        expected = []
        for k in range(20):
            if available[k] > 0:
                best = _reference(RULES, Sample(s.hand, s.melds, k)) if i < 200 else None
                fast = ev.best(s.hand, s.melds, k)
                if i < 200:
                    assert (None if fast is None else fast[0]) == best
                if fast is not None:
                    expected.append((k, fast[0]))
        assert ev.waits(s.hand, s.melds, available) == expected, s


def test_native_and_python_agree_on_the_hu_of_every_hand() -> None:
    native, python = _evaluators()
    rng = random.Random(3)
    for _ in range(3000):
        s = random_complete(rng)
        a, b = native.best(s.hand, s.melds, s.win), python.best(s.hand, s.melds, s.win)
        assert (a is None) == (b is None)
        assert a is None or b is None or a[0] == b[0]
