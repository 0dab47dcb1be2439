"""The game engine: one hand step by step, legal actions, views, records and matches."""

from daer.engine.actions import Action, Bao, Chi, Discard, Hu, Pass, Peng, Zhao, describe
from daer.engine.errors import (
    AlreadyChoseError,
    HandOverError,
    IllegalActionError,
    NotAllowedError,
    NotYourTurnError,
)
from daer.engine.events import Event
from daer.engine.record import (
    HandRecord,
    RecordError,
    dumps,
    loads,
    new_hand,
    record_of,
    replay,
    shuffled_deck,
)
from daer.engine.state import GameState
from daer.engine.views import Offer, Result, TableMeld, View

__all__ = [
    "Action",
    "AlreadyChoseError",
    "Bao",
    "Chi",
    "Discard",
    "Event",
    "GameState",
    "HandOverError",
    "HandRecord",
    "Hu",
    "IllegalActionError",
    "NotAllowedError",
    "NotYourTurnError",
    "Offer",
    "Pass",
    "Peng",
    "RecordError",
    "Result",
    "TableMeld",
    "View",
    "Zhao",
    "describe",
    "dumps",
    "loads",
    "new_hand",
    "record_of",
    "replay",
    "shuffled_deck",
]
