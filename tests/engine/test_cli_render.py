"""What `daer play` and `daer replay` show a player: grouped hands, whose turn, waits, choices that fit the
terminal, English words, and the settlement explained as `daer score` explains it."""

from __future__ import annotations

import io
import re
from pathlib import Path

import msgspec
import pytest
from engine_decks import make_deck
from rich.cells import cell_len
from rich.console import Console
from typer.testing import CliRunner

from daer.bots import HeuristicBot, RandomBot
from daer.bots.runner import play_hand
from daer.cards import format_kinds, parse_kinds
from daer.cli.main import app
from daer.cli.play_cmd import TerminalPlayer
from daer.cli.render import (
    action_menu,
    action_text,
    bi_note,
    grouped_hand,
    hand_groups,
    meld_text,
    menu_lines,
    narrate,
    print_hand_end,
    render_view,
    turn_line,
    waits_line,
)
from daer.cli.terms import TERMS, legend_en, term
from daer.engine import GameState, Hu, Pass, dumps, new_hand, record_of
from daer.engine.actions import Chi, Discard, Peng, Zhao
from daer.engine.events import Claimed, Discarded, NotTaken
from daer.rules import find_rules

RUNNER = CliRunner()
LUZHOU = find_rules("luzhou")
K = {c: parse_kinds(c)[0] for c in "一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾"}


def ids(text: str) -> tuple[int, ...]:
    """Card ids for kinds (copy numbers do not matter to the layout)."""
    seen: dict[int, int] = {}
    out = []
    for k in parse_kinds(text):
        out.append(k * 4 + seen.get(k, 0))
        seen[k] = seen.get(k, 0) + 1
    return tuple(out)


def ready_hand() -> GameState:
    """The dealer (seat 0) holds README's hand one card short plus 拾: discarding 拾 waits on 十 (15 胡)."""
    deck = make_deck(LUZHOU, hands={
        0: "一二三四五六七八九壹贰叁肆伍陆柒捌玖二七拾",
        1: "一一三三四四五五六六八八九九十十拾拾捌捌",
        3: "一三四五六八九十十壹壹贰贰叁叁肆肆伍伍陆",
    })
    return new_hand(LUZHOU, deck=deck)


# --- the hand, grouped as players sort it -------------------------------------------------------------------

def test_runs_in_the_hand_are_grouped_with_kan_and_pairs_together() -> None:
    assert grouped_hand(ids("一二三五七"), "zh") == "一二三  五  七"
    assert grouped_hand(ids("七五三二一"), "en") == "x1 x2 x3  x5  x7"
    assert grouped_hand(ids("九九九五五一二三肆伍玖拾"), "zh") == "九九九  五五  一二三  肆伍  玖拾"
    assert grouped_hand(ids("二七十贰肆"), "zh") == "二七十  贰  肆"  # the red run kept together
    assert [len(g) for g in hand_groups(ids("一一一一二二三"))] == [4, 2, 1]


# --- whose turn, waits, the 底家 --------------------------------------------------------------------------

def test_turn_line_and_waits_at_the_discard_and_after_it() -> None:
    st = ready_hand()
    me = st.view(0, log=False)
    assert turn_line(me, "zh") == ">> 轮到你出牌：打一张"
    assert turn_line(st.view(1, log=False), "zh") == ">> 轮到0号位出牌"
    assert turn_line(me, "en") == ">> your turn: discard a card"
    assert "拾 → 十(15胡·剩4)" in waits_line(me, LUZHOU, "zh")  # 十 is in the others' hands: unseen by seat 0
    assert "d10 → x10 (15 hu, 4 left)" in waits_line(me, LUZHOU, "en")
    st.apply(Discard(seat=0, kind=K["拾"]))
    after = st.view(0, log=False)
    # one card short and not asked anything: the waits are still shown, not only at the discard prompt
    assert waits_line(after, LUZHOU, "zh") == "叫牌：十(15胡·剩4)"
    assert waits_line(after, LUZHOU, "en") == "you are waiting for (叫牌): x10 (15 hu, 4 left)"
    # a wait whose every copy is in sight is dead, and says so
    dead = msgspec.structs.replace(after, discards=(*after.discards, *((1, k) for k in parse_kinds("十十十十"))))
    assert waits_line(dead, LUZHOU, "zh") == "叫牌：十(15胡·没了)"
    assert waits_line(dead, LUZHOU, "en") == "you are waiting for (叫牌): x10 (15 hu, none left)"
    if after.phase == "claim":
        assert turn_line(after, "zh") == ">> 等其他家决定要不要 拾"
        asked = next(s for s in (1, 3) if st.view(s, log=False).to_act)
        assert turn_line(st.view(asked, log=False), "zh") == ">> 轮到你：要不要 拾"


def test_the_dijia_is_listed_as_sitting_out_and_never_paying() -> None:
    st = ready_hand()
    zh = render_view(st.view(0, log=False), lang="zh")
    assert "2号位(底家): 这手坐底：不打牌、不付钱，只收钱" in zh
    en = render_view(st.view(0, log=False), lang="en")
    assert "seat 2 (dijia): sits this hand out: plays no card, pays nothing, is paid" in en
    assert "seat 0 (dealer, you): 21 cards" in en


# --- choices that fit the terminal -----------------------------------------------------------------------

def _menus() -> list[list[str]]:
    """Real menus from seeded bot hands (every seat, both languages), plus a long 比 choice."""
    menus = []
    for seed in range(6):
        st = new_hand(LUZHOU, seed=seed)
        bots = {s: RandomBot(seed) for s in range(4)}
        while not st.over:
            seat = st.to_act()[0]
            view = st.view(seat, log=False)
            menus += [action_menu(view, "zh"), action_menu(view, "en")]
            st.apply(bots[seat].choose(view))
    chi = Chi(seat=1, hand=(K["七"], K["八"]), bi=((K["九"], K["九"], K["玖"]), (K["七"], K["八"], K["九"])))
    menus.append([f"{i}. {action_text(a, 'en', K['九'])}" for i, a in
                  enumerate([chi] * 5 + [Peng(seat=1)] * 3, 1)])
    return menus


@pytest.mark.parametrize("width", [80, 120, 40])
def test_option_lists_never_wrap_in_the_middle_of_a_choice(width: int) -> None:
    for menu in _menus():
        lines = menu_lines(menu, width)
        # a line is wider than the terminal only when one choice alone is (possible at 40 columns, not at 80)
        assert all(cell_len(line) <= width or line in menu for line in lines), lines
        assert width < 80 or all(cell_len(line) <= width for line in lines)
        assert [c for line in lines for c in re.split(r"\s{2,}(?=\d+\. )", line)] == menu  # each choice whole
        if width >= 80 and len(menu) > 1 and max(map(cell_len, menu)) < 30:
            assert len(lines) < len(menu)  # laid out in columns, not one a line


def _menu_blocks(output: str) -> list[list[str]]:
    """The lines of each menu printed before a prompt."""
    blocks, block = [], []
    for line in output.splitlines():
        if line.startswith(("选择 choose>", "choose>")):
            blocks.append(block)
            block = []
        elif re.match(r"^\d+\. ", line):
            block.append(line)
        else:
            block = []
    return blocks


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_play_menus_fit_the_terminal_width(width: int, lang: str) -> None:
    res = RUNNER.invoke(app, ["play", "--seed", "12", "--lang", lang], input="1\n" * 300,
                        env={"COLUMNS": str(width)})
    assert res.exit_code == 0, res.output
    blocks = _menu_blocks(res.output)
    assert len(blocks) > 5
    for block in blocks:
        numbers = [int(n) for line in block for n in re.findall(r"(?:^|\s{2})(\d+)\. ", line)]
        assert numbers == list(range(1, len(numbers) + 1)), block  # no choice split onto a line of its own
        assert all(cell_len(line) <= width for line in block)


# --- English --------------------------------------------------------------------------------------------

def test_english_separates_melds_and_translates_the_group_words() -> None:
    st = new_hand(LUZHOU, seed=12)
    play_hand(st, {s: HeuristicBot(LUZHOU, s) for s in range(4)})
    text = render_view(st.view(0), lang="en", width=200)
    melds = re.findall(r"\| (.*)", text)
    assert melds
    for part in (m for line in melds for m in line.split(", ")):
        found = re.match(r"^([a-z ]+?) (?:[xd]\d+ ?)+$", part)
        assert found is not None, part
        word = found.group(1)
        assert word in {en for _, en in TERMS.values()}
        assert not re.search(r"[\u4e00-\u9fff]", part)
    legend = legend_en(10)
    assert "x = small" in legend and "d = big" in legend and "10 to win here" in legend


def test_bi_is_named_in_words_and_explained_once() -> None:
    st = ready_hand()
    chi = Chi(seat=0, hand=(K["七"], K["八"]), bi=((K["九"], K["九"], K["玖"]),))
    assert action_text(chi, "en", K["九"]) == "chow x7 x8 x9 + bi (must also lay down) x9 x9 d9"
    assert action_text(chi, "zh", K["九"]) == "吃 七八九 比 九九玖"
    view = msgspec.structs.replace(st.view(0, log=False), legal=(chi,))
    assert "must be laid down" in bi_note(view, "en") and "比牌" in bi_note(view, "zh")
    assert bi_note(st.view(0, log=False), "en") == ""


def test_glossary_doc_lists_every_english_word_the_terminal_uses() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "glossary.md").read_text(encoding="utf-8")
    section = doc[doc.index("## English words"):]
    for zh, en in TERMS.values():
        assert f"| {zh} | {en} |" in section, (zh, en)


# --- the settlement -------------------------------------------------------------------------------------

def _end(st: GameState, seat: int, lang: str) -> str:
    console = Console(record=True, width=80)
    assert st.settlement is not None
    print_hand_end(console, st.view(seat), st.settlement, st.rules, lang)
    return console.export_text()


@pytest.mark.parametrize("rules", ["luzhou", "longchang", "luzhou-mingtang", "paohuzi"])
def test_the_end_of_a_hand_says_who_pays_whom_and_the_arithmetic(rules: str) -> None:
    ruleset = find_rules(rules)
    won = drawn = 0
    for seed in range(40):
        st = new_hand(ruleset, seed=seed)
        play_hand(st, {s: HeuristicBot(ruleset, seed) for s in range(ruleset.table.seats)})
        assert st.result is not None and st.settlement is not None
        zh, en = _end(st, 0, "zh"), _end(st, 0, "en")
        for p in st.settlement.payments:
            assert re.search(rf"{p.payer}号位\S* → {p.payee}号位\S*: {p.amount}  \({p.zh}\)", zh), zh
            assert re.search(rf"seat {p.payer}\b.* → seat {p.payee}\b.*: {p.amount}  \({re.escape(p.en)}\)", en)
        if st.result.winner is not None:
            won += 1
            assert f"{st.result.winner}号位" in zh and "胡了" in zh and "谁付谁" in zh
            assert "算法" in zh and "arithmetic" in en
            if ruleset.scoring.mode == "deng":
                assert f"{st.result.hu}胡 → {st.result.deng}等" in zh
                assert f"{st.result.hu} hu → deng {st.result.deng}" in en
            for shape, kinds, hu in st.result.groups:
                assert re.search(rf"│ {shape}\s+│ {format_kinds(kinds)}\s+│\s+{hu} │", zh)
            assert not re.search(r"│ (顺|绞|碰|坎|招|垅|对) ", en)  # group words translated
        else:
            drawn += 1
            assert "黄牌" in zh and "Draw" in en
    assert won >= 5 and drawn >= 1


def test_an_instant_win_is_explained_with_its_name_and_payments() -> None:
    deck = make_deck(LUZHOU, hands={
        0: "二二四四五五七八九十壹壹贰叁肆伍陆柒捌玖拾",
        1: "一一一一三三三三六六六六七八八十贰肆玖拾",  # 3垅: the hand
        3: "二二四四五五七七八九九九十十壹壹贰贰叁叁",
    })
    st = new_hand(LUZHOU, deck=deck)
    for seat in st.to_act():  # 可以直接胡牌: seat 1 takes it (the engine asks)
        st.apply(Hu(seat=seat) if seat == 1 else Pass(seat=seat))
    assert st.result is not None and st.result.how == "instant" and st.settlement is not None
    zh = _end(st, 0, "zh")
    assert f"1号位胡了（{st.result.name}）" in zh and f"砌牌即胡: {st.result.name}" in zh
    assert zh.count("(输家付赢家)") == 2 and "谁付谁" in zh


def test_narration_calls_the_player_you_and_names_the_bi() -> None:
    chi = Claimed(seat=1, how="chi", kind=K["五"], melds=(tuple(parse_kinds("三四五")), tuple(parse_kinds("五五伍"))))
    assert narrate(chi, "zh") == "1号位吃 三四五 比 五五伍"
    assert narrate(chi, "en") == "seat 1: chow x3 x4 x5 + bi (must also lay down) x5 x5 d5"
    assert narrate(chi, "zh", me=1) == "你吃 三四五 比 五五伍"
    out = Discarded(seat=0, kind=K["七"])
    assert narrate(out, "en", me=0) == "you discard x7" and narrate(out, "en", me=1) == "seat 0 discards x7"
    assert narrate(out, "zh", me=0) == "你打出 七"
    st = ready_hand()
    st.apply(Discard(seat=0, kind=K["拾"]))
    if st.phase == "claim":
        assert "桌上的牌：拾（你打出）" in render_view(st.view(0, log=False))
        assert "on offer: d10 (discarded by seat 0)" in render_view(st.view(1, log=False), lang="en")


def test_a_claim_beaten_by_a_higher_one_is_explained_to_the_player() -> None:
    st = ready_hand()
    console = Console(record=True, width=80, file=io.StringIO())
    game = TerminalPlayer(console, 1, {}, LUZHOU, "zh")
    game.claiming = Chi(seat=1, hand=(K["九"], K["十"]))
    taken = Claimed(seat=3, how="peng", kind=K["八"], melds=(tuple(parse_kinds("八八八")),))
    view = msgspec.structs.replace(st.view(1), log=(taken,))
    assert game.narrate(view, 0) == 1
    text = console.export_text()
    assert "3号位碰 八八八" in text and "3号位的碰优先，你的吃没有成" in text
    assert game.claiming is None
    game.lang = "en"
    game.claiming = Chi(seat=1, hand=(K["九"], K["十"]))
    game.narrate(view, 0)
    assert "seat 3's pong comes before your chow: hu > kong > pong > chow" in console.export_text()
    game.claiming = Chi(seat=1, hand=(K["九"], K["十"]))
    game.narrate(msgspec.structs.replace(view, log=(NotTaken(kind=K["八"]),)), 0)
    assert game.claiming is None and console.export_text().count("comes before") == 0  # export_text cleared


def test_dead_bottom_cards_are_shown_as_out_of_play() -> None:
    rules = find_rules("longchang")
    st = new_hand(rules, seed=5)
    view = st.view(0, log=False)
    assert view.dead  # 隆昌's two dead bottom cards (table.dead_cards)
    assert "（翻开不用）" in render_view(view) and "(out of play)" in render_view(view, lang="en")
    plain = render_view(new_hand(LUZHOU, seed=5).view(0, log=False))
    assert "底牌" in plain and "翻开不用" not in plain


def test_a_draw_with_no_payment_says_nobody_pays() -> None:
    rules = find_rules("paohuzi")
    for seed in range(40):
        st = new_hand(rules, seed=seed)
        play_hand(st, {s: HeuristicBot(rules, seed) for s in range(3)})
        if st.result is not None and st.result.winner is None:
            assert st.settlement is not None and not st.settlement.payments
            assert "谁付谁: 没有人付钱" in _end(st, 0, "zh") and "who pays whom: nobody pays" in _end(st, 0, "en")
            return
    pytest.fail("no 黄牌 in 40 跑胡子 hands")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_waits_lines_break_between_waits_to_fit_80_columns(lang: str) -> None:
    shown = 0
    for seed in range(8):
        st = new_hand(LUZHOU, seed=seed)
        bots = {s: HeuristicBot(LUZHOU, seed) for s in range(4)}
        while not st.over:
            seat = st.to_act()[0]
            view = st.view(seat, log=False)
            if text := waits_line(view, LUZHOU, lang, 80):
                shown += 1
                assert all(cell_len(line) <= 80 for line in text.splitlines()), text
                assert not re.search(r"\(\d+ hu,\s*$|\d+\s*$", text.splitlines()[0])  # no wait cut in two
            st.apply(bots[seat].choose(view))
    assert shown > 20


@pytest.mark.parametrize(("lang", "needles"),
                         [("zh", ["谁付谁", "算法"]), ("en", ["x = small", "who pays whom", "arithmetic"])])
def test_replay_ends_with_the_settlement_explained(tmp_path: Path, lang: str, needles: list[str]) -> None:
    st = new_hand(LUZHOU, seed=50)
    play_hand(st, {s: HeuristicBot(LUZHOU, s) for s in range(4)})
    assert st.result is not None and st.result.winner is not None
    path = tmp_path / "hand.json"
    path.write_text(dumps(record_of(st, seed=50)), encoding="utf-8")
    res = RUNNER.invoke(app, ["replay", str(path), "--lang", lang])
    assert res.exit_code == 0, res.output
    for needle in needles:
        assert needle in res.output


def test_an_instant_win_offered_to_the_player_says_what_it_is() -> None:
    deck = make_deck(LUZHOU, hands={
        0: "一一一一三三三三六六六六七八八十贰肆玖拾拾",  # the dealer holds 3垅: 可以直接胡牌, or play on
        1: "二二四四五五七八九十壹壹贰叁肆伍陆柒捌玖",
        3: "二二四四五五七七八九九九十十壹壹贰贰叁叁",
    })
    st = new_hand(LUZHOU, deck=deck)
    view = st.view(0, log=False)
    assert view.phase == "claim" and view.offer is None and view.to_act
    assert turn_line(view, "zh") == ">> 轮到你：砌牌就能胡（3垅/5坎），胡还是过"
    assert action_menu(view, "zh") == ["1. 胡（砌牌即胡）", "2. 过"]
    assert action_menu(view, "en") == ["1. hu: instant win (砌牌即胡)", "2. pass"]
    assert "instant win" in turn_line(view, "en")


def test_paohuzi_words_on_the_table_and_in_the_menu() -> None:
    paohuzi = find_rules("paohuzi")
    assert term("zhao", "zh", paohuzi) == "跑" and term("long", "zh", paohuzi) == "提"
    assert term("zhao", "zh", LUZHOU) == "招" and term("long", "en", LUZHOU) == "dealt kong"
    assert meld_text("zhao", (7, 7, 7, 7), "zh", paohuzi) == "跑八八八八"
    assert action_text(Zhao(seat=0), "zh", K["八"], paohuzi) == "跑 八八八八"
    ev = Claimed(seat=2, how="zhao", kind=K["八"], melds=(tuple(parse_kinds("八八八八")),))
    assert narrate(ev, "zh", rules=paohuzi) == "2号位跑 八八八八"


def test_on_a_terminal_the_table_says_which_bot_it_waits_for() -> None:
    st = new_hand(LUZHOU, seed=3, dealer=1)  # seat 1 deals: a bot acts first
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=80)
    player = TerminalPlayer(console, 0, {s: HeuristicBot(LUZHOU, s) for s in (1, 2, 3)}, LUZHOU, "zh")
    seat = st.to_act()[0]
    assert seat == 1 and st.phase == "discard"
    st.apply(player.bot_choice(st, seat))
    assert "等1号位" in out.getvalue()
    while st.phase != "claim" or st.to_act()[0] == 0:  # a bot is asked about a card on offer
        asked = st.to_act()[0]
        st.apply(player.bots[asked].choose(st.view(asked, log=False)) if asked != 0 else Pass(seat=0))
    out.truncate(0)
    st.apply(player.bot_choice(st, st.to_act()[0]))
    assert "等其他家" in out.getvalue() and "号位" not in out.getvalue()  # the asked seat stays hidden


def test_a_bao_penalty_at_a_draw_is_shown_with_its_reason() -> None:
    for seed in range(60):
        st = new_hand(LUZHOU, seed=seed)
        play_hand(st, {s: RandomBot(seed * 7 + s) for s in range(4)})  # random bots pass up 碰: 包牌 at 黄
        assert st.settlement is not None
        bao = [p for p in st.settlement.payments if "包牌" in p.zh]
        if not bao:
            continue
        zh, en = _end(st, 0, "zh"), _end(st, 0, "en")
        for p in bao:
            assert re.search(rf"{p.payer}号位\S* → {p.payee}号位\S*: {p.amount}  \({p.zh}\)", zh)
            assert f"({p.en})" in en
        assert "黄牌" in zh and "算法: 包牌" in zh
        return
    pytest.fail("no 包牌 in 60 hands of random bots")


def test_replay_step_narrates_each_action_before_its_table(tmp_path: Path) -> None:
    st = new_hand(LUZHOU, seed=50)
    play_hand(st, {s: HeuristicBot(LUZHOU, s) for s in range(4)})
    path = tmp_path / "hand.json"
    path.write_text(dumps(record_of(st, seed=50)), encoding="utf-8")
    res = RUNNER.invoke(app, ["replay", str(path), "--step", "--seat", "0"], input="\n" * 400)
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    first = next(i for i, line in enumerate(lines) if " 1. 0号位: 打 " in line)
    card = lines[first].split("打 ")[1].split()[0]
    assert lines[first + 1] == f"你打出 {card}"  # the seat replayed is 你, its event right under the step
    table = next(i for i in range(first, len(lines)) if lines[i].startswith("墩 "))
    assert all("号位" in line or "没人要" in line or "你" in line for line in lines[first + 1:table])  # events first
