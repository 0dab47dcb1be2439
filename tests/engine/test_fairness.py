"""The verifiable deal (commit–reveal): the deck as a function of seed and entropy, its check and ``daer verify``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from daer.bots import HeuristicBot
from daer.bots.runner import play_hand
from daer.cli.main import app
from daer.engine import dumps, loads, replay
from daer.engine.fairness import Fairness, check, commitment, derive_deck, is_entropy, new_seed
from daer.engine.record import HandRecord
from daer.engine.state import GameState
from daer.rules import find_rules

runner = CliRunner()
hexes = st.text("0123456789abcdef", min_size=1, max_size=64)
seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)


@settings(max_examples=60, deadline=None)
@given(seed=seeds, entropy=st.lists(st.one_of(st.just(""), hexes), min_size=4, max_size=4))
def test_the_deck_is_a_permutation_fixed_by_seed_and_entropy(seed: str, entropy: list[str]) -> None:
    deck = derive_deck(seed, entropy)
    assert sorted(deck) == list(range(80))
    assert derive_deck(seed, list(entropy)) == deck
    # any seat's entropy changes the deal (so no party alone chooses it)
    other = [*entropy[:2], entropy[2] + "0" if len(entropy[2]) < 64 else "1", entropy[3]]
    assert derive_deck(seed, other) != deck


def test_commitment_is_sha256_of_the_seed_bytes() -> None:
    seed = new_seed()
    assert len(seed) == 64
    assert commitment(seed) == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    assert new_seed() != seed


def test_entropy_shape() -> None:
    assert is_entropy("0f" * 32)
    for bad in ("", "0" * 65, "ABCD", "xyz", "12 3"):
        assert not is_entropy(bad)


def test_every_card_is_about_equally_likely_on_top() -> None:
    # chi-square of the first card over 4,000 fixed seeds: 79 degrees of freedom, p = 0.001 at 124.8
    n = 4000
    counts = [0] * 80
    for i in range(n):
        seed = hashlib.sha256(str(i).encode()).hexdigest()
        counts[derive_deck(seed, ["", "", "", ""])[0]] += 1
    expected = n / 80
    chi2 = sum((c - expected) ** 2 / expected for c in counts)
    assert chi2 < 124.8, chi2


def _fair_record(entropy: tuple[str, ...] = ("ab", "", "0123", "")) -> HandRecord:
    seed = new_seed()
    deck = derive_deck(seed, entropy)
    state = GameState(find_rules(), deck, dealer=0)
    play_hand(state, {s: HeuristicBot() for s in range(4)})
    return HandRecord(rules="luzhou", deck=tuple(deck), dealer=0, actions=tuple(state.actions),
                      fairness=Fairness(commitment=commitment(seed), seed=seed, entropy=entropy))


def test_check_accepts_the_true_deal_and_names_each_tampering() -> None:
    rec = _fair_record()
    fair, deck = rec.fairness, list(rec.deck or ())
    assert fair is not None
    assert check(fair, deck) is None
    swapped = [deck[1], deck[0], *deck[2:]]
    problem = check(fair, swapped)
    assert problem is not None and "deck" in problem[1]
    other_seed = msgspec.structs.replace(fair, seed=new_seed())
    problem = check(other_seed, deck)
    assert problem is not None and "commitment" in problem[1]
    other_commit = msgspec.structs.replace(fair, commitment=commitment(new_seed()))
    problem = check(other_commit, deck)
    assert problem is not None and "commitment" in problem[1]
    dropped = msgspec.structs.replace(fair, entropy=("", "", "0123", ""))
    problem = check(dropped, deck)
    assert problem is not None and "deck" in problem[1]


def test_records_with_fairness_round_trip_and_version_1_records_still_load() -> None:
    rec = _fair_record()
    text = dumps(rec)
    assert json.loads(text)["version"] == 2
    back = loads(text)
    assert back == rec
    assert replay(back).over
    old = json.loads(text)
    old["version"] = 1
    del old["fairness"]
    assert "fairness" not in dumps(loads(json.dumps(old)))
    assert replay(loads(json.dumps(old))).actions == replay(back).actions


def _write(path: Path, data: dict[str, object]) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_daer_verify_passes_a_true_deal_and_fails_each_tampering(tmp_path: Path) -> None:
    good = json.loads(dumps(_fair_record()))
    res = runner.invoke(app, ["verify", str(_write(tmp_path / "good.json", good))])
    assert res.exit_code == 0, res.output
    assert "✓" in res.output
    res = runner.invoke(app, ["verify", str(tmp_path / "good.json"), "--lang", "en"])
    assert res.exit_code == 0 and "verified" in res.output
    deck = good["deck"]
    tampered = {
        "deck": {**good, "deck": [deck[1], deck[0], *deck[2:]]},
        "seed": {**good, "fairness": {**good["fairness"], "seed": new_seed()}},
        "commitment": {**good, "fairness": {**good["fairness"], "commitment": "0" * 64}},
        "entropy": {**good, "fairness": {**good["fairness"], "entropy": ["ac", "", "0123", ""]}},
    }
    for name, data in tampered.items():
        res = runner.invoke(app, ["verify", str(_write(tmp_path / f"{name}.json", data)), "--lang", "en"])
        assert res.exit_code == 1, (name, res.output)
        assert "✗" in res.output and "Traceback" not in res.output


@pytest.mark.parametrize("data", [{"version": 2, "rules": "luzhou", "seed": 5}, "not json"])
def test_daer_verify_refuses_records_without_a_verifiable_deal(tmp_path: Path, data: object) -> None:
    path = tmp_path / "r.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    res = runner.invoke(app, ["verify", str(path)])
    assert res.exit_code == 1
    assert "Traceback" not in res.output and res.output.strip()
