"""The database out of reach: what SQLAlchemy raises then, and how the server logs it.

PostgreSQL restarting, a failover or an exhausted connection pool is not a bug of the request or of the code:
the HTTP layer answers it 503 (``store``) and the rooms log it as one line each — a full traceback per room made
94 of them in one restart — while any other failure keeps its traceback.
"""

from __future__ import annotations

import logging
import sys

from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

STORE_DOWN: tuple[type[Exception], ...] = (OperationalError, InterfaceError, PoolTimeout)
"""What SQLAlchemy raises when the database is out of reach."""


def is_outage(exc: BaseException | None) -> bool:
    """True when ``exc`` (or what it was raised from) says the database is out of reach."""
    while exc is not None:
        if isinstance(exc, STORE_DOWN):
            return True
        exc = exc.__cause__
    return False


def log_failure(log: logging.Logger, message: str, *args: object) -> None:
    """Log the exception being handled: one warning line for an outage, the traceback for anything else."""
    exc = sys.exc_info()[1]
    if is_outage(exc):
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        log.warning(f"{message} (database out of reach: %s: %s)", *args, type(exc).__name__, first[:200])
    else:
        log.exception(message, *args)
