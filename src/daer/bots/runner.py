"""Running bots: one hand (:func:`play_hand`) and many seeded hands with statistics (:func:`simulate`).

Seating in a simulation (documented in ``docs/sim.md``): hand ``i`` is dealt
from ``random.Random(f"{seed}:{i}")`` with the dealer at seat ``i % 4``.  With
three bots, bot ``j`` plays the playing position ``(j + i) % 3`` counted from the
dealer (庄, 下家, 尾家), so every bot plays every position equally often, and
the 底家's points are reported in a fourth row ``底家``.  With four bots, bot
``j`` sits at seat ``j`` and is 底家 whenever that seat is opposite the dealer.
Points of all rows sum to zero.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from daer.bots import make_bot
from daer.bots.arena_stats import HandTotals
from daer.bots.base import Bot
from daer.engine.record import new_hand
from daer.engine.state import GameState
from daer.rules.model import Ruleset
from daer.scoring import seats_of


def play_hand(state: GameState, bots: Mapping[int, Bot]) -> GameState:
    """Let the bots play ``state`` to its end; each bot sees only its seat's view."""
    while not state.over:
        seat = state.to_act()[0]
        state.apply(bots[seat].choose(state.view(seat, log=False)))
    return state


@dataclass
class SeatStats(HandTotals):
    """Totals of one row of a simulation (a bot, or the 底家)."""

    win_hu: int = 0

    @property
    def mean_hu(self) -> float:
        """Mean 胡 of the wins."""
        return self.win_hu / self.wins if self.wins else 0.0


@dataclass
class SimStats:
    """Totals of a simulation."""

    hands: int = 0
    draws: int = 0
    seconds: float = 0.0
    seats: list[SeatStats] = field(default_factory=list)

    @property
    def hands_per_s(self) -> float:
        """Hands per second of wall time."""
        return self.hands / self.seconds if self.seconds else 0.0

    def to_json(self) -> dict[str, object]:
        """The ``--json`` summary of ``daer sim``."""
        return {
            "hands": self.hands,
            "draws": self.draws,
            "seats": [{"bot": s.bot, "wins": s.wins, "points": s.points} for s in self.seats],
            "hands_per_s": round(self.hands_per_s, 1),
        }


def seating(rules: Ruleset, n_bots: int, i: int) -> tuple[int, dict[int, int]]:
    """(dealer seat, {seat: row}) of hand ``i``; the 底家 seat maps to row 3 when there are three bots."""
    dealer = i % rules.table.seats
    players, dijia = seats_of(rules, dealer)
    if n_bots == rules.table.seats:
        return dealer, {s: s for s in range(rules.table.seats)}
    rows = {seat: (pos - i) % len(players) for pos, seat in enumerate(players)}
    if dijia is not None:
        rows[dijia] = len(players)
    return dealer, rows


def bot_count_message(ruleset: Ruleset, n: int) -> str | None:
    """Why ``n`` bots cannot play a hand of the ruleset, or None when they can.

    Three bots play the playing seats (the 底家's row is what the seat sitting out was paid);
    a bot per seat also works where a 底家 sits out (each takes its turn as 底家).
    """
    t = ruleset.table
    if n in (t.players, t.seats):
        return None
    if t.seats > t.players:
        return (f"需要 {t.players} 或 {t.seats} 个机器人：{ruleset.title_zh}{t.players}人打，"
                f"{t.seats - t.players}人坐底（底家）(give {t.players} bots, or {t.seats}: {t.players} play "
                f"and one seat sits out each hand), got {n}")
    return (f"需要 {t.players} 个机器人：{ruleset.title_zh}{t.players}人玩，没有底家 "
            f"(give {t.players} bots: {ruleset.name} is played by {t.players}, nobody sits out), got {n}")


def simulate(
    rules: Ruleset,
    bot_names: Sequence[str],
    games: int,
    seed: int | str = 0,
    progress: Callable[[int], None] | None = None,
) -> SimStats:
    """Play ``games`` seeded hands with the named bots and total the results."""
    n = len(bot_names)
    if (why := bot_count_message(rules, n)) is not None:
        raise ValueError(why)
    bots = [make_bot(name, rules=rules, seed=f"{seed}:bot{j}") for j, name in enumerate(bot_names)]
    stats = SimStats(seats=[SeatStats(b) for b in bot_names])
    if n == rules.table.players and rules.table.dijia and rules.table.seats > n:
        stats.seats.append(SeatStats("底家"))  # no 底家 row where nobody sits out (跑胡子)
    start = time.perf_counter()
    for i in range(games):
        dealer, rows = seating(rules, n, i)
        winds = rules.table.winds  # each hand is one dealer turn: the 圈风 moves every wind_turns hands
        wind = winds[(i // max(1, rules.table.wind_turns)) % len(winds)] if winds else None
        state = new_hand(rules, seed=f"{seed}:{i}", dealer=dealer, wind=wind)
        play_hand(state, {seat: bots[row] for seat, row in rows.items() if row < n})
        assert state.result is not None
        stats.hands += 1
        for seat, row in rows.items():
            st = stats.seats[row]
            st.hands += 1
            st.points += state.result.points[seat]
            if state.result.winner == seat:
                st.wins += 1
                st.win_hu += state.result.hu
        if state.result.winner is None:
            stats.draws += 1
        if progress is not None:
            progress(i + 1)
    stats.seconds = time.perf_counter() - start
    return stats
