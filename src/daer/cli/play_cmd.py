"""``daer play``: a person plays in the terminal against bots."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from daer.bots import STRENGTHS, make_bot
from daer.bots.base import Bot
from daer.cards import N_KINDS, kind_of
from daer.cli.options import bot_list, check_lang, ruleset_option, seat_option
from daer.cli.render import action_menu, fmt, narrate, render_view
from daer.engine import GameState, View, dumps, record_of
from daer.engine.actions import Action, Discard
from daer.engine.match import Match
from daer.hands import Meld, MeldKind, waits
from daer.rules.model import Ruleset
from daer.scoring import seats_of


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
    try:
        for n in range(hands):
            state = match.deal()
            console.rule(f"第{n + 1}手" if lang != "en" else f"hand {n + 1}")
            _play_one(console, state, seat, opponents, rules=ruleset, lang=lang)
            match.finish(state)
            console.print(render_view(state.view(seat), lang=lang))
            total = "  ".join(f"{s}:{p:+d}" for s, p in enumerate(match.scores))
            console.print(("running scores: " if lang == "en" else "累计：") + total)
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


def _play_one(
    console: Console, state: GameState, me: int, bots: dict[int, Bot], *, rules: Ruleset, lang: str
) -> None:
    shown = 0
    while not state.over:
        shown = _narrate(console, state.view(me), shown, lang)
        seat = state.to_act()[0]
        if seat != me:
            state.apply(bots[seat].choose(state.view(seat, log=False)))
            continue
        view = state.view(me, log=False)
        console.print(render_view(view, lang=lang))
        hint = wait_hint(view, rules, lang)
        if hint:
            console.print(hint)
        state.apply(ask(console, view, lang))
    _narrate(console, state.view(me), shown, lang)


def _narrate(console: Console, view: View, shown: int, lang: str) -> int:
    for ev in view.log[shown:]:
        line = narrate(ev, lang)
        if line:
            console.print(f"[dim]{line}[/dim]", highlight=False)
    return len(view.log)


def wait_hint(view: View, rules: Ruleset, lang: str) -> str:
    """叫牌 hint: after each possible discard (or now), the kinds that would win and their 胡."""
    assert view.seat is not None
    c = [0] * N_KINDS
    for cid in view.hand:
        c[kind_of(cid)] += 1
    melds = tuple(Meld(MeldKind(m.kind), m.kinds) for m in view.melds[view.seat])
    out = []
    for a in view.legal:
        if isinstance(a, Discard):
            c[a.kind] -= 1
            ws = [w for w in waits(rules, tuple(c), melds) if w.hu >= rules.win.min_hu]
            c[a.kind] += 1
            if ws:
                wins = " ".join(f"{fmt([w.kind], lang)}({w.hu}胡)" for w in ws)
                out.append(f"{fmt([a.kind], lang)} → {wins}")
    if not out:
        return ""
    return ("waits after discarding: " if lang == "en" else "叫牌提示：打 ") + "; ".join(out)


def ask(console: Console, view: View, lang: str) -> Action:
    """Prompt until a valid number is typed."""
    menu = action_menu(view, lang)
    while True:
        console.print("  ".join(menu))
        raw = input("选择 choose> " if lang != "en" else "choose> ").strip()
        if raw.isdigit() and 1 <= int(raw) <= len(view.legal):
            return view.legal[int(raw) - 1]
        console.print("请输入列出的编号 (type one of the numbers shown)")
