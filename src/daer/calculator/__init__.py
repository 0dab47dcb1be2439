"""The score calculator behind ``daer score``, ``/calc`` and ``POST /api/score``: one request in, one explained
result out.

A request is what a player at a real table knows: the ruleset, the concealed
cards, the 列 on the table and the winning card.  The result names every 列
with its 胡, every multiplier, and every payment.

- :mod:`daer.calculator.core`: the general calculator (:func:`parse_request`, :func:`score_request`);
- :mod:`daer.calculator.batch`: JSON in, JSON out, many requests at a time, with a fast lane for the common
  request (the same bytes as the general path);
- :mod:`daer.calculator.fields`: a settlement's JSON fields, shared by both.

The general calculator (and the 名堂 it scores) loads when it is first needed, so that a program piping common
requests into ``daer score --json`` does not wait for it.

>>> from daer.calculator import score
>>> r = score({"hand": "一二三四五六七八九壹贰叁肆伍陆柒捌玖二七", "win": {"card": "十", "from": "other"}})
>>> r["complete"], r["ok"], r["hu"], r["deng"], r["points"]["seats"]
(True, True, 15, 2, [5, -3, 1, -3])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from daer.calculator.batch import score_fast
from daer.calculator.fields import settlement_fields

if TYPE_CHECKING:
    from daer.calculator.core import Request, RequestError, parse_request, score_request

__all__ = ["Request", "RequestError", "parse_request", "score", "score_request", "settlement_fields"]

_decode_result = msgspec.json.Decoder(dict[str, Any]).decode
_CORE_NAMES = frozenset({"Request", "RequestError", "parse_request", "score_request"})


def __getattr__(name: str) -> Any:
    if name in _CORE_NAMES:  # the general calculator, loaded when first asked for
        from daer.calculator import core  # noqa: PLC0415

        return getattr(core, name)
    raise AttributeError(f"module 'daer.calculator' has no attribute {name!r}")


def score(data: Any) -> dict[str, Any]:
    """Check and score one request; a bad request gives ``{"ok": false, "error": …}`` instead of raising.

    The common request takes the batch path's fast lane (:func:`daer.calculator.batch.score_fast`, the same
    answer, several times faster); every other goes through :func:`parse_request` and :func:`score_request`.
    """
    fast = score_fast(data)
    if fast is not None:
        return _decode_result(fast)
    from daer.calculator.core import RequestError, parse_request, score_request  # noqa: PLC0415 — see above

    try:
        req = parse_request(data)
    except RequestError as exc:
        return {"complete": False, "ok": False, "error": str(exc)}
    return score_request(req)
