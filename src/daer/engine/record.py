"""Hand records (牌谱): ruleset, deck or seed, dealer and the actions; they replay exactly.

The JSON format is described in ``docs/record-format.md``.
"""

from __future__ import annotations

import random
import secrets
from typing import Any

import msgspec

from daer.cards import full_deck
from daer.engine.actions import Action
from daer.engine.fairness import Fairness
from daer.engine.state import GameState
from daer.rules import resolve_rules
from daer.rules.model import Ruleset

RECORD_VERSION = 2
"""Newest version of the record format (2 added ``fairness``); :func:`dumps` writes a record without
``fairness`` as version 1, which it is, so older readers still take it."""
READABLE_VERSIONS = (1, 2)
"""Record versions :func:`replay` reads."""


class HandRecord(msgspec.Struct, kw_only=True, frozen=True):
    """Everything needed to replay one hand."""

    version: int = RECORD_VERSION
    rules: str = "luzhou"
    """Preset name, alias or path of a TOML house rule."""
    overrides: dict[str, Any] = msgspec.field(default_factory=dict)
    """Dotted option overrides (``{"play.guo_zhang": false}``)."""
    seed: int | str | None = None
    """Seed of the shuffle (``random.Random(seed)``); None when ``deck`` is given."""
    deck: tuple[int, ...] | None = None
    """The injected (or live-shuffled) deck, card ids in dealing order."""
    dealer: int = 0
    actions: tuple[Action, ...] = ()
    wind: int | None = None
    """圈风 card of the hand (隆昌/古蔺 rounds); left out of the JSON when None."""
    fairness: Fairness | None = None
    """Commit–reveal data of an online hand (``docs/fairness.md``); left out of the JSON when None."""


class RecordError(ValueError):
    """A record that cannot be read or replayed (牌谱错误)."""


def shuffled_deck(seed: int | str | None = None) -> list[int]:
    """A shuffled deck: seeded (tests, simulations) or from :mod:`secrets` (live play) when seed is None."""
    deck = full_deck()
    if seed is None:
        secrets.SystemRandom().shuffle(deck)
    else:
        random.Random(seed).shuffle(deck)
    return deck


def new_hand(
    rules: Ruleset, *, seed: int | str | None = None, deck: list[int] | None = None, dealer: int = 0,
    wind: int | None = None, hold: bool = False,
) -> GameState:
    """A freshly dealt hand from a seed, an injected deck, or a live (``secrets``) shuffle (``hold``: see GameState)."""
    return GameState(rules, deck if deck is not None else shuffled_deck(seed), dealer=dealer, wind=wind, hold=hold)


def record_of(state: GameState, *, rules: str | None = None, overrides: dict[str, Any] | None = None,
              seed: int | str | None = None) -> HandRecord:
    """The record of a hand so far.  Without a seed the deck is written out."""
    return HandRecord(
        rules=rules or state.rules.name,
        overrides=dict(overrides or {}),
        seed=seed,
        deck=None if seed is not None else state.deck,
        dealer=state.dealer,
        actions=tuple(state.actions),
        wind=state.wind,
    )


def replay(record: HandRecord, *, upto: int | None = None) -> GameState:
    """The state after the record's actions (the first ``upto`` of them if given)."""
    if record.version not in READABLE_VERSIONS:
        raise RecordError(f"不支持的牌谱版本 {record.version} (unsupported record version)")
    rules = resolve_rules(record.rules, record.overrides)
    if record.deck is None and record.seed is None:
        raise RecordError("牌谱缺少牌堆或种子 (a record needs a deck or a seed)")
    deck = list(record.deck) if record.deck is not None else shuffled_deck(record.seed)
    state = GameState(rules, deck, dealer=record.dealer, wind=record.wind)
    for act in record.actions[:upto]:
        state.apply(act)
    return state


def dumps(record: HandRecord) -> str:
    """The record as JSON text."""
    data = msgspec.to_builtins(record)
    data["version"] = RECORD_VERSION if record.fairness is not None else 1
    for optional in ("wind", "fairness"):
        if data.get(optional) is None:
            data.pop(optional, None)
    return msgspec.json.format(msgspec.json.encode(data).decode(), indent=1)


def loads(text: str | bytes) -> HandRecord:
    """Read a record written by :func:`dumps`."""
    try:
        return msgspec.json.decode(text, type=HandRecord)
    except msgspec.DecodeError as exc:
        raise RecordError(f"牌谱无法读取 (cannot read record): {exc}") from exc
