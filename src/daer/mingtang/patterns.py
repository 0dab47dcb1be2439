"""Every 名堂 / 番 / 花样 of the rule texts: one small pure unit each, with its id and Chinese name.

A pattern answers how many times it applies to one arrangement (0: not at all).
Its *value* (番) is data of the ruleset (``scoring.patterns``): only the patterns a
ruleset lists count, and the same unit may be worth different 番 in different
towns.  ``supersedes`` names patterns that do not count beside this one (the
seed's 「多番牌按不重合计算」: 十五观灯 is not also 红胡).

>>> from daer.hands.groups import Group, GroupKind
>>> g = Group(GroupKind.RUN, (1, 6, 9), 6)
>>> PATTERNS["red_hu"].test(WinContext((g,) * 4, 24))
1
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from daer.cards import is_big
from daer.hands.groups import GroupKind
from daer.mingtang.context import WinContext, scoring_run
from daer.rules.model import PATTERN_IDS

_QUADS = (GroupKind.ZHAO, GroupKind.LONG)


@dataclass(frozen=True, slots=True)
class Pattern:
    """One 名堂: ``test`` gives how many times it applies to an arrangement."""

    id: str
    zh: str
    en: str
    test: Callable[[WinContext], int]
    supersedes: tuple[str, ...] = ()


PATTERNS: dict[str, Pattern] = {}
"""Every known pattern by id."""


def pattern(id: str, zh: str, en: str, *, supersedes: tuple[str, ...] = ()) -> Callable[
    [Callable[[WinContext], int | bool]], Callable[[WinContext], int | bool]
]:
    """Register the decorated test as a pattern (its id must be one of :data:`daer.rules.model.PATTERN_IDS`)."""
    if id not in PATTERN_IDS:
        raise ValueError(f"pattern {id!r} is not in daer.rules.model.PATTERN_IDS: list it there first")

    def deco(fn: Callable[[WinContext], int | bool]) -> Callable[[WinContext], int | bool]:
        PATTERNS[id] = Pattern(id, zh, en, lambda ctx: int(fn(ctx)), supersedes)
        return fn

    return deco


# -- 红牌 (the red cards) ------------------------------------------------------------------------
@pattern("red_hu", "红胡", "red: 10 or more red cards")
def _red_hu(ctx: WinContext) -> bool:
    return ctx.red >= 10


@pattern("hong", "红", "red: 10 or more red cards (隆昌/古蔺)")
def _hong(ctx: WinContext) -> bool:
    return ctx.red >= 10


def _zhu_run(ctx: WinContext) -> bool:
    return any(g.red() for g in ctx.groups if scoring_run(g) == "123")


@pattern("zhen_zhu", "真珠", "true pearl: one red card, in a 一二三")
def _zhen_zhu(ctx: WinContext) -> bool:
    return ctx.red == 1 and _zhu_run(ctx)


@pattern("jia_zhu", "假珠", "false pearl: one red card, not in a 一二三")
def _jia_zhu(ctx: WinContext) -> bool:
    return ctx.red == 1 and not _zhu_run(ctx)


def _red_quad(ctx: WinContext, kind: GroupKind) -> bool:
    return ctx.red == 4 and any(g.red() == 4 and g.kind is kind for g in ctx.groups)


@pattern("zhao_yin", "招印", "seal: the four red cards are one 招")
def _zhao_yin(ctx: WinContext) -> bool:
    return _red_quad(ctx, GroupKind.ZHAO)


@pattern("long_yin", "垅印", "seal: the four red cards are one 垅")
def _long_yin(ctx: WinContext) -> bool:
    return _red_quad(ctx, GroupKind.LONG)


@pattern("he_yin", "合印", "seal: four red cards as 3 + 1")
def _he_yin(ctx: WinContext) -> bool:
    return ctx.red == 4 and ctx.red_groups == (3, 1)


@pattern("san_yin", "散印", "seal: four red cards in four 列")
def _san_yin(ctx: WinContext) -> bool:
    return ctx.red == 4 and ctx.red_groups == (1, 1, 1, 1)


@pattern("pian", "偏", "three red cards, all in one 列")
def _pian(ctx: WinContext) -> bool:
    return ctx.red == 3 and ctx.red_groups == (3,)


@pattern("hua", "花", "red cards spread over six 列")
def _hua(ctx: WinContext) -> bool:
    return len(ctx.red_groups) == 6


@pattern("bian_di_jin", "遍地金", "red cards spread over seven 列")
def _bian_di_jin(ctx: WinContext) -> bool:
    return len(ctx.red_groups) == 7


@pattern("shisan_taibao", "十三太保", "13 or 14 red cards", supersedes=("red_hu",))
def _shisan_taibao(ctx: WinContext) -> bool:
    return 13 <= ctx.red < 15


@pattern("shiwu_guandeng", "十五观灯", "15 or more red cards", supersedes=("red_hu",))
def _shiwu_guandeng(ctx: WinContext) -> bool:
    return ctx.red >= 15


# -- 乌牌 (no red card) --------------------------------------------------------------------------
@pattern("wu_hu", "乌胡", "all black: no red card")
def _wu_hu(ctx: WinContext) -> bool:
    return ctx.red == 0


@pattern("hei", "黑", "all black: no red card (隆昌/古蔺)")
def _hei(ctx: WinContext) -> bool:
    return ctx.red == 0


# -- 一般牌型 (shapes) ---------------------------------------------------------------------------
def _sisters(ctx: WinContext, *kinds: GroupKind) -> int:
    """Pairs of 列 of ``kinds`` on neighbouring numbers of one size (姊妹: 四四四 + 五五五)."""
    ks = sorted({g.cards[0] for g in ctx.kinds(*kinds)})
    found, i = 0, 0
    while i + 1 < len(ks):
        a, b = ks[i], ks[i + 1]
        if b == a + 1 and is_big(a) == is_big(b):
            found += 1
            i += 2
        else:
            i += 1
    return found


@pattern("zimei_peng", "姊妹碰", "sister 碰: 碰 of two neighbouring numbers")
def _zimei_peng(ctx: WinContext) -> int:
    return _sisters(ctx, GroupKind.PENG)


@pattern("zimei_zhao", "姊妹招", "sister 招: 招 of two neighbouring numbers")
def _zimei_zhao(ctx: WinContext) -> int:
    return _sisters(ctx, GroupKind.ZHAO)


@pattern("zimei_long", "姊妹垅", "sister 垅: 垅 of two neighbouring numbers")
def _zimei_long(ctx: WinContext) -> int:
    return _sisters(ctx, GroupKind.LONG)


def _round_ten(ctx: WinContext) -> bool:
    return not ctx.lan and ctx.hu >= 10 and ctx.hu % 10 == 0


@pattern("qia", "恰", "exactly a multiple of ten 胡")
def _qia(ctx: WinContext) -> bool:
    return _round_ten(ctx)


@pattern("bang", "棒", "a multiple of ten 胡 (隆昌)")
def _bang(ctx: WinContext) -> bool:
    return _round_ten(ctx)


@pattern("qing", "青", "no 一二三 / 二七十 列")
def _qing(ctx: WinContext) -> bool:
    return not any(scoring_run(g) for g in ctx.groups)


@pattern("piao", "飘", "no 坎 or 垅 (nor a 招 grown from a 坎)")
def _piao(ctx: WinContext) -> bool:
    return not ctx.kinds(GroupKind.KAN, GroupKind.LONG, GroupKind.ZHAO)


@pattern("shuang_piaodai", "双飘带", "two 一二三 and two 二七十 of one size")
def _shuang_piaodai(ctx: WinContext) -> bool:
    runs = Counter((scoring_run(g), is_big(g.cards[0])) for g in ctx.groups if scoring_run(g))
    return any(runs[("123", big)] >= 2 and runs[("2710", big)] >= 2 for big in (False, True))


@pattern("da_xiao_18", "18大18小", "18 or more cards of one size")
def _da_xiao_18(ctx: WinContext) -> bool:
    return ctx.big >= 18 or ctx.cards - ctx.big >= 18


@pattern("gao", "高", "a doubled 一二三 / 二七十 of one size (each counts)")
def _gao(ctx: WinContext) -> int:
    runs = Counter((scoring_run(g), is_big(g.cards[0])) for g in ctx.groups if scoring_run(g))
    return sum(n // 2 for n in runs.values())


@pattern("kun", "坤", "every 列 has 胡")
def _kun(ctx: WinContext) -> bool:
    return all(g.hu > 0 for g in ctx.groups)


@pattern("duidui", "对对胡", "only three/four of a kind (and the pair): no run, no 绞")
def _duidui(ctx: WinContext) -> bool:
    # 「手中的牌全部为跑起，提起，碰起，偎起」: every card, so an instant win's loose cards (in no 列) rule it
    # out, bar one pair (the 将 of a hand with quads)
    loose = ctx.loose
    return not ctx.kinds(GroupKind.RUN, GroupKind.JIAO) and (not loose or (len(loose) == 2 and loose[0] == loose[1]))


@pattern("wu_duidui", "乌对对", "all black and 对对胡 (10番 together)", supersedes=("wu_hu", "duidui"))
def _wu_duidui(ctx: WinContext) -> bool:
    return ctx.red == 0 and bool(_duidui(ctx))


@pattern("phz_red", "红胡", "10 to 12 red cards (跑胡子)")
def _phz_red(ctx: WinContext) -> bool:
    return 10 <= ctx.red < 13


@pattern("dian_hu", "点胡", "exactly one red card (跑胡子)")
def _dian_hu(ctx: WinContext) -> bool:
    return ctx.red == 1


@pattern("hong_wu", "红乌", "13 or more red cards (跑胡子)")
def _hong_wu(ctx: WinContext) -> bool:
    return ctx.red >= 13


# -- 圈风 and the seat card (隆昌, 古蔺) ----------------------------------------------------------
@pattern("quan", "圈风", "three or more of the round's wind card")
def _quan(ctx: WinContext) -> bool:
    return ctx.wind is not None and ctx.counts[ctx.wind] >= 3


@pattern("seat_card", "位", "three or more of the seat card (庄贰、杠柒、尾拾)")
def _seat_card(ctx: WinContext) -> bool:
    return ctx.seat_card is not None and ctx.counts[ctx.seat_card] >= 3


# -- 其它 (how and when the hand was won) --------------------------------------------------------
@pattern("tianhu", "天胡", "heavenly hand: the dealer wins with the dealt hand")
def _tianhu(ctx: WinContext) -> bool:
    return ctx.flags.tianhu


@pattern("dihu", "地胡", "earthly hand: a player wins on the dealer's first discard")
def _dihu(ctx: WinContext) -> bool:
    return ctx.flags.dihu


@pattern("huilong", "回龙地胡", "the dealer wins on the first discard of another player")
def _huilong(ctx: WinContext) -> bool:
    return ctx.flags.huilong


@pattern("haidilao", "海底捞", "won on the last card of the stock")
def _haidilao(ctx: WinContext) -> bool:
    return ctx.flags.haidi


@pattern("haidi", "海底", "won on the last card of the stock (跑胡子)")
def _haidi(ctx: WinContext) -> bool:
    return ctx.flags.haidi


@pattern("bao", "报", "won after declaring ready (报牌)")
def _bao(ctx: WinContext) -> bool:
    return ctx.flags.bao


@pattern("xi_24", "24喜", "24 or more cards")
def _xi_24(ctx: WinContext) -> bool:
    return ctx.cards >= 24


@pattern("hu_30", "30胡", "30 胡 or more")
def _hu_30(ctx: WinContext) -> bool:
    return ctx.hu >= 30


@pattern("hu_33", "33胡", "33 胡 or more", supersedes=("hu_30",))
def _hu_33(ctx: WinContext) -> bool:
    return ctx.hu >= 33


@pattern("hu_36", "36胡", "36 胡 or more", supersedes=("hu_30", "hu_33"))
def _hu_36(ctx: WinContext) -> bool:
    return ctx.hu >= 36


def matches(ctx: WinContext, ids: list[str] | tuple[str, ...]) -> list[tuple[Pattern, int]]:
    """The patterns among ``ids`` that apply, with how often, superseded ones dropped (in ``ids`` order)."""
    hits = [(PATTERNS[i], n) for i in ids if (n := PATTERNS[i].test(ctx))]
    gone = {s for p, _ in hits for s in p.supersedes}
    return [(p, n) for p, n in hits if p.id not in gone]


__all__ = ["PATTERNS", "Pattern", "WinContext", "matches", "pattern"]
