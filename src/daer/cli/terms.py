"""Player words in Chinese and English (the terminal's glossary; see docs/glossary.md, "English words").

English text uses the words an English-speaking mahjong player already knows (pong, kong,
chow) for the shapes they match, and says in plain words what has no such name (绞, 比).
Every term of a 列 (group), of a meld on the table and of an action comes from here, so that
``daer play``, ``daer replay`` and ``daer score`` speak alike.

>>> term("peng", "en"), term("peng", "zh"), term("run", "en")
('pong', '碰', 'run')
"""

from __future__ import annotations

from daer.rules.model import Ruleset

TERMS: dict[str, tuple[str, str]] = {
    # 列 shapes (GroupKind values) and meld kinds (MeldKind values, engine claim names)
    "run": ("顺", "run"),
    "jiao": ("绞", "mixed trio"),
    "pair": ("对", "pair"),
    "kan": ("坎", "dealt pong"),
    "peng": ("碰", "pong"),
    "zhao": ("招", "kong"),
    "long": ("垅", "dealt kong"),
    "chi": ("吃", "chow"),
    "wei": ("偎", "wei (drawn pong)"),
    "chou_wei": ("臭偎", "open wei (pong passed up before)"),
    "ti": ("提", "ti (kong from hand)"),
    "pao": ("跑", "pao (kong)"),
    "bi": ("比", "bi (must also lay down)"),
    # people and outcomes
    "dealer": ("庄", "dealer"),
    "dijia": ("底家", "dijia (sits out)"),
    "you": ("你", "you"),
    "huang": ("黄牌", "draw"),
    "hu": ("胡", "hu"),
    "deng": ("等", "deng"),
}

INSTANT_EN = {"3垅": "three dealt kongs (3垅)", "5坎": "five dealt pongs (5坎)"}
"""Names of the instant wins (砌牌即胡) in English."""

_BY_ZH = {zh: key for key, (zh, _) in TERMS.items()}


def term(key: str, lang: str, rules: Ruleset | None = None) -> str:
    """The word for ``key`` (a group or meld kind, or a term above); unknown keys come back unchanged.

    With ``rules``, a ruleset's own words: where ``play.pao`` / ``play.ti`` are on (跑胡子) a 招 is a 跑
    and a 垅 a 提.
    """
    if rules is not None:
        if key == "zhao" and rules.play.pao:
            key = "pao"
        elif key == "long" and rules.play.ti:
            key = "ti"
    pair = TERMS.get(key)
    if pair is None:
        return key
    return pair[1] if lang == "en" else pair[0]


def term_of_zh(zh: str, lang: str) -> str:
    """The word for a Chinese term (``顺`` → ``run`` in English), unknown ones unchanged."""
    key = _BY_ZH.get(zh)
    return zh if key is None else term(key, lang)


LEGEND_EN = (
    "Cards: x1…x10 are the small numbers (x = small, 一…十),\n"
    "  d1…d10 the big ones (d = big, 壹…拾); red cards: x2 x7 x10 d2 d7 d10.\n"
    "Groups: run = three in a row of one size, or 2-7-10;\n"
    "  mixed trio = a pair plus the same number of the other size (x9 x9 d9);\n"
    "  pong = three alike, the third claimed (碰); dealt pong = three dealt (坎);\n"
    "  kong = four alike, the fourth claimed (招); dealt kong = four dealt (垅);\n"
    "  chow = taking a card into a run or a mixed trio (吃).\n"
    "hu = points of your groups ({min_hu} to win here); deng = the bracket of hu\n"
    "  that sets the payment; the dijia (底家) sits the hand out and is paid."
)
"""Shown once at the start of an English game (see :func:`legend_en`): what x/d and the group words mean."""


def legend_en(min_hu: int) -> str:
    """The English legend for a ruleset whose win needs ``min_hu`` 胡."""
    return LEGEND_EN.format(min_hu=min_hu)

BI_EN = (
    "bi (比): after a chow, every other copy of the eaten card in your hand\n"
    "  must be laid down in a group at the same time;\n"
    "  '+ bi (must also lay down) …' in a choice lists those groups."
)
"""Shown the first time an English choice carries a 比."""

BI_ZH = "比牌：吃牌后，手里同样的牌必须一起比下去\n  （选项里“比”后面列出的，就是要一起放下的列）。"
"""Shown the first time a Chinese choice carries a 比."""
