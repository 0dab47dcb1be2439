"""Rulesets as data: presets, overrides, house-rule files (RULES-NOTES: every choice is a ruleset option)."""

from __future__ import annotations

import pytest

from daer.rules import (
    DEFAULT_RULES,
    RulesError,
    Ruleset,
    find_rules,
    load_rules_file,
    loader,
    parse_override,
    preset_names,
    resolve_rules,
    with_overrides,
)


def test_presets_luzhou_and_hejiang_are_shipped():
    assert {"luzhou", "hejiang"} <= set(preset_names())
    for name in preset_names():
        rules = find_rules(name)
        assert isinstance(rules, Ruleset)
        assert rules.name == name


def test_default_ruleset_is_luzhou():
    assert DEFAULT_RULES == "luzhou"
    assert find_rules() == find_rules("luzhou")
    assert resolve_rules(None).name == "luzhou"


def test_luzhou_hu_table_matches_the_seed():
    hu = find_rules("luzhou").hu
    assert hu.peng == (1, 6, 3, 9)
    assert hu.kan == (6, 9, 9, 12)
    assert hu.zhao == (9, 12, 12, 15)
    assert hu.long == (12, 15, 15, 18)
    assert (hu.small_123, hu.small_2710, hu.big_123, hu.big_2710) == (3, 6, 6, 9)


def test_luzhou_zhao_is_kan_plus_3_and_long_is_zhao_plus_3():
    hu = find_rules("luzhou").hu
    assert all(z == k + 3 for k, z in zip(hu.kan, hu.zhao, strict=True))
    assert all(lo == z + 3 for z, lo in zip(hu.zhao, hu.long, strict=True))


def test_luzhou_win_needs_10_hu_and_7_lie_and_deals_21_20_20_19():
    rules = find_rules("luzhou")
    assert rules.win.min_hu == 10
    assert rules.win.groups == 7
    assert rules.win.pair_with_quad
    assert (rules.win.instant_longs, rules.win.instant_kans) == (3, 5)
    assert (rules.table.seats, rules.table.players, rules.table.dealer_cards, rules.table.other_cards) == (
        4,
        3,
        21,
        20,
    )
    assert rules.stock_cards == 19


def test_hejiang_is_luzhou_without_3_long_5_kan():
    lz, hj = find_rules("luzhou"), find_rules("hejiang")
    assert hj.win.instant_longs == 0 and hj.win.instant_kans == 0
    assert hj.hu == lz.hu
    assert hj.scoring == lz.scoring


def test_chinese_aliases_find_the_presets():
    assert find_rules("泸州") == find_rules("luzhou")
    assert find_rules("合江大贰") == find_rules("hejiang")


def test_unknown_preset_raises_rules_error_listing_known_ones():
    with pytest.raises(RulesError, match="luzhou"):
        find_rules("nowhere")


# -- overrides --------------------------------------------------------------------------------------------


def test_with_overrides_replaces_dotted_options():
    rules = with_overrides(find_rules(), {"hu.peng": [1, 3, 3, 6], "scoring.mode": "money", "win.min_hu": 15})
    assert rules.hu.peng == (1, 3, 3, 6)
    assert rules.scoring.mode == "money"
    assert rules.win.min_hu == 15
    # everything else untouched
    assert rules.hu.kan == (6, 9, 9, 12)
    assert rules.win.groups == 7


def test_with_overrides_does_not_change_the_preset():
    with_overrides(find_rules(), {"hu.peng": [1, 3, 3, 6]})
    assert find_rules().hu.peng == (1, 6, 3, 9)


def test_with_overrides_accepts_nested_mappings():
    rules = with_overrides(find_rules(), {"scoring": {"money": {"first": 5}}})
    assert rules.scoring.money.first == 5
    assert rules.scoring.money.di_qian == 2


def test_with_no_overrides_is_the_same_ruleset():
    rules = find_rules()
    assert with_overrides(rules, {}) is rules


@pytest.mark.parametrize("key", ["win.no_such_option", "nosuch", "hu.peng_red", "scoring.deng.redd"])
def test_unknown_option_name_raises_rules_error(key):
    with pytest.raises(RulesError, match="unknown field"):
        with_overrides(find_rules(), {key: 1})


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("win.min_hu", "10"),
        ("win.min_hu", 10.0),
        ("win.min_hu", True),
        ("win.pair_with_quad", 1),
        ("hu.peng", [1, 3, 3]),
        ("hu.peng", [1, 3, 3, 6, 9]),
        ("hu.peng", "1,3,3,6"),
        ("scoring.mode", "gold"),
        ("table", 4),
        ("win.min_hu.deep", 1),
    ],
)
def test_wrongly_typed_option_raises_rules_error(key, value):
    with pytest.raises(RulesError, match="invalid ruleset"):
        with_overrides(find_rules(), {key: value})


def test_rulesets_are_frozen():
    rules = find_rules()
    with pytest.raises(AttributeError):
        rules.win.min_hu = 5  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("win.min_hu=15", ("win.min_hu", 15)),
        ("scoring.mode=money", ("scoring.mode", "money")),
        ('scoring.mode="money"', ("scoring.mode", "money")),
        ("hu.peng=[1,3,3,6]", ("hu.peng", [1, 3, 3, 6])),
        ("play.guo_zhang = false", ("play.guo_zhang", False)),
    ],
)
def test_parse_override_reads_toml_values(text, expected):
    assert parse_override(text) == expected


@pytest.mark.parametrize("text", ["no_equals_sign", "=3", " =3"])
def test_parse_override_needs_key_equals_value(text):
    with pytest.raises(RulesError):
        parse_override(text)


# -- house-rule files ---------------------------------------------------------------------------------------


def test_house_rule_file_with_base_luzhou(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text(
        'base = "luzhou"\nname = "house"\n\n[hu]\npeng = [1, 3, 3, 6]\n\n[win]\nmin_hu = 12\n',
        encoding="utf-8",
    )
    rules = load_rules_file(path)
    assert rules.name == "house"
    assert rules.hu.peng == (1, 3, 3, 6)
    assert rules.hu.kan == (6, 9, 9, 12)  # inherited
    assert rules.win.min_hu == 12
    assert rules.win.groups == 7  # inherited
    assert rules.title_zh == "泸州大贰"  # inherited
    # resolve_rules takes a .toml path, with overrides on top
    assert resolve_rules(str(path), {"win.min_hu": 20}).win.min_hu == 20


def test_house_rule_base_may_be_a_chinese_alias(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('base = "合江"\n', encoding="utf-8")
    assert load_rules_file(path) == find_rules("hejiang")


def test_house_rule_file_needs_a_base(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text("[win]\nmin_hu = 12\n", encoding="utf-8")
    with pytest.raises(RulesError, match="base"):
        load_rules_file(path)


def test_house_rule_with_unknown_option_raises(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('base = "luzhou"\n[win]\nmin_huu = 12\n', encoding="utf-8")
    with pytest.raises(RulesError, match="min_huu"):
        load_rules_file(path)


def test_house_rule_with_unknown_base_raises(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('base = "atlantis"\n', encoding="utf-8")
    with pytest.raises(RulesError, match="atlantis"):
        load_rules_file(path)


def test_house_rule_base_must_be_a_string(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text("base = 3\n", encoding="utf-8")
    with pytest.raises(RulesError, match="base"):
        load_rules_file(path)


def test_house_rule_file_bad_toml_or_missing_raises_rules_error(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('base = "luzhou\n', encoding="utf-8")
    with pytest.raises(RulesError, match="TOML"):
        load_rules_file(bad)
    with pytest.raises(RulesError):
        load_rules_file(tmp_path / "missing.toml")


def test_base_cycle_raises_rules_error(tmp_path, monkeypatch):
    """Presets a -> b -> a.  No public way exists to add a preset, so the preset reader is swapped."""
    presets = {
        "cyc_a": {"base": "cyc_b", "name": "cyc_a"},
        "cyc_b": {"base": "cyc_a", "name": "cyc_b"},
        "selfish": {"base": "selfish", "name": "selfish"},
    }
    real = loader._read_preset
    monkeypatch.setattr(
        loader, "_read_preset", lambda name: dict(presets[name]) if name in presets else real(name)
    )
    path = tmp_path / "house.toml"
    path.write_text('base = "cyc_a"\n', encoding="utf-8")
    with pytest.raises(RulesError, match="cycle"):
        load_rules_file(path)
    with pytest.raises(RulesError, match="cycle"):
        loader.find_rules.__wrapped__("selfish")


def test_a_ruleset_may_name_exactly_the_patterns_the_mingtang_package_tests():
    from daer.mingtang.patterns import PATTERNS  # noqa: PLC0415 — the patterns sit above the rules
    from daer.rules.model import PATTERN_IDS  # noqa: PLC0415

    assert set(PATTERNS) == PATTERN_IDS


def test_an_unknown_pattern_in_scoring_patterns_is_refused_with_a_chinese_reason():
    with pytest.raises(RulesError, match=r"未知的名堂.*no_such_pattern"):
        resolve_rules("luzhou-mingtang", {"scoring.patterns": {"red_hu": 2, "no_such_pattern": 1}})


def test_a_pattern_not_listed_in_the_rules_cannot_be_registered():
    from daer.mingtang.patterns import pattern  # noqa: PLC0415

    with pytest.raises(ValueError, match="PATTERN_IDS"):
        pattern("no_such_pattern", "无", "none")
