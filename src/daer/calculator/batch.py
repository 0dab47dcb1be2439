"""JSON in, JSON out, many requests at a time: the batch path of ``daer score --json`` and ``POST /api/score``.

The contract is :func:`daer.calculator.score`'s: one JSON object, or JSON Lines, in; one
JSON line per request out, in order; a line that cannot be understood gets an
``error`` line of its own.  This module only makes it fast:

* JSON is read and written with msgspec;
* the common request — a complete hand under a ruleset that values a hand by its
  胡 alone (等 / money play), preset rules, no house-rule overrides — takes a fast
  path: cards read through a table, table melds and winning cards remembered,
  the best 胡 from the native search, and each 列 and each settlement (which
  depends only on 胡, red cards, seats and flags) encoded once and reused as
  ready JSON bytes;
* anything else (errors, incomplete hands, 名堂 / 番 / 花样 play, overrides,
  3垅/5坎, 烂和) goes through :func:`daer.calculator.core.score_request` unchanged.

Both paths give the same bytes for the same request; ``tests/test_score_batch.py``
checks that on random hands of every preset.

>>> lines, errors = score_lines('{"hand": "一二三四五六七八九壹贰叁肆伍陆柒捌玖二七", "win": {"card": "十"}}'.encode())
>>> lines[0][:43].decode()
'{"complete":true,"ok":true,"hu":15,"red":7,'
>>> errors
[]
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from daer.calculator.core import RequestError, parse_request, score_request, settlement_fields
from daer.cards import BIG_CHARS, COPIES, SMALL_CHARS, format_kinds, parse_kinds
from daer.hands.evaluate import KIND_CODES, RawGroup, evaluator_for
from daer.hands.groups import Meld, MeldError, MeldKind
from daer.mingtang import PATTERN_MODES
from daer.rules import RulesError, Ruleset, resolve_rules
from daer.scoring import WinFlags, settle

_decode = msgspec.json.Decoder().decode
_encode = msgspec.json.Encoder(decimal_format="number").encode  # money in 元: 2.5, exact from 分

_FAST_FIELDS = frozenset({"rules", "hand", "melds", "win", "tianhu", "dihu", "haidi", "seat", "dealer", "lang"})
_CHAR = {c: i for i, c in enumerate(SMALL_CHARS)} | {c: 10 + i for i, c in enumerate(BIG_CHARS)}
_SEATS = (0, 1, 2, 3)
_CACHE_LIMIT = 50_000
"""Entries per memo before it is emptied (bounds memory however varied the input)."""

_rules_cache: dict[str, Ruleset | None] = {}
_meld_cache: dict[tuple[str, str], Meld | None] = {}
_card_cache: dict[str, int | None] = {}
_group_cache: dict[RawGroup, bytes] = {}
_meld_json_cache: dict[tuple[str, Meld], bytes] = {}
_tail_cache: dict[tuple[str, int, int, int, int, WinFlags], bytes | None] = {}
_flags_cache: dict[tuple[bool, bool, bool, bool], WinFlags] = {}


def _memo_put(cache: dict[Any, Any], key: Any, value: Any) -> None:
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = value


def _fast_rules(name: Any) -> Ruleset | None:
    """A preset valued by 胡 alone, or None (then the general path decides)."""
    if type(name) is not str:
        return None
    try:
        return _rules_cache[name]
    except KeyError:
        pass
    rules: Ruleset | None = None
    if not name.endswith(".toml"):  # a house-rule file may change between requests: never remembered
        try:
            rules = resolve_rules(name, {})
        except RulesError:
            rules = None
        if rules is not None and (rules.scoring.mode in PATTERN_MODES or rules.scoring.mode == "money"
                                  or rules.win.lan_hu):  # money: 元 from 分, on the general path
            rules = None
        if rules is not None and (rules.play.wei or rules.play.ti or rules.play.pao):
            rules = None  # the winning card may be forced into a 偎 / 提 / 跑 (daer.hands.forced)
        _memo_put(_rules_cache, name, rules)
    return rules


def _fast_meld(kind: Any, cards: Any) -> Meld | None:
    if type(kind) is not str or type(cards) is not str:
        return None
    key = (kind, cards)
    try:
        return _meld_cache[key]
    except KeyError:
        pass
    meld: Meld | None
    try:
        meld = Meld(MeldKind(kind), tuple(parse_kinds(cards)))
    except (ValueError, MeldError):
        meld = None
    _memo_put(_meld_cache, key, meld)
    return meld


def _fast_card(text: Any) -> int | None:
    if type(text) is not str:
        return None
    try:
        return _card_cache[text]
    except KeyError:
        pass
    try:
        kinds = parse_kinds(text)
    except ValueError:
        kinds = []
    card = kinds[0] if len(kinds) == 1 else None
    _memo_put(_card_cache, text, card)
    return card


def _group_json(kind: str, name: str, cards: tuple[int, ...], hu: int, meld: bool) -> bytes:
    return _encode({
        "kind": kind, "name": name, "cards": format_kinds(cards), "cards_ascii": format_kinds(cards, ascii=True),
        "hu": hu, "meld": meld,
    })


def _hand_group(raw: RawGroup) -> bytes:
    try:
        return _group_cache[raw]
    except KeyError:
        pass
    kind = KIND_CODES[raw[0]]
    out = _group_json(kind.value, kind.zh, raw[1], raw[2], False)
    _memo_put(_group_cache, raw, out)
    return out


def _meld_group(rules_name: str, rules: Ruleset, meld: Meld) -> bytes:
    key = (rules_name, meld)
    try:
        return _meld_json_cache[key]
    except KeyError:
        pass
    g = meld.to_group(rules.hu)
    out = _group_json(g.kind.value, g.kind.zh, g.cards, g.hu, True)
    _memo_put(_meld_json_cache, key, out)
    return out


def _tail(rules: Ruleset, key: tuple[str, int, int, int, int, WinFlags]) -> bytes | None:
    """``"deng":…,"multipliers":…,"points":…,"payments":…,"factor":…}`` of a won hand, or None (底家 seat).

    ``key`` is (rules name, 胡, red cards, winner, dealer, flags): all a settlement depends on.
    """
    _, hu, red, seat, dealer, flags = key
    try:
        return _tail_cache[key]
    except KeyError:
        pass
    out: bytes | None
    try:
        s = settle(rules, hu=hu, red=red, winner=seat, dealer=dealer, flags=flags)
    except ValueError:
        out = None
    else:  # the general path's fields, in the order score_request leaves them
        fields = settlement_fields(rules, s)
        out = _encode({k: fields[k] for k in ("deng", "multipliers", "points", "payments", "factor")})[1:]
    _memo_put(_tail_cache, key, out)
    return out


def _flag(data: dict[str, Any], key: str) -> bool | None:
    value = data.get(key, False)
    return value if value is True or value is False else None


def score_fast(data: Any) -> bytes | None:
    """The JSON result of a common request, or None when the general path must answer."""
    if type(data) is not dict:
        return None
    for key in data:
        if key not in _FAST_FIELDS:
            return None
    rules_name = data.get("rules", "luzhou")
    rules = _fast_rules(rules_name)
    hand_text = data.get("hand")
    if rules is None or type(hand_text) is not str:
        return None
    counts = [0] * 20
    try:
        for ch in hand_text:
            counts[_CHAR[ch]] += 1
    except KeyError:  # ASCII notation, separators or a bad card: the general reader
        return None
    hand = tuple(counts)
    melds: tuple[Meld, ...] = ()
    melds_raw = data.get("melds")
    if melds_raw:
        if type(melds_raw) is not list:
            return None
        got = []
        for m in melds_raw:
            if type(m) is not dict or len(m) != 2:
                return None
            meld = _fast_meld(m.get("kind"), m.get("cards"))
            if meld is None:
                return None
            got.append(meld)
            for k in meld.cards:
                counts[k] += 1
        melds = tuple(got)
    win_raw = data.get("win")
    if win_raw is None:  # judged as dealt (天胡, 3垅/5坎): the general path
        return None
    if type(win_raw) is not dict or "card" not in win_raw:
        return None
    source = win_raw.get("from", "other")
    if len(win_raw) != (2 if "from" in win_raw else 1) or (source != "self" and source != "other"):  # noqa: PLR1714
        return None
    win = _fast_card(win_raw["card"])
    if win is None:
        return None
    counts[win] += 1
    if max(counts) > COPIES:
        return None
    tianhu, dihu, haidi = _flag(data, "tianhu"), _flag(data, "dihu"), _flag(data, "haidi")
    seat, dealer = data.get("seat", 0), data.get("dealer", 0)
    if tianhu is None or dihu is None or haidi is None or seat not in _SEATS or dealer not in _SEATS:
        return None
    if type(seat) is not int or type(dealer) is not int:
        return None
    best = evaluator_for(rules).best(hand, melds, win)
    if best is None:  # not complete: the general path explains why
        return None
    hu, raw = best
    red = counts[1] + counts[6] + counts[9] + counts[11] + counts[16] + counts[19]
    parts = [_meld_group(rules_name, rules, m) for m in melds]
    parts += [_hand_group(g) for g in raw]
    groups = b",".join(parts)
    if hu < rules.win.min_hu:
        error = _encode(f"胡数不够：{hu} 胡，至少要 {rules.win.min_hu} 胡 (only {hu} 胡; {rules.win.min_hu} needed)")
        return b'{"complete":true,"ok":false,"hu":%d,"red":%d,"groups":[%b],"error":%b,' \
            b'"deng":null,"multipliers":[],"points":null,"payments":[]}' % (hu, red, groups, error)
    fkey = (tianhu, dihu, haidi, source == "self")
    flags = _flags_cache.get(fkey)
    if flags is None:
        flags = _flags_cache[fkey] = WinFlags(tianhu=tianhu, dihu=dihu, haidi=haidi, self_drawn=fkey[3])
    tail = _tail(rules, (rules_name, hu, red, seat, dealer, flags))
    if tail is None:
        return None
    return b'{"complete":true,"ok":true,"hu":%d,"red":%d,"groups":[%b],%b' % (hu, red, groups, tail)


def score_general(data: Any) -> tuple[bytes, str | None]:
    """Any request through :mod:`daer.calculator`: (JSON result, the error message if it was not understood)."""
    try:
        result = score_request(parse_request(data))
    except RequestError as exc:
        return _encode({"complete": False, "ok": False, "error": str(exc)}), str(exc)
    return _encode(result), None


def split_requests(body: bytes) -> Iterator[tuple[Any, str | None]]:
    """One JSON object (possibly over several lines) or JSON Lines: (request, or None and why not) each.

    In JSON Lines every line is one input: a blank line gets an error of its own, so the
    output keeps one line per input line and a request's number is its line number.
    """
    stripped = body.strip()
    if not stripped:
        return
    try:
        yield _decode(stripped), None
        return
    except msgspec.DecodeError:
        pass
    for line in body.splitlines():
        if not line.strip():
            yield None, "空行 empty line: one JSON object a line"
            continue
        try:
            yield _decode(line), None
        except msgspec.DecodeError as exc:
            yield None, f"JSON 格式有误 bad JSON: {exc}"


def score_one(data: Any) -> tuple[bytes, str | None]:
    """One decoded request: (JSON result, the error message if it was not understood)."""
    out = score_fast(data)
    if out is not None:
        return out, None
    return score_general(data)


def score_lines(body: bytes) -> tuple[list[bytes], list[tuple[int, str]]]:
    """Score a body of requests: (one JSON result per request, [(request number from 1, error)])."""
    lines: list[bytes] = []
    errors: list[tuple[int, str]] = []
    for number, (data, bad) in enumerate(split_requests(body), start=1):
        if bad is not None:
            error = RequestError(bad)
            lines.append(_encode({"complete": False, "ok": False, "error": str(error)}))
            errors.append((number, bad))
            continue
        out, why = score_one(data)
        if why is not None:
            errors.append((number, why))
        lines.append(out)
    return lines, errors
