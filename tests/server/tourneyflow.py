"""A whole club tournament driven over HTTP against a running server (a ``daer serve`` child, or a cluster behind
its balancer): players made, a club, registrations, every round started and waited for, and the checks that
hold for any tournament — the same decks at every table, records sealed during a round and verifying after it,
duplicate scores that add up, Swiss rounds without a repeat when one can be avoided."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from daer.engine import HandRecord, loads
from daer.engine.fairness import check, commitment
from daer.server.tourney.pairing import met_pairs, repeats
from daer.server.tourney.service import set_commitment


def device(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, headers={"content-type": "application/json"}, timeout=20)


def _retry(call: Any, *args: Any, **kw: Any) -> httpx.Response:
    """A request retried while the balancer has no worker for it or its room is moving (503 moved)."""
    deadline = time.monotonic() + 30
    while True:
        try:
            res: httpx.Response = call(*args, **kw)
        except httpx.TransportError:
            res = None  # type: ignore[assignment]
        if (res is not None and res.status_code not in (502, 503)) or time.monotonic() > deadline:
            assert res is not None
            return res
        time.sleep(0.2)


def setup(url: str, players: int, rounds: int, hands: int) -> tuple[httpx.Client, list[httpx.Client], str, int,
                                                                   list[int]]:
    """A club with ``players`` registered for a new tournament: (owner, players, club number, tournament, ids)."""
    owner = device(url)
    assert _retry(owner.post, "/api/rooms", json={"name": "群主", "config": {"timer": 0}}).status_code == 200
    n = _retry(owner.post, "/api/clubs", json={"name": "复式圈", "config": {"timer": 0}}).json()["number"]
    secret = _retry(owner.post, f"/api/clubs/{n}/invites", json={"hours": 1, "uses": players + 1}).json()["url"]
    people = [device(url) for _ in range(players)]
    for p in people:
        assert _retry(p.post, "/api/clubs/join", json={"secret": secret.split("#invite=")[1]}).status_code == 200
    res = _retry(owner.post, f"/api/clubs/{n}/tourneys", json={"name": "复式赛", "config": {"timer": 0},
                                                               "rounds": rounds, "hands": hands})
    assert res.status_code == 201, res.text
    t = res.json()["id"]
    ids = []
    for p in people:
        assert _retry(p.post, f"/api/clubs/{n}/tourneys/{t}/register", json={}).status_code == 200
        ids.append(_retry(p.get, "/api/me").json()["id"])
    return owner, people, n, t, ids


def wait_round(owner: httpx.Client, n: str, t: int, number: int, *, timeout: float = 120) -> dict[str, Any]:
    """The tournament's view once round ``number`` is over."""
    deadline = time.monotonic() + timeout
    while True:
        view: dict[str, Any] = _retry(owner.get, f"/api/clubs/{n}/tourneys/{t}").json()
        if len(view["rounds"]) >= number and view["rounds"][number - 1]["status"] == "done":
            return view
        assert time.monotonic() < deadline, view["tables"]
        time.sleep(0.3)


def check_round(people: list[httpx.Client], view: dict[str, Any], number: int, hands: int, folder: Path, *,
                verify_cli: bool) -> None:
    """A round that is over: its seeds match their commitments, every table's records verify and hold the same
    deck for each hand."""
    rnd = view["rounds"][number - 1]
    assert [commitment(s) for s in rnd["seeds"]] == rnd["commits"]
    for hand in range(1, hands + 1):
        decks = set()
        for tb in view["tables"]:
            res = _retry(people[0].get, f"/api/rooms/{tb['code']}/hands/{hand}/record")
            assert res.status_code == 200, res.text
            rec = loads(res.text)
            assert isinstance(rec, HandRecord) and rec.fairness is not None
            assert check(rec.fairness, rec.deck) is None and rec.fairness.seed == rnd["seeds"][hand - 1]
            decks.add(tuple(rec.deck))
            if verify_cli and hand == 1 and tb["table"] == 1:
                path = folder / f"r{number}.json"
                path.write_text(res.text)
                out = subprocess.run([sys.executable, "-m", "daer", "verify", str(path)], capture_output=True,
                                     text=True, timeout=60, check=False)
                assert out.returncode == 0, out.stdout + out.stderr
        assert len(decks) == 1  # the same deck at every table


def run_tournament(url: str, folder: Path, *, players: int = 12, rounds: int = 3, hands: int = 4,
                   verify_cli: bool = True) -> dict[str, Any]:
    """Play a whole tournament of ``players`` (all in 托管) and check it; the final view."""
    owner, people, n, t, ids = setup(url, players, rounds, hands)
    earlier: list[list[int]] = []
    view: dict[str, Any] = {}
    for number in range(1, rounds + 1):
        res = _retry(owner.post, f"/api/clubs/{n}/tourneys/{t}/start", json={})
        assert res.status_code == 200 and res.json() == {"round": number}, res.text
        view = _retry(owner.get, f"/api/clubs/{n}/tourneys/{t}").json()
        seated = [[s["player"] for s in tb["seats"] if s["player"] is not None] for tb in view["tables"]]
        assert sorted(p for tb in seated for p in tb) == sorted(ids)
        rnd = view["rounds"][number - 1]
        assert rnd["seeds"] is None and rnd["commitment"] == set_commitment(rnd["commits"])
        if number > 1 and players % 4 == 0 and players >= 16:  # enough players: no repeat is needed
            assert sum(repeats(tb, met_pairs(earlier)) for tb in seated) == 0
        sealed = _retry(people[0].get, f"/api/rooms/{view['tables'][0]['code']}/hands/1/record")
        assert sealed.status_code == 403, sealed.text
        earlier += seated
        view = wait_round(owner, n, t, number)
        check_round(people, view, number, hands, folder, verify_cli=verify_cli)
    assert view["status"] == "finished"
    lines = view["standings"]
    assert sorted(x["player"] for x in lines) == sorted(ids)
    assert all(x["hands"] == rounds * hands for x in lines)
    for x in lines:  # the hands of a round nobody played themselves (all in 托管): the round forfeited, never a gain
        assert set(x["forfeits"]) <= set(range(1, rounds + 1))
        assert not x["forfeits"] or all(x["rounds"][str(r)] <= 0 for r in x["forfeits"])
    for h in view["hands_compared"]:  # each deck position's duplicate scores sum to zero across the tables
        assert abs(sum(x["dup"] for x in h["tables"] if x["dup"] is not None)) < 0.05
    return view
