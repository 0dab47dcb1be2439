"""The hot path's counters and histograms (daer.server.ops.tallies): lock-free, and scraped exactly as
prometheus-client's own Counter and Histogram with the same values (issue 12 item 1)."""

from __future__ import annotations

import random
import threading

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from daer.server.ops import metrics, tallies
from daer.server.ops.tallies import Tally

BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


def _samples(registry: CollectorRegistry) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample but the creation times (which differ by the microsecond)."""
    text = generate_latest(registry).decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value for fam in text_string_to_metric_families(text)
            for s in fam.samples if not s.name.endswith("_created")}


def _families(registry: CollectorRegistry) -> dict[str, tuple[str, str]]:
    text = generate_latest(registry).decode()
    return {fam.name: (fam.type, fam.documentation) for fam in text_string_to_metric_families(text)}


def test_a_tally_is_scraped_as_the_librarys_counter_and_histogram_with_the_same_values() -> None:
    mine, theirs = CollectorRegistry(), CollectorRegistry()
    hist = Tally("t_seconds", "Time", ["op"], buckets=BUCKETS, registry=mine)
    ref_hist = Histogram("t_seconds", "Time", ["op"], buckets=BUCKETS, registry=theirs)
    count = Tally("t_events", "Events", ["by"], registry=mine)
    ref_count = Counter("t_events", "Events", ["by"], registry=theirs)
    plain = Tally("t_plain_seconds", "Plain", buckets=(1, 2, 5), registry=mine)
    ref_plain = Histogram("t_plain_seconds", "Plain", buckets=(1, 2, 5), registry=theirs)
    rng = random.Random(7)
    # bounds themselves (a bucket counts values up to and including its bound), values past the last one
    values = [*BUCKETS, 0.0, 3.0, 1e9, *(rng.expovariate(200) for _ in range(3 * tallies.FOLD_EVERY))]
    for i, v in enumerate(values):
        op = ("a", "b", "c")[i % 3]
        hist.labels(op=op).observe(v)
        ref_hist.labels(op=op).observe(v)
        count.labels(by=op).inc()
        ref_count.labels(by=op).inc()
        plain.observe(v * 1000)
        ref_plain.observe(v * 1000)
    count.labels("z").inc(2.5)
    ref_count.labels("z").inc(2.5)
    got, want = _samples(mine), _samples(theirs)
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert abs(got[key] - value) <= 1e-9 * max(1.0, abs(value)), key
    assert _families(mine) == _families(theirs)
    assert got[("t_seconds_count", (("op", "a"),))] == len(values[::3])
    assert count.value("z") == 2.5 and hist.value("b") == len(values[1::3]) and count.value("nobody") == 0.0
    # the creation time of each series is there too, as the library's
    created = {s.name for fam in mine.collect() for s in fam.samples if s.name.endswith("_created")}
    assert created == {"t_seconds_created", "t_events_created", "t_plain_seconds_created"}


def test_counts_from_many_threads_are_never_lost() -> None:
    registry = CollectorRegistry()
    count = Tally("t_racing", "Racing", registry=registry)
    hist = Tally("t_racing_seconds", "Racing", buckets=(0.5,), registry=registry)
    per, threads = 20_000, 4

    def work() -> None:
        for _ in range(per):
            count.inc()
            hist.observe(0.25)

    pool = [threading.Thread(target=work) for _ in range(threads)]
    for t in pool:
        t.start()
    for _ in range(50):  # scrapes while they count
        generate_latest(registry)
    for t in pool:
        t.join()
    samples = _samples(registry)
    assert samples[("t_racing_total", ())] == per * threads
    assert samples[("t_racing_seconds_bucket", (("le", "0.5"),))] == per * threads
    assert samples[("t_racing_seconds_sum", ())] == per * threads * 0.25


def test_the_servers_hot_metrics_keep_their_names_and_kinds() -> None:
    families = _families(metrics.REGISTRY)
    assert families["daer_actions"][0] == "counter"
    for name in ("daer_action_seconds", "daer_store_write_seconds", "daer_bot_think_seconds",
                 "daer_store_group_units", "daer_gc_pause_seconds"):
        assert families[name][0] == "histogram", name
    before = metrics.ACTIONS.value("server")
    metrics.ACTIONS_BY["server"].inc()
    assert metrics.ACTIONS.value("server") == before + 1
