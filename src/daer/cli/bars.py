"""A progress bar for the long commands (``daer sim``, ``daer arena``), drawn by rich."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


@contextmanager
def progress_bar(console: Console, label: str, total: int) -> Iterator[Callable[[int], None]]:
    """Show a transient bar labelled ``label`` (Chinese first) and yield ``done(n)`` to move it to n of ``total``."""
    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=console, transient=True) as progress:
        task = progress.add_task(label, total=total)
        yield lambda n: progress.update(task, completed=n)
