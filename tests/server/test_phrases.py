"""Quick phrases and emotes over the wire (issue 24 item 2): a listed id only (no free text), to every seat and
spectator of the room and nobody else, at most SAY_BURST at once and SAY_PER_MINUTE a minute a seat; spectators
cannot send; nothing is stored and no version changes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from serving import Client, Server, get, post, room

from daer.server.social.phrases import EMOTES, PHRASES, SAY_BURST


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("say") / "daer.db")
    yield srv.start()
    srv.stop()


def said(c: Client, what: str) -> dict[str, object]:
    """The ``said`` frame of ``what`` (read already while waiting for an answer, or the next one)."""
    for f in c.frames:
        if f["t"] == "said" and f["what"] == what:
            return f
    return c.until(lambda m: m["t"] == "said" and m["what"] == what, timeout=5)


def test_a_phrase_reaches_the_rooms_seats_and_spectators_only_and_is_rate_limited(server: Server) -> None:
    made = room(server)
    code = made["code"]
    _, joined = post(f"{server.url}/api/rooms/{code}/join", {"name": "B"})
    a, b = Client(server, code, made["token"]), Client(server, code, joined["token"])
    watcher = Client(server, code)
    other_room = room(server)
    stranger = Client(server, other_room["code"], other_room["token"])
    try:
        v = a.state(lambda m: True)["v"]
        reply = a.send({"t": "say", "id": "s1", "what": "s1"}) or a.reply("s1")
        assert reply["t"] == "ack" and reply["v"] == v  # no version: nothing changed at the table
        for c in (a, b, watcher):
            assert said(c, "s1") == {"t": "said", "seat": 0, "what": "s1"}
        emote = b.send({"t": "say", "id": "e", "what": EMOTES[0][0]}) or b.reply("e")
        assert emote["t"] == "ack" and said(a, EMOTES[0][0])["seat"] == 1
        # free text, an unknown id, a spectator: refused, nothing sent
        for bad in ("你好", "p99", "<b>x</b>"):
            err = a.send({"t": "say", "id": f"x{bad}", "what": bad}) or a.reply(f"x{bad}")
            assert err["t"] == "error" and err["code"] == "bad_phrase" and "快捷语" in err["zh"]
        err = watcher.send({"t": "say", "id": "w", "what": "p0"}) or watcher.reply("w")
        assert err["code"] == "not_seated" and err["zh"] == "观众不能发快捷语"
        # rate: SAY_BURST at once (one spent above), then refused with the seconds to wait
        answers = []
        for i in range(int(SAY_BURST) + 1):
            answers.append(a.send({"t": "say", "id": f"r{i}", "what": PHRASES[0][0]}) or a.reply(f"r{i}"))
        assert [x["t"] for x in answers[: int(SAY_BURST) - 1]] == ["ack"] * (int(SAY_BURST) - 1)
        assert answers[-1]["t"] == "error" and answers[-1]["code"] == "too_fast" and "秒后再试" in answers[-1]["zh"]
        b.send({"t": "say", "id": "b2", "what": "p3"})
        assert b.reply("b2")["t"] == "ack"  # another seat's bucket is its own
        # the stranger in another room heard none of it
        stranger.send({"t": "ping"})
        stranger.until(lambda m: m["t"] == "pong")
        assert not [f for f in stranger.frames if f["t"] == "said"]
    finally:
        for c in (a, b, watcher, stranger):
            c.close()


def test_the_page_reads_the_fixed_lists_from_the_options() -> None:
    ids = [p[0] for p in PHRASES]
    assert len(ids) == len(set(ids)) >= 10 and any(i.startswith("s") for i in ids)  # a Sichuan-flavoured set


def test_the_options_list_phrases_and_emotes(server: Server) -> None:
    status, opts = get(f"{server.url}/api/options")
    assert status == 200
    assert opts["phrases"][0] == {"id": "p0", "zh": "快点吧，我等的花都谢了", "en": PHRASES[0][2]}
    assert [e["id"] for e in opts["emotes"]] == [e[0] for e in EMOTES]
