"""Bounds on everything a client chooses for a room: its options, house rules, bots, names and ids.

Each bound is refused whole (the room is not stored) with a Chinese reason first, then English.  The
ranges are listed in ``docs/protocol.md`` and served by ``GET /api/options`` (:func:`bounds_info`).
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from daer.bots import BOTS, STRENGTHS, SearchBot, make_bot
from daer.bots.base import Bot
from daer.bots.oracle import ORACLE, ORACLE_REFUSED_EN, ORACLE_REFUSED_ZH
from daer.engine.match import DealerRule
from daer.rules import RulesError, preset_names, resolve_rules
from daer.rules.house import check_house_overrides
from daer.rules.model import Ruleset
from daer.server.protocol import MAX_ID, Id

__all__ = ["MAX_ID", "PACES", "Id", "RoomConfig", "RoomError", "bot_for", "bounds_info", "check_bot", "check_config",
           "pace_factor"]

MAX_CODE = 16
"""Longest room code (the column is 16 wide)."""
MAX_NAME = 24
"""Longest player name (characters)."""
HANDS = (1, 64)
"""Hands in a match."""
TIMER = (0.0, 600.0)
"""Seconds to act before 托管 (0: no timer)."""
PACES = {"fast": 0.5, "normal": 1.0, "slow": 2.0}
"""节奏 (the room's pace): how much the server's bot delay and claim window are stretched in this room.

Both scale together, so a claim window stays at least the bot delay (docs/protocol.md, "Timing")."""
MIN_SEATS, MAX_SEATS = 2, 4
"""Seats a room may have (each preset fixes its own; players cannot change it)."""
MAX_SEARCH_WORLDS = 2000
"""Largest ``search:N`` budget a room may ask for."""
BOT_SECONDS = 1.0
"""Longest a search bot may think per decision (the server sets it on every search bot)."""
BOT_HARD_CAP = 3.0
"""If a bot has not answered after this many seconds the room plays the heuristic bot's choice instead (and
the search worker still thinking is stopped: :mod:`daer.server.table.thinking`)."""


Name = Annotated[str, msgspec.Meta(max_length=MAX_NAME)]
Short = Annotated[str, msgspec.Meta(max_length=32)]
OptionPath = Annotated[str, msgspec.Meta(max_length=64)]


class RoomError(Exception):
    """A request the room refuses: ``code``, Chinese and English reason."""

    def __init__(self, code: str, zh: str, en: str) -> None:
        super().__init__(f"{zh} ({en})")
        self.code, self.zh, self.en = code, zh, en


class RoomConfig(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Options chosen when the room is created."""

    rules: Short = "luzhou"
    overrides: dict[OptionPath, bool | int | float | str] = msgspec.field(default_factory=dict)
    """House-rule options (``daer.rules.house``: only the listed ones, each within its range)."""
    hands: int = 8
    timer: float = 30.0
    """Seconds a player has to act before 托管 (0: no timer)."""
    bot: Short = "heuristic"
    dealer_rule: Short = "winner"
    watch: bool = True
    """Spectators allowed (观战); the host may change it (``watch`` / ``nowatch``)."""
    pace: Short = "normal"
    """节奏: ``fast`` / ``normal`` / ``slow`` (:data:`PACES`), the bots' pace and the claim window's length."""
    fill: bool = True
    """Bots fill the empty seats when the host starts (False: the match starts only with every seat taken)."""
    hint: bool = False
    """提示: the seat to act sees the bot's suggestion and why (:mod:`daer.bots.hint`).  Never with money play
    (a ruleset whose ``scoring.mode`` is ``money``); a tournament never offers it."""


def pace_factor(cfg: RoomConfig) -> float:
    """How much this room stretches the server's bot delay and claim window (1 for an unknown pace)."""
    return PACES.get(cfg.pace, 1.0)


def check_bot(name: str) -> None:
    """Raise :class:`RoomError` unless ``name`` is a registry name, a strength, or ``search:N`` within the cap."""
    if name in BOTS or name in STRENGTHS:
        return
    if name == ORACLE:
        raise RoomError("bad_bot", ORACLE_REFUSED_ZH, ORACLE_REFUSED_EN)
    if name.startswith("search:") and name[7:].isdigit() and 1 <= int(name[7:]) <= MAX_SEARCH_WORLDS:
        return
    choices = ", ".join((*STRENGTHS, *BOTS))
    raise RoomError("bad_bot", f"没有这个机器人：{name}（可选 {choices}，或 search:1 到 search:{MAX_SEARCH_WORLDS}）",
                    f"unknown bot; choose from {choices} or search:N with N 1-{MAX_SEARCH_WORLDS}")


def check_config(cfg: RoomConfig) -> Ruleset:
    """The ruleset of a room's options, or :class:`RoomError` (only shipped presets, never a file path)."""
    if cfg.rules not in preset_names():
        raise RoomError("bad_rules", f"没有这个规则：{cfg.rules}", f"unknown ruleset; choose from {preset_names()}")
    if not HANDS[0] <= cfg.hands <= HANDS[1]:
        raise RoomError("bad_hands", "局数须在 1 到 64 之间", "hands must be 1-64")
    if not TIMER[0] <= cfg.timer <= TIMER[1]:
        raise RoomError("bad_timer", "计时须在 0 到 600 秒之间（0 = 不限）", "timer must be 0-600 seconds (0: none)")
    if cfg.pace not in PACES:
        raise RoomError("bad_pace", "节奏须是 fast（快）、normal（标准）或 slow（慢）",
                        "pace must be fast, normal or slow")
    if cfg.dealer_rule not in {d.value for d in DealerRule}:
        raise RoomError("bad_dealer_rule", "坐庄方式不对", "dealer_rule must be winner, rotate or keep")
    check_bot(cfg.bot)
    try:
        check_house_overrides(cfg.rules, cfg.overrides)
        rules = resolve_rules(cfg.rules, cfg.overrides)
    except (RulesError, ValueError, TypeError) as exc:
        raise RoomError("bad_overrides", f"规则选项不对：{exc}", f"bad house-rule options: {exc}") from exc
    if cfg.hint and rules.scoring.mode == "money":
        raise RoomError("bad_hint", "付钱的房间不能开提示：提示只用于练习和朋友局",
                        "hints are not offered with money play: they are for practice and friendly games")
    if not MIN_SEATS <= rules.table.seats <= MAX_SEATS:
        raise RoomError("bad_seats", f"座位数须在 {MIN_SEATS} 到 {MAX_SEATS} 之间",
                        f"seats must be {MIN_SEATS}-{MAX_SEATS}")
    return rules


def bot_for(name: str, rules: Ruleset, seed: str) -> Bot:
    """A bot by registry name (checked by :func:`check_bot`); a search bot's thinking time is capped."""
    try:
        bot = make_bot(name, rules=rules, seed=seed)
    except (ValueError, KeyError):
        bot = make_bot("heuristic", rules=rules, seed=seed)
    if isinstance(bot, SearchBot):
        bot.seconds = BOT_SECONDS if bot.seconds is None else min(bot.seconds, BOT_SECONDS)
        bot.worlds = min(bot.worlds, MAX_SEARCH_WORLDS)
    return bot


def bounds_info() -> dict[str, Any]:
    """The bounds a lobby form needs (served by ``GET /api/options``)."""
    return {"hands": list(HANDS), "timer": list(TIMER), "name": MAX_NAME, "id": MAX_ID, "code": MAX_CODE,
            "search_worlds": MAX_SEARCH_WORLDS, "bot_seconds": BOT_SECONDS,
            "dealer_rules": [d.value for d in DealerRule], "paces": list(PACES)}
