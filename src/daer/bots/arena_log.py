"""The arena's log: every finished deal on a line, so that a long run can stop and go on.

``daer arena --log FILE`` writes, after a header naming the ruleset, the bots and the
seed, one JSON line a deal as soon as it is played (flushed: a ``kill -9`` loses only
the deals in flight).  Run the same command again and the deals in the file are read
back instead of played; since a deal depends only on ``(seed, deal)`` and the deals
are folded in deal order, the summary is the one an unbroken run would have printed
(to the last bit of every float: JSON keeps a float's shortest exact form).  A run of
many hours can so be spread over several sittings, or made longer with a larger
``--hands``.  Wall-clock time adds up over the sittings (``seconds`` in each line is
the total so far).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import asdict, fields
from pathlib import Path
from typing import IO, Any

from daer.bots.arena_stats import DealResult

FORMAT = "daer-arena-log/1"


class ArenaLogError(ValueError):
    """The log file belongs to another run, or cannot be read."""


def _header(rules: str, bots: Sequence[str], seed: int | str) -> dict[str, Any]:
    return {"format": FORMAT, "rules": rules, "bots": list(bots), "seed": seed}


def _deal(data: dict[str, Any]) -> DealResult:
    names = {f.name for f in fields(DealResult)}
    missing = names - data.keys()
    if missing:
        raise ValueError(f"missing {sorted(missing)}")
    values: dict[str, Any] = {k: (tuple(data[k]) if isinstance(data[k], list) else data[k]) for k in names}
    return DealResult(**values)


class ArenaLog:
    """An open log: the deals it already holds, and :meth:`write` for each new one."""

    def __init__(self, path: Path, rules: str, bots: Sequence[str], seed: int | str) -> None:
        self.path = path
        self.done: dict[int, DealResult] = {}
        self.seconds_before = 0.0
        header = _header(rules, bots, seed)
        if path.exists() and path.stat().st_size > 0:
            self._read(header)
            self._file: IO[str] = path.open("a", encoding="utf-8")
        else:
            self._file = path.open("w", encoding="utf-8")
            self._line(header)

    def _read(self, header: dict[str, Any]) -> None:
        raw = self.path.read_bytes()
        lines = raw.split(b"\n")
        complete = lines[:-1]  # a run stopped while writing leaves a last line without its newline
        if lines[-1]:
            os.truncate(self.path, len(raw) - len(lines[-1]))
        try:
            first = json.loads(complete[0]) if complete else None
        except json.JSONDecodeError:
            first = None
        if first != header:
            raise ArenaLogError(
                f"记录文件 {self.path} 属于另一场比赛 (the log belongs to another run: it holds {first!r}, "
                f"this run is {header!r}); 换一个文件名 (give another file)")
        for n, line in enumerate(complete[1:], start=2):
            try:
                data = json.loads(line)
                result = _deal(data)
                seconds = float(data["seconds"])
            except (json.JSONDecodeError, ValueError, TypeError, KeyError) as exc:
                raise ArenaLogError(f"记录文件 {self.path} 第 {n} 行读不懂 (cannot read line {n} of the log): {exc}") \
                    from exc
            self.done[result.deal] = result
            self.seconds_before = max(self.seconds_before, seconds)

    def _line(self, data: dict[str, Any]) -> None:
        self._file.write(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._file.flush()

    def write(self, result: DealResult, seconds: float) -> None:
        """Append one finished deal; ``seconds``: this run's time so far (the sittings before are added)."""
        self._line({**asdict(result), "seconds": round(self.seconds_before + seconds, 3)})

    def close(self) -> None:
        """Close the file."""
        self._file.close()
