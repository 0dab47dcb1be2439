"""Club tournaments' arithmetic (issue 21, item 5): duplicate scores, the seat rotation, Swiss pairing —
properties over many random fields and deal sets (Hypothesis), each against the rule it checks."""

from __future__ import annotations

from collections import Counter, defaultdict
from fractions import Fraction
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from daer.server.tourney.pairing import Met, byes, met_pairs, pair, repeats
from daer.server.tourney.scoring import Played, comparison, dealer_of, duplicate, position_of, standings


@st.composite
def rounds(draw: st.DrawFn) -> list[Played]:
    """A round's results: tables × hands × 4 seats with any points, some seats bots."""
    tables = draw(st.integers(1, 6))
    hands = draw(st.integers(1, 8))
    out = []
    for t in range(tables):
        for h in range(1, hands + 1):
            d = dealer_of(t, h, 4)
            for s in range(4):
                player = None if draw(st.integers(0, 9)) == 0 else t * 4 + s
                out.append(Played(1, t, h, s, player, draw(st.integers(-200, 200)), d))
    return out


@given(rounds(), st.booleans())
@settings(max_examples=150, deadline=None)
def test_duplicate_scores_of_a_deck_position_sum_to_zero_across_tables(rows: list[Played], bots_count: bool) -> None:
    scores = duplicate(rows, bots_count=bots_count)
    by_deal: dict[tuple[int, int], Fraction] = defaultdict(Fraction)
    for r in rows:
        key = (r.round, r.table, r.hand, r.seat)
        if key in scores:
            by_deal[(r.hand, r.position)] += scores[key]
        else:  # only a bot's seat is left out, and only when bots do not count
            assert r.player is None and not bots_count
    assert all(v == 0 for v in by_deal.values())


@given(rounds())
@settings(max_examples=80, deadline=None)
def test_a_seat_that_alone_held_its_cards_scores_its_points_minus_itself(rows: list[Played]) -> None:
    tables = {r.table for r in rows}
    scores = duplicate(rows)
    if len(tables) == 1:
        assert all(v == 0 for v in scores.values())
    # the same points everywhere for one deck position: nobody gains or loses on it
    same = [Played(r.round, r.table, r.hand, r.seat, r.player, r.position * 10, r.dealer) for r in rows]
    assert all(v == 0 for v in duplicate(same).values())


@given(st.integers(1, 12), st.integers(1, 4))
def test_every_seat_holds_every_position_over_a_round(tables: int, laps: int) -> None:
    hands = 4 * laps
    for t in range(tables):
        held = Counter((s, position_of(s, dealer_of(t, h, 4), 4)) for h in range(1, hands + 1) for s in range(4))
        assert set(held.values()) == {laps} and len(held) == 16
    # and a deck's position is held by a different seat at each of four neighbouring tables
    for h in range(1, hands + 1):
        for start in range(max(1, tables - 3)):
            seats = {dealer_of(t, h, 4) for t in range(start, min(start + 4, tables))}  # who holds position 0
            assert len(seats) == min(4, tables - start)


def brute_min(players: list[int], met: Counter[tuple[int, int]]) -> int:
    """The fewest repeated meetings of any split of ``players`` into tables of four (every split tried)."""
    if not players:
        return 0
    head, rest = players[0], players[1:]
    best = 10**9
    for others in combinations(rest, 3):
        table = [head, *others]
        best = min(best, repeats(table, met) + brute_min([p for p in rest if p not in others], met))
    return best


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[int], Counter[tuple[int, int]]]:
    n = draw(st.sampled_from([4, 8, 12]))
    players = draw(st.permutations(list(range(100, 100 + n))))
    earlier = []
    for _ in range(draw(st.integers(0, 3))):
        order = draw(st.permutations(players))
        earlier += [order[i:i + 4] for i in range(0, n, 4)]
    return list(players), met_pairs(earlier)


@given(histories())
@settings(max_examples=60, deadline=None)
def test_swiss_never_repeats_table_mates_when_it_can_be_avoided(case: tuple[list[int], Met]) -> None:
    ranked, met = case
    tables = pair(ranked, met)
    assert sorted(p for t in tables for p in t) == sorted(ranked)
    assert all(len(t) == 4 for t in tables)
    assert sum(repeats(t, met) for t in tables) == brute_min(ranked, met)


@given(st.integers(1, 24))
def test_swiss_seats_similar_standings_together(tables: int) -> None:
    ranked = [7 * i + 3 for i in range(4 * tables)]  # best first
    assert pair(ranked, Counter()) == [ranked[i:i + 4] for i in range(0, len(ranked), 4)]


def test_swiss_in_round_two_keeps_the_leaders_together_without_repeats() -> None:
    ranked = list(range(16))
    first = pair(ranked, Counter())
    second = pair(ranked, met_pairs(first))
    assert sum(repeats(t, met_pairs(first)) for t in second) == 0
    assert second[0][0] == 0 and max(second[0]) <= 12  # the leader's table drawn from the top of the ranking


def test_byes_go_to_the_lowest_ranked_who_have_not_sat_out() -> None:
    ranked = list(range(10))
    assert byes(ranked, 4, set()) == [9, 8]
    assert byes(ranked, 4, {9}) == [8, 7]
    assert byes(list(range(8)), 4, set()) == []


@given(rounds())
@settings(max_examples=60, deadline=None)
def test_standings_add_up_and_are_ordered(rows: list[Played]) -> None:
    players = sorted({r.player for r in rows if r.player is not None})
    lines = standings(players, rows)
    assert [line.key() for line in lines] == sorted(line.key() for line in lines)
    for line in lines:
        mine = [r for r in rows if r.player == line.player]
        assert line.points == sum(r.points for r in mine) and line.hands == len(mine)
        assert line.score == sum(line.rounds.values())
    if all(r.player is not None for r in rows):
        assert sum(line.score for line in lines) == 0
    hands = comparison(rows)
    assert sum(len(h["tables"]) for h in hands) == len(rows)  # type: ignore[arg-type]


@given(st.lists(st.tuples(st.integers(-30, 30), st.booleans()), min_size=8, max_size=8),
       st.lists(st.integers(-30, 30), min_size=8, max_size=8))
def test_a_late_player_forfeits_the_round_and_never_gains_by_it(first: list[tuple[int, bool]],
                                                                   second: list[int]) -> None:
    """Late players forfeit a round, not the tournament: a player whose every hand of a round ended in 托管 scores
    that round at most 0 and at most the lowest score of anyone who came; the next round counts as played."""
    players = list(range(1, 9))

    def rows(rnd: int, pts: list[int], auto: list[bool]) -> list[Played]:
        out = []
        for i, pid in enumerate(players):  # two tables of four, one hand, the second table's deal one seat on
            table, seat = divmod(i, 4)
            dealer = dealer_of(table, 1, 4)
            out.append(Played(rnd, table, 1, seat, pid, pts[i] - (sum(pts[table * 4:table * 4 + 4]) if seat == 3
                                                                  else 0), dealer, 4, auto[i]))
        return out

    one = rows(1, [p for p, _a in first], [a for _p, a in first])
    two = rows(2, second, [False] * 8)
    lines = {x.player: x for x in standings(players, [*one, *two])}
    came = [lines[p].rounds[1] for p, (_pts, auto) in zip(players, first, strict=True) if not auto]
    for p, (_pts, auto) in zip(players, first, strict=True):
        assert (1 in lines[p].forfeits) == auto and 2 not in lines[p].forfeits
        if auto:
            assert lines[p].rounds[1] <= 0 and all(lines[p].rounds[1] <= c for c in came)
        assert lines[p].score == lines[p].rounds[1] + lines[p].rounds[2]
