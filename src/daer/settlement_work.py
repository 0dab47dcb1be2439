"""The settlement's working (算法), as data: how a finished hand's 胡 became each seat's amount, step by step, in
Chinese and English, so that a player can check it by hand.

``daer score`` and the terminal print the settlement's one-line notes (:mod:`daer.cli.explain`); the online table
needs the same arithmetic with every term named (a loser who sees 「3等」 and pays 4 must see 「(3等 + 底家 1) × 1
= 4」).  :func:`worked` rebuilds each mode's formula from the ruleset and the :class:`~daer.scoring.Settlement`,
and checks it against the settlement's own payments: ``checked`` is false (and the lines fall back to the
settlement's notes) if the two ever disagree, so the page never shows arithmetic that does not add up.

>>> from daer.rules import find_rules
>>> from daer.scoring import settle
>>> w = worked(find_rules(), settle(find_rules(), hu=27, red=3, winner=1, dealer=0), how="hu")
>>> [c["zh"] for c in w["chain"]], w["checked"]
(['27胡', '3等', '+底家1', '每家付 4'], True)
>>> w["lines"][1]["zh"]
'每个输家付 (3等 + 底家 1) × 1 = 4'
"""

from __future__ import annotations

from typing import Any

from daer.rules.model import Ruleset
from daer.scoring import PENALTY_REASONS, Settlement, deng_of, money_text, penalty_amount, seats_of, yuan

Line = dict[str, str]


def _line(zh: str, en: str) -> Line:
    return {"zh": zh, "en": en}


def _money(s: Settlement, amount: int) -> tuple[str, str]:
    """An amount in both languages (money play: 元 to the 分)."""
    if s.money:
        return money_text(amount), f"{yuan(amount)} yuan"
    return str(amount), str(amount)


def _deng_rule(rules: Ruleset, hu: int, deng: int, unit_zh: str = "胡", unit_en: str = "hu") -> Line:
    """``27胡 → 3等（21-30 胡为 3 等）``: the bracket of 胡 that gives this 等 (:func:`daer.scoring.deng_of`)."""
    hi = hu
    while deng_of(rules, hi + 1) == deng:
        hi += 1
    if deng == 1:
        return _line(f"{hu}{unit_zh} → 1等（{hi} {unit_zh}及以下为 1 等）",
                     f"{hu} {unit_en} → deng 1 (up to {hi} is deng 1)")
    lo = hu
    while deng_of(rules, lo - 1) == deng:
        lo -= 1
    return _line(f"{hu}{unit_zh} → {deng}等（{lo}-{hi} {unit_zh}为 {deng} 等）",
                 f"{hu} {unit_en} → deng {deng} ({lo}-{hi} is deng {deng})")


def short_en(en: str) -> str:
    """A 名堂's English name without its explanation: ``red: 10 or more red cards`` → ``red``."""
    return en.split(":", maxsplit=1)[0].split(" (", maxsplit=1)[0]


def _mults(s: Settlement, joiner: str = " × ", *, short: bool = False) -> tuple[str, str]:
    zh = joiner.join(f"{m.zh}×{m.factor}" for m in s.multipliers)
    en = joiner.join(f"{short_en(m.en) if short else m.en} ×{m.factor}" for m in s.multipliers)
    return zh, en


def _win_deng(rules: Ruleset, s: Settlement, chain: list[Line], lines: list[Line]) -> tuple[int, int]:
    """等 play and 付钱: (what each loser pays, what the winner pays the 底家) by the formula."""
    sc = rules.scoring
    d = sc.deng
    chain += [_line(f"{s.hu}胡", f"{s.hu} hu"), _line(f"{s.deng}等", f"deng {s.deng}")]
    lines.append(_deng_rule(rules, s.hu, s.deng))
    mult_line = None
    if s.multipliers:
        mz, me = _mults(s)
        mult_line = _line(mz, _mults(s, short=True)[1])
        lines.append(_line(f"倍数：{mz} = ×{s.factor}", f"multipliers: {me} = ×{s.factor}"))
    dijia = s.dijia
    if sc.mode == "money":
        m = sc.money
        more = max(0, s.deng - 2)
        bang = m.first + more * m.step
        each = bang * m.unit_fen * s.factor
        share = m.di_qian * m.unit_fen * s.factor
        ez, ee = _money(s, each)
        chain += [_line(f"{bang}棒", f"{bang} bang"), _line(f"×{m.unit}元", f"×{m.unit} yuan")]
        lines.append(_line(f"每个输家付 ({m.first} + {more}×{m.step}) 棒 × {m.unit} 元 × {s.factor} = {ez}",
                           f"each loser pays ({m.first} + {more}×{m.step}) × {m.unit} yuan × {s.factor} = {ee}"))
        if s.dijia is not None and share:
            sz, se = _money(s, share)
            lines.append(_line(f"赢家付底家 底钱 {m.di_qian} 棒 × {m.unit} 元 × {s.factor} = {sz}",
                               f"the winner pays the dijia {m.di_qian} × {m.unit} yuan × {s.factor} = {se}"))
    else:
        base = max(s.deng, d.min_points)
        each = (base + d.dijia_share) * s.factor
        share = d.dijia_share * s.factor
        if base > s.deng:
            lines.append(_line(f"不足 {d.min_points} 等按 {d.min_points} 等算", f"counted as at least {d.min_points}"))
            chain.append(_line(f"按{base}等", f"counted as {base}"))
        if d.dijia_share:
            chain.append(_line(f"+底家{d.dijia_share}" if dijia is not None else f"+{d.dijia_share}",
                               f"+{d.dijia_share} dijia" if dijia is not None else f"+{d.dijia_share}"))
        plus_zh = f" + 底家 {d.dijia_share}" if dijia is not None else f" + {d.dijia_share}"
        plus_en = f" + {d.dijia_share} for the dijia" if dijia is not None else f" + {d.dijia_share}"
        if not d.dijia_share:
            plus_zh = plus_en = ""
        lines.append(_line(f"每个输家付 ({base}等{plus_zh}) × {s.factor} = {each}",
                           f"each loser pays (deng {base}{plus_en}) × {s.factor} = {each}"))
        if s.dijia is not None and share:
            lines.append(_line(f"赢家付底家 {d.dijia_share} × {s.factor} = {share}",
                               f"the winner pays the dijia {d.dijia_share} × {s.factor} = {share}"))
    if mult_line is not None:
        chain.append(mult_line)
    ez, ee = _money(s, each)
    chain.append(_line(f"每家付 {ez}", f"each pays {ee}"))
    return each, share


def _row_text(table: tuple[tuple[int, int], ...]) -> str:
    return " ".join(f"{f}→{v}" for f, v in sorted(table))


def _win_mingtang(rules: Ruleset, s: Settlement, chain: list[Line], lines: list[Line]) -> tuple[int, int]:
    m = rules.scoring.mingtang
    mz, me = _mults(s)
    raw = 1
    for mu in s.multipliers:
        raw *= mu.factor
    each = next((v for f, v in sorted(m.points, reverse=True) if f <= s.fan), 0)
    share = next((v for f, v in sorted(m.dijia, reverse=True) if f <= s.fan), 0)
    chain += [_line(f"{s.hu}胡", f"{s.hu} hu"), _line(mz, _mults(s, short=True)[1]),
              _line(f"{s.fan}番", f"{s.fan} fan"), _line(f"每家付 {each}", f"each pays {each}")]
    lines.append(_line(f"{s.hu}胡；名堂 {mz} = {raw}番" + (f"，封顶 {m.cap} 番" if raw > m.cap else ""),
                       f"{s.hu} hu; 名堂 {me} = {raw} fan" + (f", capped at {m.cap}" if raw > m.cap else "")))
    lines.append(_line(f"{s.fan}番 → 每个输家付 {each} 分（番→分：{_row_text(m.points)}）",
                       f"{s.fan} fan → each loser pays {each} (fan→points: {_row_text(m.points)})"))
    if s.dijia is not None and share:
        lines.append(_line(f"赢家付底家 {share} 分（番→分：{_row_text(m.dijia)}）",
                           f"the winner pays the dijia {share} (fan→points: {_row_text(m.dijia)})"))
    return each, share


def _win_fan(rules: Ruleset, s: Settlement, chain: list[Line], lines: list[Line],
             dealer: int) -> tuple[dict[int, int], int]:
    f = rules.scoring.fan
    exp = s.fan
    full = s.hu * 2**exp
    final = min(f.cap_hu, full)
    caitou = 1 if final <= f.caitou_start else 1 + -(-(final - f.caitou_start) // f.caitou_step)
    chain.append(_line(f"{s.hu}胡", f"{s.hu} hu"))
    if s.multipliers:
        mz = " ".join(f"{m.zh}" for m in s.multipliers)
        me = ", ".join(short_en(m.en) for m in s.multipliers)
        chain.append(_line(f"{mz} = {exp}番", f"{me} = {exp} fan"))
    chain += [_line(f"{final}胡", f"{final} hu"), _line(f"{caitou}彩头", f"{caitou} caitou")]
    names_zh = "、".join(f"{m.zh}(×{m.factor})" for m in s.multipliers) or "无"
    names_en = ", ".join(f"{m.en} (×{m.factor})" for m in s.multipliers) or "none"
    lines.append(_line(f"番：{names_zh} → 共 {exp} 番", f"fan: {names_en} → {exp} fan in all"))
    lines.append(_line(f"{s.hu}胡 × 2^{exp} = {full}胡" + (f" → 封顶 {f.cap_hu}" if full > f.cap_hu else ""),
                       f"{s.hu} hu × 2^{exp} = {full}" + (f" → capped at {f.cap_hu}" if full > f.cap_hu else "")))
    lines.append(_line(f"{final}胡 → {caitou} 彩头（{f.caitou_start} 胡及以下 1 个，每多 {f.caitou_step} 胡加 1 个）",
                       f"{final} hu → {caitou} caitou (up to {f.caitou_start} is 1, +1 per {f.caitou_step} more)"))
    players, _ = seats_of(rules, dealer)
    winner = s.winner if s.winner is not None else -1
    each = {seat: caitou * (2 if f.dealer_double and dealer in (seat, winner) else 1)
            for seat in players if seat != winner}
    if f.dealer_double and len(set(each.values())) > 1:
        lines.append(_line(f"庄家输赢双倍：和庄家之间付 {caitou} × 2 = {2 * caitou}",
                           f"the dealer pays and is paid double: {caitou} × 2 = {2 * caitou}"))
    chain.append(_line(f"每家付 {caitou}" if len(set(each.values())) == 1 else f"每家付 {caitou}（庄 ×2）",
                       f"each pays {caitou}" if len(set(each.values())) == 1 else f"each pays {caitou} (dealer ×2)"))
    return each, 0


def _win_huayang(rules: Ruleset, s: Settlement, chain: list[Line], lines: list[Line],
                 self_drawn: bool) -> tuple[int, int]:
    hy, d = rules.scoring.huayang, rules.scoring.deng
    extra = hy.self_drawn_deng if self_drawn else 0
    plain = s.deng - extra
    each = s.deng * s.factor
    share = d.dijia_share * s.factor
    chain += [_line(f"{s.hu}胡息", f"{s.hu} huxi"), _line(f"{plain}等", f"deng {plain}")]
    lines.append(_deng_rule(rules, s.hu, plain, "胡息", "huxi"))
    if extra:
        chain.append(_line(f"自摸+{extra}等", f"self-drawn +{extra}"))
        lines.append(_line(f"自摸加 {extra} 等：{plain} + {extra} = {s.deng}等",
                           f"self-drawn: +{extra} deng = {s.deng}"))
    if s.multipliers:
        mz = " + ".join(f"{m.zh}{m.factor}" for m in s.multipliers)
        me = " + ".join(f"{m.en} {m.factor}" for m in s.multipliers)
        chain.append(_line(f"{s.factor}番", f"{s.factor} fan"))
        lines.append(_line(f"花样：{mz} = {s.factor}番", f"花样: {me} = {s.factor} fan"))
    else:
        lines.append(_line("没有花样：1 番", "no 花样: 1 fan"))
    lines.append(_line(f"每个输家付 {s.deng}等 × {s.factor}番 = {each}",
                       f"each loser pays deng {s.deng} × {s.factor} fan = {each}"))
    if s.dijia is not None and share:
        lines.append(_line(f"赢家付底家 {d.dijia_share} × {s.factor} = {share}",
                           f"the winner pays the dijia {d.dijia_share} × {s.factor} = {share}"))
    chain.append(_line(f"每家付 {each}", f"each pays {each}"))
    return each, share


def _draw(rules: Ruleset, s: Settlement, penalties: tuple[tuple[int, str], ...], *, dealer: int,
          chain: list[Line], lines: list[Line]) -> list[int]:
    """黄牌 (and 包牌): the lines, and each seat's points by them."""
    sc = rules.scoring
    amount = {"money": sc.money.di_qian * sc.money.unit_fen, "fan": sc.fan.huang}.get(sc.mode, sc.deng.huang)
    chain.append(_line("黄牌", "draw"))
    lines.append(_line("黄牌：牌摸完了，没人胡", "draw (黄牌): the stock ran out and nobody won"))
    points = [0] * rules.table.seats
    if s.dijia is not None and amount:
        az, ae = _money(s, amount)
        lines.append(_line(f"每个玩家付底家 {az}", f"each player pays the dijia {ae}"))
        chain.append(_line(f"各付底家 {az}", f"each pays the dijia {ae}"))
        for seat in seats_of(rules, dealer)[0]:
            points[seat] -= amount
            points[s.dijia] += amount
    pen = penalty_amount(rules)
    pz, pe = _money(s, pen)
    for seat, reasons in penalties:
        why = [PENALTY_REASONS[r] for r in reasons.split("+")]
        lines.append(_line(f"{seat + 1}号位 包牌（{'；'.join(w[0].removeprefix('包牌：') for w in why)}）：付每家 {pz}",
                           f"seat {seat + 1} pays 包 ({'; '.join(w[1] for w in why)}): {pe} to each other seat"))
        chain.append(_line(f"包牌 {pz}", f"包 {pe}"))
        for other in range(rules.table.seats):
            if other != seat:
                points[other] += pen
                points[seat] -= pen
    return points


def worked(rules: Ruleset, s: Settlement, *, how: str, penalties: tuple[tuple[int, str], ...] = (),
           dealer: int = 0, self_drawn: bool = False) -> dict[str, Any]:
    """The working of a finished hand's settlement: ``chain`` (the short 胡 → 等 → 倍数 → amount steps),
    ``lines`` (each step with its arithmetic) and ``checked`` (the formula gives the settlement's payments).

    ``how`` is the result's (hu / instant / huang), ``penalties`` the 包牌 of a 黄 end, ``dealer`` the hand's
    dealer (番 play doubles payments with the dealer), ``self_drawn`` whether the win was 自摸 (花样 adds 等).
    """
    chain: list[Line] = []
    lines: list[Line] = []
    mode = rules.scoring.mode
    if s.winner is None:
        points = _draw(rules, s, penalties, dealer=dealer, chain=chain, lines=lines)
    else:
        if how == "instant":
            lines.append(_line("起手胡：按发到的整手牌计", "instant win: the dealt hand is counted"))
        each: int | dict[int, int]
        if mode in ("deng", "money"):
            each, share = _win_deng(rules, s, chain, lines)
        elif mode == "mingtang":
            each, share = _win_mingtang(rules, s, chain, lines)
        elif mode == "fan":
            each, share = _win_fan(rules, s, chain, lines, dealer)
        else:
            each, share = _win_huayang(rules, s, chain, lines, self_drawn)
        points = [0] * rules.table.seats
        for seat in seats_of(rules, dealer)[0]:
            if seat != s.winner:
                pay = each[seat] if isinstance(each, dict) else each
                points[seat] -= pay
                points[s.winner] += pay
        if s.dijia is not None:
            points[s.winner] -= share
            points[s.dijia] += share
    checked = tuple(points) == s.points
    if not checked:  # never show arithmetic that does not add up: the settlement's own notes instead
        lines = [_line(n, n) for n in s.notes]
    return {"mode": mode, "chain": chain if checked else [], "lines": lines, "checked": checked}
