"""Typed errors of the engine: an illegal action raises one of these and changes nothing."""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An action the rules do not allow now (违规动作).  The message is Chinese, then English."""

    def __init__(self, zh: str, en: str) -> None:
        super().__init__(f"{zh} ({en})")
        self.zh = zh
        self.en = en


class HandOverError(IllegalActionError):
    """The hand is over (牌局已结束); no action is accepted."""


class NotYourTurnError(IllegalActionError):
    """This seat may not act now (还没轮到你)."""


class AlreadyChoseError(IllegalActionError):
    """This seat has already chosen for the card on offer (已经选择过了)."""


class NotAllowedError(IllegalActionError):
    """The seat may act, but not this action (这个动作不合规则)."""
