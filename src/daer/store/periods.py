"""The periods of 战绩, settle-up sheets and leaderboards: days, weeks (Monday first), months and seasons
(quarters) of China Standard Time (UTC+8), where the game is played, or a range of dates.

>>> from datetime import datetime
>>> now = datetime(2026, 3, 4, 23, 30, tzinfo=CST).timestamp()  # a Wednesday, late evening in 泸州
>>> start, end = period_bounds("week", now)
>>> datetime.fromtimestamp(start, CST).isoformat(), (end - start) / 86400
('2026-03-02T00:00:00+08:00', 7.0)
>>> [datetime.fromtimestamp(t, CST).date().isoformat() for t in period_bounds("season", now)]
['2026-01-01', '2026-04-01']
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

OFFSET = 8 * 3600
"""Seconds China Standard Time is ahead of UTC."""
CST = timezone(timedelta(seconds=OFFSET), "CST")
"""China Standard Time (UTC+8): the days, weeks, months and seasons of every period."""
PERIODS = ("today", "yesterday", "week", "month", "season", "range")
"""What ``?period=`` may be (``range`` with ``from`` and ``to``)."""
LEADER_PERIODS = ("week", "month", "season")
"""The leaderboards' periods."""
MAX_RANGE_DAYS = 400
"""The longest ``range`` (in days, both ends included)."""


class PeriodError(ValueError):
    """A period that is not one of :data:`PERIODS`, or a bad range: ``zh`` and ``en`` say why."""

    def __init__(self, zh: str, en: str) -> None:
        super().__init__(en)
        self.zh = zh
        self.en = en


def _midnight(d: date) -> float:
    return datetime(d.year, d.month, d.day, tzinfo=CST).timestamp()


def _date(text: str | None, which: str) -> date:
    if text is None or len(text) != 10:
        raise PeriodError(f"{which} 须是日期 YYYY-MM-DD", f"{which} must be a date YYYY-MM-DD")
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise PeriodError(f"{which} 不是有效日期：{text[:10]}", f"{which} is not a valid date: {text[:10]}") from None


def period_bounds(period: str, now: float, from_: str | None = None, to: str | None = None) -> tuple[float, float]:
    """``[start, end)`` of ``period`` containing ``now`` (seconds since the epoch), as seconds since the epoch;
    ``range``: the days ``from_`` to ``to`` (``YYYY-MM-DD``, both included, at most :data:`MAX_RANGE_DAYS`).
    Raises :class:`PeriodError` otherwise."""
    today = datetime.fromtimestamp(now, CST).date()
    if period == "today":
        first, days = today, 1
    elif period == "yesterday":
        first, days = today - timedelta(days=1), 1
    elif period == "week":
        first, days = today - timedelta(days=today.weekday()), 7
    elif period in ("month", "season"):
        month = today.month if period == "month" else 3 * ((today.month - 1) // 3) + 1
        first = date(today.year, month, 1)
        n = 1 if period == "month" else 3
        y, m = divmod(first.month - 1 + n, 12)
        return _midnight(first), _midnight(date(first.year + y, m + 1, 1))
    elif period == "range":
        first, last = _date(from_, "from"), _date(to, "to")
        if last < first:
            raise PeriodError("结束日期早于开始日期", "to is before from")
        days = (last - first).days + 1
        if days > MAX_RANGE_DAYS:
            raise PeriodError(f"时间范围最多 {MAX_RANGE_DAYS} 天", f"a range is at most {MAX_RANGE_DAYS} days")
    else:
        raise PeriodError(f"period 须是 {' / '.join(PERIODS)} 之一", f"period must be one of {', '.join(PERIODS)}")
    return _midnight(first), _midnight(first + timedelta(days=days))


def cst_day(at: float) -> int:
    """The CST day number of a moment: days since 1970-01-01 in UTC+8."""
    return int((at + OFFSET) // 86400)


def cst_month(at: float) -> int:
    """The CST month of a moment: year × 12 + month − 1."""
    d = datetime.fromtimestamp(at, CST)
    return d.year * 12 + d.month - 1


def pieces(start: float, end: float) -> tuple[list[tuple[int, int]], tuple[int, int] | None]:
    """A period of whole CST days ``[start, end)`` as the fewest roll-up rows to read: ``[day, day)`` ranges at its
    ends and the ``[month, month)`` of the whole months between (None when there is none)."""
    first, stop = cst_day(start), cst_day(end)
    epoch = date(1970, 1, 1)
    d0, d1 = epoch + timedelta(days=first), epoch + timedelta(days=stop)
    m0 = d0.year * 12 + d0.month - 1 + (0 if d0.day == 1 else 1)  # the first whole month
    m1 = d1.year * 12 + d1.month - 1  # the month after the last whole one
    if m1 <= m0:
        return [(first, stop)], None

    def day_number(month: int) -> int:
        return (date(month // 12, month % 12 + 1, 1) - epoch).days

    days = [(a, b) for a, b in ((first, day_number(m0)), (day_number(m1), stop)) if a < b]
    return days, (m0, m1)


def day_of(at: float) -> str:
    """The CST date of a moment, ``YYYY-MM-DD``."""
    return datetime.fromtimestamp(at, CST).date().isoformat()


__all__ = ["CST", "LEADER_PERIODS", "MAX_RANGE_DAYS", "OFFSET", "PERIODS", "PeriodError", "cst_day", "cst_month",
           "day_of", "period_bounds", "pieces"]
