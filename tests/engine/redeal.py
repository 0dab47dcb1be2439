"""Re-deals (换牌): decks that differ from a played hand's only in what one seat cannot see.

The proof that redaction holds is a property: re-deal every card a seat cannot see, consistently with what
it saw (its own hand by card id; every discarded, revealed, melded or finally shown card by kind, in the same
place; the shown bottom), replay the same *public* course of play, and everything that seat — or a spectator —
is shown must be identical.

:func:`course_of` reads a played hand as one seat's course: its own actions, and the public actions of the
others (their discards, and each claim that won its window, tagged with the window's offer).  Other seats'
hidden choices (a 过, a claim that lost to a higher one) are not part of it: :func:`play_course` re-derives them
as the least choice the seat has (过, or a mandatory 碰 that loses).  :func:`redeal` makes a deck;
``play_course`` returns None when the re-deal changes the public course (a recorded public action is no longer
legal, or the public log differs: a new 垅, an instant win, a forced 偎 …).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import msgspec

from daer.cards import N_CARDS, kind_of
from daer.engine import Action, GameState, IllegalActionError, Pass
from daer.engine.claims import PRIORITY
from daer.engine.events import ChoiceMade, Claimed, Discarded, Event, FaceDown, HandEnded, NotTaken, Revealed
from daer.rules.model import Ruleset


@dataclass
class Course:
    """One seat's course of a played hand (``seat`` None: a spectator's)."""

    rules: Ruleset
    deck: tuple[int, ...]
    dealer: int
    wind: int | None
    seat: int | None
    own: list[Action] = field(default_factory=list)
    public: list[tuple[int, Action]] = field(default_factory=list)
    """(offer number, action) of the others' public actions; -1 for a discard-phase action."""
    public_log: tuple[Event, ...] = ()
    fixed: dict[int, int] = field(default_factory=dict)
    """Deck position -> card id the seat holds (kept exactly)."""
    shown: dict[int, int] = field(default_factory=dict)
    """Deck position -> kind of every card that became public (kept by kind)."""


def table_log(log: Sequence[Event], seat: int | None = None) -> tuple[Event, ...]:
    """What a person at a real table (``seat``) sees of the events, written out here independently of
    ``Event.seen_by``.

    Every event but the claim choices (a seat saying 过 or choosing quietly), without anyone's 过张 marks; of
    another seat's face-down 偎 (跑胡子) only that a card was drawn and a 偎 laid, not their kinds.  The
    course of a re-deal is compared on this, so a redaction that leaks cannot hide its leak by making the
    re-deals that show it look like a different public course.
    """
    out: list[Event] = []
    for e in log:
        if isinstance(e, ChoiceMade):
            continue
        if isinstance(e, Revealed) and e.down and e.seat != seat:
            out.append(FaceDown(seat=e.seat, how="draw", left=e.left))
            continue
        if isinstance(e, Claimed) and e.down and e.seat != seat:
            out.append(FaceDown(seat=e.seat, how=e.how))
            continue
        out.append(msgspec.structs.replace(e, guo=()) if isinstance(e, Claimed | NotTaken) and e.guo else e)
    return tuple(out)


def offers(st: GameState) -> int:
    """How many cards have been put on offer so far (discards and reveals)."""
    return sum(1 for e in st.log if isinstance(e, Discarded | Revealed))


def course_of(rules: Ruleset, deck: Sequence[int], *, dealer: int, wind: int | None, actions: Sequence[Action],
              seat: int | None) -> Course:
    """The course of the hand ``deck`` + ``actions`` as ``seat`` (None: a spectator) knows it."""
    course = Course(rules, tuple(deck), dealer, wind, seat)
    st = GameState(rules, deck, dealer=dealer, wind=wind)
    window: list[tuple[int, Action]] = []
    for a in actions:
        claim = st.phase == "claim"
        tag = offers(st) if claim else -1
        before = len(st.log)
        st.apply(a)
        if a.seat == seat:
            course.own.append(a)
        elif not claim:
            course.public.append((-1, a))
        else:
            window.append((tag, a))
        new = st.log[before:]
        if (claim and st.phase != "claim") or any(isinstance(e, Discarded | Revealed) for e in new):
            # the window resolved: its winner's choice is public, every other choice stays hidden
            won = {e.seat for e in new if isinstance(e, Claimed) and e.how in ("peng", "zhao", "chi")}
            won |= {e.winner for e in new if isinstance(e, HandEnded) and e.how == "hu" and e.winner is not None}
            course.public += [(t, x) for t, x in window if x.seat in won and not isinstance(x, Pass)]
            window = []
    course.public_log = table_log(st.log, seat)
    pos = {cid: i for i, cid in enumerate(deck)}
    if seat is not None:
        dealt = _dealt_positions(st)[seat]
        course.fixed = {i: deck[i] for i in dealt}
    shown: set[int] = {c for _, c in st.discards}
    shown |= {c for ms in st.melds for m in ms for c in m.ids}
    n_dealt = sum(len(p) for p in _dealt_positions(st).values())
    shown |= set(deck[n_dealt:]) - set(st.stock)  # revealed from the stock
    if st.bottom is not None:
        shown.add(st.bottom)
    if st.offer is not None:
        shown.add(st.offer.card)
    winner = st.result.winner if st.result is not None else None
    if winner is not None:
        shown |= set(st.hands[winner])  # a winner shows the hand
    # another seat's face-down 偎 (跑胡子) shows neither its cards nor the one it took from the stock
    shown -= {c for s, ms in enumerate(st.melds) if s not in (seat, winner) for m in ms if m.down for c in m.ids}
    course.shown = {pos[c]: kind_of(c) for c in shown if pos[c] not in course.fixed}
    return course


def _dealt_positions(st: GameState) -> dict[int, list[int]]:
    t = st.rules.table
    out: dict[int, list[int]] = {}
    at = 0
    for s in st.players:
        take = t.dealer_cards if s == st.dealer else t.other_cards
        out[s] = list(range(at, at + take))
        at += take
    return out


def redeal(course: Course, rng: random.Random, *, relabel_only: bool = False) -> list[int]:
    """A deck that keeps the seat's own cards (ids) and every shown card (kinds) in place.

    Every other card is dealt at random; ``relabel_only`` keeps every kind in place and only swaps card ids
    of a kind outside the seat's hand (a deck on which an id on the wire would show).
    """
    deck = list(course.deck)
    free = [c for c in range(N_CARDS) if c not in set(course.fixed.values())]
    rng.shuffle(free)
    out = [-1] * N_CARDS
    for i, cid in course.fixed.items():
        out[i] = cid
    keep = course.shown if not relabel_only else {i: kind_of(c) for i, c in enumerate(deck) if i not in course.fixed}
    for i, k in keep.items():
        cid = next(c for c in free if kind_of(c) == k)
        free.remove(cid)
        out[i] = cid
    rest = iter(free)
    return [c if c >= 0 else next(rest) for c in out]


Hook = Callable[[GameState], None]


def play_course(course: Course, deck: Sequence[int], *, hold: bool, after: Hook | None = None,
                act: Callable[[GameState, Action], None] | None = None,
                close: Callable[[GameState], None] | None = None, state: GameState | None = None) -> GameState | None:
    """Play ``course`` on ``deck``: the seat's own actions, the others' public ones, 过 for everything else.

    ``after`` runs after every step; ``act`` / ``close`` replace ``state.apply`` / ``state.close_window`` and
    ``state`` is the hand dealt from ``deck`` (a server drives it).  None when the public course cannot be kept
    on this deck.  An own action that is no longer legal while the public course is still the same is a leak:
    it raises ``AssertionError``.
    """
    st = state or GameState(course.rules, deck, dealer=course.dealer, wind=course.wind, hold=hold)
    if table_log(st.log, course.seat) != course.public_log[: len(table_log(st.log, course.seat))]:
        return None
    own, public = deque(course.own), deque(course.public)
    do = act or (lambda g, a: g.apply(a))
    while not st.over:
        if hold and st.window_complete():
            (close or (lambda g: g.close_window()))(st)
        else:
            s = st.to_act()[0]
            tag = offers(st) if st.phase == "claim" else -1
            if s == course.seat:
                assert own, "the seat is asked more often than it was"
                a = own.popleft()
                assert a in st.legal_actions(s), f"the seat's options changed under a re-deal: {a!r}"
            elif public and public[0][0] == tag and public[0][1].seat == s:
                a = public.popleft()[1]
            elif st.phase == "claim":  # a hidden choice: the least one (过, unless a 碰/招 is mandatory)
                a = max(st.legal_actions(s), key=lambda x: PRIORITY[type(x)])
            else:
                return None  # someone else must discard now
            try:
                st.verify(a)
            except IllegalActionError:
                return None
            do(st, a)
        log = table_log(st.log, course.seat)
        if log != course.public_log[: len(log)]:
            return None
        if after is not None:
            after(st)
    if own or public or table_log(st.log, course.seat) != course.public_log:
        return None
    return st
