"""The catch-up of an update reads the hand's marks from the end (daer.server.table.marks ``catch_up`` / ``own_steps``):
for any marks that grow in version and log length, the same answer as a scan of them all."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from daer.server.table.marks import catch_up as _since
from daer.server.table.marks import own_steps as _own_steps

Marks = list[tuple[int, int, int | None]]


@st.composite
def hand_marks(draw: st.DrawFn) -> Marks:
    """Marks as a hand makes them: public steps raise the version, private ones (a seat's claim choice) keep
    it; the log grows or stays."""
    v, n = draw(st.integers(0, 5)), draw(st.integers(0, 3))
    marks: Marks = [(v, n, None)]
    for public, grow, seat in draw(st.lists(st.tuples(st.booleans(), st.integers(0, 3), st.integers(0, 3)),
                                            max_size=40)):
        v += 1 if public else 0
        n += grow
        marks.append((v, n, None if public else seat))
    return marks


@given(hand_marks(), st.integers(0, 50), st.sampled_from([None, 0, 1, 2, 3]))
def test_reading_the_marks_from_the_end_gives_what_a_full_scan_gives(marks: Marks, since: int,
                                                                     seat: int | None) -> None:
    start = max((n for v, n, who in marks if v <= since and who is None), default=0)
    mine = [n for v, n, who in marks if v == since and who == seat and n >= start]
    assert _since(marks, since, seat) == (start, mine)
    last = marks[-1][0]
    if seat is not None:
        assert _own_steps(marks, last, seat) == sum(1 for v, _, who in marks if v == last and who == seat)
