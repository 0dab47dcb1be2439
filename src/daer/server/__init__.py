"""The online table: an ASGI app (Starlette), the WebSocket protocol and the rooms."""

from daer.server.app import create_app

__all__ = ["create_app"]
