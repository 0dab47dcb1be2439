"""Finding and loading rulesets: presets shipped as TOML, house rules as overrides.

>>> rules = find_rules("luzhou")
>>> rules.win.min_hu, rules.hu.peng
(10, (1, 6, 3, 9))
>>> with_overrides(rules, {"hu.peng": [1, 3, 3, 6]}).hu.peng
(1, 3, 3, 6)
"""

from __future__ import annotations

import functools
import os
import tomllib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from daer.rules.model import PATTERN_IDS, Ruleset

if TYPE_CHECKING:
    from pathlib import Path

DEFAULT_RULES = "luzhou"
"""The ruleset used when none is named."""

ALIASES = {
    "泸州": "luzhou",
    "泸州大贰": "luzhou",
    "合江": "hejiang",
    "合江大贰": "hejiang",
    "泸州名堂": "luzhou-mingtang",
    "大贰名堂": "luzhou-mingtang",
    "古蔺": "gulin",
    "古蔺大贰": "gulin",
    "隆昌": "longchang",
    "隆昌大贰": "longchang",
    "跑胡子": "paohuzi",
}
"""Other names players use for the presets."""

_PRESETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "presets")
"""The folder of the shipped presets (read with ``os``: ``importlib.resources`` and ``pathlib`` would double the
start-up of ``daer score --json``)."""


class RulesError(ValueError):
    """A ruleset that cannot be found or does not validate."""


def preset_names() -> list[str]:
    """Names of the shipped presets, sorted."""
    return sorted(n.removesuffix(".toml") for n in os.listdir(_PRESETS) if n.endswith(".toml"))


def _read_preset(name: str) -> dict[str, Any]:
    path = os.path.join(_PRESETS, f"{name}.toml")
    if not os.path.isfile(path):
        known = ", ".join(preset_names())
        raise RulesError(f"没有这个规则 no ruleset named {name!r} (known: {known})")
    with open(path, encoding="utf-8") as f:
        return tomllib.loads(f.read())


def _merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _resolve(data: Mapping[str, Any], seen: tuple[str, ...] = ()) -> dict[str, Any]:
    """Follow ``base = "…"`` chains and merge the overrides on top."""
    data = dict(data)
    base_name = data.pop("base", None)
    if base_name is None:
        return data
    if not isinstance(base_name, str):
        raise RulesError(f"base must be a ruleset name, not {base_name!r}")
    base_name = ALIASES.get(base_name, base_name)
    if base_name in seen:
        raise RulesError(f"ruleset base cycle: {' -> '.join((*seen, base_name))}")
    base = _resolve(_read_preset(base_name), (*seen, base_name))
    return _merge(base, data)


def _build(data: Mapping[str, Any]) -> Ruleset:
    try:
        rules = msgspec.convert(dict(data), Ruleset, strict=True)
    except msgspec.ValidationError as exc:
        raise RulesError(f"规则有误 invalid ruleset: {exc}") from None
    unknown = sorted(set(rules.scoring.patterns) - PATTERN_IDS)
    if unknown:
        raise RulesError(f"未知的名堂 unknown pattern(s) in scoring.patterns: {', '.join(unknown)}")
    return rules


@functools.cache
def find_rules(name: str = DEFAULT_RULES) -> Ruleset:
    """The preset named ``name`` (or one of its :data:`ALIASES`)."""
    name = ALIASES.get(name, name)
    return _build(_resolve(_read_preset(name), (name,)))


def load_rules_file(path: str | Path) -> Ruleset:
    """A ruleset or house rule from a TOML file (``base = "luzhou"`` plus overrides)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = tomllib.loads(f.read())
    except OSError as exc:
        raise RulesError(f"读不了规则文件 cannot read {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(f"规则文件格式有误 bad TOML in {path}: {exc}") from None
    if "base" not in data and "name" not in data:
        raise RulesError(f"{path}: a house rule needs base = \"<ruleset>\"")
    return _build(_resolve(data))


def _dotted_to_nested(overrides: Mapping[str, Any]) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    for key, value in overrides.items():
        parts = key.split(".")
        node = nested
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise RulesError(f"option {key!r} conflicts with another override")
        node[parts[-1]] = value
    return nested


def with_overrides(rules: Ruleset, overrides: Mapping[str, Any]) -> Ruleset:
    """A copy of ``rules`` with dotted options replaced (``{"scoring.mode": "money"}``).

    Unknown option names and wrongly typed values raise :class:`RulesError`.
    """
    if not overrides:
        return rules
    data = msgspec.to_builtins(rules)
    return _build(_merge(data, _dotted_to_nested(overrides)))


def resolve_rules(spec: str | None = None, overrides: Mapping[str, Any] | None = None) -> Ruleset:
    """A preset name, alias, or path to a TOML house rule, with optional dotted overrides."""
    spec = spec or DEFAULT_RULES
    rules = load_rules_file(spec) if spec.endswith(".toml") else find_rules(spec)
    return with_overrides(rules, overrides or {})


def parse_override(text: str) -> tuple[str, Any]:
    """Read one ``key=value`` override; the value is TOML (``3``, ``true``, ``"money"``, ``[1,3,3,6]``).

    A bare word that is not TOML is taken as a string, so ``scoring.mode=money`` works.
    """
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise RulesError(f"override must be key=value, not {text!r}")
    key, raw = key.strip(), raw.strip()
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return key, value
