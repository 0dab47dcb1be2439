"""``--gc tuned``: the survivors of every collection are frozen, so no collection walks the rooms again; every
pause is timed into /metrics (daer.server.ops.metrics, issue 12 item 1)."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest

from daer.server.ops import metrics
from daer.server.ops.collector import YoungCollector


@pytest.fixture
def tuned() -> Iterator[None]:
    """The process's collector as ``daer serve --gc tuned`` leaves it, put back afterwards."""
    threshold, callbacks = gc.get_threshold(), list(gc.callbacks)
    metrics.tune_gc("tuned")
    metrics.freeze_after_restore("tuned")
    metrics.watch_gc()
    try:
        yield
    finally:
        gc.callbacks[:] = callbacks
        gc.unfreeze()
        gc.set_threshold(*threshold)


def _samples(name: str) -> float:
    return sum(s.value for fam in metrics.REGISTRY.collect() for s in fam.samples if s.name == name)


def test_the_survivors_of_a_young_collection_are_frozen_and_never_walked_again(tuned: None) -> None:
    assert gc.get_threshold()[0] == metrics.GC_THRESHOLD[0]
    frozen = gc.get_freeze_count()
    kept = [[i] for i in range(20_000)]  # 20,000 new tracked objects that stay alive (new room state)
    gc.collect(0)
    assert gc.get_freeze_count() >= frozen + 20_000
    young = len(gc.get_objects(0)) + len(gc.get_objects(1)) + len(gc.get_objects(2))
    assert young < 100  # what the test's own calls made since, not the 20,000
    more = [[i] for i in range(100)]
    assert len(gc.get_objects(0)) >= 100  # only what was made since the last collection is young
    assert kept[-1] == [19_999] and more[0] == [0]


def test_every_collection_is_timed_into_the_metrics(tuned: None) -> None:
    before = _samples("daer_gc_pause_seconds_count"), _samples("daer_gc_pause_cpu_seconds_count")
    for _ in range(3):
        gc.collect(0)
    assert _samples("daer_gc_pause_seconds_count") == before[0] + 3
    assert _samples("daer_gc_pause_cpu_seconds_count") == before[1] + 3  # wall and CPU time of each pause


def test_the_frozen_count_is_walked_at_most_once_an_interval_not_at_every_scrape(
        tuned: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Counting the frozen objects walks them all (0.12-0.16 s of the loop at 2,000 tables): every scrape did."""
    walks: list[int] = []  # what each walk counted
    real = gc.get_freeze_count

    def walk() -> int:
        walks.append(real())
        return walks[-1]

    monkeypatch.setattr(gc, "get_freeze_count", walk)
    metrics._frozen.at = float("-inf")
    first = _samples("daer_gc_frozen_objects")
    assert len(walks) == 1 and first == walks[0]  # (frozen objects other threads free may lower it at once)
    kept = [[i] for i in range(1_000)]
    gc.collect(0)  # 1,000 more frozen
    young = {id(o) for g in range(3) for o in gc.get_objects(g)}
    assert not any(id(k) in young for k in kept)  # they are frozen ...
    assert _samples("daer_gc_frozen_objects") == first and len(walks) == 1  # ... yet the last count is reused
    monkeypatch.setattr(metrics, "FROZEN_EVERY", 0.0)
    assert _samples("daer_gc_frozen_objects") == walks[-1] and len(walks) == 2  # walked again once it is due
    assert kept[-1] == [999]


def test_default_leaves_pythons_collector_alone() -> None:
    threshold, callbacks = gc.get_threshold(), list(gc.callbacks)
    metrics.tune_gc("default")
    metrics.freeze_after_restore("default")
    assert gc.get_threshold() == threshold and gc.callbacks == callbacks


def test_freed_frozen_objects_hide_young_ones_from_the_count_and_the_timed_collection_walks_them(tuned: None) -> None:
    """Why ``--gc tuned`` also collects on a clock (daer.server.ops.collector): freeing old, frozen objects lowers
    the collector's count, so the young list grows far past the threshold without a collection; the timed
    collection walks it and freezes it all the same."""
    old = [[i] for i in range(30_000)]
    gc.collect(0)  # frozen by the tuned callback
    young = []
    while old:  # a loaded server: the last hand's state freed while the next is made
        old.pop()
        young.append([len(old)])
    assert gc.get_count()[0] < metrics.GC_THRESHOLD[0]  # the count saw no growth: no collection ran ...
    assert len(gc.get_objects(0)) >= 30_000  # ... though 30,000 young objects wait for the next one

    async def one_tick() -> int:
        collector = YoungCollector(every=0.001)
        collector.start()
        await asyncio.sleep(0.05)
        collector.stop()
        return len(gc.get_objects(0))

    assert asyncio.run(one_tick()) < 1_000  # walked and frozen by the timed collection
    assert young[0] == [29_999]
