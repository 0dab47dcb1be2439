"""Cards and notation (RULES-NOTES "Cards and seats"): 20 kinds × 4, red 2/7/10, Chinese and ASCII."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from daer.cards import (
    BIG_CHARS,
    N_CARDS,
    N_KINDS,
    SMALL_CHARS,
    NotationError,
    TooManyCopiesError,
    check_copies,
    format_kinds,
    from_counts,
    full_deck,
    is_big,
    is_red,
    kind_ascii,
    kind_char,
    kind_of,
    number_of,
    other_size,
    parse_counts,
    parse_kinds,
    red_count,
    to_counts,
)

ALL_SMALL = list(range(10))
ALL_BIG = list(range(10, 20))


# -- the deck -------------------------------------------------------------------------------------


def test_deck_is_80_cards_20_kinds_4_copies_each():
    deck = full_deck()
    assert len(deck) == N_CARDS == 80
    assert N_KINDS == 20
    assert to_counts(kind_of(c) for c in deck) == (4,) * 20


def test_red_cards_are_2_7_10_of_both_sizes_24_in_all():
    red = [k for k in range(N_KINDS) if is_red(k)]
    assert format_kinds(red) == "二七十贰柒拾"
    assert red_count(kind_of(c) for c in full_deck()) == 24


def test_small_kinds_are_0_to_9_and_big_kinds_10_to_19():
    assert format_kinds(ALL_SMALL) == SMALL_CHARS == "一二三四五六七八九十"
    assert format_kinds(ALL_BIG) == BIG_CHARS == "壹贰叁肆伍陆柒捌玖拾"
    assert not any(is_big(k) for k in ALL_SMALL)
    assert all(is_big(k) for k in ALL_BIG)
    assert [number_of(k) for k in ALL_BIG] == list(range(1, 11))


def test_other_size_pairs_small_and_big_of_the_same_number():
    assert other_size(parse_kinds("九")[0]) == parse_kinds("玖")[0]
    assert all(other_size(other_size(k)) == k for k in range(N_KINDS))


# -- parsing ------------------------------------------------------------------------------------------


def test_chinese_needs_no_separators():
    assert parse_kinds("一二三壹贰叁") == [0, 1, 2, 10, 11, 12]


def test_chinese_with_separators():
    assert parse_kinds("一 二，三、壹,贰;叁|四/五") == [0, 1, 2, 10, 11, 12, 3, 4]


def test_full_width_space_of_chinese_text_is_a_separator():
    # regression: the seed texts separate with U+3000 ("　　"); it was read as an unknown card
    assert parse_kinds("一二三\u3000壹贰叁") == [0, 1, 2, 10, 11, 12]
    assert parse_kinds("x1\u3000x10") == [0, 9]


def test_ascii_separated_by_spaces_and_commas():
    assert parse_kinds("x1 x2,x3 d1, d2") == [0, 1, 2, 10, 11]


def test_ascii_glued_without_separators():
    assert parse_kinds("x1x2x3d1d2d3") == [0, 1, 2, 10, 11, 12]


def test_ascii_is_case_insensitive():
    assert parse_kinds("X1 D10") == parse_kinds("x1 d10") == [0, 19]


def test_x10_is_ten_not_x1_followed_by_0():
    assert parse_kinds("x10") == [9]
    assert parse_kinds("d10") == [19]
    # glued: x10 then x1, d10 then d1
    assert parse_kinds("x10x1d10d1") == [9, 0, 19, 10]


def test_chinese_and_ascii_mix_freely():
    assert parse_kinds("x1二 d3肆x10拾") == [0, 1, 12, 13, 9, 19]
    assert parse_kinds("一x2三") == [0, 1, 2]


def test_alternative_glyphs_of_printed_cards():
    assert parse_kinds("两貳參陸") == parse_kinds("二贰叁陆")


def test_empty_string_is_no_cards():
    assert parse_kinds("") == []
    assert parse_kinds(" , ") == []
    assert parse_counts("") == (0,) * 20


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("一二foo三", "foo"),
        ("x0", "x0"),
        ("d11", "d11"),
        ("x11", "x11"),
        ("x100", "x100"),
        ("一 q 二", "q"),
        ("x1 y2", "y2"),
        ("a", "a"),
    ],
)
def test_unknown_token_error_names_the_token(text, token):
    with pytest.raises(NotationError) as info:
        parse_kinds(text)
    assert info.value.token == token
    assert repr(token) in str(info.value)


def test_notation_error_is_a_value_error():
    with pytest.raises(ValueError, match="unknown card"):
        parse_counts("zz")


def test_fifth_copy_of_a_kind_is_refused():
    assert parse_counts("一一一一")[0] == 4
    with pytest.raises(TooManyCopiesError) as info:
        parse_counts("一一一一x1")
    assert info.value.token == "一"
    assert "5" in str(info.value)
    assert "x1" in str(info.value)  # the ASCII name is given as well


def test_fifth_copy_is_also_checked_by_check_copies():
    check_copies([19] * 4)
    with pytest.raises(TooManyCopiesError, match="拾"):
        check_copies([19] * 5)


def test_parse_kinds_itself_does_not_count_copies():
    # only parse_counts / check_copies refuse a fifth copy; parse_kinds reads what is written
    assert parse_kinds("一" * 5) == [0] * 5


# -- formatting and round trips -----------------------------------------------------------------------


def test_format_chinese_and_ascii():
    kinds = parse_kinds("一十壹拾")
    assert format_kinds(kinds) == "一十壹拾"
    assert format_kinds(kinds, ascii=True) == "x1 x10 d1 d10"
    assert [kind_ascii(k) for k in kinds] == ["x1", "x10", "d1", "d10"]
    assert [kind_char(k) for k in kinds] == ["一", "十", "壹", "拾"]


def test_counts_round_trip():
    counts = parse_counts("一一二拾拾拾")
    assert counts[0] == 2 and counts[1] == 1 and counts[19] == 3
    assert from_counts(counts) == [0, 0, 1, 19, 19, 19]


kinds_lists = st.lists(st.integers(0, N_KINDS - 1), max_size=30)


@settings(max_examples=150, deadline=None)
@given(kinds_lists)
def test_round_trip_chinese(kinds):
    assert parse_kinds(format_kinds(kinds)) == kinds


@settings(max_examples=150, deadline=None)
@given(kinds_lists)
def test_round_trip_ascii(kinds):
    assert parse_kinds(format_kinds(kinds, ascii=True)) == kinds


@settings(max_examples=150, deadline=None)
@given(kinds_lists)
def test_round_trip_ascii_glued(kinds):
    # glued ASCII (x10x1…) must read back the same: x10 is never x1 followed by "0"
    assert parse_kinds("".join(kind_ascii(k) for k in kinds)) == kinds


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, N_KINDS - 1), st.booleans(), st.sampled_from(["", " ", ",", "，"]))))
def test_round_trip_mixed_notation(items):
    text = "".join((kind_ascii(k) if asc else kind_char(k)) + sep for k, asc, sep in items)
    assert parse_kinds(text) == [k for k, _, _ in items]


@settings(max_examples=100, deadline=None)
@given(kinds_lists)
def test_counts_of_a_list_do_not_depend_on_order(kinds):
    assert to_counts(kinds) == to_counts(sorted(kinds)) == to_counts(reversed(kinds))
    assert from_counts(to_counts(kinds)) == sorted(kinds)
