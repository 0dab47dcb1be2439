"""An independent brute force of what the winning card may and must become, and of the 胡 of a win.

Written from the rule texts, not from ``daer.hands``: it shares only the cards' numbering (0-9 small 一…十,
10-19 big 壹…拾) and the presets' 胡 tables (data).  What the card must become, per preset:

- 跑胡子 (seed 002): 「偎小牌3胡息…跑小牌6胡息…提小牌9胡息」,
  「当别人从墩上摸的牌，是自己已经碰牌的牌，则同样可以跑牌」, 「跑牌或提牌时，必须有一对将」 — one's own card onto
  a concealed pair is a 偎 (坎 row), onto a concealed 坎 or
  one's 偎 a 提 (垅 row); another's card onto a concealed 坎 or one's 偎, and a stock card (anyone's) onto
  one's 碰, a 跑 (招 row).  Each is forced (走跑 is not allowed); otherwise the card is free.
- 大贰 (泸州, 合江, 隆昌, 古蔺; seeds 000/001): 招 is only onto a 坎 in the hand (「当别人打或摸的牌自己手中有一坎，
  则可以招牌」), and a 胡 is claimed instead of a 碰/招 (「胡牌比招碰吃牌优先」): the card is free, and a 坎 in the
  hand may keep it out or take it as a 招.

A win is 7 列 (a four counts as one); with any four exactly one pair (将), without one no pair; a 坎 dealt
into the hand is never split.
"""

from __future__ import annotations

from collections.abc import Iterator

from daer.rules import Ruleset

# A scored 列: (shape, sorted cards, 胡).  Shapes: four, three, run, jiao, pair.
Scored = tuple[str, tuple[int, ...], int]
Key = tuple[tuple[tuple[int, ...], int], ...]
"""An arrangement as the sorted (cards, 胡) of its 列."""

FORCING_PRESETS = frozenset({"paohuzi"})
"""Presets whose text forces the winning card into a 偎 / 提 / 跑 (the others leave it free)."""


def _col(k: int) -> int:
    return (2 if k >= 10 else 0) + (1 if k % 10 + 1 in (2, 7, 10) else 0)


def _row(rules: Ruleset, name: str, k: int) -> int:
    return int(getattr(rules.hu, name)[_col(k)])


def _run_hu(rules: Ruleset, cards: tuple[int, ...]) -> int:
    nums = [c % 10 + 1 for c in cards]
    big = cards[0] >= 10
    t = rules.hu
    if nums == [1, 2, 3]:
        return t.big_123 if big else t.small_123
    if nums == [2, 7, 10]:
        return t.big_2710 if big else t.small_2710
    return 0


def meld_scored(rules: Ruleset, kind: str, cards: tuple[int, ...]) -> Scored:
    """A table meld as a scored 列 (偎 scores as a 坎)."""
    k = cards[0]
    if kind in ("zhao", "long"):
        return ("four", cards, _row(rules, kind, k))
    if kind == "peng":
        return ("three", cards, _row(rules, "peng", k))
    if kind == "wei":
        return ("three", cards, _row(rules, "kan", k))
    shape = "jiao" if len({c % 10 for c in cards}) == 1 else "run"
    return (shape, cards, _run_hu(rules, cards) if shape == "run" else 0)


def shapes(preset: str, rules: Ruleset, hand: list[int], melds: list[tuple[str, tuple[int, ...]]], k: int, *,
           arrival: str) -> list[tuple[list[Scored], list[int], int | None]]:
    """The ways the winning card ``k`` may go: (scored table 列, concealed counts, the card if still free)."""
    table = [meld_scored(rules, kind, cards) for kind, cards in melds]
    free = (table, list(hand), k)
    if preset not in FORCING_PRESETS:
        return [free]
    own = arrival == "self"

    def meld_at(kind: str) -> int | None:
        return next((i for i, (mk, cards) in enumerate(melds) if mk == kind and cards[0] == k), None)

    def grown(i: int, row: str) -> tuple[list[Scored], list[int], int | None]:
        t = list(table)
        t[i] = ("four", (k,) * 4, _row(rules, row, k))
        return (t, list(hand), None)

    def taken(n: int, shape: str, row: str) -> tuple[list[Scored], list[int], int | None]:
        rest = list(hand)
        rest[k] -= n
        return ([*table, (shape, (k,) * (n + 1), _row(rules, row, k))], rest, None)

    wei, peng = meld_at("wei"), meld_at("peng")
    if own and hand[k] == 3:
        return [taken(3, "four", "long")]  # 提
    if own and wei is not None:
        return [grown(wei, "long")]  # 提 of one's 偎
    if own and hand[k] == 2:
        return [taken(2, "three", "kan")]  # 偎
    if not own and wei is not None:
        return [grown(wei, "zhao")]  # 跑 onto a 偎
    if arrival != "discard" and peng is not None:
        return [grown(peng, "zhao")]  # 跑 onto a 碰 (a stock card, anyone's)
    if not own and hand[k] == 3:
        return [taken(3, "four", "zhao")]  # 跑 onto a 坎
    return [free]


def _parts(c: list[int], i: int) -> Iterator[list[tuple[str, tuple[int, ...]]]]:
    """Every partition of the counts ``c`` into threes, pairs, runs, 二七十 and 绞 (lowest card first)."""
    while i < 20 and c[i] == 0:
        i += 1
    if i == 20:
        yield []
        return
    n = i % 10 + 1
    cands: list[tuple[str, tuple[int, ...]]] = []
    if c[i] >= 3:
        cands.append(("three", (i, i, i)))
    if c[i] >= 2:
        cands.append(("pair", (i, i)))
    if n <= 8 and c[i + 1] and c[i + 2]:
        cands.append(("run", (i, i + 1, i + 2)))
    if n == 2 and c[i + 5] and c[i + 8]:
        cands.append(("run", (i, i + 5, i + 8)))
    o = i + 10 if i < 10 else i - 10
    if o > i:  # 绞: this card's number in both sizes, the lower kind first
        if c[i] >= 2 and c[o]:
            cands.append(("jiao", (i, i, o)))
        if c[o] >= 2:
            cands.append(("jiao", (i, o, o)))
    for shape, cards in cands:
        for x in cards:
            c[x] -= 1
        for rest in _parts(c, i):
            yield [(shape, cards), *rest]
        for x in cards:
            c[x] += 1


def arrangements(preset: str, rules: Ruleset, hand: list[int], melds: list[tuple[str, tuple[int, ...]]], k: int,
                 *, arrival: str) -> list[list[Scored]]:
    """Every valid scored arrangement of a win on ``k`` arriving as ``arrival`` (table 列 first)."""
    out: list[list[Scored]] = []
    for table, rest, card in shapes(preset, rules, hand, melds, k, arrival=arrival):
        kans = [x for x in range(20) if rest[x] == 3]
        # a dealt 坎 stays whole: kept as a 坎, or (the free card of its kind) grown into a 招
        choices: list[list[Scored]] = [[]]
        for x in kans:
            opts: list[Scored] = [("three", (x,) * 3, _row(rules, "kan", x))]
            if card == x:
                opts.append(("four", (x,) * 4, _row(rules, "zhao", x)))
            choices = [[*ch, o] for ch in choices for o in opts]
        for fixed in choices:
            c = list(rest)
            for x in kans:
                c[x] = 0
            used_card = any(len(g[1]) == 4 and g[1][0] == card for g in fixed)
            if card is not None and not used_card:
                c[card] += 1
            for parts in _parts(c, 0):
                groups = [*table, *fixed]
                for shape, cards in parts:
                    if shape == "three":  # a pair with the winning card: a 碰
                        groups.append((shape, cards, _row(rules, "peng", cards[0])))
                    elif shape == "run":
                        groups.append((shape, cards, _run_hu(rules, cards)))
                    else:
                        groups.append((shape, cards, 0))
                if len(groups) != rules.win.groups:
                    continue
                fours = sum(1 for g in groups if g[0] == "four")
                pairs = sum(1 for g in groups if g[0] == "pair")
                if pairs != (1 if fours and rules.win.pair_with_quad else 0):
                    continue
                out.append(groups)
    return out


def verdict(preset: str, rules: Ruleset, hand: list[int], melds: list[tuple[str, tuple[int, ...]]], k: int, *,
            arrival: str) -> tuple[bool, int | None, bool, set[Key]]:
    """(complete, best 胡, wins, every arrangement as a sorted tuple of (cards, 胡)) of a win on ``k``."""
    arrs = arrangements(preset, rules, hand, melds, k, arrival=arrival)
    if not arrs:
        return False, None, False, set()
    best = max(sum(g[2] for g in a) for a in arrs)
    lan = rules.win.lan_hu > 0 and any(sum(g[2] for g in a) == 0 for a in arrs)
    wins = best >= rules.win.min_hu or (lan and rules.win.lan_hu >= rules.win.min_hu)
    return True, best, wins, {key(a) for a in arrs}


def key(groups: list[Scored]) -> Key:
    """An arrangement as the sorted cards of its 列 with their 胡 (shape names differ between the two sides)."""
    return tuple(sorted((tuple(sorted(g[1])), g[2]) for g in groups))
