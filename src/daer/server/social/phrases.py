"""Quick phrases (快捷语) and emotes: a fixed list, sent by tapping — no free text at a table (nothing to
moderate).  Each phrase has a voice file made in the project (``scripts/make_voice.sh``: espeak-ng's Mandarin
voice), ``src/daer/web/voice/say-<id>.wav``.  The page reads the list from ``GET /api/options`` (``phrases``).
"""

from __future__ import annotations

PHRASES: tuple[tuple[str, str, str], ...] = (
    ("p0", "快点吧，我等的花都谢了", "Hurry up, my flowers wilted while I waited"),
    ("p1", "又断线了，郁闷", "Disconnected again, how annoying"),
    ("p2", "不好意思，刚才有点事", "Sorry, I was away for a moment"),
    ("p3", "打得好！", "Well played!"),
    ("p4", "这把牌太臭了", "What a rotten hand"),
    ("p5", "再来一局！", "One more hand!"),
    # 四川话 (Sichuanese)
    ("s0", "莫慌，稳起！", "Easy now, steady!"),
    ("s1", "巴适得板！", "Just perfect!"),
    ("s2", "你咋个恁个慢哦", "Why are you so slow?"),
    ("s3", "安逸！", "Lovely!"),
    ("s4", "要得！", "Sounds good!"),
    ("s5", "雄起！", "Come on, rise up!"),
)
"""(id, 中文, English); the ``s`` ones are the Sichuan-flavoured set."""

EMOTES: tuple[tuple[str, str, str, str], ...] = (
    ("e0", "👍", "赞", "thumbs up"),
    ("e1", "😂", "笑", "laugh"),
    ("e2", "😭", "哭", "cry"),
    ("e3", "😡", "气", "angry"),
    ("e4", "🌹", "送花", "a flower"),
    ("e5", "🍵", "喝茶", "tea"),
)
"""(id, the emote, 中文, English)."""

SAYABLE = frozenset(x[0] for x in PHRASES) | frozenset(x[0] for x in EMOTES)
"""Every id a seat may send (``say``)."""

SAY_PER_MINUTE = 12.0
"""Phrases and emotes a seat may send a minute on average ..."""
SAY_BURST = 3.0
"""... and at once."""


def phrases_info() -> dict[str, list[dict[str, str]]]:
    """The lists as the page reads them (``GET /api/options``)."""
    return {"phrases": [{"id": i, "zh": zh, "en": en} for i, zh, en in PHRASES],
            "emotes": [{"id": i, "glyph": g, "zh": zh, "en": en} for i, g, zh, en in EMOTES]}
