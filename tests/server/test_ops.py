"""Operations endpoints of a real ``daer serve``: /healthz, /readyz and /metrics (Prometheus text format)."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from serving import TEST_LIMITS, Client, Server, get, post

import daer


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # Python's own collector settings: young collections come every 700 allocations, so some are timed here
    srv = Server(tmp_path_factory.mktemp("ops") / "daer.db", bot_delay=0.0,
                 args=(*TEST_LIMITS, "--gc", "default")).start()
    yield srv
    srv.stop()


def scrape(server: Server, headers: dict[str, str] | None = None) -> dict[str, float]:
    """Every sample of /metrics, keyed by ``name{label=value,...}``."""
    req = urllib.request.Request(f"{server.url}/metrics", headers=headers or {})
    with urllib.request.urlopen(req, timeout=10) as res:
        assert res.headers["content-type"].startswith("text/plain")
        body = res.read().decode()
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(body):
        for s in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
            out[f"{s.name}{{{labels}}}"] = s.value
    return out


def test_healthz_and_readyz_answer_once_the_rooms_are_restored(server: Server) -> None:
    assert get(f"{server.url}/healthz") == (200, {"ok": True})
    status, body = get(f"{server.url}/readyz")
    assert status == 200 and body["ok"] is True
    assert isinstance(body["rooms"], int)


def test_metrics_parse_and_grow_with_the_actions_of_a_bot_table(server: Server) -> None:
    before = scrape(server)
    for g in ("0", "1", "2"):  # the collector's pauses are listed per generation from the start
        assert f"daer_gc_pause_seconds_count{{generation={g}}}" in before
    status, r = post(f"{server.url}/api/rooms", {"name": "A", "config": {"timer": 0}})
    assert status == 200
    c = Client(server, r["code"], token=r["token"])
    assert c.cmd("start")["t"] == "ack"
    acted = 0
    while acted < 3:
        upd = c.state(lambda m: (m["view"] is not None and bool(m["view"]["legal"]))
                      or m["room"]["status"] == "between")
        if upd["room"]["status"] == "between":  # a bot won this random deal first (CI once: 5 ms after the deal)
            assert c.cmd("next")["t"] == "ack"
            c.until(lambda m, v=upd["v"]: m["t"] == "update" and m["v"] > v)  # the next hand's deal
            continue
        reply = c.act(upd["view"]["legal"][0])
        assert reply["t"] == "ack", reply
        acted += 1
    after = scrape(server)
    c.close()
    assert after["daer_actions_total{by=player}"] - before["daer_actions_total{by=player}"] == 3
    assert after["daer_actions_total{by=server}"] > before["daer_actions_total{by=server}"]  # the 3 bots
    assert after["daer_action_seconds_count{}"] - before["daer_action_seconds_count{}"] == 3
    assert after["daer_store_write_seconds_count{op=append_action}"] > 3
    # every stored action went through a group commit, some of them together with others
    commit = "daer_store_write_seconds_count{op=commit}"
    commits = after[commit] - before.get(commit, 0)
    units = after["daer_store_group_units_sum{}"] - before["daer_store_group_units_sum{}"]
    assert 0 < commits <= units and units >= 3 + 3
    assert any(k.startswith("daer_bot_think_seconds_count{bot=") and v > 0 for k, v in after.items())
    # the started room, playing or (when a bot won the hand within the 3 actions of this random deal: it failed
    # so once) between hands or finished
    started = [v for k, v in after.items() if k.startswith("daer_tables{") and k != "daer_tables{status=waiting}"]
    assert sum(started) >= 1
    assert after["daer_connections{}"] >= 1
    assert "process_resident_memory_bytes{}" in after
    assert after["daer_compiled_modules{}"] == len(daer.COMPILED)  # the served engine's build, for the operator
    assert after["daer_gc_pause_seconds_count{generation=0}"] > before["daer_gc_pause_seconds_count{generation=0}"]
    assert after["daer_gc_pause_max_seconds{generation=0}"] > 0
    # the CPU a pause took is at most its wall time (give or take the two clocks' resolution)
    cpu, wall = after["daer_gc_pause_cpu_max_seconds{generation=0}"], after["daer_gc_pause_max_seconds{generation=0}"]
    assert 0 < cpu < wall + 1e-3


def test_metrics_are_not_served_through_a_proxy_by_default(server: Server) -> None:
    with pytest.raises(urllib.error.HTTPError) as err:
        scrape(server, {"X-Forwarded-For": "203.0.113.9"})
    assert err.value.code == 404


def test_metrics_can_be_switched_off_and_health_stays_with_the_collector_tuned(tmp_path: Path) -> None:
    srv = Server(tmp_path / "daer.db", args=(*TEST_LIMITS, "--metrics", "off", "--gc", "default")).start()
    try:
        assert get(f"{srv.url}/metrics")[0] == 404
        assert get(f"{srv.url}/healthz")[0] == 200
    finally:
        srv.stop()
