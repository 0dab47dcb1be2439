"""Settlement of a won hand under every scoring mode, choosing the arrangement that pays best.

``deng`` and ``money`` value a hand by its 胡 only, so the fast evaluator's best-胡
arrangement is the answer.  ``mingtang`` (泸州名堂), ``fan`` (隆昌/古蔺) and
``huayang`` (跑胡子) value the 名堂 of an arrangement too: every arrangement of the
hand is scored and the one that gives the winner most is kept (ties: more 胡,
then the first in the enumeration's fixed order).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from daer.cards import Counts, is_red
from daer.hands.analysis import check_cards, evaluate
from daer.hands.arrange import iter_arrangements
from daer.hands.forced import Arrival, win_shapes
from daer.hands.groups import Group, Meld
from daer.mingtang.context import SEAT_CARDS, WinContext
from daer.mingtang.patterns import matches
from daer.rules.model import PATTERN_MODES, Ruleset
from daer.scoring import Multiplier, Payment, Settlement, WinFlags, deng_of, seats_of, settle


@dataclass(frozen=True, slots=True)
class Win:
    """A scored win: the chosen arrangement, its counted 胡 and the settlement."""

    hu: int
    """Counted 胡 before 番 (烂和 as its counted value)."""
    groups: tuple[Group, ...]
    settlement: Settlement
    lan: bool = False
    """烂和: no 列 has 胡, counted as ``win.lan_hu``."""
    how: str = ""
    """What the winning card was forced into (:class:`~daer.hands.forced.WinShape`): ``wei``, ``ti``, ``pao``."""


def seat_card(rules: Ruleset, winner: int, dealer: int) -> int | None:
    """The winner's seat card (庄贰、杠柒、尾拾) when three play, else None."""
    players, _ = seats_of(rules, dealer)
    if winner not in players or len(players) != len(SEAT_CARDS):
        return None
    return SEAT_CARDS[players.index(winner)]


def _row(table: tuple[tuple[int, int], ...], fan: int) -> int:
    """The value of the largest row of ``table`` whose 番 is at most ``fan``."""
    best = 0
    for f, v in sorted(table):
        if f <= fan:
            best = v
    return best


def _pay(rules: Ruleset, players: list[int], dijia: int | None, *, winner: int, each: dict[int, int],
         share: int) -> tuple[tuple[int, ...], tuple[Payment, ...]]:
    points = [0] * rules.table.seats
    payments = []
    for seat in players:
        if seat != winner and each[seat]:
            payments.append(Payment(seat, winner, each[seat], "输家付赢家", "loser pays winner"))
            points[seat] -= each[seat]
            points[winner] += each[seat]
    if dijia is not None and share:
        payments.append(Payment(winner, dijia, share, "赢家付底家", "winner pays the dijia (底家)"))
        points[winner] -= share
        points[dijia] += share
    return tuple(points), tuple(payments)


def settle_context(rules: Ruleset, ctx: WinContext, *, winner: int, dealer: int = 0) -> Settlement:
    """Settle one arrangement under a pattern mode (``mingtang``, ``fan`` or ``huayang``)."""
    players, dijia = seats_of(rules, dealer)
    if winner not in players:
        raise ValueError(f"底家不能胡牌 seat {winner} is not playing this hand (the 底家 is seat {dijia})")
    sc = rules.scoring
    values = sc.patterns
    hits = matches(ctx, tuple(values))
    hu = ctx.hu
    if sc.mode == "mingtang":
        m = sc.mingtang
        mults = [Multiplier(p.id, p.zh, p.en, values[p.id] ** n) for p, n in hits]
        if not mults:
            fan = m.pinghu_high if hu >= m.pinghu_high_at else m.pinghu
            mults = [Multiplier("pinghu", "平胡", "no 名堂", fan)]
        fan = 1
        for mu in mults:
            fan *= mu.factor
        fan = min(fan, m.cap)
        pts, share = _row(m.points, fan), _row(m.dijia, fan)
        points, payments = _pay(rules, players, dijia, winner=winner, each=dict.fromkeys(players, pts), share=share)
        note = f"{'×'.join(str(mu.factor) for mu in mults)} → {fan}番 (≤{m.cap}) = {pts}分"
        return Settlement(hu, deng_of(rules, hu), ctx.red, tuple(mults), fan, points, payments, winner, dijia,
                          (note,), fan=fan)
    if sc.mode == "fan":
        f = sc.fan
        mults = [Multiplier(p.id, p.zh, p.en, 2 ** (values[p.id] * n)) for p, n in hits]
        exp = sum(values[p.id] * n for p, n in hits)
        final = min(f.cap_hu, hu * 2**exp)
        caitou = 1 if final <= f.caitou_start else 1 + -(-(final - f.caitou_start) // f.caitou_step)
        each = {s: caitou * (2 if f.dealer_double and dealer in (s, winner) else 1) for s in players}
        points, payments = _pay(rules, players, dijia, winner=winner, each=each, share=0)
        note = f"{hu}胡 × 2^{exp} = {hu * 2**exp} → {final}胡 (≤{f.cap_hu}) = {caitou}彩头"
        return Settlement(hu, caitou, ctx.red, tuple(mults), 2**exp, points, payments, winner, dijia,
                          (note,), fan=exp, final=final)
    if sc.mode != "huayang":
        raise ValueError(f"scoring mode {sc.mode!r} has no 名堂")
    h, d = sc.huayang, sc.deng
    deng = deng_of(rules, hu) + (h.self_drawn_deng if ctx.flags.self_drawn else 0)
    mults = [Multiplier(p.id, p.zh, p.en, values[p.id] * n) for p, n in hits]
    if [mu.id for mu in mults] == ["haidi"]:
        mults = [Multiplier("haidi", "海底", "平胡海底", h.haidi_alone)]
    factor = max(1, sum(mu.factor for mu in mults))
    per = deng * factor
    points, payments = _pay(rules, players, dijia, winner=winner, each=dict.fromkeys(players, per),
                            share=d.dijia_share * factor)
    note = f"{deng}等 × {factor}番 = {per}"
    return Settlement(hu, deng, ctx.red, tuple(mults), factor, points, payments, winner, dijia, (note,), fan=factor)


def best_win(
    rules: Ruleset,
    hand: Counts,
    melds: Sequence[Meld] = (),
    win: int | None = None,
    *,
    winner: int = 0,
    dealer: int = 0,
    flags: WinFlags | None = None,
    wind: int | None = None,
    arrival: Arrival | None = None,
) -> Win | None:
    """The arrangement of a complete hand that pays ``winner`` most, settled; None if it cannot win.

    A hand cannot win when it is not complete, or when its 胡 is under ``win.min_hu``
    and it is not a 烂和 (no 列 with 胡, under ``win.lan_hu``).  ``arrival`` (how the winning card
    came: ``self``, ``other``, ``discard``) lets the card be scored as what the rules force it to
    become — 偎胡, 提胡, 跑胡 (:func:`~daer.hands.forced.win_shapes`); None leaves it free.
    """
    mt = tuple(melds)
    flags = flags or WinFlags()
    check_cards(hand, mt, win)
    shapes = win_shapes(rules, hand, mt, win, arrival)
    if len(shapes) > 1 or shapes[0].how:
        best: Win | None = None
        for sh in shapes:
            got = best_win(rules, sh.hand, sh.melds, sh.win, winner=winner, dealer=dealer, flags=flags, wind=wind)
            if got is not None and (best is None or (got.settlement.points[winner], got.hu)
                                    > (best.settlement.points[winner], best.hu)):
                best = replace(got, how=sh.how)
        return best
    lan_hu, min_hu = rules.win.lan_hu, rules.win.min_hu
    if rules.scoring.mode not in PATTERN_MODES:
        ev = evaluate(rules, hand, mt, win)
        if not ev.complete:
            return None
        groups, hu, lan = ev.groups, ev.hu, False
        if hu < min_hu and lan_hu:
            if hu:
                zero = next((a for a in iter_arrangements(rules, hand, mt, win) if not sum(g.hu for g in a)), None)
                if zero is None:
                    return None
                groups = zero
            hu, lan = lan_hu, True
        if hu < min_hu and not lan:
            return None
        red = sum(g.red() for g in groups)
        return Win(hu, groups, settle(rules, hu=hu, red=red, winner=winner, dealer=dealer, flags=flags), lan)
    return best_of(rules, iter_arrangements(rules, hand, mt, win), winner=winner, dealer=dealer, flags=flags,
                   wind=wind)


def best_of(rules: Ruleset, arrangements: Iterable[tuple[Group, ...]], *, winner: int, dealer: int,
            flags: WinFlags, wind: int | None = None) -> Win | None:
    """The best-paying of some arrangements (an iterable of 列 tuples) under a pattern mode."""
    lan_hu, min_hu = rules.win.lan_hu, rules.win.min_hu
    card = seat_card(rules, winner, dealer)
    best: Win | None = None
    best_key: tuple[int, int] = (0, 0)
    seen: set[tuple[tuple[str, tuple[int, ...]], ...]] = set()
    for groups in arrangements:
        key = tuple(sorted((g.kind.value, g.cards) for g in groups))
        if key in seen:
            continue
        seen.add(key)
        raw = sum(g.hu for g in groups)
        lan = raw == 0 and lan_hu > 0
        hu = lan_hu if lan else raw
        if hu < min_hu:
            continue
        ctx = WinContext(tuple(groups), hu, flags, lan, card, wind)
        st = settle_context(rules, ctx, winner=winner, dealer=dealer)
        rank = (st.points[winner], hu)
        if best is None or rank > best_key:
            best, best_key = Win(hu, tuple(groups), st, lan), rank
    return best


def settle_instant(rules: Ruleset, hand: Counts, groups: tuple[Group, ...], hu: int, *, winner: int,
                   dealer: int = 0, flags: WinFlags | None = None, wind: int | None = None) -> Settlement:
    """Settle an instant win (3垅 / 5坎, 砌牌后…可以直接胡牌) of the dealt ``hand``.

    ``groups`` and ``hu`` are those of :func:`~daer.hands.instant_win`.  Every card of the hand
    counts for 红/乌/黑 and the other card-counting 名堂, the loose ones (in no 列) included.
    """
    flags = flags or WinFlags()
    if rules.win.tianhu_self_drawn:  # 天胡为自摸 (跑胡子): 3提 / 5坎 is a 天胡
        flags = replace(flags, self_drawn=True)
    left = list(hand)
    for g in groups:
        for k in g.cards:
            left[k] -= 1
    loose = tuple(k for k, n in enumerate(left) for _ in range(n))
    if rules.scoring.mode in PATTERN_MODES:
        ctx = WinContext(groups, hu, flags, False, seat_card(rules, winner, dealer), wind, loose)
        return settle_context(rules, ctx, winner=winner, dealer=dealer)
    red = sum(n for k, n in enumerate(hand) if is_red(k))
    return settle(rules, hu=hu, red=red, winner=winner, dealer=dealer, flags=flags)
