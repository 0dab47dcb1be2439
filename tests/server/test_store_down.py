"""While the database is out of reach (PostgreSQL restarting, a failover, the pool exhausted) a request that needs
it answers 503 with Retry-After, Chinese first, and changes nothing — never a 500; the same request, with its id,
succeeds once the database is back (a chaos soak saw room creation answer 500 during a restart)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.testclient import TestClient

from daer.server.http.app import create_app
from daer.server.serving.manager import RoomManager
from daer.store.outage import log_failure

HEADERS = {"origin": "http://testserver"}


@pytest.mark.parametrize("exc", [OperationalError("SELECT 1", {}, Exception("the database system is starting up")),
                                 InterfaceError("SELECT 1", {}, Exception("connection already closed")),
                                 PoolTimeout("QueuePool limit reached")])
def test_creating_a_room_while_the_database_is_down_answers_503_and_the_repeat_succeeds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exc: Exception) -> None:
    real = RoomManager.create
    down = {"on": True}

    def create(self: RoomManager, *args: Any, **kwargs: Any) -> Any:
        if down["on"]:
            raise exc
        return real(self, *args, **kwargs)

    monkeypatch.setattr(RoomManager, "create", create)
    with TestClient(create_app(f"sqlite:///{tmp_path / 'd.db'}", bot_delay=0.0), raise_server_exceptions=False) as c:
        body = {"config": {"timer": 0}, "name": "阿明", "rid": "r-1"}
        res = c.post("/api/rooms", json=body, headers=HEADERS)
        assert res.status_code == 503, res.text
        assert res.json()["error"] == "store" and res.headers["retry-after"] == "2"
        assert res.json()["zh"].startswith("服务器暂时无法读写数据") and res.json()["en"]
        assert c.app.state.manager.live_count() == 0  # type: ignore[attr-defined]
        down["on"] = False
        again = c.post("/api/rooms", json=body, headers=HEADERS)
        assert again.status_code == 200, again.text
        assert c.get(f"/api/rooms/{again.json()['code']}").status_code == 200


def test_an_outage_is_logged_in_one_line_and_any_other_failure_with_its_traceback(
        caplog: pytest.LogCaptureFixture) -> None:
    log = logging.getLogger("daer.test.outage")
    down = OperationalError("SELECT 1", {}, Exception("the database system is starting up\nDETAIL: more"))
    for exc in (down, RuntimeError("a bug")):
        try:
            try:
                raise exc
            except OperationalError as inner:  # an outage wrapped by the code that met it still counts as one
                raise RuntimeError("store failed") from inner
        except RuntimeError:
            log_failure(log, "room %s: reload failed", "ABC123")
    outage, bug = caplog.records[-2:]
    assert outage.levelno == logging.WARNING and outage.exc_info is None
    assert "ABC123" in outage.getMessage() and "database out of reach" in outage.getMessage()
    assert "DETAIL" not in outage.getMessage()  # the first line only
    assert bug.levelno == logging.ERROR and bug.exc_info is not None
