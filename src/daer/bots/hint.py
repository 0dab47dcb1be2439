"""提示 (hint): the bot's suggested action for a seat and a short reason in a player's words, from its view only.

The suggestion is the learned bot's choice (困难, the strongest bot that decides in a few milliseconds; a
ruleset without its own network plays with 泸州's, as the bot does at a table), with the discards that leave the
hand 听 added to the candidates its network values (:meth:`Hinter.choose`).  The reason is built from the
numbers that bot weighs for a candidate (:mod:`daer.bots.features`): what the hand waits on after the action
(叫牌 / 听: the winning kinds, how many of them the seat has not seen, the most 胡), how close to 听 it is
otherwise (the kinds that would make it 听), whether the card let go is an orphan, the 胡 of a 列 claimed::

    打 九：两头叫 叁、陆（还有 7 张，24 胡）
    碰 八：碰后打 十，听 叁（还有 4 张，28 胡）
    过：胡 不够起胡（1 胡，要 10 胡）

Everything is read from the :class:`~daer.engine.views.View` (the seat's own cards, the table, the discards),
never from a state: re-dealing what the seat cannot see leaves every hint the same (tests/bots/test_hint.py).
Deterministic: the same view gives the same hint.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from daer.bots.base import obvious
from daer.bots.features import _improving_kinds
from daer.bots.heuristic import connections, loose
from daer.bots.learned import LearnedBot, candidates
from daer.cards import COPIES, N_KINDS, kind_ascii, kind_char
from daer.engine.actions import Action, Bao, Chi, Discard, Hu, Pass, Peng, Zhao
from daer.engine.claims import orphans
from daer.engine.views import View
from daer.hands import Meld, MeldKind, evaluate, waits
from daer.rules.model import Ruleset

__all__ = ["Hint", "Hinter", "hinter_for"]

MAX_KINDS = 5
"""Winning (or improving) kinds named at most; the rest are counted (「等 7 种」)."""
CACHE = 20_000
"""Wait searches remembered per ruleset (by hand and melds) before the table starts again empty."""


class Hint(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A suggested action (one of ``view.legal``) and why, Chinese first."""

    action: Action
    zh: str
    en: str


Waits = tuple[tuple[int, int], ...]
"""(kind, 胡) of every kind that wins (at least the minimum 胡), kind order."""


class Hinter:
    """Hints for one ruleset: the learned bot and its wait searches, kept between hints."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.bot = LearnedBot(rules)
        self.policy = self.bot.policy
        self._waits: dict[tuple[tuple[int, ...], tuple[Meld, ...]], tuple[tuple[int, int], ...]] = {}

    # -- the hint ------------------------------------------------------------------------------
    def hint(self, view: View, *, ascii: bool = False) -> Hint | None:
        """The hint for the seat of ``view`` when it has something to decide (None otherwise: a spectator, another
        seat's turn, the hand over).  ``ascii``: the English reason names cards ``x9`` / ``d3`` (the terminal's
        notation) instead of 九 / 叁 (the page's cards)."""
        if view.seat is None or not view.to_act or not view.legal or view.phase == "over":
            return None
        action = self.choose(view)
        zh, en = self.explain(view, action, ascii=ascii)
        return Hint(action=action, zh=zh, en=en)

    def choose(self, view: View) -> Action:
        """The learned bot's choice, with the discards that leave the hand 听 weighed too.

        The bot weighs the heuristic bot's choice and the discards it likes least to keep
        (:func:`daer.bots.learned.candidates`); a discard that makes the hand 听 can be a well-connected card
        outside them (九 of 七八九九 when the other 九 completes the 列s).  For a hint such a discard is added to
        the candidates and valued by the same network, with the same margin over the heuristic choice."""
        bot = self.bot
        pair = bot.net.layers[-1][0].shape[1] == 1  # the shipped form: one value a candidate
        if obvious(view) is not None or not isinstance(view.legal[0], Discard | Bao) or not pair:
            return bot.choose(view)
        legal = view.legal
        cands = candidates(view, bot.policy, int(bot.net.meta.get("width", 4)))
        counts = [0] * N_KINDS
        for cid in view.hand:
            counts[cid // COPIES] += 1
        assert view.seat is not None
        melds = tuple(Meld(MeldKind(m.kind), m.kinds) for m in view.melds[view.seat])
        left = _unseen(view)
        for i, a in enumerate(legal):
            if i in cands or not isinstance(a, Discard):
                continue
            counts[a.kind] -= 1
            ready = any(left[k] for k, _ in self.waits(counts, melds))
            counts[a.kind] += 1
            if ready:
                cands.append(i)
        return bot.best_of(view, cands)

    def explain(self, view: View, action: Action, *, ascii: bool = False) -> tuple[str, str]:
        """The words for ``action`` (one of ``view.legal``) in ``view``: (Chinese, English)."""
        return _Reason(self, view, ascii).of(action)

    def waits(self, counts: Sequence[int], melds: tuple[Meld, ...]) -> Waits:
        """Winning kinds of a hand one card short, with their 胡 (at least the minimum; ``daer.hands.waits``)."""
        key = (tuple(counts), melds)
        hit = self._waits.get(key)
        if hit is not None:
            return hit
        if min(counts) < 0 or len(orphans(list(counts))) > 2:  # no card completes it (orphans' docstring)
            found: Waits = ()
        else:
            try:
                found = tuple((w.kind, w.hu) for w in waits(self.rules, key[0], melds) if w.hu >= self.rules.win.min_hu)
            except ValueError:
                found = ()
        if len(self._waits) >= CACHE:
            self._waits.clear()
        self._waits[key] = found
        return found


_HINTERS: dict[int, tuple[Ruleset, Hinter]] = {}


def hinter_for(rules: Ruleset) -> Hinter:
    """The process's :class:`Hinter` for ``rules`` (one per ruleset object, made on first use)."""
    hit = _HINTERS.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    if len(_HINTERS) >= 64:
        _HINTERS.clear()
    h = Hinter(rules)
    _HINTERS[id(rules)] = (rules, h)
    return h


class _Reason:
    """The words of one hint: the action's head (「碰 八」) and what matters for it."""

    def __init__(self, hinter: Hinter, view: View, ascii: bool) -> None:
        assert view.seat is not None
        self.h, self.view, self.ascii = hinter, view, ascii
        self.rules = hinter.rules
        self.counts = [0] * N_KINDS
        for cid in view.hand:
            self.counts[cid // COPIES] += 1
        self.melds = tuple(Meld(MeldKind(m.kind), m.kinds) for m in view.melds[view.seat])
        self.left = _unseen(view)
        self.offer = view.offer.kind if view.offer is not None else None

    # -- card names ----------------------------------------------------------------------------
    def zk(self, kinds: Sequence[int]) -> str:
        return "".join(kind_char(k) for k in kinds)

    def ek(self, kinds: Sequence[int]) -> str:
        return " ".join(kind_ascii(k) for k in kinds) if self.ascii else self.zk(kinds)

    def zlist(self, kinds: Sequence[int]) -> str:
        shown = "、".join(kind_char(k) for k in kinds[:MAX_KINDS])
        return shown + (f" 等 {len(kinds)} 种" if len(kinds) > MAX_KINDS else "")

    def elist(self, kinds: Sequence[int]) -> str:
        shown = ", ".join(self.ek([k]) for k in kinds[:MAX_KINDS])
        return shown + (f" ({len(kinds)} kinds)" if len(kinds) > MAX_KINDS else "")

    # -- heads ---------------------------------------------------------------------------------
    def head(self, a: Action) -> tuple[str, str]:
        zhao_zh, zhao_en = ("跑", "Pao") if self.rules.play.pao else ("招", "Kong")
        k = self.offer
        if isinstance(a, Discard):
            return f"打 {self.zk([a.kind])}", f"Discard {self.ek([a.kind])}"
        if isinstance(a, Bao):
            return f"报牌 打 {self.zk([a.kind])}", f"Declare ready, discard {self.ek([a.kind])}"
        if isinstance(a, Hu):
            return "胡", "Hu"
        if k is None:
            return ("过", "Pass") if isinstance(a, Pass) else ("?", "?")
        if isinstance(a, Peng):
            return f"碰 {self.zk([k])}", f"Pong {self.ek([k])}"
        if isinstance(a, Zhao):
            return f"{zhao_zh} {self.zk([k])}", f"{zhao_en} {self.ek([k])}"
        if isinstance(a, Chi):
            run = sorted((*a.hand, k))
            zh, en = f"吃 {self.zk([k])}（{self.zk(run)}）", f"Chow {self.ek([k])} ({self.ek(run)})"
            for g in a.bi:
                zh, en = f"{zh} 比 {self.zk(g)}", f"{en} + bi {self.ek(g)}"
            return zh, en
        return "过", "Pass"

    # -- what a hand waits on ------------------------------------------------------------------
    def waiting(self, w: Waits) -> tuple[str, str]:
        """「听 三、十（还有 5 张，最多 15 胡）」 for the winning kinds ``w``."""
        kinds = [k for k, _ in w]
        live = sum(self.left[k] for k in kinds)
        hus = {hu for _, hu in w}
        top = max(hus)
        hu_zh = f"{top} 胡" if len(hus) == 1 else f"最多 {top} 胡"
        hu_en = f"{top} hu" if len(hus) == 1 else f"up to {top} hu"
        left_zh = f"还有 {live} 张" if live else "都已见光"
        left_en = f"{live} left" if live else "none left"
        verb_zh = "两头叫" if len(kinds) == 2 else "听"
        return (f"{verb_zh} {self.zlist(kinds)}（{left_zh}，{hu_zh}）",
                f"waits on {self.elist(kinds)} ({left_en}, {hu_en})")

    def best_discard(self, c: list[int], melds: tuple[Meld, ...]) -> tuple[int, Waits] | None:
        """The discard from ``c`` leaving the most live winning cards (then the most 胡), with its waits."""
        best: tuple[tuple[int, int, int], int, Waits] | None = None
        for k in range(N_KINDS):
            if c[k] == 0 or c[k] >= 3:  # a 坎 is never discarded
                continue
            c[k] -= 1
            w = self.h.waits(c, melds)
            c[k] += 1
            if w:
                score = (sum(self.left[x] for x, _ in w), max(hu for _, hu in w), -k)
                if best is None or score > best[0]:
                    best = (score, k, w)
        return None if best is None else (best[1], best[2])

    def improvers(self, c: list[int]) -> list[int]:
        """Kinds still live that, taken in, leave the hand 听 after a discard (the learned bot's 一向听 numbers)."""
        return [x for x in _improving_kinds(self.h.policy, c, self.melds) if self.left[x] > 0]

    # -- the reason ----------------------------------------------------------------------------
    def of(self, a: Action) -> tuple[str, str]:
        hz, he = self.head(a)
        zh, en = self.why(a)
        return f"{hz}：{zh}", f"{he}: {en}"

    def why(self, a: Action) -> tuple[str, str]:
        if isinstance(a, Hu):
            return self.win()
        if isinstance(a, Discard | Bao):
            return self.discard(a.kind)
        if isinstance(a, Peng | Zhao | Chi) and self.offer is not None:
            return self.claim(a, self.offer)
        return self.pass_()

    def win(self) -> tuple[str, str]:
        try:
            ev = evaluate(self.rules, tuple(self.counts), self.melds, self.offer)
        except ValueError:
            return "能胡了", "the hand is complete"
        if not ev.complete:
            return "能胡了", "the hand is complete"
        return f"{ev.hu} 胡", f"{ev.hu} hu"

    def discard(self, k: int) -> tuple[str, str]:
        lone = k in orphans(self.counts)
        c = list(self.counts)
        c[k] -= 1
        w = self.h.waits(c, self.melds)
        if w:
            return self.waiting(w)
        near = self.improvers(c)
        parts_zh, parts_en = [], []
        if lone:
            parts_zh.append("孤张，和别的牌连不上")
            parts_en.append("a lone card that fits nothing")
        if near:
            parts_zh.append(f"再进 {self.zlist(near)} 就听")
            parts_en.append(f"taking in {self.elist(near)} would make the hand ready")
        if not parts_zh:
            parts_zh.append("和手里的牌连得最少")
            parts_en.append("the card that fits the hand least")
        seen = COPIES - self.left[k] - self.counts[k]
        if seen >= 2:
            parts_zh.append(f"已见 {seen} 张")
            parts_en.append(f"{seen} already seen")
        return "；".join(parts_zh), "; ".join(parts_en)

    def after_claim(self, a: Peng | Zhao | Chi, k: int) -> tuple[list[int], tuple[Meld, ...], int]:
        """The concealed hand, own melds and the claimed 列's 胡 after claim ``a`` on kind ``k``."""
        c = list(self.counts)
        new: list[Meld] = []
        if isinstance(a, Peng):
            c[k] -= 2
            new.append(Meld(MeldKind.PENG, (k, k, k)))
        elif isinstance(a, Zhao):
            c[k] -= 3
            new.append(Meld(MeldKind.ZHAO, (k, k, k, k)))
        else:
            for x in a.hand:
                c[x] -= 1
            new.append(Meld(MeldKind.CHI, (*a.hand, k)))
            for g in a.bi:
                for x in g:
                    c[x] -= 1
                new.append(Meld(MeldKind.CHI, g))
        hu = sum(m.to_group(self.rules.hu).hu for m in new)
        return c, (*self.melds, *new), hu

    def claim(self, a: Peng | Zhao | Chi, k: int) -> tuple[str, str]:
        c, melds, hu = self.after_claim(a, k)
        verb = "碰" if isinstance(a, Peng) else "吃" if isinstance(a, Chi) else ("跑" if self.rules.play.pao else "招")
        verb_en = {"碰": "pong", "吃": "chow", "跑": "pao", "招": "kong"}[verb]
        if min(c) < 0:
            return "", ""
        if isinstance(a, Zhao) and (w := self.h.waits(c, melds)):
            wz, we = self.waiting(w)
            return f"{verb}后{wz}", f"after the {verb_en} it {we}"
        best = self.best_discard(c, melds)
        if best is not None:
            d, w = best
            wz, we = self.waiting(w)
            return (f"{verb}后打 {self.zk([d])}，{wz}",
                    f"then discard {self.ek([d])}: it {we}")
        zh, en = f"这一列 {hu} 胡", f"the {verb_en} is worth {hu} hu"
        gone = loose(self.counts) - loose(c)
        if gone > 0:
            zh += f"，少 {gone} 张孤张"
            en += f", {gone} fewer lone card{'s' if gone > 1 else ''}"
        singles = [x for x in range(N_KINDS) if 0 < c[x] < 3]
        if singles:  # the discard that follows: the card that fits the hand least (the heuristic bot's measure)
            d = min(singles, key=lambda x: (connections(c, x), x))
            c[d] -= 1
            near = [x for x in _improving_kinds(self.h.policy, c, melds) if self.left[x] > 0]
            if near:
                zh += f"；{verb}后再进 {self.zlist(near)} 就听"
                en += f"; then taking in {self.elist(near)} would make the hand ready"
        return zh, en

    def pass_(self) -> tuple[str, str]:
        k = self.offer
        now = self.h.waits(self.counts, self.melds)
        if k is not None and not now:
            for w in self._raw_waits():
                if w[0] == k and w[1] < self.rules.win.min_hu:
                    need = self.rules.win.min_hu
                    return (f"胡 不够起胡（{w[1]} 胡，要 {need} 胡）",
                            f"the win is under the minimum ({w[1]} hu, {need} needed)")
        if now:
            wz, we = self.waiting(now)
            return f"留着 {wz}", f"keep the hand: it {we}"
        claims = [a for a in self.view.legal if isinstance(a, Peng | Zhao | Chi)]
        if k is not None and claims:
            c, melds, _ = self.after_claim(claims[0], k)
            if min(c) >= 0 and self.best_discard(c, melds) is None:
                return "吃碰了也不听，留着手牌", "claiming would not make the hand ready; keep it"
            return "留着手牌更好（机器人的估计）", "keeping the hand is worth more (the bot's estimate)"
        return "没有更好的选择", "nothing better to do"

    def _raw_waits(self) -> list[tuple[int, int]]:
        """Every winning kind with its 胡, under the minimum too (for 「胡 不够起胡」)."""
        try:
            return [(w.kind, w.hu) for w in waits(self.rules, tuple(self.counts), self.melds)]
        except ValueError:
            return []


def _unseen(view: View) -> list[int]:
    """Copies of each kind the seat has not seen: not in its hand, any meld, the discards, on offer or dead."""
    left = [COPIES] * N_KINDS
    for cid in view.hand:
        left[cid // COPIES] -= 1
    for _, k in view.discards:
        left[k] -= 1
    for ms in view.melds:
        for m in ms:
            for k in m.kinds:
                left[k] -= 1
    if view.offer is not None:
        left[view.offer.kind] -= 1
    if view.dead:
        for k in view.bottoms:
            left[k] -= 1
    return [max(0, n) for n in left]
