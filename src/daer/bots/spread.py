"""Spreading independent units of work over processes or a Ray cluster, results in order.

The arena (and any self-play run built the same way) is a list of independent units —
deal ``i`` depends only on ``(seed, i)`` — so the work splits into chunks of indices
that any process may play.  :func:`spread` runs a picklable ``work(indices) -> results``
over those chunks:

- in this process (``workers=1``, the default);
- in a :class:`concurrent.futures.ProcessPoolExecutor` of ``workers`` processes;
- as Ray tasks (``ray="local"`` starts a local instance, any other value is the
  address of a running cluster, as ``ray.init(address=...)`` takes it).  Ray is an
  optional extra (``pip install 'daer[ray]'``); the machines of a cluster need daer
  installed too.

and yields the results **in index order** whatever order the chunks finish in, so
whoever folds them gets the same numbers as one process.  No cluster code of our own:
the pool is the standard library's, the cluster Ray's.
"""

from __future__ import annotations

import importlib
import math
import multiprocessing
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

RAY_MISSING = "需要安装 ray (Ray is not installed: pip install 'daer[ray]')"


class SpreadError(RuntimeError):
    """The work could not be spread as asked (Ray missing or unreachable)."""


def chunks(n: int, parts: int) -> list[range]:
    """``range(n)`` cut into about ``parts`` consecutive chunks (at least one index each).

    >>> [list(c) for c in chunks(7, 3)]
    [[0, 1, 2], [3, 4, 5], [6]]
    >>> chunks(0, 4)
    []
    """
    size = max(1, math.ceil(n / max(1, parts)))
    return [range(i, min(n, i + size)) for i in range(0, n, size)]


def cut(items: Sequence[int], parts: int, size: int | None = None) -> list[Sequence[int]]:
    """``items`` cut into consecutive chunks: about ``parts`` of them, or of ``size`` items each.

    >>> [list(c) for c in cut([2, 3, 5, 7, 11], 2)]
    [[2, 3, 5], [7, 11]]
    >>> [list(c) for c in cut([2, 3, 5], 9, size=1)]
    [[2], [3], [5]]
    """
    step = size if size is not None else max(1, math.ceil(len(items) / max(1, parts)))
    return [items[i:i + step] for i in range(0, len(items), step)]


def spread(work: Callable[[Sequence[int]], list[T]], n: int | Sequence[int], *, workers: int = 1,
           ray: str | None = None, chunk_size: int | None = None) -> Generator[T, None, None]:
    """``work`` over the indices ``0 … n-1`` (or over the indices given), its results yielded in index order.

    ``chunk_size`` fixes how many indices a task plays (default: about eight tasks a
    worker); a small one loses less when the run is stopped, a large one costs fewer
    round trips.
    """
    if workers < 1:
        raise ValueError(f"workers 至少 1 (at least one worker), got {workers}")
    if chunk_size is not None and chunk_size < 1:
        raise ValueError(f"chunk_size 至少 1 (at least one index a task), got {chunk_size}")
    items: Sequence[int] = range(n) if isinstance(n, int) else list(n)
    if ray is not None:
        yield from _ray(work, items, ray, workers, chunk_size)
    elif workers == 1:
        for i in items:
            yield from work([i])
    else:
        # Several chunks per worker so that a slow chunk does not leave the others idle,
        # and the caller's progress moves; forkserver: no fork of a process with threads.
        context = multiprocessing.get_context(
            "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn")
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)
        try:
            for results in pool.map(work, cut(items, workers * 8, chunk_size)):
                yield from results
        finally:  # stopped early (an error, Ctrl-C, the caller done): the tasks not started are dropped
            pool.shutdown(wait=True, cancel_futures=True)


def ray_module() -> Any:
    """The ``ray`` module, or :class:`SpreadError` saying how to install it."""
    try:
        return importlib.import_module("ray")
    except ImportError as exc:
        raise SpreadError(RAY_MISSING) from exc


def _ray(work: Callable[[Sequence[int]], list[T]], items: Sequence[int], address: str, workers: int,
         chunk_size: int | None) -> Iterator[T]:
    ray = ray_module()
    started = False
    if not ray.is_initialized():
        try:
            if address == "local":
                ray.init(num_cpus=workers if workers > 1 else None, include_dashboard=False,
                         log_to_driver=False)
            else:
                ray.init(address=address, log_to_driver=False)
        except (ConnectionError, ValueError, RuntimeError) as exc:
            raise SpreadError(f"连不上 Ray (cannot reach Ray at {address!r}): {exc}") from exc
        started = True
    try:
        task = ray.remote(_call)
        fn = ray.put(work)
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        refs = [task.remote(fn, list(c)) for c in cut(items, cpus * 8, chunk_size)]
        for ref in refs:
            yield from ray.get(ref)
    finally:
        if started:
            ray.shutdown()


def _call(work: Callable[[Sequence[int]], list[T]], indices: list[int]) -> list[T]:
    return work(indices)
