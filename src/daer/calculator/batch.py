"""JSON in, JSON out, many requests at a time: the batch path of ``daer score --json`` and ``POST /api/score``.

The contract is :func:`daer.calculator.score`'s: one JSON object, or JSON Lines, in; one
JSON line per request out, in order; a line that cannot be understood gets an
``error`` line of its own.  This module only makes it fast:

* JSON is read and written with msgspec, a request of the common shape straight into a
  struct (:class:`CommonRequest`);
* only what the common request needs is loaded: the general calculator (and the 名堂 it
  scores) is imported the first time a request needs it, so ``daer score --json`` starts fast;
* the common request — a complete hand under a ruleset that values a hand by its
  胡 alone (等 play), preset rules, no house-rule overrides — takes a fast
  path: cards read through a table, table melds and winning cards remembered,
  the best 胡 from the native search, and each 列 and each settlement (which
  depends only on 等, multipliers and seats) encoded once and reused as
  ready JSON bytes;
* anything else (errors, incomplete hands, money and 名堂 / 番 / 花样 play, overrides,
  3垅/5坎, 烂和, a win on a discard) goes through :func:`daer.calculator.core.score_request`
  unchanged.

Both paths give the same bytes for the same request; ``tests/test_score_batch.py``
checks that on random hands of every preset.

>>> lines, errors = score_lines('{"hand": "一二三四五六七八九壹贰叁肆伍陆柒捌玖二七", "win": {"card": "十"}}'.encode())
>>> lines[0][:43].decode()
'{"complete":true,"ok":true,"hu":15,"red":7,'
>>> errors
[]
"""

from __future__ import annotations

from typing import Any

import msgspec

from daer.calculator.fields import settlement_fields
from daer.cards import BIG_CHARS, COPIES, SMALL_CHARS, format_kinds, kind_ascii, kind_char, parse_kinds
from daer.hands.evaluate import KIND_CODES, Evaluator, RawGroup, evaluator_for
from daer.hands.groups import Meld, MeldError, MeldKind
from daer.rules import RulesError, Ruleset, resolve_rules
from daer.rules.model import PATTERN_MODES
from daer.scoring import Multiplier, WinFlags, deng_of, multipliers, settle

_decode = msgspec.json.Decoder().decode
_encode = msgspec.json.Encoder(decimal_format="number").encode  # money in 元: 2.5, exact from 分


class CommonMeld(msgspec.Struct, forbid_unknown_fields=True):
    """A table meld of the common request: ``{"kind": …, "cards": …}``."""

    kind: str
    cards: str


class CommonWin(msgspec.Struct, forbid_unknown_fields=True):
    """The winning card of the common request: ``{"card": …, "from": …}``."""

    card: str
    source: str = msgspec.field(default="other", name="from")


class CommonRequest(msgspec.Struct, forbid_unknown_fields=True):
    """The shape of the common request, checked by msgspec as it is read; any other shape (an unknown field,
    a wrong type, options) is answered by the general calculator, which names what is wrong."""

    hand: str
    rules: str = "luzhou"
    melds: list[CommonMeld] = msgspec.field(default_factory=list)
    win: CommonWin | None = None
    tianhu: bool = False
    dihu: bool = False
    haidi: bool = False
    seat: int = 0
    dealer: int = 0
    lang: Any = None
    """Accepted and not read, as by the general calculator."""


_decode_common = msgspec.json.Decoder(CommonRequest).decode
_CHAR = {c: i for i, c in enumerate(SMALL_CHARS)} | {c: 10 + i for i, c in enumerate(BIG_CHARS)}
_CACHE_LIMIT = 50_000
"""Entries per memo before it is emptied (bounds memory however varied the input)."""

_TailKey = tuple[int, int, int, int, bool, bool, bool, bool]
"""(胡, red cards, winner, dealer, 天胡, 地胡, 海底, 自摸): all a settlement of a lane depends on."""
_MeldInfo = tuple[Meld, int, int, bytes]
"""A table meld as a lane remembers it: (the meld, its 胡, 1 if a quad, its 列 as JSON)."""


def _memo_put(cache: dict[Any, Any], key: Any, value: Any) -> None:
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = value


class _Lane:
    """The fast lane of one preset valued by 胡 alone: its evaluator and what it has already encoded."""

    __slots__ = ("evaluator", "melds", "min_hu", "rules", "settled", "tails", "tianhu_self_drawn")

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.evaluator: Evaluator = evaluator_for(rules)
        self.min_hu = rules.win.min_hu
        self.tianhu_self_drawn = rules.win.tianhu_self_drawn
        self.melds: dict[tuple[str, str], _MeldInfo | None] = {}
        self.tails: dict[_TailKey, bytes | None] = {}
        self.settled: dict[tuple[int, tuple[Multiplier, ...], int, int], bytes | None] = {}

    def meld(self, kind: str, cards: str) -> _MeldInfo | None:
        """A table meld, its 胡, quad count and JSON, or None if it is not a meld (the general path says why)."""
        try:
            meld = Meld(MeldKind(kind), tuple(parse_kinds(cards)))
        except (ValueError, MeldError):
            info = None
        else:
            g = meld.to_group(self.rules.hu)
            hu, quads = self.evaluator.melds_info((meld,))
            info = (meld, hu, quads, _group_json(g.kind.value, g.kind.zh, g.cards, g.hu, True))
        _memo_put(self.melds, (kind, cards), info)
        return info

    def tail(self, key: _TailKey) -> bytes | None:
        """``"deng":…,"multipliers":…,"points":…,"payments":…,"factor":…}`` of a won hand, or None (底家 seat).

        In 等 play a settlement's fields depend on 胡 only through its 等, and on the red cards and the flags
        only through the multipliers (:func:`daer.scoring.settle`): many keys share one encoding.
        """
        hu, red, seat, dealer, tianhu, dihu, haidi, self_drawn = key
        flags = WinFlags(tianhu=tianhu, dihu=dihu, haidi=haidi, self_drawn=self_drawn)
        shared = (deng_of(self.rules, hu), multipliers(self.rules, red, flags), seat, dealer)
        if shared in self.settled:
            out = self.settled[shared]
        else:
            try:
                s = settle(self.rules, hu=hu, red=red, winner=seat, dealer=dealer, flags=flags)
            except ValueError:
                out = None
            else:  # the general path's fields, in the order score_request leaves them
                fields = settlement_fields(self.rules, s)
                out = _encode({k: fields[k] for k in ("deng", "multipliers", "points", "payments", "factor")})[1:]
            _memo_put(self.settled, shared, out)
        _memo_put(self.tails, key, out)
        return out


_lanes: dict[str, _Lane | None] = {}
_card_cache: dict[str, int | None] = {}
_group_cache: dict[RawGroup, bytes] = {}


def _lane(name: str) -> _Lane | None:
    """The lane of a preset valued by 胡 alone, or None (then the general path decides)."""
    if name.endswith(".toml"):  # a house-rule file may change between requests: never remembered
        return None
    try:
        rules: Ruleset | None = resolve_rules(name, {})
    except RulesError:
        rules = None
    if rules is not None and (rules.scoring.mode in PATTERN_MODES or rules.scoring.mode == "money"
                              or rules.win.lan_hu):  # money: 元 from 分, on the general path
        rules = None
    if rules is not None and (rules.play.wei or rules.play.ti or rules.play.pao):
        rules = None  # the winning card may be forced into a 偎 / 提 / 跑 (daer.hands.forced)
    lane = None if rules is None else _Lane(rules)
    _memo_put(_lanes, name, lane)
    return lane


def _card(text: str) -> int | None:
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
    kind = KIND_CODES[raw[0]]
    out = _group_json(kind.value, kind.zh, raw[1], raw[2], False)
    _memo_put(_group_cache, raw, out)
    return out


def score_common(req: CommonRequest) -> bytes | None:
    """The JSON result of a request of the common shape, or None when the general path must answer."""
    name = req.rules
    try:  # (one lookup on the hot path; a miss builds the entry)
        lane = _lanes[name]
    except KeyError:
        lane = _lane(name)
    if lane is None:
        return None
    counts = [0] * 20
    try:
        for ch in req.hand:
            counts[_CHAR[ch]] += 1
    except KeyError:  # ASCII notation, separators or a bad card: the general reader
        return None
    hand = tuple(counts)
    parts = []
    melds = []
    meld_hu = quads = 0
    known = lane.melds
    for m in req.melds:
        try:
            info = known[m.kind, m.cards]
        except KeyError:
            info = lane.meld(m.kind, m.cards)
        if info is None:
            return None
        for k in info[0].cards:
            counts[k] += 1
        melds.append(info[0])
        meld_hu += info[1]
        quads += info[2]
        parts.append(info[3])
    tianhu = req.tianhu
    won = req.win
    if won is None:  # judged as dealt (an incomplete one may be 3垅 / 5坎: the general path)
        win = None
        self_drawn = tianhu and lane.tianhu_self_drawn
    else:
        source = won.source
        if source == "self":
            self_drawn = True
        elif source == "other":
            self_drawn = tianhu and lane.tianhu_self_drawn  # 天胡为自摸
        else:  # a discard, which only some rules allow, or not a source: the general path
            return None
        try:
            win = _card_cache[won.card]
        except KeyError:
            win = _card(won.card)
        if win is None:
            return None
        counts[win] += 1
    if max(counts) > COPIES:
        return None
    seat, dealer = req.seat, req.dealer
    if not (0 <= seat <= 3 and 0 <= dealer <= 3):
        return None
    best = lane.evaluator.best_given(hand, win, len(melds), meld_hu, quads)
    if best is None:  # not complete: the general path explains why
        return None
    hu, raw = best
    red = counts[1] + counts[6] + counts[9] + counts[11] + counts[16] + counts[19]
    cache = _group_cache
    parts += [cache.get(g) or _hand_group(g) for g in raw]
    groups = b",".join(parts)
    if hu < lane.min_hu:
        error = _encode(f"胡数不够：{hu} 胡，至少要 {lane.min_hu} 胡 (only {hu} 胡; {lane.min_hu} needed)")
        out = b'{"complete":true,"ok":false,"hu":%d,"red":%d,"groups":[%b],"error":%b,' \
            b'"deng":null,"multipliers":[],"points":null,"payments":[]' % (hu, red, groups, error)
        if win is None:  # a dealt hand that cannot win: its waits, as the general path lists them
            found = lane.evaluator.waits(hand, tuple(melds), [COPIES - n for n in counts])
            waits = [{"card": kind_char(k), "card_ascii": kind_ascii(k), "hu": w} for k, w in found]
            return out + b',"waits":%b}' % _encode(waits)
        return out + b"}"
    tkey = (hu, red, seat, dealer, tianhu, req.dihu, req.haidi, self_drawn)
    try:
        tail = lane.tails[tkey]
    except KeyError:
        tail = lane.tail(tkey)
    if tail is None:
        return None
    return b'{"complete":true,"ok":true,"hu":%d,"red":%d,"groups":[%b],%b' % (hu, red, groups, tail)


def score_fast(data: Any) -> bytes | None:
    """The JSON result of a decoded request of the common shape, or None when the general path must answer."""
    if type(data) is not dict:
        return None
    try:
        req = msgspec.convert(data, CommonRequest)
    except msgspec.ValidationError:
        return None
    return score_common(req)


def score_general(data: Any) -> tuple[bytes, str | None]:
    """Any request through :mod:`daer.calculator`: (JSON result, the error message if it was not understood)."""
    from daer.calculator.core import RequestError, parse_request, score_request  # noqa: PLC0415 — first use

    try:
        req = parse_request(data)
    except RequestError as exc:
        return _encode({"complete": False, "ok": False, "error": str(exc)}), str(exc)
    return _encode(score_request(req)), None


def split_requests(body: bytes) -> list[bytes]:
    """The requests' JSON texts: the whole body when it is one JSON value (possibly over several lines),
    else its lines (JSON Lines).

    In JSON Lines every line is one input: a blank line gets an error of its own, so the
    output keeps one line per input line and a request's number is its line number.
    """
    stripped = body.strip()
    if not stripped:
        return []
    try:
        _decode(stripped)
    except msgspec.DecodeError:  # JSON Lines: this read only the first line
        return body.splitlines()
    return [stripped]


def _score_other(text: bytes) -> tuple[bytes, str | None]:
    """A request the fast lane did not answer: (JSON result, the error message if it was not understood)."""
    why: str | None
    if not text.strip():
        why = "空行 empty line: one JSON object a line"
    else:
        try:
            data = _decode(text)
        except msgspec.DecodeError as exc:
            why = f"JSON 格式有误 bad JSON: {exc}"
        else:
            return score_general(data)
    return _encode({"complete": False, "ok": False, "error": why}), why


def score_text(text: bytes) -> tuple[bytes, str | None]:
    """One request's JSON text: (JSON result, the error message if it was not understood)."""
    try:
        out = score_common(_decode_common(text))
    except msgspec.DecodeError:  # bad JSON, or not the common shape (msgspec.ValidationError)
        out = None
    return (out, None) if out is not None else _score_other(text)


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
    for number, text in enumerate(split_requests(body), start=1):
        try:  # score_text, inlined: this loop is the whole of a long batch
            out = score_common(_decode_common(text))
        except msgspec.DecodeError:
            out = None
        if out is None:
            out, why = _score_other(text)
            if why is not None:
                errors.append((number, why))
        lines.append(out)
    return lines, errors
