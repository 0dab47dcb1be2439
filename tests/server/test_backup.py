"""Backups that restore (issue 26, item 3): ``daer backup`` taken while tables play, ``daer restore`` into a fresh
database, a server started on it — the rooms resume at the backup's state and play on, and every finished hand's
record verifies (``daer verify``).  On SQLite (its online backup API) and on PostgreSQL (pg_dump / pg_restore)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from databases import DATABASES, new_database
from serving import Client, Server, get, room
from test_settlement_payload import play_hand
from websockets.exceptions import ConnectionClosed

from daer.store.backup import BackupError, backup, restore


def daer(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "daer", *args], capture_output=True, text=True, timeout=120,
                          check=False)


def connect(server: Server, code: str, token: str) -> Client:
    """A seat's socket, retried while the room's lease passes to this server (PostgreSQL: a worker of a cluster
    takes a room it did not make, or one a stopped worker held, after its lease ends)."""
    deadline = time.monotonic() + 30
    while True:
        try:
            c = Client(server, code, token)
            c.state(lambda m: m["view"] is not None or m["room"]["status"] == "waiting")
            return c
        except (ConnectionClosed, AssertionError, TimeoutError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


def my_turn(c: Client) -> dict[str, Any]:
    """Play seat 0's choices until it is seat 0's turn again with the bots waiting on it: the update then.  A
    bot may win the hand before that (the deals are live), and seat 0's turn would never come: the next hand is
    dealt and seat 0 waited for there (a full run at load 5 once timed out waiting here)."""
    m = c.state(lambda m: m["view"] is not None and m["view"]["legal"])
    c.act(m["view"]["legal"][-1])
    while True:
        m = c.state(lambda m: (m["view"] is not None and bool(m["view"]["legal"]) and not m["view"]["result"])
                    or m["room"]["status"] == "between")
        if m["room"]["status"] != "between":
            return m
        assert c.cmd("next")["t"] == "ack"
        # the next hand dealt (a hand the bots win before seat 0's turn may come in one update, still between)
        c.until(lambda u, n=m["room"]["hand_no"]: u["t"] == "update" and (u["room"]["hand_no"] > n
                                                                          or u["room"]["status"] != "between"))


@pytest.mark.parametrize("kind", DATABASES)
def test_a_backup_taken_while_tables_play_restores_and_the_rooms_play_on(request: pytest.FixtureRequest,
                                                                         tmp_path: Path, kind: str) -> None:
    url = new_database(request, kind, tmp_path)
    first = Server(tmp_path / "first.db", url=url).start()
    try:
        rooms = [room(first, hands=3) for _ in range(2)]
        clients = [connect(first, r["code"], r["token"]) for r in rooms]
        for c in clients:
            c.cmd("start")
        play_hand(clients[0])  # one hand finished: a record to verify after the restore
        clients[0].cmd("next")
        held = [my_turn(c) for c in clients]  # mid-hand, every bot waiting on seat 0: the state is still
        out = tmp_path / "backup.bin"
        made = daer("backup", str(out), "--db", url)
        assert made.returncode == 0 and out.exists(), made.stdout + made.stderr
        for c in clients:  # the first server plays on after the backup
            c.act(c.upd["view"]["legal"][-1])
            c.close()
    finally:
        first.stop()

    fresh = new_database(request, kind, tmp_path / "restored") if kind != "sqlite" else \
        f"sqlite:///{tmp_path / 'restored.db'}"
    (tmp_path / "restored").mkdir(exist_ok=True)
    done = daer("restore", str(out), "--db", fresh)
    assert done.returncode == 0, done.stdout + done.stderr
    second = Server(tmp_path / "second.db", url=fresh).start()
    try:
        for r, before in zip(rooms, held, strict=True):
            c = connect(second, r["code"], r["token"])
            now = c.state(lambda m: m["view"] is not None)
            assert now["v"] == before["v"]  # resumed at the backup's state, not the first server's last
            assert now["view"]["hand"] == before["view"]["hand"] and now["view"]["legal"] == before["view"]["legal"]
            end = play_hand(c)  # and it plays on
            assert end["view"]["result"] is not None
            c.close()
        status, info = get(f"{second.url}/api/rooms/{rooms[0]['code']}")
        finished = [h["number"] for h in info["hands"] if h["finished"]]
        assert len(finished) >= 2
        for number in finished:
            status, rec = get(f"{second.url}/api/rooms/{rooms[0]['code']}/hands/{number}/record")
            assert status == 200
            path = tmp_path / f"hand{number}.json"
            path.write_text(json.dumps(rec))
            checked = daer("verify", str(path))
            assert checked.returncode == 0, checked.stdout
    finally:
        second.stop()


def test_a_backup_never_overwrites_and_a_restore_writes_only_a_new_file(tmp_path: Path) -> None:
    src = tmp_path / "a.db"
    url = f"sqlite:///{src}"
    subprocess.run([sys.executable, "-c", f"from daer.store import Store; Store({url!r}).close()"], check=True)
    out = tmp_path / "b.bin"
    assert "integrity ok" in backup(url, out)
    with pytest.raises(BackupError):
        backup(url, out)  # exists
    with pytest.raises(BackupError):
        restore(out, url)  # the target exists
    with pytest.raises(BackupError):
        backup(f"sqlite:///{tmp_path / 'missing.db'}", tmp_path / "c.bin")
    bad = daer("restore", str(tmp_path / "nope.bin"), "--db", f"sqlite:///{tmp_path / 'd.db'}")
    assert bad.returncode == 1 and "没有这个备份" in bad.stdout and "Traceback" not in bad.stdout + bad.stderr
