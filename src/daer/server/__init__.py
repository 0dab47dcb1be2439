"""The online table: an ASGI app (Starlette), the WebSocket protocol and the rooms.

The server is laid out by concept, each sub-package saying what it owns and what it may import; the layers
depend only downward (``tests/test_layers.py`` keeps them so):

- :mod:`daer.server.http` — the HTTP and WebSocket surface (the app, the calculator's API, the page);
- :mod:`daer.server.serving` — the rooms one process serves: creating, finding, restoring, handing over, expiry;
- :mod:`daer.server.table` — a room, its match, clock, seats and audiences;
- :mod:`daer.server.social` — what friends do at a table besides playing: the dissolve vote, quick phrases, the
  same-network warning, spectators one turn behind;
- :mod:`daer.server.safety` — bounds, limits and guards;
- :mod:`daer.server.ops` — metrics, logs and the collector;
- :mod:`daer.server.players` — who a person is: the player cookie, 我的, second devices, passkeys (beside the
  table: neither imports the other);
- :mod:`daer.server.protocol` — the WebSocket messages, shared by all of them.

Clubs and tournaments get sub-packages of their own beside :mod:`daer.server.table`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from daer.server.http.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    # the server stack loads only when it is used (the CLI reads daer.server.safety.limits for its options)
    if name == "create_app":
        from daer.server.http.app import create_app  # noqa: PLC0415

        return create_app
    raise AttributeError(name)
