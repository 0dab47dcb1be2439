"""``daer play``: a person plays in the terminal against bots."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from daer.bots import STRENGTHS, make_bot
from daer.bots.base import Bot
from daer.bots.hint import Hinter
from daer.cli.options import bot_list, check_lang, ruleset_option, seat_option
from daer.cli.render import (
    action_menu,
    beaten_line,
    bi_note,
    menu_lines,
    narrate,
    print_hand_end,
    render_view,
    turn_line,
    waits_line,
)
from daer.cli.terms import legend_en
from daer.engine import GameState, View, dumps, record_of
from daer.engine.actions import Action, Bao, Chi, Discard, Peng, Zhao
from daer.engine.events import Claimed, NotTaken
from daer.engine.match import Match
from daer.rules.model import Ruleset
from daer.scoring import seats_of, yuan


def play(
    *,
    hands: Annotated[int, typer.Option(help="手数 number of hands")] = 1,
    seat: Annotated[int, typer.Option(help="你的座位 your seat (0-3)")] = 0,
    bots: Annotated[str, typer.Option(help="对手机器人 opponents: one name, or one per other seat, comma-separated "
                                           "(random / randomish / heuristic / search / search:N)")] = "heuristic",
    strength: Annotated[str | None, typer.Option(help="难度 easy / normal / hard (instead of --bots)")] = None,
    rules: Annotated[str, typer.Option(help="规则 preset or TOML")] = "luzhou",
    lang: Annotated[str, typer.Option(help="zh / en", callback=check_lang)] = "zh",
    seed: Annotated[int | None, typer.Option(help="种子 seed (default: a live shuffle)")] = None,
    save: Annotated[Path | None, typer.Option(help="保存最后一手牌谱 save the last hand")] = None,
    hint: Annotated[bool, typer.Option("--hint", help="提示 show the bot's suggestion and why before each of your "
                                                      "decisions")] = False,
) -> None:
    """人机对战 — play against bots in the terminal.  Ctrl-C or EOF leaves."""
    console = Console()
    if strength is not None and strength not in STRENGTHS:
        raise typer.BadParameter(f"难度是 easy / normal / hard (strength is easy, normal or hard), not {strength!r}")
    names = [strength] if strength is not None else bot_list(bots)
    ruleset = ruleset_option(rules)
    seat = seat_option(seat, ruleset)
    if hands < 1:
        raise typer.BadParameter(f"手数至少 1 (--hands must be at least 1), not {hands}")
    dealer = first_dealer(ruleset, seat)
    if dealer != 0:
        console.print(f"{seat}号位第一手本该坐底（底家不打牌），\n所以由{dealer}号位先坐庄，你来打。\n"
                      if lang != "en" else
                      f"Seat {seat} would sit out the first hand (as the dijia, 底家),\n"
                      f"so seat {dealer} deals first and you play.\n")
    # the deal then moves by the ruleset's table.dealer_rule (稳庄, 轮庄 …): a later hand may seat you as 底家
    match = Match(ruleset, dealer=dealer, seed=seed)
    others = [s for s in range(ruleset.table.seats) if s != seat]
    opponents = {s: make_bot(names[i % len(names)], f"{seed}:{s}", rules=ruleset) for i, s in enumerate(others)}
    if lang == "en":
        console.print(legend_en(ruleset.win.min_hu) + "\n", highlight=False)
    def name(s: int) -> str:
        if lang == "en":
            return "you" if s == seat else f"seat {s}"
        return "你" if s == seat else f"{s}号位"

    game = TerminalPlayer(console, seat, opponents, ruleset, lang, hinter=Hinter(ruleset) if hint else None)
    try:
        for n in range(hands):
            state = match.deal()
            console.rule(f"第{n + 1}手" if lang != "en" else f"hand {n + 1}")
            game.play_hand(state)
            match.finish(state)
            money = ruleset.scoring.mode == "money"  # 付钱: scores are 分, shown in 元
            total = "  ".join(f"{name(s)} {yuan(p) if money else p:+}{' 元' if money else ''}"
                              for s, p in enumerate(match.scores))
            console.print(("running scores: " if lang == "en" else "累计：") + total, highlight=False)
            if save is not None:
                save.write_text(dumps(record_of(state, seed=None)), encoding="utf-8")
            if match.over:
                break
    except (KeyboardInterrupt, EOFError):
        console.print("\n再见 bye")


def first_dealer(rules: Ruleset, seat: int) -> int:
    """Seat 0 deals first, unless that makes ``seat`` the 底家: then the next seat deals, so the player plays.

    A player who picks a seat expects to play it; the 底家 rotates as the deal moves, so
    sitting out a later hand (and being paid for it) is still part of the game.
    """
    for dealer in range(rules.table.seats):
        if seats_of(rules, dealer)[1] != seat:
            return dealer
    return 0


class TerminalPlayer:
    """One player at the terminal: narrates the table, prompts for the player's choices, explains each end."""

    def __init__(self, console: Console, me: int, bots: dict[int, Bot], rules: Ruleset, lang: str, *,
                 hinter: Hinter | None = None) -> None:
        self.console, self.me, self.bots, self.rules, self.lang = console, me, bots, rules, lang
        self.hinter = hinter
        """提示 (``--hint``): the bot's suggestion before each of the player's decisions."""
        self.bi_explained = False
        self.claiming: Action | None = None
        """The player's 吃/碰/招 on the card on offer, until the claims are resolved."""

    def play_hand(self, state: GameState) -> None:
        """Play one hand to its end, then print the table and the settlement."""
        en, me = self.lang == "en", self.me
        if state.dijia == me:
            self.console.print("这手你坐底（底家）：不打牌，看其他三家打；你不付钱，按规则收钱。" if not en else
                               "You sit this hand out as the dijia (底家): watch the others play; you pay nothing "
                               "and are paid as the rules say.", highlight=False)
        shown = 0
        while not state.over:
            shown = self.narrate(state.view(me), shown)
            seat = state.to_act()[0]
            if seat != me:
                state.apply(self.bot_choice(state, seat))
                continue
            view = state.view(me, log=False)
            action = self.ask(view)
            state.apply(action)
            self.claiming = action if isinstance(action, Chi | Peng | Zhao) else None
            if isinstance(action, Discard | Bao) and not state.over:  # one card short now: say what it waits for
                shown = self.narrate(state.view(me), shown)
                after = state.view(me, log=False)
                if line := waits_line(after, self.rules, self.lang, self.console.width):
                    self.console.print(line, highlight=False)
        self.narrate(state.view(me), shown)
        final = state.view(me)
        table = render_view(final, lang=self.lang, width=self.console.width, rules=self.rules)
        self.console.print(table, highlight=False)
        assert state.settlement is not None
        print_hand_end(self.console, final, state.settlement, self.rules, self.lang)

    def bot_choice(self, state: GameState, seat: int) -> Action:
        """A bot's action; on a real terminal a spinner says whom the table waits for while it thinks.

        Only a discard names the seat: which seat is asked about a card on offer would tell that it can take it.
        """
        view = state.view(seat, log=False)
        if not self.console.is_terminal:
            return self.bots[seat].choose(view)
        if view.phase == "discard":  # whose discard it is is public
            waiting = f"waiting for seat {seat}…" if self.lang == "en" else f"等{seat}号位…"
        else:  # who may claim the card on offer is not: name nobody
            waiting = "waiting for the others…" if self.lang == "en" else "等其他家…"
        with self.console.status(waiting, spinner="dots"):
            return self.bots[seat].choose(view)

    def narrate(self, view: View, shown: int) -> int:
        """Print the events since ``shown``; the new count."""
        for ev in view.log[shown:]:
            if line := narrate(ev, self.lang, self.me, self.rules):
                self.console.print(f"[dim]{line}[/dim]", highlight=False)
            if isinstance(ev, Claimed | NotTaken) and self.claiming is not None:
                if isinstance(ev, Claimed) and ev.seat != self.me:
                    self.console.print(beaten_line(self.claiming, ev, self.lang), highlight=False)
                self.claiming = None
        return len(view.log)

    def ask(self, view: View) -> Action:
        """Show the table, whose turn, the waits and the numbered choices; prompt until a valid number."""
        console, lang = self.console, self.lang
        console.print(render_view(view, lang=lang, width=console.width, rules=self.rules), highlight=False)
        console.print(turn_line(view, lang), highlight=False)
        if line := waits_line(view, self.rules, lang, console.width):
            console.print(line, highlight=False)
        if not self.bi_explained and (note := bi_note(view, lang)):
            console.print(note, highlight=False)
            self.bi_explained = True
        if self.hinter is not None and (h := self.hinter.hint(view, ascii=lang == "en")) is not None:
            console.print(f"hint: {h.en}" if lang == "en" else f"提示：{h.zh}", highlight=False)
        return ask(console, view, lang, self.rules)


def ask(console: Console, view: View, lang: str, rules: Ruleset | None = None) -> Action:
    """Prompt until a valid number is typed."""
    menu = action_menu(view, lang, rules)
    while True:
        for line in menu_lines(menu, console.width):
            console.print(line, highlight=False)
        raw = input("选择 choose> " if lang != "en" else "choose> ").strip()
        if raw.isdigit() and 1 <= int(raw) <= len(view.legal):
            return view.legal[int(raw) - 1]
        console.print("请输入列出的编号 (type one of the numbers shown)")
