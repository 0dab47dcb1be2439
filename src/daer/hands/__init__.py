"""Hand analysis: 列, melds, best-胡 evaluation, explanations and waits (叫牌)."""

from daer.hands.analysis import Evaluation, Wait, check_cards, evaluate, explain, instant_win, waits
from daer.hands.arrange import iter_arrangements
from daer.hands.forced import ARRIVALS, HOW_ZH, Arrival, WinShape, evaluate_win, win_shapes
from daer.hands.groups import Group, GroupKind, Meld, MeldError, MeldKind, group_hu, shape_of

__all__ = [
    "ARRIVALS",
    "HOW_ZH",
    "Arrival",
    "Evaluation",
    "Group",
    "GroupKind",
    "Meld",
    "MeldError",
    "MeldKind",
    "Wait",
    "WinShape",
    "check_cards",
    "evaluate",
    "evaluate_win",
    "explain",
    "group_hu",
    "instant_win",
    "iter_arrangements",
    "shape_of",
    "waits",
    "win_shapes",
]
