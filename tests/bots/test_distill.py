"""The distillation data (train/distill.py): its targets are the search bot's own rollout means for the same
decision, the shards resume where they stopped, and the fit (train/distill_fit.py, when torch is installed)
writes weights the learned bot plays legally with."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from daer.bots.heuristic import HeuristicBot
from daer.bots.learned import (
    DEFAULT_WEIGHTS,
    FEATURES,
    PAIR_EXTRA,
    PAIR_FEATURES,
    WEIGHTS_DIR,
    LearnedBot,
    QNet,
    after_hand,
    candidate_rows,
    offer_of,
)
from daer.bots.search import SearchBot
from daer.cards import N_KINDS
from daer.engine import new_hand
from daer.engine.actions import Hu, Pass
from daer.engine.encoding import N_ACTIONS, OBS_SIZE, encode_action, encode_view, legal_indices, offer_kind
from daer.engine.events import Claimed
from daer.rules import find_rules

ROOT = Path(__file__).resolve().parents[2]


def script(name: str) -> ModuleType:
    sys.path.insert(0, str(ROOT / "train"))
    try:
        spec = importlib.util.spec_from_file_location(name, ROOT / "train" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(ROOT / "train"))
    return mod


@pytest.fixture(scope="module")
def distill() -> ModuleType:
    return script("distill")


def test_the_targets_are_the_search_bots_means_for_that_decision(distill: ModuleType) -> None:
    rules = find_rules("luzhou")
    samples = distill.hand_samples(rules, "t", 3, worlds=3)
    assert len(samples) >= 5
    heuristic = HeuristicBot(rules)
    claims = {s["claim"] for s in samples}
    assert claims == {0, 1}  # both kinds of decision are searched
    for s in samples[:: max(1, len(samples) // 4)]:
        view = s["view"]
        bot = SearchBot(rules, f"distill:t:3:{s['decision']}", worlds=3, seconds=None)
        cands = bot.candidates(view)
        assert cands[0] == heuristic.choose(view)
        assert s["cand"] == [encode_action(a, offer_kind(view)) for a in cands]
        assert s["mean"] == pytest.approx([t / 3 for t in bot._search(view, cands)])
        assert np.array_equal(s["obs"], encode_view(view))
    # the same hand gives the same samples (seeded by hand and decision)
    again = distill.hand_samples(rules, "t", 3, worlds=3)
    assert [s["mean"] for s in again] == [s["mean"] for s in samples]


def test_shards_are_written_resumed_and_loaded(distill: ModuleType, tmp_path: Path) -> None:
    out = tmp_path / "data"
    base = ["--out", str(out), "--workers", "1", "--worlds", "2", "--seed", "s", "--shard-minutes", "0"]
    distill.main([*base, "--hands", "2"])
    distill.main([*base, "--hands", "3"])  # resumes at hand 2
    names = sorted(p.name for p in out.glob("w*.npz"))
    assert names == ["w0-0000000-0000000.npz", "w0-0000001-0000001.npz", "w0-0000002-0000002.npz"]
    d = distill.load(out)
    assert sorted(set(d["hand"].tolist())) == [0, 1, 2]
    assert (d["cand"][:, 0] == d["heur"]).all() and (d["cand"][:, 1] >= 0).all()
    direct = distill.pack(distill.hand_samples(find_rules("luzhou"), "s", 2, worlds=2))
    assert np.array_equal(d["mean"][d["hand"] == 2], direct["mean"])
    with pytest.raises(SystemExit):  # other settings in the same directory are refused
        distill.main([*base, "--hands", "4", "--worlds", "3"])


def test_kept_worlds_are_the_search_bots_worlds_and_the_offline_evaluation_reads_them(
        distill: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    rules = find_rules("luzhou")
    samples = distill.hand_samples(rules, "k", 1, worlds=4, keep_worlds=True)
    s = samples[0]
    bot = SearchBot(rules, f"distill:k:1:{s['decision']}", worlds=4, seconds=None)
    per_world: list[list[float]] = []
    totals = bot._search(s["view"], bot.candidates(s["view"]), per_world)
    assert s["pts"] == per_world and len(per_world) == 4
    assert [sum(w[i] for w in per_world) for i in range(len(totals))] == totals
    packed = distill.pack(samples)
    assert packed["pts"].shape == (len(samples), distill.MAX_CANDS, 4)
    used = packed["cand"] >= 0
    assert np.allclose(packed["pts"].mean(axis=2)[used], packed["mean"][used])
    # the offline evaluation runs on such data (a budget of 2 worlds, measured on the other 2)
    out = tmp_path / "data"
    distill.main(["--out", str(out), "--workers", "1", "--worlds", "4", "--seed", "k", "--hands", "2",
                  "--keep-worlds", "--more"])  # the shipped network reads the candidates' 听 numbers
    evaluate = script("hybrid_eval")
    monkeypatch.setattr(sys, "argv", ["hybrid_eval.py", str(out), "--budgets", "2", "--priors", "0,16",
                                      "--keep", "2"])
    evaluate.main()
    text = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in text.splitlines() if line.strip()}
    assert rows["hybrid:2:0"][1] == rows["search:2"][1]  # a prior of 0 is the search bot
    assert {"net", "search:2", "hybrid:2:16", "prune:2:2"} <= set(rows)


def test_the_fit_writes_weights_the_learned_bot_plays_with(distill: ModuleType, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    fit = script("distill_fit")
    out = tmp_path / "data"
    distill.main(["--out", str(out), "--workers", "1", "--worlds", "2", "--hands", "11", "--shard-minutes", "0"])
    for form, shape in (("pair", (PAIR_FEATURES, 16)), ("actions", (FEATURES, 16))):
        w = tmp_path / f"{form}.npz"
        log = fit.main([str(out), "--out", str(w), "--form", form, "--hidden", "16", "--epochs", "2", "--batch", "32"])
        assert len(log) == 2 and log[-1]["heldout_mse"] > 0 and "0.25" in log[-1]["gain"]
        net = QNet.load(w)
        assert net.layers[0][0].shape == shape and net.meta["target"] == "advantage"
        rules = find_rules("luzhou")
        bot = LearnedBot(rules, net=net)
        state = new_hand(rules, seed="fit", dealer=0)
        while not state.over:
            view = state.view(state.to_act()[0], log=False)
            choice = bot.choose(view)
            assert choice in view.legal
            state.apply(choice)
    # the exported numpy network computes what the torch one does (the pair form's embedding folded in)
    torch = pytest.importorskip("torch")
    pair = fit.PairNet(8)
    qn = fit.pair_qnet(pair, {})
    rows = candidate_rows(np.random.default_rng(3).random(OBS_SIZE, dtype=np.float32), [2, 7, 30])
    with torch.no_grad():
        want = pair(torch.from_numpy(rows[:, :OBS_SIZE]), torch.from_numpy(rows[:, OBS_SIZE:OBS_SIZE + PAIR_EXTRA]),
                    torch.tensor([2, 7, 30])).numpy() * fit.SCALE
    assert np.allclose(qn.values(rows)[:, 0], want, atol=1e-4)
    # an ensemble merged into one network computes the members' mean
    members = [fit.pair_qnet(fit.PairNet(8, layers=3), {}) for _ in range(3)]
    merged = fit.merge(members, {"form": "pair"})
    assert merged.layers[1][0].shape == (24, 24)
    assert np.allclose(merged.values(rows), np.mean([m.values(rows) for m in members], axis=0), atol=1e-5)
    log = fit.main([str(out), "--out", str(tmp_path / "e.npz"), "--ensemble", "2", "--hidden", "8", "--epochs", "1"])
    assert [r["member"] for r in log] == [0, 1, "ensemble"]
    assert QNet.load(tmp_path / "e.npz").layers[0][0].shape == (PAIR_FEATURES, 16)


def test_after_hand_is_the_hand_the_engine_leaves() -> None:
    """The "pair" form's hand after a candidate, from the observation and the action index alone, is the
    concealed hand the engine leaves once the action took effect (a claim another seat outranks changes nothing)."""
    rng = random.Random(5)
    checked: dict[str, int] = {}
    for rules_name in ("luzhou", "paohuzi"):
        rules = find_rules(rules_name)
        for hand in range(40):
            state = new_hand(rules, seed=f"after:{hand}", dealer=hand % rules.table.seats)
            while not state.over:
                seat = state.to_act()[0]
                view = state.view(seat, log=False)
                before = [int(v) for v in encode_view(view)[:N_KINDS]]
                pos = rng.randrange(len(view.legal))
                action = view.legal[pos]
                want = after_hand(before, legal_indices(view)[pos], offer_of(encode_view(view)))
                mark = len(state.log)
                state.apply(action)
                if state.over or isinstance(action, Hu | Pass):
                    continue
                got = [int(v) for v in encode_view(state.view(seat, log=False))[:N_KINDS]]
                # 跑胡子: the cards went by to the seat's own reveal, which it had to 偎 / 提 (not the action's doing)
                forced = any(isinstance(e, Claimed) and e.seat == seat and e.how in ("wei", "chou_wei", "ti")
                             for e in state.log[mark:])
                # it took effect, drew nothing, and laid no 垅 (four of a kind) beside it
                if got != before and sum(got) <= sum(before) and max(before) < 4 and not forced:
                    assert got == want, (rules_name, action)
                    checked[type(action).__name__] = checked.get(type(action).__name__, 0) + 1
    assert {"Discard", "Chi", "Peng"} <= set(checked)


def test_a_pair_network_chooses_legally_and_sometimes_leaves_the_heuristic() -> None:
    rng = np.random.default_rng(2)
    layers = [(rng.normal(size=(PAIR_FEATURES, 8)).astype(np.float32), rng.normal(size=8).astype(np.float32)),
              (rng.normal(size=(8, 1)).astype(np.float32), np.zeros(1, np.float32))]
    for name in ("luzhou", "paohuzi"):
        rules = find_rules(name)
        bot = LearnedBot(rules, net=QNet(layers, {"target": "advantage", "form": "pair", "margin": 0.0}))
        deviations = decisions = 0
        for hand in range(8):
            state = new_hand(rules, seed=f"pair:{hand}", dealer=hand % rules.table.seats)
            while not state.over:
                view = state.view(state.to_act()[0], log=False)
                choice = bot.choose(view)
                assert choice in view.legal
                if len(view.legal) > 1:
                    decisions += 1
                    deviations += choice != bot.policy.choose(view)
                state.apply(choice)
        assert 0 < deviations < decisions
    rows = candidate_rows(np.zeros(OBS_SIZE, np.float32), [3, 5])
    assert rows.shape == (2, PAIR_FEATURES) and rows[0, OBS_SIZE + PAIR_EXTRA - 1] == 1 and rows[1, -N_ACTIONS + 5] == 1


def test_candidate_values_compute_what_the_plain_network_computes() -> None:
    """The bot's shortcut (view part once, one-hot as a lookup, an ensemble block by block) changes no value."""
    rng = np.random.default_rng(4)
    h = 12
    plain = [(rng.normal(size=(PAIR_FEATURES, h)).astype(np.float32), rng.normal(size=h).astype(np.float32)),
             (rng.normal(size=(h, h)).astype(np.float32), rng.normal(size=h).astype(np.float32)),
             (rng.normal(size=(h, 1)).astype(np.float32), rng.normal(size=1).astype(np.float32))]
    block = [plain[0], (plain[1][0] * np.kron(np.eye(3), np.ones((4, 4))).astype(np.float32), plain[1][1]), plain[2]]
    nets = {"shipped": QNet.load(WEIGHTS_DIR / f"{DEFAULT_WEIGHTS}.npz"), "plain": QNet(plain, {"ensemble": 3}),
            "blocks": QNet(block, {"ensemble": 3})}
    for name, net in nets.items():
        for t in range(6):
            obs = rng.integers(0, 3, OBS_SIZE).astype(np.float32)
            cands = [int(a) for a in rng.choice(N_ACTIONS, size=1 + t % 5, replace=False)]
            rows = candidate_rows(obs, cands)
            more = rng.random((len(cands), net.more)).astype(np.float32) if net.more else None
            if more is not None:  # the 听 numbers sit between the candidate numbers and the one-hot
                cut = PAIR_FEATURES - N_ACTIONS
                rows = np.concatenate([rows[:, :cut], more, rows[:, cut:]], axis=1)
            want = net.values(rows)[:, 0]
            assert np.allclose(net.candidate_values(obs, cands, more), want, rtol=1e-4, atol=1e-4), name
    assert nets["blocks"]._blocks(1) == [(0, 4), (4, 8), (8, 12)] and nets["plain"]._blocks(1) == []
    assert nets["shipped"]._blocks(1)  # the shipped file is a merged ensemble


def test_replaying_old_shards_adds_the_same_ting_numbers_as_computing_them_live(
        distill: ModuleType, tmp_path: Path) -> None:
    """train/distill_more.py replays the hands of shards written without ``more`` (from their stored means,
    no rollouts) and adds the numbers ``--more`` would have stored while searching."""
    plain, live = tmp_path / "plain", tmp_path / "live"
    base = ["--workers", "1", "--worlds", "2", "--seed", "m", "--hands", "3", "--shard-minutes", "0"]
    distill.main(["--out", str(plain), *base])
    distill.main(["--out", str(live), *base, "--more"])
    more = script("distill_more")
    more.main([str(plain), str(tmp_path / "replayed"), "--workers", "1"])
    a, b = distill.load(live), distill.load(tmp_path / "replayed")
    assert a["more"].shape == (len(a["hand"]), distill.MAX_CANDS, distill.MORE) and len(a["hand"]) >= 10
    for k in ("obs", "cand", "mean", "hand", "more"):
        assert np.array_equal(a[k], b[k]), k
    assert (a["more"][:, :, 0] == 1).any()  # some candidate leaves the hand 听


def test_one_command_makes_a_presets_data_network_curve_and_arena_and_resumes_each_step(tmp_path: Path) -> None:
    """train/town.py on a tiny budget: every step writes its figures; run again, nothing is made twice."""
    pytest.importorskip("torch")
    pytest.importorskip("matplotlib")
    town = script("town")
    out = tmp_path / "gulin"
    args = ["--rules", "gulin", "--out", str(out), "--hands", "6", "--worlds", "2", "--workers", "1",
            "--sizes", "40,0", "--curve-deals", "2", "--deals", "2"]
    first = town.main(args)
    assert first["data"]["shards"] >= 1 and first["fit"]["samples"] > 40
    assert [pt["size"] for pt in first["curve"]["points"]] == [40, 0]
    assert first["curve"]["points"][0]["samples"] <= 40 < first["curve"]["points"][1]["samples"]
    assert set(first["arena"]["diffs"]) == {"new − learned", "new − heuristic", "learned − heuristic"}
    assert (out / "curve" / "curve.png").stat().st_size > 0
    assert QNet.load(out / "fit.npz").meta["rules"] == "gulin"
    made = {p: p.stat().st_mtime for p in [out / "fit.npz", *out.glob("data/w*.npz"), *out.glob("curve/n*.npz")]}
    again = town.main(args)
    assert {p: p.stat().st_mtime for p in made} == made  # no shard, fit or curve point made again
    assert again["curve"]["points"] == first["curve"]["points"]
    assert again["arena"]["diffs"] == first["arena"]["diffs"]  # read back from the arena's log
    assert len((out / "curve" / "curve.jsonl").read_text().splitlines()) == 2
    # more hands: the data goes on after its last shard, the network is fitted again, the all-samples point is
    # measured again (the 40-sample one kept) and the new network gets an arena of its own
    more = town.main([*args[:5], "9", *args[6:]])
    assert more["fit"]["samples"] > first["fit"]["samples"]
    assert more["curve"]["points"][:2] == first["curve"]["points"]  # the plot's points: every one measured
    assert more["curve"]["points"][2]["samples"] == more["fit"]["samples"]
    assert len((out / "curve" / "curve.jsonl").read_text().splitlines()) == 3
    assert more["arena"]["network"] != first["arena"]["network"] and len(list(out.glob("arena-2-*.jsonl"))) == 2


def test_a_network_told_the_preset_computes_for_each_preset_what_its_one_hot_input_gives(tmp_path: Path) -> None:
    """daer.bots.learned.told folds the preset's one-hot into the first layer's bias: the same values as the
    wide network reading the one-hot, for each preset; a ruleset it was not told of plays as 泸州."""
    rng = np.random.default_rng(5)
    names = ["gulin", "luzhou", "hejiang"]
    width = OBS_SIZE + PAIR_EXTRA + len(names) + N_ACTIONS
    layers = [(rng.normal(size=(width, 12)).astype(np.float32), rng.normal(size=12).astype(np.float32)),
              (rng.normal(size=(12, 1)).astype(np.float32), rng.normal(size=1).astype(np.float32))]
    wide = QNet(layers, {"form": "pair", "presets": names})
    wide.save(tmp_path / "told.npz")
    obs = rng.random(OBS_SIZE, dtype=np.float32)
    cands = [3, 40, 7]
    rows = candidate_rows(obs, cands)  # [obs, extra, action one-hot]: the one-hot goes in before the actions
    results = {}
    for name in names:
        onehot = np.zeros((len(cands), len(names)), dtype=np.float32)
        onehot[:, names.index(name)] = 1
        full = np.concatenate([rows[:, : OBS_SIZE + PAIR_EXTRA], onehot, rows[:, OBS_SIZE + PAIR_EXTRA :]], axis=1)
        saved = QNet.load(tmp_path / "told.npz", name)
        assert saved.meta["told"] == name and "presets" not in saved.meta
        assert saved.layers[0][0].shape[0] == PAIR_FEATURES
        w16 = [(w.astype(np.float16).astype(np.float32), b.astype(np.float16).astype(np.float32)) for w, b in layers]
        h = np.maximum(full @ w16[0][0] + w16[0][1], 0) @ w16[1][0] + w16[1][1]
        got = saved.candidate_values(obs, cands)
        assert np.allclose(got, h[:, 0], atol=2e-2 * max(1.0, float(np.abs(h).max()) / 100)), (name, got, h[:, 0])
        results[name] = got
    assert not np.allclose(results["gulin"], results["luzhou"])
    assert np.allclose(QNet.load(tmp_path / "told.npz", "longchang").candidate_values(obs, cands), results["luzhou"])
    with pytest.raises(ValueError, match="told the preset"):
        wide.candidate_values(obs, cands)


def test_one_network_is_fitted_told_the_preset_and_plays_each_town(distill: ModuleType, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    fit = script("distill_fit")
    dirs = []
    for rules in ("luzhou", "gulin"):
        out = tmp_path / rules
        distill.main(["--rules", rules, "--out", str(out), "--more", "--workers", "1", "--worlds", "2", "--hands", "6",
                      "--shard-minutes", "0"])
        dirs.append(str(out))
    w = tmp_path / "told.npz"
    log = fit.main([*dirs, "--told", "--more", "--out", str(w), "--hidden", "16", "--epochs", "2", "--ensemble", "2"])
    assert log[-1]["member"] == "ensemble" and log[-1]["heldout_mse"] > 0
    for rules in ("gulin", "luzhou", "hejiang"):
        net = QNet.load(w, rules)
        assert net.meta["told"] == ("gulin" if rules == "gulin" else "luzhou") and net.more > 0
        ruleset = find_rules(rules)
        bot = LearnedBot(ruleset, weights=w)
        assert bot.net.meta["told"] == net.meta["told"]
        state = new_hand(ruleset, seed=f"told:{rules}", dealer=0)
        while not state.over:
            view = state.view(state.to_act()[0], log=False)
            choice = bot.choose(view)
            assert choice in view.legal
            state.apply(choice)
