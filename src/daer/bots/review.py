"""复盘 (review after the hand): each of one seat's decisions in a finished hand, valued from that seat's view.

For every decision the seat made with more than one legal option, the review weighs the alternatives the bots
weigh there — the search bot's candidates (:meth:`daer.bots.search.SearchBot.candidates`: the heuristic choice and
the discards it likes least to keep, or every claim option and 过), the 提示 suggestion (:meth:`daer.bots.hint.
Hinter.choose`) and the action the seat played — and gives each its expected points: the mean of heuristic
rollouts to the end of the hand over ``worlds`` deals of the cards the seat could not see
(:func:`daer.engine.world.sample_hidden`), all candidates sharing the same worlds (common random numbers).

What the seat could not see is never read: the record is replayed only to take the seat's
:class:`~daer.engine.views.View` before each of its decisions, and the worlds are dealt from that view with a
random generator seeded from the view itself (and ``seed``), never from the deck.  Re-dealing the unseen cards
of a hand therefore leaves its review exactly the same (tests/bots/test_review.py).

The loss of a decision is the best candidate's mean minus the played action's; a decision is *flagged*
(「这一步可能少赢 2.1 分」) when the loss is at least :data:`FLAG_POINTS` and the 95 % interval of the paired
difference (best − played, world by world) is clear of zero — rollouts are noisy, and a small gap within the
noise is not called a mistake.  Budget: ``worlds`` (at most :data:`MAX_WORLDS`) a decision and at most
:data:`MAX_DECISIONS` decisions a review; the default (:data:`WORLDS`) reviews a whole hand in a few seconds
of one core (benchmarks/review_speed.py).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import msgspec

from daer.bots.hint import Hinter, hinter_for
from daer.bots.search import SearchBot
from daer.engine.actions import Action
from daer.engine.record import HandRecord, RecordError, replay
from daer.engine.views import View
from daer.rules import resolve_rules
from daer.rules.model import Ruleset

__all__ = [
    "FLAG_POINTS", "MAX_DECISIONS", "MAX_WORLDS", "WORLDS", "Decision", "Option", "Review", "ReviewError",
    "as_json", "review", "review_view",
]

WORLDS = 32
"""Worlds a decision by default: a whole hand in a few seconds of one core."""
MAX_WORLDS = 256
"""The most worlds a decision a review may ask for."""
MAX_DECISIONS = 60
"""The most decisions one review values (a seat makes about 9 a hand: benchmarks/bench_review.py)."""
FLAG_POINTS = 1.0
"""A decision is flagged when it may have cost at least this many points (and the gap is clear of the noise)."""
_T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23, 12: 2.18,
        15: 2.13, 20: 2.09, 30: 2.04, 60: 2.00}
"""Student's t quantiles of a two-sided 95 % interval by degrees of freedom (1.96 past 60): a review of few
worlds gets the wider interval it needs."""


def _t95(df: int) -> float:
    """The t quantile for ``df`` degrees of freedom (the nearest tabled one not above it: never too narrow)."""
    return next((_T95[k] for k in sorted(_T95, reverse=True) if k <= df), _T95[1]) if df <= 60 else 1.96


class ReviewError(ValueError):
    """A review that cannot be made (复盘错误): a bad seat, an unfinished hand, a record that does not replay.

    ``zh`` and ``en`` are the reason (the server answers them apart); ``str()`` is 「中文（English）」.  The two are
    the exception's args, so it crosses a process pool's pipe intact."""

    def __init__(self, zh: str, en: str) -> None:
        super().__init__(zh, en)
        self.zh, self.en = zh, en

    def __str__(self) -> str:
        return f"{self.zh}（{self.en}）"


@dataclass(frozen=True, kw_only=True)
class Option:
    """One alternative at a decision, with its expected points from the seat's view."""

    action: Action
    zh: str
    """The action in the hint's words with why (「打 九：两头叫 叁、陆（还有 7 张，24 胡）」)."""
    en: str
    mean: float
    """Mean points of the seat over the worlds when it plays this action."""
    low: float
    high: float
    """The 95 % interval of that mean."""


@dataclass(frozen=True, kw_only=True)
class Decision:
    """One decision of the seat: what it played, the options weighed and what the played one may have cost."""

    step: int
    """Index of the action in the record (the replay's step ``step + 1`` shows the table after it)."""
    played: Action
    best: Action
    options: tuple[Option, ...]
    """Best mean first (ties: the played action first)."""
    loss: float
    """Best mean − played mean (0 when the played action is the best)."""
    margin: float
    """Half-width of the 95 % interval of the paired difference best − played."""
    flagged: bool
    worlds: int

    @property
    def zh(self) -> str:
        """「这一步可能少赢 2.1 分」 when flagged, else the empty string."""
        return f"这一步可能少赢 {self.loss:.1f} 分" if self.flagged else ""

    @property
    def en(self) -> str:
        return f"this step may have cost {self.loss:.1f} points" if self.flagged else ""


@dataclass(frozen=True, kw_only=True)
class Review:
    """The review of one seat's decisions in a finished hand."""

    seat: int
    worlds: int
    decisions: tuple[Decision, ...]
    skipped: int = 0
    """Decisions past :data:`MAX_DECISIONS`, not valued."""

    @property
    def flagged(self) -> tuple[Decision, ...]:
        """The flagged decisions, the costliest first."""
        return tuple(sorted((d for d in self.decisions if d.flagged), key=lambda d: (-d.loss, d.step)))

    @property
    def lost(self) -> float:
        """The flagged decisions' losses added up."""
        return sum(d.loss for d in self.decisions if d.flagged)


def _seed_of(view: View, seed: int | str) -> int:
    """The worlds' seed of a decision: from the seat's view (never the deck) and the review's seed."""
    digest = hashlib.blake2b(msgspec.json.encode(view) + b"|" + str(seed).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def mean_interval(xs: list[float], critical: float | None = None) -> tuple[float, float]:
    """Mean and the half-width of its 95 % interval: ``critical`` standard errors (Student's t for the sample's
    size when None, as a review of few worlds needs; 1.96, the normal one, over many independent deals)."""
    n = len(xs)
    mean = sum(xs) / n
    if n < 2:
        return mean, math.inf
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    return mean, (_t95(n - 1) if critical is None else critical) * math.sqrt(var / n)


def review_view(view: View, played: Action, rules: Ruleset, *, step: int = 0, worlds: int = WORLDS,
                seed: int | str = 0, hinter: Hinter | None = None, ascii: bool = False) -> Decision:
    """The decision ``played`` (one of ``view.legal``) valued from ``view`` alone (``ascii``: the English words
    name cards ``x9`` / ``d3``, the terminal's notation)."""
    if view.seat is None or played not in view.legal:
        raise ReviewError("这一步不是这个座位的选择", "the action is not one of the seat's options")
    worlds = max(2, min(MAX_WORLDS, worlds))
    bot = SearchBot(rules, _seed_of(view, seed), worlds=worlds, seconds=None)
    hinter = hinter or hinter_for(rules)
    cands = bot.candidates(view)
    for extra in (hinter.choose(view), played):
        if extra not in cands:
            cands.append(extra)
    per_world: list[list[float]] = []
    bot._search(view, cands, per_world)
    n = len(per_world)
    j = cands.index(played)
    means = [sum(w[i] for w in per_world) / n for i in range(len(cands))]
    order = sorted(range(len(cands)), key=lambda i: (-means[i], i != j, i))
    b = order[0]
    loss, margin = mean_interval([w[b] - w[j] for w in per_world]) if b != j else (0.0, 0.0)
    options = []
    for i in order:
        mean, half = mean_interval([w[i] for w in per_world])
        zh, en = hinter.explain(view, cands[i], ascii=ascii)
        options.append(Option(action=cands[i], zh=zh, en=en, mean=mean, low=mean - half, high=mean + half))
    return Decision(step=step, played=played, best=cands[b], options=tuple(options), loss=loss, margin=margin,
                    flagged=loss >= FLAG_POINTS and loss - margin > 0, worlds=n)


def review(record: HandRecord, seat: int, *, rules: Ruleset | None = None, worlds: int = WORLDS,
           seed: int | str = 0, ascii: bool = False) -> Review:
    """The review of ``seat``'s decisions in the finished hand ``record`` (:class:`ReviewError` otherwise)."""
    try:
        rules = rules or resolve_rules(record.rules, record.overrides)
        st = replay(record, upto=0)
    except (RecordError, ValueError) as exc:
        raise ReviewError("牌谱无法重放", f"the record does not replay: {exc}") from exc
    if not isinstance(seat, int) or not 0 <= seat < rules.table.seats:
        raise ReviewError(f"没有座位 {seat}（座位是 0-{rules.table.seats - 1}）",
                          f"no such seat: seats are 0-{rules.table.seats - 1}")
    if seat not in st.players:
        raise ReviewError(f"座位 {seat} 这一局坐底家，没有打牌，不用复盘",
                          f"seat {seat} sat out this hand (底家): it made no decisions")
    asked: list[tuple[int, View, Action]] = []
    for i, act in enumerate(record.actions):
        if act.seat == seat and not st.over:
            view = st.view(seat, log=False)
            if len(view.legal) > 1:
                asked.append((i, view, act))
        try:
            st.apply(act)
        except ValueError as exc:
            raise ReviewError(f"牌谱第 {i + 1} 步不合规", f"step {i + 1} of the record is not legal: {exc}") from exc
    if not st.over:
        raise ReviewError("这一局还没打完，不能复盘", "the hand is not finished")
    hinter = hinter_for(rules)
    worlds = max(2, min(MAX_WORLDS, worlds))
    done = tuple(review_view(view, act, rules, step=i, worlds=worlds, seed=seed, hinter=hinter, ascii=ascii)
                 for i, view, act in asked[:MAX_DECISIONS])
    return Review(seat=seat, worlds=worlds, decisions=done, skipped=max(0, len(asked) - MAX_DECISIONS))


def _r(x: float) -> float | None:
    return None if math.isinf(x) or math.isnan(x) else round(x, 2)


def as_json(rev: Review) -> dict[str, object]:
    """The review as JSON-ready builtins (the command line's ``--json``, the server's answer): points to 0.01."""
    return {
        "seat": rev.seat, "worlds": rev.worlds, "skipped": rev.skipped, "lost": _r(rev.lost),
        "flagged": [d.step for d in rev.flagged],
        "decisions": [{
            "step": d.step, "played": msgspec.to_builtins(d.played), "best": msgspec.to_builtins(d.best),
            "loss": _r(d.loss), "margin": _r(d.margin), "flagged": d.flagged, "zh": d.zh, "en": d.en,
            "worlds": d.worlds,
            "options": [{"action": msgspec.to_builtins(o.action), "zh": o.zh, "en": o.en, "mean": _r(o.mean),
                         "low": _r(o.low), "high": _r(o.high)} for o in d.options],
        } for d in rev.decisions],
    }
