"""House-rule options players may change (自定义规则): a list kept as data in ``house_options.toml``.

Every other field of a ruleset is fixed by its preset; a room's overrides are checked against this list
(type and range) before the ruleset is built, so no client value reaches the engine unbounded.

>>> [o.path for o in house_options("luzhou")][:2]
['play.chi', 'play.peng_mandatory']
>>> try:
...     check_house_overrides("luzhou", {"table.seats": 100000})
... except RulesError as exc:
...     print(str(exc)[:21])
不能改这个规则选项 table.seats
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from decimal import Decimal
from importlib import resources
from typing import Any, Literal

import msgspec

from daer.rules.loader import RulesError, find_rules, preset_names
from daer.rules.model import Ruleset

Scalar = bool | int | str


class HouseOption(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One option players may change: its path, type, allowed values or range, labels."""

    path: str
    """Dotted path in the ruleset (``play.guo_zhang``)."""
    type: Literal["bool", "int", "yuan", "choice"]
    """``yuan``: an amount of money in 元, whole 分 (0.5 = 五毛), as a JSON number or a decimal string."""
    zh: str
    """Chinese label."""
    en: str
    """English label."""
    values: tuple[Scalar, ...] = ()
    """The allowed values of a ``choice``."""
    min: int | None = None
    """Least value of an ``int`` (inclusive)."""
    max: int | None = None
    """Largest value of an ``int`` (inclusive)."""
    when: dict[str, tuple[Scalar, ...]] = msgspec.field(default_factory=dict)
    """Offered only for presets whose own value at each path is one of these."""

    def check(self, value: object) -> str | None:
        """None when ``value`` is allowed, else the reason in Chinese and English."""
        value = _scalar(value)  # a preset's whole-元 基数 (a Decimal) checks as an int
        if self.type == "bool":
            return None if isinstance(value, bool) else f"{self.path} 须是 true/false (must be a boolean)"
        if self.type == "yuan":
            return _check_yuan(self.path, value, self.min, self.max)
        if self.type == "int":
            lo, hi = self.min, self.max
            if not isinstance(value, int) or isinstance(value, bool) or (lo is not None and value < lo) or (
                    hi is not None and value > hi):
                return f"{self.path} 须是 {lo} 到 {hi} 的整数 (must be an integer {lo}-{hi})"
            return None
        if any(value == v and type(value) is type(v) for v in self.values):
            return None
        shown = ", ".join(str(v) for v in self.values)
        return f"{self.path} 只能是 {shown} (must be one of {shown})"


class OptionOffer(msgspec.Struct, frozen=True, kw_only=True):
    """An option as offered for one preset (what ``GET /api/options`` serves): the option and its default."""

    path: str
    type: str
    zh: str
    en: str
    default: Scalar
    values: tuple[Scalar, ...] = ()
    min: int | None = None
    max: int | None = None


class _File(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    option: tuple[HouseOption, ...]


@functools.cache
def all_house_options() -> tuple[HouseOption, ...]:
    """Every entry of ``house_options.toml``."""
    text = (resources.files("daer.rules") / "house_options.toml").read_text(encoding="utf-8")
    return msgspec.convert(tomllib.loads(text), _File).option


def value_at(rules: Ruleset, path: str) -> Any:
    """The value of a dotted option path in a ruleset."""
    node: Any = rules
    for part in path.split("."):
        node = getattr(node, part)
    return node


@functools.cache
def house_options(preset: str) -> tuple[HouseOption, ...]:
    """The options players may change in rooms of this preset."""
    rules = find_rules(preset)
    return tuple(o for o in all_house_options()
                 if all(value_at(rules, k) in vals for k, vals in o.when.items()))


def _check_yuan(path: str, value: object, lo: int | None, hi: int | None) -> str | None:
    """None when ``value`` is an amount of 元 in whole 分 within [lo, hi], else the reason (「少的可以五毛钱」)."""
    bad = (f"{path} 须是大于 0、不超过 {hi} 元、到分为止的钱数，如 0.5 "
           f"(must be more than 0 and at most {hi} yuan, in whole fen, e.g. 0.5)")
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return bad
    try:
        amount = Decimal(str(value).strip())
    except ArithmeticError:
        return bad
    if not amount.is_finite() or (amount * 100) != (amount * 100).to_integral_value():
        return bad
    if amount <= 0 or (lo is not None and amount < lo) or (hi is not None and amount > hi):
        return bad
    return None


def _scalar(value: Any) -> Scalar:
    """An option value as the lobby's form takes it (a whole-元 ``Decimal`` 基数 as an ``int``)."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else str(value)
    return value  # type: ignore[no-any-return]


def house_offers(preset: str) -> list[OptionOffer]:
    """The options of a preset with their defaults (the preset's own values), for the lobby's form."""
    rules = find_rules(preset)
    return [OptionOffer(path=o.path, type=o.type, zh=o.zh, en=o.en, default=_scalar(value_at(rules, o.path)),
                        values=o.values, min=o.min, max=o.max) for o in house_options(preset)]


def rulesets_info() -> list[dict[str, object]]:
    """Every preset by name with its titles and one-line descriptions, Chinese and English, for the lobby.

    ``words``: the ruleset's own word (a ``daer.cli.terms`` key) for a meld or claim kind the engine names
    otherwise — 跑胡子 calls a 招 a 跑 (``pao``) and a 垅 a 提 (``ti``), as ``daer.cli.terms.term`` does.
    """
    out: list[dict[str, object]] = []
    for name in preset_names():
        r = find_rules(name)
        words = {k: v for k, v, on in (("zhao", "pao", r.play.pao), ("long", "ti", r.play.ti)) if on}
        out.append({"name": name, "zh": r.title_zh, "en": r.title_en,
                    "description_zh": r.description_zh, "description_en": r.description_en, "words": words})
    return out


def check_house_overrides(preset: str, overrides: Mapping[str, object]) -> None:
    """Raise :class:`RulesError` unless every override is an offered option with an allowed value."""
    offered = {o.path: o for o in house_options(preset)}
    for path, value in overrides.items():
        opt = offered.get(path)
        if opt is None:
            raise RulesError(f"不能改这个规则选项 {path} (not an option players may change; "
                             f"see GET /api/options)")
        reason = opt.check(value)
        if reason is not None:
            raise RulesError(reason)
