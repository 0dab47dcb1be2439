"""The marks of a hand (version, log length, seat after each step) and how an update catches up with them.

:class:`daer.server.table.match.Match` keeps ``marks``: one (version, length of the log, seat) after each step,
seat None for a public step or the seat whose private step (a claim choice) it was.  A connection that has
version ``since`` gets the events after the last public step at or before it, less the private steps of its own
it already has.
"""

from __future__ import annotations

__all__ = ["catch_up", "own_steps"]


def catch_up(marks: list[tuple[int, int, int | None]], since: int, seat: int | None) -> tuple[int, list[int]]:
    """(log length at the last public step at or before version ``since``, log lengths after ``seat``'s own
    private steps at ``since`` from there on, in order).  ``marks`` grow in version and log length, so both are
    read from the end (the steps a connection missed are few; the hand's marks are many)."""
    start = 0
    for v, n, who in reversed(marks):
        if v <= since and who is None:
            start = n
            break
    mine = []
    for v, n, who in reversed(marks):
        if v < since:
            break
        if v == since and who == seat and n >= start:
            mine.append(n)
    mine.reverse()
    return start, mine


def own_steps(marks: list[tuple[int, int, int | None]], version: int, seat: int) -> int:
    """``seat``'s own private steps at ``version`` (the last version: they are at the end of ``marks``)."""
    k = 0
    for v, _, who in reversed(marks):
        if v != version:
            break
        k += who == seat
    return k
