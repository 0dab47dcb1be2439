"""The HTTP and WebSocket surface (网页与接口): the ASGI app, the calculator's API, the installable page,
request ids, replays, and uvicorn's WebSocket protocol.

It parses and forwards: message shape, size and rate are checked here, the rules by the engine through a
room of :mod:`daer.server.table`.  May import :mod:`daer.server.table`, :mod:`daer.server.safety`,
:mod:`daer.server.ops`, :mod:`daer.server.protocol` and everything below the server (engine, store, …);
nothing in the server imports it.
"""
