"""``POST /api/score``: the calculator over HTTP, with the contract of ``daer score --json``.

The body is one JSON object, or JSON Lines; the answer has one JSON line per
request, in order, and a request that cannot be understood gets an ``error``
line of its own (see :mod:`daer.calculator.batch`).  Bounded: the body at
:data:`MAX_SCORE_BODY` bytes and :data:`MAX_SCORE_LINES` lines (413 beyond,
Chinese first), the rate per address by the ``score`` bucket of
:mod:`daer.server.safety.limits` (a batch costs one token a hundred lines), and the
scoring runs in a worker thread, at most :data:`WORKERS` batches at a time, so
a slow batch (名堂 play looks at every arrangement) never holds up the tables.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from importlib import resources

import msgspec
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from daer.calculator.batch import score_lines
from daer.rules import Ruleset, find_rules, preset_names
from daer.rules.house import house_offers
from daer.server.safety.limits import Limits

MAX_SCORE_BODY = 256 * 1024
"""Bytes of one request body."""
MAX_SCORE_LINES = 1000
"""Requests (lines) in one body."""
LINES_PER_TOKEN = 100
"""A batch costs 1 + lines // 100 tokens of the address's ``score`` bucket."""
WORKERS = 2
"""Batches scored at once (each in a worker thread); more wait their turn."""


def json_error(status: int, code: str, zh: str, en: str) -> JSONResponse:
    """An error answer of the HTTP API: its code, Chinese first, then English."""
    return JSONResponse({"error": code, "zh": zh, "en": en}, status_code=status)


def _too_big() -> JSONResponse:
    return json_error(413, "too_big", f"请求太大（上限 {MAX_SCORE_BODY // 1024} KiB）",
                      f"request body too large (limit {MAX_SCORE_BODY // 1024} KiB)")


async def read_body(request: Request, limit: int) -> bytes | None:
    """The body, or None when it is larger than ``limit`` bytes (read no further than that)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def score_endpoint(limits: Limits) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of ``POST /api/score`` under ``limits``."""
    gate = asyncio.Semaphore(WORKERS)

    async def score(request: Request) -> Response:
        body = await read_body(request, MAX_SCORE_BODY)
        if body is None:
            refused = limits.check("score", request)
            return refused if refused is not None else _too_big()
        lines = len(body.rstrip().splitlines())
        refused = limits.check("score", request, 1 + lines // LINES_PER_TOKEN)
        if refused is not None:
            return refused
        if not body.strip():
            return json_error(400, "empty", "请求为空：请发送一个 JSON 对象或每行一个（JSON Lines）",
                              "empty body: send one JSON object, or JSON Lines")
        if lines > MAX_SCORE_LINES:
            return json_error(413, "too_many_lines", f"一次最多 {MAX_SCORE_LINES} 行（收到 {lines} 行），请分批发送",
                              f"at most {MAX_SCORE_LINES} lines a request (got {lines}); send several requests")
        async with gate:
            out, errors = await run_in_threadpool(score_lines, body)
        media = "application/json" if len(out) == 1 else "application/x-ndjson"
        return Response(b"\n".join(out) + b"\n", media_type=media, headers={"X-Score-Errors": str(len(errors))})

    return score


def meld_offers(rules: Ruleset) -> list[dict[str, object]]:
    """The table melds a ruleset has, as the calculator page offers them: request kind, size, names.

    跑胡子's 跑 and 提 are sent as 招 and 垅 (they score as those), 偎 as ``wei``.
    """
    play = rules.play
    out: list[dict[str, object]] = [{"kind": "peng", "size": 3, "zh": "碰", "en": "peng"}]
    if play.chi:
        out.append({"kind": "chi", "size": 3, "zh": "吃", "en": "chi"})
    if play.wei:
        out.append({"kind": "wei", "size": 3, "zh": "偎", "en": "wei"})
    out.append({"kind": "zhao", "size": 4, "zh": "跑", "en": "pao"} if play.pao
               else {"kind": "zhao", "size": 4, "zh": "招", "en": "zhao"})
    out.append({"kind": "long", "size": 4, "zh": "提", "en": "ti"} if play.ti
               else {"kind": "long", "size": 4, "zh": "垅", "en": "long"})
    return out


def calc_options() -> bytes:
    """What the calculator page needs to know of each preset: titles, table melds, house rules."""
    presets = []
    for name in preset_names():
        rules = find_rules(name)
        presets.append({"name": name, "zh": rules.title_zh, "en": rules.title_en, "seats": rules.table.seats,
                        "melds": meld_offers(rules), "house": house_offers(name)})
    return msgspec.json.encode({"presets": presets})


def calc_routes(limits: Limits) -> list[Route]:
    """The calculator: its page, the page's offline worker, its options and ``POST /api/score``."""
    web = resources.files("daer") / "web"
    options = calc_options()

    async def page(_request: Request) -> Response:
        return FileResponse(str(web / "calc.html"))

    async def worker(_request: Request) -> Response:
        # served from the root so that it may control /calc; never cached by HTTP (it updates the page)
        return FileResponse(str(web / "calc-sw.js"), media_type="text/javascript",
                            headers={"Cache-Control": "no-cache"})

    async def opts(_request: Request) -> Response:
        return Response(options, media_type="application/json")

    return [
        Route("/calc", page), Route("/calc-sw.js", worker), Route("/api/score/options", opts),
        Route("/api/score", score_endpoint(limits), methods=["POST"]),
    ]
