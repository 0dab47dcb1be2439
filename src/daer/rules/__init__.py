"""Rulesets as data: the :class:`Ruleset` model and its TOML presets."""

from daer.rules.loader import (
    DEFAULT_RULES,
    RulesError,
    find_rules,
    load_rules_file,
    parse_override,
    preset_names,
    resolve_rules,
    with_overrides,
)
from daer.rules.model import (
    DengScoring,
    HuTable,
    MoneyScoring,
    PlayRules,
    Ruleset,
    ScoringRules,
    TableRules,
    WinRules,
)

__all__ = [
    "DEFAULT_RULES",
    "DengScoring",
    "HuTable",
    "MoneyScoring",
    "PlayRules",
    "RulesError",
    "Ruleset",
    "ScoringRules",
    "TableRules",
    "WinRules",
    "find_rules",
    "load_rules_file",
    "parse_override",
    "preset_names",
    "resolve_rules",
    "with_overrides",
]
