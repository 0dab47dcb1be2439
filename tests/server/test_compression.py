"""``daer serve --ws-deflate``: WebSocket compression (permessage-deflate) is off unless asked for; either way
the client gets the same frames (issue 12 item 1: deflating every small update cost ~5% of the server's CPU)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from serving import TEST_LIMITS, Server, room
from websockets.sync.client import connect


def _first_update(server: Server) -> tuple[str | None, dict[str, object]]:
    """The extensions the server accepted for a client that offers permessage-deflate, and its first update."""
    r = room(server)
    with connect(f"{server.ws_url}/{r['code']}", max_size=2**22) as ws:  # offers permessage-deflate
        assert ws.response is not None
        agreed = ws.response.headers.get("Sec-WebSocket-Extensions")
        ws.send(json.dumps({"t": "hello", "room": r["code"], "token": r["token"]}))
        while True:
            m = json.loads(ws.recv(timeout=20))
            if m["t"] == "update":
                return agreed, m


@pytest.mark.parametrize(("flag", "deflated"), [((), False), (("--ws-deflate", "off"), False),
                                                (("--ws-deflate", "on"), True)])
def test_compression_is_offered_only_when_asked_for(tmp_path: Path, flag: tuple[str, ...], deflated: bool) -> None:
    server = Server(tmp_path / "t.db", args=(*TEST_LIMITS, *flag)).start()
    try:
        agreed, update = _first_update(server)
    finally:
        server.stop()
    assert (agreed is not None and "permessage-deflate" in agreed) == deflated
    assert update["room"]["status"] == "waiting" and update["room"]["seats"][0]["kind"] == "human"
