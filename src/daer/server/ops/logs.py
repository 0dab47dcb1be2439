"""Structured logs (结构化日志): one JSON object per line, or plain text, from the standard library's logging.

``daer serve --log-format json`` writes every record as one line::

    {"ts": "2026-11-30T21:04:05.123Z", "level": "INFO", "logger": "daer.server", "event": "hand_ended",
     "msg": "hand ended", "room": "K7Q2...", "hand": 1, "winner": 2, "how": "zimo"}

A record's context is given with :func:`ctx` (``log.info("hand ended", extra=ctx("hand_ended", room=...))``).
Only the fields named in :data:`FIELDS` are written: room code, seat, latency and the like; anything else
given (a token, a hand of cards) is dropped and its *name* listed under ``"dropped"``, so a careless call
cannot put a secret in the logs. Messages and tracebacks are scrubbed of anything shaped like a seat token
(``secrets.token_urlsafe(18)``: 24 URL-safe characters).  No record ever carries a card: actions are
logged by their type (``discard``, ``chi``...), never by the cards they name, so neither a concealed hand
nor a private claim choice's cards reach a log.

Events (``event``): ``serving``, ``room_created``, ``seat_joined``, ``connected``, ``disconnected``,
``command`` (its name and outcome: INFO for leave and dissolve, DEBUG for the others, see
:data:`COMMAND_LEVELS`), ``hand_started``, ``hand_ended``, ``action`` (every applied action,
DEBUG), ``act`` (a person's act with its latency, DEBUG; WARNING ``slow_act`` past :data:`SLOW`), and
the errors (``error``, with the traceback in ``exc``).
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from typing import Any, Literal

LogFormat = Literal["json", "text"]
FIELDS = frozenset({
    "event", "room", "seat", "latency_ms", "v", "kind", "by", "result", "name", "hand", "dealer", "winner", "how",
    "hu", "points", "rooms", "pages", "status", "bot", "spectator", "reason", "rules",
})
"""The context a record may carry (:func:`ctx`); nothing else reaches a log line."""
COMMAND_LEVELS = {"leave": logging.INFO, "dissolve": logging.INFO}
"""The level of a ``command`` line by the command's name: a seat left or a room dissolved (its lifecycle) at
INFO, every other command (start, next, resume, entropy: one per seat and hand, the hands' own lines say
``hand_started`` / ``hand_ended``) at DEBUG, so INFO costs nothing per action and a client cannot fill the log."""
SLOW = 0.1
"""A person's act slower than this (seconds, message received to ack) is logged as a WARNING ``slow_act``."""
_TOKEN = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{24}(?![A-Za-z0-9_-])")
"""The shape of a seat token (``secrets.token_urlsafe(18)``); scrubbed from messages and tracebacks."""
_STD = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime"}


def ctx(event: str, **fields: Any) -> dict[str, Any]:
    """The ``extra`` of a log call: its event and its context fields (see :data:`FIELDS`)."""
    return {"daer": {"event": event, **fields}}


def scrub(text: str) -> str:
    """``text`` with anything shaped like a seat token replaced by ``[token]``."""
    return _TOKEN.sub("[token]", text)


def _context(record: logging.LogRecord) -> tuple[dict[str, Any], list[str]]:
    """The record's allowed context fields, and the names of those dropped."""
    given: dict[str, Any] = dict(getattr(record, "daer", None) or {})
    # fields passed straight as ``extra={...}`` (not through ctx) are checked the same way; a library's private
    # attributes (Ray's record factory adds ``_ray_timestamp_ns`` to every record) are neither context nor dropped
    given.update({k: v for k, v in record.__dict__.items() if k not in _STD and k != "daer" and k[:1] != "_"})
    kept = {k: v for k, v in given.items() if k in FIELDS and isinstance(v, str | int | float | bool | None)}
    return kept, sorted(set(given) - set(kept))


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``ts`` (UTC, ms), ``level``, ``logger``, ``worker`` (its name in a cluster, when
    given), ``event``, ``msg``, the context, ``exc``."""

    def __init__(self, worker: str | None = None) -> None:
        super().__init__()
        self.worker = {"worker": worker} if worker else {}

    def format(self, record: logging.LogRecord) -> str:
        fields, dropped = _context(record)
        out: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname, "logger": record.name, **self.worker,
            "event": fields.pop("event", None) or "log", "msg": scrub(record.getMessage()), **fields,
        }
        if dropped:
            out["dropped"] = dropped
        if record.exc_info:
            out["exc"] = scrub(self.formatException(record.exc_info))
        return json.dumps(out, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """``time level logger message key=value ...`` (scrubbed like the JSON form)."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        fields, dropped = _context(record)
        line = super().format(record)  # includes the traceback, if any
        if fields:
            line += " " + " ".join(f"{k}={v}" for k, v in fields.items())
        if dropped:
            line += f" dropped={','.join(dropped)}"
        return scrub(line)


def setup_logging(fmt: LogFormat = "text", level: str = "info", worker: str | None = None) -> None:
    """Send every logger's records (the app's and uvicorn's) to stderr in ``fmt``: daer's from ``level`` up,
    the libraries' from INFO up whatever ``level`` says (a library's DEBUG lines may quote whole frames);
    ``worker`` names this process on every JSON line (a cluster's logs, gathered, still say who wrote each)."""
    # no line carries the thread, the process or its name: the records need not look them up (a getpid and
    # more for every record)
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    # nor the file and line of the call: without a source file the records skip the walk up the stack that finds
    # it (the logging module's documented switch, "Optimization"); ~4 of ~19 µs a line
    logging._srcfile = None
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter(worker) if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(max(logging.INFO, logging.getLevelName(level.upper())))
    logging.getLogger("daer").setLevel(level.upper())
