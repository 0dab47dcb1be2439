"""Counters and histograms for the hot path, in the Prometheus text format of prometheus-client's own.

prometheus-client's ``Counter.inc`` and ``Histogram.observe`` take a mutex for every value they change (a
histogram: its sum and a bucket), and the server counts or times something several times for every action
(the action, each store write, the bot's choice): measurable at 2,000 tables (issue 12).  Here a value is
only appended to a :class:`collections.deque` (one C call, atomic under the GIL, so safe from any thread);
the values are folded into the totals under a lock every :data:`FOLD_EVERY` values and at each scrape.

:class:`Tally` is a family (a counter or a histogram, with or without labels) registered with a
:class:`prometheus_client.CollectorRegistry` like the library's own metrics: the same names, samples and
help (``_total`` / ``_bucket`` / ``_count`` / ``_sum`` / ``_created``), read at scrape time.
"""

from __future__ import annotations

import threading
import time
from bisect import bisect_left
from collections import Counter, deque
from collections.abc import Iterator, Sequence
from functools import partial

from prometheus_client import CollectorRegistry
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

FOLD_EVERY = 4096
"""Values a child keeps unfolded at most (its memory between two scrapes is bounded)."""


class Child:
    """One labelled series: :meth:`inc` (a counter) or :meth:`observe` (a histogram), from any thread."""

    __slots__ = ("_bounds", "_counts", "_lock", "_pending", "created", "sum")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self._bounds = bounds
        self._pending: deque[float] = deque()
        self._lock = threading.Lock()
        self._counts = [0] * (len(bounds) + 1)
        """Values per bucket (not cumulative), the last one ``+Inf``; a counter has that one only."""
        self.sum = 0.0
        self.created = time.time()

    def observe(self, value: float) -> None:
        """Count ``value`` (a histogram: in the first bucket whose bound is at least ``value``)."""
        pending = self._pending
        pending.append(value)
        if len(pending) >= FOLD_EVERY:
            self.fold()

    def inc(self, amount: float = 1.0) -> None:
        """Add ``amount`` (a counter)."""
        self.observe(amount)

    def fold(self) -> None:
        """Fold the values appended so far into the totals (the values appended meanwhile stay for the next)."""
        with self._lock:
            take = self._pending.popleft
            values = [take() for _ in range(len(self._pending))]  # what others append meanwhile stays
            counts = self._counts
            if len(counts) == 1:
                counts[0] += len(values)
            else:
                for i, n in Counter(map(partial(bisect_left, self._bounds), values)).items():
                    counts[i] += n
            self.sum += sum(values)

    def snapshot(self) -> tuple[list[int], float]:
        """(values per bucket, sum) with everything appended so far."""
        self.fold()
        with self._lock:
            return list(self._counts), self.sum


class Tally(Collector):
    """A counter (``buckets=None``) or histogram family whose children count without a lock."""

    def __init__(self, name: str, documentation: str, labelnames: Sequence[str] = (), *,
                 buckets: Sequence[float] | None = None, registry: CollectorRegistry | None = None) -> None:
        self.name = name.removesuffix("_total") if buckets is None else name
        self.documentation = documentation
        self.labelnames = tuple(labelnames)
        self.bounds = () if buckets is None else tuple(float(b) for b in buckets if b != float("inf"))
        self.histogram = buckets is not None
        self._children: dict[tuple[str, ...], Child] = {}
        self._lock = threading.Lock()
        if not self.labelnames:
            self._children[()] = Child(self.bounds)
        if registry is not None:
            registry.register(self)

    def labels(self, *values: str, **named: str) -> Child:
        """The child of these label values (made on first use; look it up once on a hot path)."""
        key = tuple(str(v) for v in values) if values else tuple(str(named[n]) for n in self.labelnames)
        if len(key) != len(self.labelnames):
            raise ValueError(f"{self.name}: labels {self.labelnames}, got {key}")
        child = self._children.get(key)
        if child is None:
            with self._lock:
                child = self._children.setdefault(key, Child(self.bounds))
        return child

    def observe(self, value: float) -> None:
        """A family without labels: observe ``value``."""
        self._children[()].observe(value)

    def inc(self, amount: float = 1.0) -> None:
        """A family without labels: add ``amount``."""
        self._children[()].observe(amount)

    def value(self, *values: str) -> float:
        """A counter's total (or a histogram's count) for these label values; 0 before the first."""
        child = self._children.get(tuple(values))
        if child is None:
            return 0.0
        counts, total = child.snapshot()
        return float(sum(counts)) if self.histogram else total

    def collect(self) -> Iterator[Metric]:
        children = sorted(self._children.items())
        if self.histogram:
            family: Metric = HistogramMetricFamily(self.name, self.documentation, labels=self.labelnames)
            les = [*map(floatToGoString, self.bounds), "+Inf"]
            for key, child in children:
                counts, total = child.snapshot()
                cumulative, buckets = 0, []
                for le, n in zip(les, counts, strict=True):
                    cumulative += n
                    buckets.append((le, float(cumulative)))
                family.add_metric(list(key), buckets, total)  # type: ignore[attr-defined]
            yield family
            created = Metric(f"{self.name}_created", self.documentation, "gauge")
            for key, child in children:
                created.add_sample(f"{self.name}_created", dict(zip(self.labelnames, key, strict=True)),
                                   child.created)
            yield created
            return
        counter = CounterMetricFamily(self.name, self.documentation, labels=self.labelnames)
        for key, child in children:
            counter.add_metric(list(key), child.snapshot()[1], created=child.created)
        yield counter

    def describe(self) -> Iterator[Metric]:
        return self.collect()


__all__ = ["FOLD_EVERY", "Child", "Tally"]
