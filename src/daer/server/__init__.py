"""The online table: an ASGI app (Starlette), the WebSocket protocol and the rooms."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from daer.server.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    # the server stack loads only when it is used (the CLI reads daer.server.limits for its options)
    if name == "create_app":
        from daer.server.app import create_app  # noqa: PLC0415

        return create_app
    raise AttributeError(name)
