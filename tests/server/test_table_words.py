"""The table's words per ruleset (GET /api/options rulesets[].words): 跑胡子 says 跑 for a 招 and 提 for a 垅, as the
terminal does (daer.cli.terms.term with the ruleset); the 大贰 rulesets keep the engine's words."""

from __future__ import annotations

import pytest

from daer.cli.terms import TERMS, term
from daer.rules import find_rules, preset_names
from daer.rules.house import rulesets_info


@pytest.mark.parametrize("preset", preset_names())
def test_each_rulesets_words_are_the_terminals_words_for_that_ruleset(preset: str) -> None:
    info = next(r for r in rulesets_info() if r["name"] == preset)
    words = info["words"]
    assert isinstance(words, dict)
    rules = find_rules(preset)
    for kind in ("zhao", "long", "peng", "chi"):
        key = words.get(kind, kind)
        assert key in TERMS
        assert TERMS[key][0] == term(kind, "zh", rules)


def test_paohuzi_says_pao_and_ti() -> None:
    info = next(r for r in rulesets_info() if r["name"] == "paohuzi")
    assert info["words"] == {"zhao": "pao", "long": "ti"}
