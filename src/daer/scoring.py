"""Settlement of a won hand: 等, multipliers (番), and who pays whom.

Seats are numbered 0-3 counter-clockwise in turn order; the 底家 (who sits the
hand out and is paid) is the seat opposite the dealer.

The seed's worked example — 红 at exactly 10 胡: each loser pays (2 + 1) × 2 = 6,
the winner gains 2 × 6 − 1 × 2 = 10 and the 底家 2:

>>> from daer.rules import find_rules
>>> s = settle(find_rules(), hu=10, red=10, winner=1, dealer=0)
>>> s.deng, s.factor, s.points
(1, 2, (-6, 10, 2, -6))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from daer.rules.model import Ruleset


@dataclass(frozen=True, slots=True)
class Multiplier:
    """One 番 that applied, with its factor."""

    id: str
    zh: str
    en: str
    factor: int


@dataclass(frozen=True, slots=True)
class Payment:
    """``amount`` passes from seat ``payer`` to seat ``payee``."""

    payer: int
    payee: int
    amount: int
    zh: str
    en: str


@dataclass(frozen=True, slots=True)
class WinFlags:
    """How the hand was won, beyond its cards."""

    tianhu: bool = False
    """天胡: the dealer wins with the dealt hand."""
    dihu: bool = False
    """地胡: a player wins on the dealer's first discard."""
    haidi: bool = False
    """海底: won on the last card of the stock."""
    self_drawn: bool = False
    """The winning card was revealed from the stock by the winner (自摸)."""
    huilong: bool = False
    """回龙地胡: the dealer wins on the first discard of another player."""
    bao: bool = False
    """报: the winner had declared ready (报牌, 古蔺)."""


@dataclass(frozen=True, slots=True)
class Settlement:
    """The whole payment of one hand, with every figure explained."""

    hu: int
    deng: int
    red: int
    multipliers: tuple[Multiplier, ...]
    factor: int
    points: tuple[int, ...]
    """Change of each seat's score; sums to zero."""
    payments: tuple[Payment, ...]
    winner: int | None
    dijia: int | None
    notes: tuple[str, ...] = field(default=())
    fan: int = 0
    """番 of 名堂 play (the capped product), or the power of two of 番 play; 0 in 等 play."""
    final: int = 0
    """番 play: 胡 × 2^番, capped (what the 彩头 are counted from); 0 otherwise."""
    money: bool = False
    """Money play (付钱): ``points`` and payment amounts are 分 (integers); show them with :func:`yuan`."""

    def shown(self, amount: int) -> int | Decimal:
        """An amount as shown: 元 in money play (exact, ``Decimal`` when not whole), else unchanged."""
        return yuan(amount) if self.money else amount

    def role(self, seat: int) -> str:
        """winner / dijia / loser of a seat."""
        if seat == self.winner:
            return "winner"
        if seat == self.dijia:
            return "dijia"
        return "loser"


def yuan(fen: int) -> int | Decimal:
    """分 as 元, exactly: an ``int`` when whole, else a ``Decimal`` (250 → 2.5).

    >>> yuan(400), yuan(250), yuan(-5)
    (4, Decimal('2.5'), Decimal('-0.05'))
    """
    if fen % 100 == 0:
        return fen // 100
    return (Decimal(fen) / 100).normalize()


def money_text(fen: int) -> str:
    """分 as a 元 text: ``"2.5 元"``."""
    return f"{yuan(fen)} 元"


def deng_of(rules: Ruleset, hu: int) -> int:
    """等 of a count of 胡: 10 = 1, 11-20 = 2, 21-30 = 3 …

    >>> from daer.rules import find_rules
    >>> [deng_of(find_rules(), h) for h in (10, 11, 20, 21, 30, 31)]
    [1, 2, 2, 3, 3, 4]
    """
    d = rules.scoring.deng
    if hu <= d.start:
        return 1
    if d.round_down:
        return 1 + (hu - d.start) // d.step
    return 1 + -(-(hu - d.start) // d.step)


def multipliers(rules: Ruleset, red: int, flags: WinFlags) -> tuple[Multiplier, ...]:
    """The 番 of 普通算等玩法 that apply: 红 ×2, 乌 ×4, 天胡 ×2, 地胡 ×2 (as the ruleset sets them)."""
    d = rules.scoring.deng
    out = []
    if red >= d.red_threshold and d.red > 1:
        out.append(Multiplier("red", "红", "red", d.red))
    if red == 0 and d.black > 1:
        out.append(Multiplier("black", "乌", "all black", d.black))
    if flags.tianhu and d.tianhu > 1:
        out.append(Multiplier("tianhu", "天胡", "heavenly hand", d.tianhu))
    if flags.dihu and d.dihu > 1:
        out.append(Multiplier("dihu", "地胡", "earthly hand", d.dihu))
    return tuple(out)


def seats_of(rules: Ruleset, dealer: int) -> tuple[list[int], int | None]:
    """(playing seats in turn order from the dealer, the 底家 or None)."""
    n = rules.table.seats
    order = [(dealer + i) % n for i in range(n)]
    if rules.table.dijia and n > rules.table.players:
        dijia = (dealer + n // 2) % n
        return [s for s in order if s != dijia][: rules.table.players], dijia
    return order[: rules.table.players], None


def settle(
    rules: Ruleset,
    *,
    hu: int,
    red: int,
    winner: int,
    dealer: int = 0,
    flags: WinFlags = WinFlags(),
) -> Settlement:
    """Points of every seat for a hand won by ``winner`` with ``hu`` 胡 and ``red`` red cards."""
    players, dijia = seats_of(rules, dealer)
    if winner not in players:
        raise ValueError(f"底家不能胡牌 seat {winner} is not playing this hand (the 底家 is seat {dijia})")
    deng = deng_of(rules, hu)
    mults = multipliers(rules, red, flags)
    factor = 1
    for m in mults:
        factor *= m.factor
    sc = rules.scoring
    if sc.mode == "money":  # counted in 分: 基数 may be 五毛
        money = sc.money
        bang = money.first + max(0, deng - 2) * money.step
        each = bang * money.unit_fen * factor
        share = money.di_qian * money.unit_fen * factor
        notes = (f"({money.first}+{max(0, deng - 2)}×{money.step}) 棒 × {money.unit} 元 × {factor} = "
                 f"{money_text(each)}",)
    else:
        d = sc.deng
        base = max(deng, d.min_points)
        each = (base + d.dijia_share) * factor
        share = d.dijia_share * factor
        notes = (f"({base}+{d.dijia_share})×{factor} = {each}",)
    points = [0] * rules.table.seats
    payments = []
    for seat in players:
        if seat != winner:
            payments.append(Payment(seat, winner, each, "输家付赢家", "loser pays winner"))
            points[seat] -= each
            points[winner] += each
    if dijia is not None and share:
        payments.append(Payment(winner, dijia, share, "赢家付底家", "winner pays the dijia (底家)"))
        points[winner] -= share
        points[dijia] += share
    return Settlement(hu, deng, red, mults, factor, tuple(points), tuple(payments), winner, dijia, notes,
                      money=sc.mode == "money")


PENALTY_REASONS = {
    "peng": ("包牌：没人胡，未碰牌", "penalty (包牌): passed up a 碰 and nobody won"),
    "zhao": ("包牌：没人胡，未招牌", "penalty (包牌): passed up a 招 and nobody won"),
}
"""Why a seat pays 包 at the end of a 黄 hand (seed 000 【包牌规则】), Chinese and English."""


def penalty_amount(rules: Ruleset) -> int:
    """What a 包牌 offender pays each other seat: 泸州 money play 2倍底钱 (包牌的向另三人各付2倍底钱),
    番 play ``fan.penalty`` 彩头 (隆昌 包10), otherwise ``deng.penalty`` points.

    In money play the amount is in 分:

    >>> from daer.rules import find_rules, with_overrides
    >>> penalty_amount(with_overrides(find_rules(), {"scoring.mode": "money"}))
    400
    """
    sc = rules.scoring
    if sc.mode == "money":
        return sc.money.penalty * sc.money.di_qian * sc.money.unit_fen
    return sc.fan.penalty if sc.mode == "fan" else sc.deng.penalty


def _penalise(rules: Ruleset, points: list[int], payments: list[Payment], offender: int, *, zh: str, en: str) -> None:
    """The offender pays every other seat :func:`penalty_amount` once (包牌), with the reason ``zh``/``en``."""
    amount = penalty_amount(rules)
    for seat in range(rules.table.seats):
        if seat != offender and amount:
            payments.append(Payment(offender, seat, amount, zh, en))
            points[seat] += amount
            points[offender] -= amount


def settle_draw(rules: Ruleset, *, dealer: int = 0, penalties: tuple[tuple[int, str], ...] = ()) -> Settlement:
    """黄牌: the stock ran out and nobody won; each player pays the 底家 (黄牌时3玩家向数底的各付底钱; 隆昌 黄5).

    ``penalties`` are (seat, reasons) of the seats that pay 包 on top (reasons ``peng``, ``zhao`` or
    ``peng+zhao``: 没人胡的情况下，未碰牌／未招牌); each pays every other seat :func:`penalty_amount` once.
    """
    players, dijia = seats_of(rules, dealer)
    sc = rules.scoring
    amount = {"money": sc.money.di_qian * sc.money.unit_fen, "fan": sc.fan.huang}.get(sc.mode, sc.deng.huang)
    points = [0] * rules.table.seats
    payments: list[Payment] = []
    if dijia is not None and amount:
        for seat in players:
            payments.append(Payment(seat, dijia, amount, "黄牌付底家", "draw: pays the dijia (底家)"))
            points[seat] -= amount
            points[dijia] += amount
    for seat, reasons in penalties:
        why = [PENALTY_REASONS[r] for r in reasons.split("+")]
        _penalise(rules, points, payments, seat, zh="；".join(w[0] for w in why), en="; ".join(w[1] for w in why))
    money = sc.mode == "money"
    each = money_text(penalty_amount(rules)) if money else str(penalty_amount(rules))
    notes = tuple(f"包牌 {seat}号位 付每家 {each}" for seat, _ in penalties)
    return Settlement(0, 0, 0, (), 1, tuple(points), tuple(payments), None, dijia, notes, money=money)


def settle_penalty(rules: Ruleset, *, offender: int, dealer: int = 0) -> Settlement:
    """包牌 alone: the offender pays every other seat :func:`penalty_amount` (隆昌 包10; 泸州 money 2倍底钱).

    >>> from daer.rules import find_rules
    >>> settle_penalty(find_rules("longchang"), offender=1).points
    (10, -30, 10, 10)
    """
    amount = penalty_amount(rules)
    points = [0] * rules.table.seats
    payments: list[Payment] = []
    _penalise(rules, points, payments, offender, zh="包牌", en="penalty (包牌)")
    _, dijia = seats_of(rules, dealer)
    money = rules.scoring.mode == "money"
    return Settlement(0, 0, 0, (), 1, tuple(points), tuple(payments), None, dijia,
                      (f"包{money_text(amount) if money else amount}",), money=money)
