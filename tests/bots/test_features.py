"""The learned bot's per-candidate 听 and feeding numbers (daer.bots.features): they are what the hands layer
says of the hand a candidate leaves, they come from the view alone, and a network reading them plays legally."""

from __future__ import annotations

import random

import numpy as np

from daer.bots.features import MORE, candidate_more
from daer.bots.heuristic import HeuristicBot
from daer.bots.learned import MORE_FEATURES, PAIR_FEATURES, LearnedBot, QNet, candidate_rows, candidates
from daer.cards import N_KINDS
from daer.engine import new_hand
from daer.engine.actions import Discard, Pass, Peng
from daer.engine.encoding import N_ACTIONS, encode_view, legal_indices
from daer.engine.views import View
from daer.hands import Meld, MeldKind, waits
from daer.rules import find_rules


def _counts(view: View) -> list[int]:
    c = [0] * N_KINDS
    for cid in view.hand:
        c[cid // 4] += 1
    return c


def _walk(rules_name: str, hands: int, seed: str):  # type: ignore[no-untyped-def]
    rules = find_rules(rules_name)
    policy = HeuristicBot(rules)
    rng = random.Random(seed)
    for hand in range(hands):
        state = new_hand(rules, seed=f"{seed}:{hand}", dealer=hand % rules.table.seats)
        while not state.over:
            view = state.view(state.to_act()[0], log=False)
            yield rules, policy, view
            state.apply(policy.choose(view) if rng.random() < 0.8 else rng.choice(view.legal))


def test_the_waits_after_a_discard_or_a_pass_are_the_hands_layers() -> None:
    """听 / the number of winning kinds / their most 胡 match ``daer.hands.waits`` (the kinds that complete the
    hand with at least the minimum 胡) for the hand a discard or a 过 leaves."""
    checked = {"discard": 0, "pass": 0, "ting": 0, "near": 0}
    for rules, policy, view in _walk("luzhou", 30, "more"):
        legal = view.legal
        cands = [legal[i] for i in candidates(view, policy)]
        if len(cands) < 2 or (not isinstance(cands[0], Discard | Pass) and Pass not in map(type, cands)):
            continue
        rows = candidate_more(view, cands, policy)
        assert rows.shape == (len(cands), MORE)
        melds = tuple(Meld(MeldKind(m.kind), m.kinds) for m in view.melds[view.seat or 0])
        for a, row in zip(cands, rows, strict=True):
            c = _counts(view)
            if isinstance(a, Discard):
                c[a.kind] -= 1
                checked["discard"] += 1
            elif isinstance(a, Pass):
                checked["pass"] += 1
            else:
                continue
            wins = [w for w in waits(rules, c, melds) if w.hu >= rules.win.min_hu]
            assert row[0] == bool(wins), (a, c)
            assert round(float(row[1]) * 5) == len(wins)
            if wins:
                checked["ting"] += 1
                assert abs(float(row[4]) * 20 - max(w.hu for w in wins)) < 1e-3
                assert row[16] == row[17] == 0  # the "how close to 听" numbers are for hands not 听
            elif row[16] > 0 and checked["near"] < 15:
                # some kind taken in, then a discard, leaves the hand 听 by the hands layer's reading
                assert any(_ting_after(rules, c, melds, x, d) for x in range(N_KINDS) for d in range(N_KINDS))
                checked["near"] += 1
    assert checked["discard"] > 200 and checked["pass"] > 20 and checked["ting"] > 20 and checked["near"] >= 5


def _ting_after(rules, c: list[int], melds: tuple[Meld, ...], x: int, d: int) -> bool:  # type: ignore[no-untyped-def]
    h = list(c)
    h[x] += 1
    if h[d] == 0 or d == x or h[x] > 3:
        return False
    h[d] -= 1
    return any(w.hu >= rules.win.min_hu for w in waits(rules, h, melds))


def test_a_peng_is_valued_by_the_best_discard_after_it() -> None:
    """After a 碰 the seat must discard: the numbers are those of its best following discard."""
    found = 0
    for rules, policy, view in _walk("luzhou", 40, "peng"):
        peng = [a for a in view.legal if isinstance(a, Peng)]
        if not peng or view.offer is None:
            continue
        row = candidate_more(view, [peng[0]], policy)[0]
        k = view.offer.kind
        c = _counts(view)
        c[k] -= 2
        melds = (*(Meld(MeldKind(m.kind), m.kinds) for m in view.melds[view.seat or 0]), Meld(MeldKind.PENG, (k,) * 3))
        best = 0
        for d in range(N_KINDS):
            if 0 < c[d] < 3:
                c[d] -= 1
                best = max(best, len([w for w in waits(rules, c, melds) if w.hu >= rules.win.min_hu]))
                c[d] += 1
        assert row[14] == 1.0 and round(float(row[1]) * 5) <= best
        assert row[0] == (best > 0)
        found += 1
    assert found > 5


def test_a_network_reading_them_computes_its_rows_and_plays_legally() -> None:
    rng = np.random.default_rng(4)
    layers = [(rng.normal(size=(MORE_FEATURES, 8)).astype(np.float32), rng.normal(size=8).astype(np.float32)),
              (rng.normal(size=(8, 1)).astype(np.float32), np.zeros(1, np.float32))]
    net = QNet(layers, {"target": "advantage", "form": "pair", "margin": 0.0})
    assert net.more
    for name in ("luzhou", "paohuzi"):
        rules = find_rules(name)
        bot = LearnedBot(rules, net=net)
        deviations = decisions = 0
        for step, (_, policy, view) in enumerate(_walk(name, 6, "morenet")):
            choice = bot.choose(view)
            assert choice in view.legal
            cands = candidates(view, policy)
            if len(view.legal) > 1 and len(cands) > 1 and not step % 7:
                # the fast path computes the plain product of [view, candidate numbers, 听 numbers, one-hot]
                idx = [legal_indices(view)[i] for i in cands]
                more = candidate_more(view, [view.legal[i] for i in cands], policy)
                obs = encode_view(view)
                rows = candidate_rows(obs, idx)
                cut = PAIR_FEATURES - N_ACTIONS
                x = np.concatenate([rows[:, :cut], more, rows[:, cut:]], axis=1)
                assert np.allclose(net.candidate_values(obs, idx, more), net.values(x)[:, 0], atol=1e-4)
            if len(view.legal) > 1:
                decisions += 1
                deviations += choice != bot.policy.choose(view)
        assert 0 < deviations < decisions
