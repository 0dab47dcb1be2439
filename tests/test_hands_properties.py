"""Properties of hand evaluation against the slow reference enumerator (RULES-NOTES: "Among all valid
arrangements of a hand the one with the most 胡 counts"; results must not depend on card order or notation;
a 坎 is never split)."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from daer.cards import COPIES, N_KINDS, format_kinds, from_counts, kind_ascii, kind_char, parse_counts
from daer.hands import GroupKind, evaluate, iter_arrangements, waits
from daer.hands.analysis import all_kinds
from daer.hands.samples import Sample, random_complete, random_one_short
from daer.rules import find_rules, with_overrides

R = find_rules("luzhou")
RULESETS = [R, with_overrides(R, {"hu.peng": [1, 3, 3, 6]}), with_overrides(R, {"win.pair_with_quad": False})]
SETTINGS = settings(max_examples=150, deadline=None)
seeds = st.integers(0, 2**32 - 1)


def all_cards(s: Sample) -> Counter[int]:
    cards = Counter(from_counts(s.hand))
    for m in s.melds:
        cards.update(m.cards)
    if s.win is not None:
        cards[s.win] += 1
    return cards


def reference_best(rules, hand, melds, win) -> int | None:
    """Most 胡 over every valid arrangement by exhaustive enumeration, None when there is none."""
    arrangements = iter_arrangements(rules, hand, tuple(melds), win)
    return max((sum(g.hu for g in a) for a in arrangements), default=None)


def copies_ok(hand, melds, win) -> bool:
    return all(0 <= n <= COPIES for n in all_kinds(hand, melds, win))


@SETTINGS
@given(seeds)
def test_random_complete_hands_are_complete(seed):
    s = random_complete(random.Random(seed))
    e = evaluate(R, s.hand, s.melds, s.win)
    assert e.complete, e.reason
    assert len(e.groups) == 7


@SETTINGS
@given(seeds)
def test_the_arrangement_uses_exactly_the_given_cards(seed):
    s = random_complete(random.Random(seed))
    e = evaluate(R, s.hand, s.melds, s.win)
    assert Counter(kind for g in e.groups for kind in g.cards) == all_cards(s)
    # the table melds come first, marked as melds
    assert [g.meld for g in e.groups[: len(s.melds)]] == [True] * len(s.melds)


@SETTINGS
@given(seeds, st.sampled_from(RULESETS))
def test_hu_is_the_maximum_over_all_arrangements_and_the_sum_of_the_groups(seed, rules):
    s = random_complete(random.Random(seed))
    e = evaluate(rules, s.hand, s.melds, s.win)
    ref = reference_best(rules, s.hand, s.melds, s.win)
    assert e.hu == sum(g.hu for g in e.groups)
    assert e.complete == (ref is not None)
    assert e.hu == (ref or 0)
    if rules.win.pair_with_quad:  # the samples are built under the pair-iff-quad rule
        assert e.complete


@SETTINGS
@given(seeds)
def test_pair_iff_quad_and_dealt_kan_never_split(seed):
    s = random_complete(random.Random(seed))
    e = evaluate(R, s.hand, s.melds, s.win)
    kinds = [g.kind for g in e.groups]
    quads = sum(1 for x in kinds if x in (GroupKind.LONG, GroupKind.ZHAO))
    assert kinds.count(GroupKind.PAIR) == (1 if quads else 0)
    for kind in range(N_KINDS):
        if s.hand[kind] >= 3:  # a dealt 坎/垅 lies whole in one three/four of a kind
            assert any(len(set(g.cards)) == 1 and len(g.cards) >= 3 and g.cards[0] == kind for g in e.groups)


@SETTINGS
@given(seeds, st.randoms(use_true_random=False), st.booleans())
def test_card_order_and_notation_do_not_change_the_result(seed, shuffler, reverse_melds):
    s = random_complete(random.Random(seed))
    base = evaluate(R, s.hand, s.melds, s.win)
    kinds = from_counts(s.hand)
    shuffler.shuffle(kinds)
    text = "".join(kind_ascii(x) if shuffler.random() < 0.5 else kind_char(x) for x in kinds)
    melds = tuple(reversed(s.melds)) if reverse_melds else s.melds
    texts = (text, format_kinds(kinds, ascii=True), format_kinds(kinds))
    for hand in map(parse_counts, texts):
        e = evaluate(R, hand, melds, s.win)
        assert e.complete and e.hu == base.hu
        assert Counter(e.groups) == Counter(base.groups)


@SETTINGS
@given(seeds, st.randoms(use_true_random=False))
def test_perturbed_hands_agree_with_the_reference(seed, rnd):
    s = random_complete(random.Random(seed))
    hand = list(s.hand)
    present = [kind for kind in range(N_KINDS) if hand[kind]]
    if present:  # swap one concealed card for another kind
        hand[rnd.choice(present)] -= 1
        hand[rnd.randrange(N_KINDS)] += 1
    win = s.win if rnd.random() < 0.7 else rnd.randrange(N_KINDS)
    if not copies_ok(hand, s.melds, win):
        return
    hand_t = tuple(hand)
    e = evaluate(R, hand_t, s.melds, win)
    ref = reference_best(R, hand_t, s.melds, win)
    assert e.complete == (ref is not None)
    assert e.hu == (ref or 0)
    if not e.complete:
        assert e.reason_zh and e.reason_en and e.groups == ()


@settings(max_examples=60, deadline=None)
@given(seeds, st.sampled_from(RULESETS))
def test_waits_agree_with_evaluating_each_kind_and_with_the_reference(seed, rules):
    s = random_one_short(random.Random(seed))
    got = {w.kind: w.hu for w in waits(rules, s.hand, s.melds)}
    for kind in range(N_KINDS):
        if not copies_ok(s.hand, s.melds, kind):
            assert kind not in got
            continue
        e = evaluate(rules, s.hand, s.melds, kind)
        assert (kind in got) == e.complete
        if e.complete:
            assert got[kind] == e.hu == reference_best(rules, s.hand, s.melds, kind)
        else:
            assert reference_best(rules, s.hand, s.melds, kind) is None


@settings(max_examples=100, deadline=None)
@given(seeds)
def test_one_short_position_waits_on_its_own_winning_card(seed):
    rng = random.Random(seed)
    s = random_complete(rng)
    if s.win is None:
        return
    w = {x.kind: x.hu for x in waits(R, s.hand, s.melds)}
    assert s.win in w
    assert w[s.win] == evaluate(R, s.hand, s.melds, s.win).hu


def test_fast_path_equals_exhaustive_search_on_2500_random_hands():
    """Plain loop: the fast path returns exactly what exhaustive search returns, complete hands and
    one-card perturbations alike, with 0, 1 and 2 quads."""
    rng = random.Random(20240601)
    checked = complete = 0
    for i in range(2500):
        s = random_complete(rng, quads=(None, 0, 1, 2)[i % 4])
        cases = [(s.hand, s.win)]
        hand = list(s.hand)
        present = [kind for kind in range(N_KINDS) if hand[kind]]
        if present:
            hand[rng.choice(present)] -= 1
            hand[rng.randrange(N_KINDS)] += 1
            cases.append((tuple(hand), s.win))
        if s.win is not None:
            dealt = list(s.hand)
            dealt[s.win] += 1
            cases.append((tuple(dealt), None))  # the same cards judged as a dealt hand (天胡)
        for h, win in cases:
            if not copies_ok(h, s.melds, win):
                continue
            e = evaluate(R, h, s.melds, win)
            ref = reference_best(R, h, s.melds, win)
            assert e.complete == (ref is not None), (format_kinds(from_counts(h)), s.melds, win)
            assert e.hu == (ref or 0), (format_kinds(from_counts(h)), s.melds, win)
            checked += 1
            complete += e.complete
    assert checked >= 5000
    assert complete >= 2500
