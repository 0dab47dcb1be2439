"""The 叫牌 hint of an update is remembered (daer.server.table.hints): the remembered answer is the one a fresh search
gives, at every step of whole hands of every preset, and hidden seats' cards play no part in it."""

from __future__ import annotations

import gc

import pytest

from daer.bots import HeuristicBot
from daer.cards import N_KINDS, kind_of
from daer.engine import new_hand
from daer.engine.views import ShownMeld, View
from daer.hands import Meld, MeldKind, waits
from daer.rules import find_rules, preset_names
from daer.rules.model import Ruleset
from daer.server.table import hints


def searched(rules: Ruleset, view: View) -> tuple[tuple[int, int], ...]:
    """The hint computed from scratch (what the room computed on every update before it was remembered)."""
    if view.seat is None or view.phase == "over" or not view.hand or view.actor == view.seat:
        return ()
    counts = [0] * N_KINDS
    for cid in view.hand:
        counts[kind_of(cid)] += 1
    melds = tuple(Meld(MeldKind(m.kind), m.kinds) for m in view.melds[view.seat])
    return tuple((w.kind, w.hu) for w in waits(rules, tuple(counts), melds) if w.hu >= rules.win.min_hu)


def test_the_remembered_hint_is_the_searched_one_at_every_step() -> None:
    hints.forget()
    checked = hits = nonempty = 0
    for name in preset_names():
        rules = find_rules(name)
        for i in range(3):
            st = new_hand(rules, seed=f"hints:{name}:{i}", dealer=i % rules.table.seats)
            bots = [HeuristicBot(rules) for _ in range(rules.table.seats)]
            while not st.over:
                for seat in [*range(rules.table.seats), None]:
                    view = st.view(seat, log=False)
                    before = len(hints._known)
                    got = hints.waits_hint(rules, view)
                    hits += len(hints._known) == before
                    assert got == searched(rules, view), (name, i, seat)
                    assert hints.waits_hint(rules, view) == got  # asked again: remembered
                    checked += 1
                    nonempty += bool(got)
                s = st.to_act()[0]
                st.apply(bots[s].choose(st.view(s, log=False)))
    assert checked > 1_000 and nonempty > 0 and hits > checked // 2
    for _ in range(4):  # ints, strings and tuples of them: the collector stops tracking the remembered hints
        gc.collect()  # (a tuple once the ones in it are untracked: one level of nesting a collection)
    left = [(k, v) for k, v in hints._known.items() if gc.is_tracked(k) or gc.is_tracked(v)]
    assert not left, left[:3]


def test_the_remembered_hints_stay_bounded_and_keep_what_is_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two generations of at most LIMIT entries: a hint asked for again survives a generation's end (it moves to
    the current one), the table never holds more than twice LIMIT, and the answers stay the searched ones."""
    monkeypatch.setattr(hints, "LIMIT", 50)
    hints.forget()
    rules = find_rules("luzhou")
    views = []
    for i in range(120):
        st = new_hand(rules, seed=f"bounded:{i}", dealer=0)
        views.append(st.view(1, log=False))  # seat 1 holds its dealt cards, not to act
    kept = views[0]
    first = hints.waits_hint(rules, kept)
    sizes = []
    for view in views[1:]:
        assert hints.waits_hint(rules, view) == searched(rules, view)
        assert hints.waits_hint(rules, kept) == first == searched(rules, kept)  # asked for at every step
        sizes.append(len(hints._known) + len(hints._older))
    assert max(sizes) <= 2 * hints.LIMIT
    assert len(set(map(id, [hints._known, hints._older]))) == 2 and len(hints._older) > 0  # generations turned
    counts = tuple(sum(1 for c in kept.hand if kind_of(c) == k) for k in range(N_KINDS))
    assert any(k[2][:N_KINDS] == bytes(counts) for k in hints._known)  # still in the current generation
    hints.forget()


def test_a_generation_ends_after_its_time_so_a_quiet_server_holds_only_recent_hints(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A generation also ends AGE seconds after its first entry: what a quiet server holds is the hints of the last
    two generations' time, and a hint asked for again is kept; one not asked for leaves after two ends."""
    now = [1000.0]
    monkeypatch.setattr(hints, "_clock", lambda: now[0])
    hints.forget()
    rules = find_rules("luzhou")
    views = [new_hand(rules, seed=f"aged:{i}", dealer=0).view(1, log=False) for i in range(4)]
    asked, dropped, third, fourth = views
    hints.waits_hint(rules, asked)
    hints.waits_hint(rules, dropped)
    assert len(hints._known) == 2 and not hints._older
    now[0] += hints.AGE - 1  # not yet: one generation
    hints.waits_hint(rules, third)
    assert (len(hints._known), len(hints._older)) == (3, 0)
    now[0] += 2  # the current generation is older than AGE: the next new hint starts another
    hints.waits_hint(rules, fourth)
    assert (len(hints._known), len(hints._older)) == (1, 3)
    assert hints.waits_hint(rules, asked) == searched(rules, asked)  # moved back to the current generation
    now[0] += hints.AGE
    hints.waits_hint(rules, third)  # a hit in the one before: moved back, and it starts the next generation
    assert (len(hints._known), len(hints._older)) == (1, 2)  # third; fourth and asked (the first one dropped)
    keys = set(hints._known) | set(hints._older)
    counts = tuple(sum(1 for c in dropped.hand if kind_of(c) == k) for k in range(N_KINDS))
    assert not any(k[2][:N_KINDS] == bytes(counts) for k in keys)  # never asked for again: gone
    assert hints.waits_hint(rules, dropped) == searched(rules, dropped)
    hints.forget()


def test_hands_and_melds_that_differ_never_share_a_remembered_hint() -> None:
    """The packed key (counts, then each meld's kind, length and kinds) tells apart what the hint depends on."""
    peng = ShownMeld(kind="peng", kinds=(3, 3, 3))
    chi = ShownMeld(kind="chi", kinds=(3, 4, 5))
    counts = [0] * N_KINDS
    counts[7] = 2
    other = list(counts)
    other[8] = 1
    packed = {hints._packed(c, own) for c in (counts, other) for own in ((), (peng,), (chi,), (peng, chi), (chi, peng))}
    assert len(packed) == 10


def test_a_matchs_kept_hint_is_the_searched_one_at_every_step() -> None:
    """Match.waits_of keeps each seat's last hint while its hand and melds stay the same: at every step of whole
    hands of every preset, for every seat, it gives what a fresh search gives."""
    from daer.server.safety.bounds import RoomConfig  # noqa: PLC0415
    from daer.server.table.match import Match  # noqa: PLC0415
    from daer.server.table.seating import Seat  # noqa: PLC0415

    checked = kept = nonempty = 0
    for name in preset_names():
        rules = find_rules(name)
        for i in range(6):
            n = rules.table.seats
            match = Match(code="T", config=RoomConfig(rules=name), rules=rules, seats=[Seat(s) for s in range(n)],
                          scores=[0] * n)
            st = new_hand(rules, seed=f"kept:{name}:{i}", dealer=i % n)
            bots = [HeuristicBot(rules) for _ in range(n)]
            while True:
                for seat in range(n):
                    view = st.view(seat, log=False)
                    before = dict(match.hints)
                    got = match.waits_of(view)
                    assert got == searched(rules, view), (name, i, seat)
                    kept += match.hints == before and seat in before
                    nonempty += bool(got)
                    checked += 1
                if st.over:
                    break
                s = st.to_act()[0]
                st.apply(bots[s].choose(st.view(s, log=False)))
    assert checked > 1_000 and kept > checked // 4 and nonempty > 50, (checked, kept, nonempty)
