"""The winning card scored as what it must become, checked against an independent brute force.

Random winning situations (seeded) under every preset — many built around the winning card's kind: a pair
or a 坎 in the hand, a 碰 or a 偎 on the table — are scored by :mod:`win_card_brute` (written from the rule
texts) and by the calculator, for every way the card may arrive; under 跑胡子 the engine's win is checked
too, in scripted deals that bring the card by each route.
"""

from __future__ import annotations

import random

import pytest
from engine_decks import make_deck
from win_card_brute import FORCING_PRESETS, Key, key, verdict

from daer.calculator import score
from daer.cards import format_kinds, parse_kinds
from daer.engine import Discard, GameState, Hu, Pass, Peng
from daer.engine.events import Revealed
from daer.hands import Meld, MeldKind, evaluate_win
from daer.mingtang import PATTERN_MODES
from daer.rules import Ruleset, find_rules, preset_names

Melds = list[tuple[str, tuple[int, ...]]]
Situation = tuple[list[int], Melds, int]


def _groups_key(groups: list[dict[str, object]]) -> Key:
    return key([("", tuple(parse_kinds(str(g["cards"]))), int(str(g["hu"]))) for g in groups])


def _random_group(rng: random.Random, total: list[int], hand: list[int], melds: Melds, *, table: bool,
                  kinds: tuple[str, ...]) -> bool:
    """Add one random 列 (in the hand, or on the table when ``table``); False when it did not fit."""
    k = rng.randrange(20)
    n = k % 10 + 1
    shape = rng.choice(("run", "run", "2710", "jiao", "three", "four") if table else
                       ("run", "run", "run", "2710", "jiao", "jiao", "three"))
    if shape == "run":
        if n > 8:
            return False
        cards: tuple[int, ...] = (k, k + 1, k + 2)
    elif shape == "2710":
        base = k - n + 1
        cards = (base + 1, base + 6, base + 9)
    elif shape == "jiao":
        o = k + 10 if k < 10 else k - 10
        cards = tuple(sorted((k, k, o)))
    elif shape == "three":
        cards = (k, k, k)
    else:
        cards = (k,) * 4
    if any(total[x] + cards.count(x) > 4 for x in set(cards)):
        return False
    if table:
        four = rng.choice(("zhao", "long"))
        kind = {"run": "chi", "2710": "chi", "jiao": "chi", "three": "peng", "four": four}[shape]
        if kind not in kinds:
            return False
        melds.append((kind, cards))
    else:
        if any(hand[x] + cards.count(x) > 3 for x in set(cards)):
            return False
        for x in cards:
            hand[x] += 1
    for x in cards:
        total[x] += 1
    return True


def situation(rng: random.Random, rules: Ruleset, *, max_melds: int = 2) -> Situation | None:
    """A random win: (concealed counts, table melds, winning card), or None when the draw did not fit."""
    total, hand = [0] * 20, [0] * 20
    melds: Melds = []
    meld_kinds = ("peng", "chi", "zhao", "long", "wei") if rules.play.wei else ("peng", "chi", "zhao", "long")
    k = rng.randrange(20)
    scenario = rng.choice(("random", "random", "pair", "kan", "peng", "wei" if rules.play.wei else "kan"))
    groups = 0
    quad = False
    if scenario == "pair":
        hand[k] = total[k] = 2
    elif scenario == "kan":
        hand[k] = total[k] = 3
        quad = True
    elif scenario in ("peng", "wei"):
        melds.append((scenario, (k,) * 3))
        total[k] = 3
        quad = True
    if scenario != "random":
        total[k] += 1  # the winning card
        groups = 1
    tries = 0
    want_melds = rng.randint(0, max_melds)
    while groups < rules.win.groups - (1 if quad else 0) and tries < 200:
        tries += 1
        table = sum(1 for m in melds) < want_melds
        before = len(melds)
        if _random_group(rng, total, hand, melds, table=table, kinds=meld_kinds):
            groups += 1
            if len(melds) > before and len(melds[-1][1]) == 4:
                quad = True
    if groups < rules.win.groups - (1 if quad else 0):
        return None
    if quad:  # the 将
        free = [x for x in range(20) if total[x] <= 2 and hand[x] <= 1]
        if not free:
            return None
        p = rng.choice(free)
        hand[p] += 2
        total[p] += 2
    if scenario == "random":  # the winning card: any concealed card
        held = [x for x in range(20) if hand[x]]
        k = rng.choice(held)
        hand[k] -= 1
    if rng.random() < 0.25:  # a near miss: one concealed card swapped for another kind
        held = [x for x in range(20) if hand[x]]
        a = rng.choice(held)
        b = rng.randrange(20)
        if b != a and hand[b] < 3 and total[b] < 4 + (0 if b != k else -1):
            hand[a] -= 1
            hand[b] += 1
    counts = list(hand)
    for _, cards in melds:
        for x in cards:
            counts[x] += 1
    counts[k] += 1
    if max(counts) > 4 or max(hand) > 3:
        return None
    return hand, melds, k


def _request(preset: str, sit: Situation, arrival: str, seat: int = 0) -> dict[str, object]:
    hand, melds, k = sit
    req: dict[str, object] = {"rules": preset, "hand": format_kinds(x for x in range(20) for _ in range(hand[x])),
                              "win": {"card": format_kinds([k]), "from": arrival}, "seat": seat}
    if melds:
        req["melds"] = [{"kind": kind, "cards": format_kinds(cards)} for kind, cards in melds]
    return req


def _arrivals(rules: Ruleset) -> tuple[str, ...]:
    return ("self", "other", "discard") if rules.win.on_discard else ("self", "other")


HANDS = 400
"""Random situations per preset."""


@pytest.mark.parametrize("preset", preset_names())
def test_winning_card_brute_force_agrees_with_the_calculator(preset: str) -> None:
    rules = find_rules(preset)
    rng = random.Random(2200 + len(preset))
    compared = wins = forced = 0
    while compared < HANDS * len(_arrivals(rules)):
        sit = situation(rng, rules)
        if sit is None:
            continue
        hand, melds, k = sit
        for arrival in _arrivals(rules):
            complete, best, won, keys = verdict(preset, rules, hand, melds, k, arrival=arrival)
            out = score(_request(preset, sit, arrival))
            ev, shape = evaluate_win(rules, tuple(hand), tuple(Meld(MeldKind(kind), c) for kind, c in melds), k,
                                     arrival)  # type: ignore[arg-type]
            where = (preset, format_kinds(x for x in range(20) for _ in range(hand[x])), melds, k, arrival)
            assert out["complete"] == complete == ev.complete, (where, out.get("error"))
            compared += 1
            forced += bool(shape.how)
            if not complete:
                continue
            assert ev.hu == best, where
            assert out["ok"] == won, (where, out.get("error"), best)
            if not won:
                assert out["hu"] == best, where
                continue
            wins += 1
            assert _groups_key(out["groups"]) in keys, where  # type: ignore[arg-type]
            if rules.scoring.mode not in PATTERN_MODES and not out.get("lan"):
                assert out["hu"] == best, where
    print(f"calculator {preset}: {compared} compared, {wins} wins, {forced} forced")
    assert wins > compared // 10, (wins, compared)  # the situations are mostly wins, not misses
    if preset in FORCING_PRESETS:
        assert forced > compared // 10, (forced, compared)


# -- the engine, in scripted deals (跑胡子) ----------------------------------------------------------------

R = find_rules("paohuzi")


def _fill(needs: dict[int, list[int]], stock: list[int], used: list[int]) -> dict[int, str] | None:
    """Deal the unused cards to the seats still short, spread over the kinds (few pairs, no 坎)."""
    rest = [x for layer in range(4) for x in range(20) if used[x] + layer < 4]
    hands: dict[int, str] = {}
    for seat in (0, 1, 2):
        want = (R.table.dealer_cards if seat == 0 else R.table.other_cards) - len(needs[seat])
        if want < 0:
            return None
        hands[seat] = format_kinds(sorted([*needs[seat], *rest[:want]]))
        rest = rest[want:]
    return hands


def _pass_all(st: GameState, keep: int | None = None) -> bool:
    """Every seat asked (but ``keep``) passes; False when one may not."""
    for seat in st.to_act():
        if seat == keep:
            continue
        if Pass(seat=seat) not in st.legal_actions(seat):
            return False
        st.apply(Pass(seat=seat))
    return True


def _reveal(st: GameState, seat: int, kind: int, start: int) -> bool:
    """Let the cards on offer go by until ``seat`` has revealed ``kind`` (since event ``start``); False if
    someone must take one."""
    while not st.over:
        if any(isinstance(e, Revealed) and e.seat == seat and e.kind == kind for e in st.log[start:]):
            return True
        mark = len(st.log)
        if st.phase != "claim" or not _pass_all(st) or len(st.log) == mark:
            return False
    return False


def scripted_deal(sit: Situation, arrival: str, rng: random.Random) -> tuple[GameState, int, int] | None:
    """A deal bringing the situation's winning card to its holder as ``arrival``: (state, winner, revealer).

    Concealed: seat 1 reveals the card (its own, or seat 2's win).  A 碰: seat 2 碰s the dealer's discard and
    discards a spare; seat 0 reveals the card (other), or seat 2 after two cards nobody holds (self).  A 偎:
    seat 1 偎s its first reveal and discards a spare; seat 2 reveals the card (other), or seat 1 after two more.
    None when the deal cannot be built or someone would have to take a card on the way.
    """
    hand, melds, k = sit
    cards = [x for x in range(20) for _ in range(hand[x])]
    used = [0] * 20
    for x in cards:
        used[x] += 1
    for _, mc in melds:
        for x in mc:
            used[x] += 1
    used[k] += 1
    needs: dict[int, list[int]] = {0: [], 1: [], 2: []}
    spare = next((x for x in rng.sample(range(20), 20) if used[x] < 4 and hand[x] == 0 and x != k), None)
    meld = melds[0] if melds else None
    if meld is None:
        w, revealer = (1, 1) if arrival == "self" else (2, 1)
        needs[w] = cards
        stock = [k]
    elif spare is None:
        return None
    elif meld[0] == "peng":
        m = meld[1][0]
        w, revealer = (2, 2) if arrival == "self" else (2, 0)
        needs[2] = [*cards, m, m, spare]
        needs[0] = [m]
        used[spare] += 1
        stock = [k] if arrival == "other" else [-1, -1, k]
    else:
        m = meld[1][0]
        w, revealer = (1, 1) if arrival == "self" else (1, 2)
        needs[1] = [*cards, m, m, spare]
        used[spare] += 1
        stock = [m, k] if arrival == "other" else [m, -1, -1, k]
    for i, x in enumerate(stock):  # the cards that go by: kinds nobody holds yet
        if x == -1:
            free = [y for y in range(20) if used[y] == 0]
            if not free:
                return None
            stock[i] = rng.choice(free)
            used[stock[i]] += 1
    hands = _fill(needs, stock, used)
    if hands is None:
        return None
    st = GameState(R, make_deck(R, hands=hands, stock=format_kinds(stock)), dealer=0)
    if st.phase == "claim" and not _pass_all(st):  # an instant win at the deal: declined
        return None
    if st.phase != "discard" or st.actor != 0:
        return None
    if meld is not None and meld[0] == "peng":
        st.apply(Discard(seat=0, kind=meld[1][0]))
        if Peng(seat=2) not in st.legal_actions(2) or not _pass_all(st, keep=2):
            return None
        st.apply(Peng(seat=2))
        if st.phase != "discard" or st.actor != 2 or spare is None:
            return None
        mark = len(st.log)
        st.apply(Discard(seat=2, kind=spare))
    else:
        dealt = st.counts[0]
        d = next((x for x in range(20) if dealt[x] == 1 and all(st.counts[s][x] < 2 for s in (1, 2))), None)
        if d is None:
            return None
        mark = len(st.log)
        st.apply(Discard(seat=0, kind=d))
        if meld is not None:  # seat 1's 偎 of its first reveal, then its spare
            m = meld[1][0]
            if not _reveal(st, 1, m, mark) or (st.phase == "claim" and not _pass_all(st)):
                return None
            if [(t.kind, t.kinds[0]) for t in st.melds[1]] != [("wei", m)] or st.actor != 1 or spare is None:
                return None
            mark = len(st.log)
            st.apply(Discard(seat=1, kind=spare))
    if arrival == "other" and st.counts[revealer][k] >= 2:
        return None  # the revealer must 偎/提 it: nobody else is asked
    if not _reveal(st, revealer, k, mark):
        return None
    return st, w, revealer


ENGINE_HANDS = 120
"""Scripted deals compared per (route, arrival) ..."""
ENGINE_WINS = 30
"""... of which at least this many are wins (more deals are drawn, wins only, until there are)."""


@pytest.mark.parametrize("route", ["concealed", "peng", "wei"])
@pytest.mark.parametrize("arrival", ["self", "other"])
def test_winning_card_brute_force_agrees_with_the_engine(route: str, arrival: str) -> None:
    rng = random.Random(f"{route}/{arrival}")
    compared = wins = tries = 0
    while (compared < ENGINE_HANDS or wins < ENGINE_WINS) and tries < ENGINE_HANDS * 200:
        tries += 1
        sit = situation(rng, R, max_melds=0)
        if sit is None or [m[0] for m in sit[1]] != ([] if route == "concealed" else [route]):
            continue
        hand, melds, k = sit
        complete, best, won, keys = verdict("paohuzi", R, hand, melds, k, arrival=arrival)
        if compared >= ENGINE_HANDS and not won:
            continue
        built = scripted_deal(sit, arrival, rng)
        if built is None:
            continue
        st, w, revealer = built
        offer = st.offer
        on_card = st.phase == "claim" and offer is not None and (offer.kind, offer.owner) == (k, revealer)
        offered = on_card and Hu(seat=w) in st.legal_actions(w)
        assert offered == (complete and won), (hand, melds, k, arrival, best)
        compared += 1
        if not offered:
            continue
        wins += 1
        st.apply(Hu(seat=w))
        for seat in st.to_act():
            legal = st.legal_actions(seat)
            st.apply(Pass(seat=seat) if Pass(seat=seat) in legal else legal[0])
        assert st.result is not None and st.settlement is not None and st.result.winner == w
        out = score(_request("paohuzi", sit, arrival, seat=w))
        got = key([("", g[1], g[2]) for g in st.result.groups])
        assert out["ok"] and st.result.hu == out["hu"]
        assert got == _groups_key(out["groups"]) and got in keys  # type: ignore[arg-type]
        assert list(st.settlement.points) == out["points"]["seats"]  # type: ignore[index]
    print(f"engine {route}/{arrival}: {compared} deals compared, {wins} wins, {tries} drawn")
    assert compared >= ENGINE_HANDS and wins >= ENGINE_WINS, (compared, wins, tries)
