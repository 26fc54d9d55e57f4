"""The shoe link and the table together, in-process, fast: the test plays the shoe on a
loopback line, the table keeps a real audit ledger (SQLite in tmp_path). A full disk is a
ledger with room for so many records and no more.

These pin the data path's order: a frame is acknowledged only once committed with what it
decided; a HELLO is acknowledged at once (protocol 1.1), before the frames after it; what
the ledger refused is played again from the ledger when the shoe resends it."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from drivers import loopback
from drivers.framing import FrameDecoder, encode
from drivers.link import ShoeLink
from drivers.messages import HOST_TO_SHOE, Ack, Lamp, Message
from hil.script import parse_script
from shoe_daemon.audit.ledger import Ledger, LedgerError
from shoe_daemon.game.houses import get_profile
from shoe_daemon.service import config
from shoe_daemon.service.loop import ServiceLoop, transport_for
from shoe_daemon.service.table import HoldInForce, Table


class SmallDisk(Ledger):
    """A real ledger on a disk with room for `room` more records (None: plenty)."""

    room: int | None = None

    def append_many(self, items):  # type: ignore[no-untyped-def]
        items = list(items)
        if self.room is not None:
            if len(items) > self.room:
                raise LedgerError("database or disk is full")
            self.room -= len(items)
        return super().append_many(items)


def frames(script: str, first: int = 0) -> bytes:
    return b"".join(encode(first + i, m) for i, m in enumerate(parse_script(script)))


class Host:
    """The table and its link on a loopback line, turned by hand."""

    def __init__(self, tmp: Path, profile: str = "baden") -> None:
        self.ledger = SmallDisk(tmp / "state")
        self.results_path = tmp / "results.jsonl"
        self.results = self.results_path.open("a+", encoding="utf-8")
        self.table = Table(get_profile(profile), self.ledger, self.results)
        self.transport, self.line = loopback.pair()
        self.link = ShoeLink(self.table, self.transport)
        self.link.resume(self.table.restore())
        self.transport.open()
        self.decoder = FrameDecoder(HOST_TO_SHOE)

    def turn(self, data: bytes = b"") -> list[Message]:
        """The shoe sends `data` in one piece; what the host answered to it."""
        if data:
            self.line.send(data)
        self.link.serve(0)
        return [f.message for f in self.decoder.feed(self.line.receive())]

    def kept(self, kind: str) -> list[dict[str, Any]]:
        return [r.body for r in self.ledger.records(kinds=(kind,))]

    def published(self) -> list[dict[str, Any]]:
        return [json.loads(x) for x in self.results_path.read_text().splitlines()]

    def close(self) -> None:
        self.results.close()
        self.ledger.close()


@pytest.fixture
def host(tmp_path: Path):
    h = Host(tmp_path)
    yield h
    h.close()


def acks(answer: list[Message]) -> list[int]:
    return [m.seq for m in answer if isinstance(m, Ack)]


def lamps(answer: list[Message]) -> list[str]:
    return [m.colour for m in answer if isinstance(m, Lamp)]


def test_a_coup_is_kept_then_acknowledged_then_published(host):
    answer = host.turn(frames("HELLO:0badcafe SHOE DEAL 9C 2D KH 3S"))
    assert answer[0] == Lamp("GREEN")  # the lamp before anything is read
    assert acks(answer) == [0, 1, 2, 3, 4, 5, 6]
    assert [f["type"] for f in host.kept("frame")] == ["HELLO", "BTN", "BTN"] + ["CARD"] * 4
    (line,) = [r["line"] for r in host.kept("result")]
    assert line["outcome"] == "punter" and host.published() == [line]
    assert host.turn() == []  # nothing more to say


def test_a_hello_is_acknowledged_at_once_even_if_what_follows_cannot_be_kept(host):
    host.ledger.room = 1  # the HELLO's record, nothing after it
    answer = host.turn(frames("HELLO:0badcafe SHOE DEAL"))  # a 1.0 shoe: no waiting
    assert acks(answer) == [0] and lamps(answer)[-1] == "RED"
    assert [f["type"] for f in host.kept("frame")] == ["HELLO"]
    host.ledger.room = None  # space again: the shoe resends what was not acknowledged
    answer = host.turn(frames("SHOE DEAL", first=1))
    assert acks(answer) == [1, 2] and lamps(answer) == ["GREEN"]
    assert [f["seq"] for f in host.kept("frame")] == [0, 1, 2]


def test_a_1_1_shoe_handshake_and_a_reboot(host):
    assert acks(host.turn(frames("HELLO:0badcafe"))) == [0]  # the shoe waits for this
    assert acks(host.turn(frames("SHOE DEAL 9C", first=1))) == [1, 2, 3]
    # Rebooted mid-coup: numbering from 0 under a new boot id, and the handshake again.
    assert acks(host.turn(frames("HELLO:1234abcd"))) == [0]
    assert acks(host.turn(frames("2D KH 3S", first=1))) == [1, 2, 3]
    events = [b["event"] for b in host.kept("transport")]
    assert events == ["shoe.reboot"]
    assert [r["line"]["punter"]["cards"] for r in host.kept("result")] == [["9C", "KH"]]


def test_what_the_ledger_refused_is_played_again_from_it(host):
    assert acks(host.turn(frames("HELLO:0badcafe SHOE DEAL 9C 2D KH"))) == [0, 1, 2, 3, 4, 5]
    host.ledger.room = 0
    answer = host.turn(frames("3S", first=6))  # the deciding card
    assert acks(answer) == [] and lamps(answer) == ["RED"] and host.table.lamp == "RED"
    assert host.table.ledger_down and "full" in host.table.ledger_error
    assert host.published() == []  # decided, but not kept: not published either
    assert host.turn(frames("3S", first=6)) == []  # still full: nothing acknowledged
    host.ledger.room = None
    answer = host.turn(frames("3S", first=6))
    assert acks(answer) == [6] and lamps(answer) == ["GREEN"] and not host.table.ledger_down
    assert [x["outcome"] for x in host.published()] == ["punter"]  # once
    assert host.published() == [r["line"] for r in host.kept("result")]


def test_a_restarted_table_resumes_after_the_ledger_and_reacknowledges_a_resent_copy(tmp_path):
    first = Host(tmp_path)
    assert acks(first.turn(frames("HELLO:0badcafe SHOE DEAL 9C"))) == [0, 1, 2, 3]
    first.close()
    again = Host(tmp_path)  # killed before its ACK 3 reached the shoe, say
    try:
        assert again.table.boot_id == "0badcafe"
        assert acks(again.turn(frames("9C", first=3))) == [3]  # a copy: acknowledged again
        assert acks(again.turn(frames("2D KH 3S", first=4))) == [4, 5, 6]
        assert [x["punter"]["cards"] for x in again.published()] == [["9C", "KH"]]
    finally:
        again.close()


def test_the_hold_in_force_follows_the_lines_and_survives_a_restart(tmp_path):
    first = Host(tmp_path)
    assert lamps(first.turn(frames("HELLO:0badcafe SHOE DEAL ??")))[-1] == "RED"
    hold = first.table.hold
    assert isinstance(hold, HoldInForce) and hold.code == "UNREADABLE_CARD" and hold.rule
    first.close()
    again = Host(tmp_path)
    try:
        assert again.table.hold == hold
        # A new link tells the shoe its lamp first: still red, then green once lifted.
        assert lamps(again.turn(frames("ENTER:9C", first=4))) == ["RED", "GREEN"]
        assert again.table.hold is None
    finally:
        again.close()


def test_a_table_without_state_waits_to_sync_and_follows_from_the_next_shoe(host):
    # The ledger is new and the shoe is mid-stream (the ledger was lost while the daemon was
    # stopped): its resend rounds show where its window starts. Until then nothing is kept,
    # nothing acknowledged, and the lamp is red; the shoe in play is not published.
    rounds = frames("DEAL 9C 5D KH 3S", first=700)
    answer = host.turn(frames("5D KH 3S", first=702))
    assert acks(answer) == [] and lamps(answer) == ["GREEN", "RED"]
    answer = host.turn(rounds + rounds)
    assert acks(answer) == [] and host.kept("frame") == []
    answer = host.turn(rounds)  # the third round from 700: synced there
    assert acks(answer) == [700, 701, 702, 703, 704]
    transport = host.kept("transport")
    assert transport == [{"event": "synced", "detail": "seq 700"}]
    assert [f["seq"] for f in host.kept("frame")] == [700, 701, 702, 703, 704]
    (unseen,) = host.kept("shoe.unseen")
    assert unseen["seq"] == 700 and "joined a shoe in play" in unseen["detail"]
    assert host.published() == [] and host.table.lamp == "RED"
    # The next shoe is the first the table follows, and it is published whole.
    answer = host.turn(frames("SHOE DEAL 9D 5H KD 3C", first=705))
    assert acks(answer) == list(range(705, 711)) and lamps(answer) == ["GREEN"]
    assert [(r["shoe"], r["coup"], r["punter"]["cards"]) for r in host.published()] == [
        (1, 1, ["9D", "KD"])]
    assert len(host.kept("shoe.unseen")) == 1


def test_a_ledger_lost_while_stopped_leaves_the_results_file_numbered_on(tmp_path):
    # The results file outlived its ledger: the new ledger begins by carrying on what the file
    # says was published, so the next shoe is not shoe 1 again, and a results line lost in a
    # crash is still put back line for line.
    first = Host(tmp_path)
    first.turn(frames("HELLO:0badcafe SHOE DEAL 9C 5D KH 3S"))
    first.close()
    for path in (tmp_path / "state").glob("ledger.sqlite3*"):
        path.unlink()
    again = Host(tmp_path)
    try:
        (lost,) = again.kept("ledger.lost")
        assert lost["carry"] == {"shoes": 1, "results": 1, "boot_id": None}
        assert lost["last_published"] == {"shoe": 1, "coup": 1}
        again.turn(frames("HELLO:1badcafe SHOE DEAL 9D 5H KD 3C"))
        assert [(x["shoe"], x["coup"]) for x in again.published()] == [(1, 1), (2, 1)]
    finally:
        again.close()
    text = again.results_path.read_text()
    again.results_path.write_text(text[: text.rstrip("\n").rfind("\n") + 1])  # a crash
    third = Host(tmp_path)
    try:
        assert third.published() == [json.loads(x) for x in text.splitlines()]
        assert len(third.kept("ledger.lost")) == 1
    finally:
        third.close()


def test_the_service_over_a_loopback_named_in_its_settings(tmp_path):
    """The whole service (registry, loop, link, table) with a 1.1 shoe played from here."""
    name = f"service-{tmp_path.name}"
    settings = config.Config(**{s.name: s.default for s in config.SETTINGS} | {
        "profile": "baden", "state_dir": tmp_path / "state", "transport": "loopback",
        "port": name, "results": str(tmp_path / "results.jsonl"), "http": "off"})
    service = ServiceLoop(settings, transport_for(settings))
    line = loopback.line(name)
    decoder = FrameDecoder(HOST_TO_SHOE)
    heard: list[Message] = []

    def until(done) -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + 10
        while not done():
            assert time.monotonic() < deadline, heard
            heard.extend(f.message for f in decoder.feed(line.receive(0.05)))

    rc: list[int] = []
    runner = threading.Thread(target=lambda: rc.append(service.run()))
    runner.start()
    try:
        until(lambda: Lamp("GREEN") in heard)
        line.send(frames("HELLO:0badcafe"))
        until(lambda: Ack(0) in heard)  # acknowledged with nothing else sent
        line.send(frames("SHOE DEAL ??", first=1))
        until(lambda: Ack(3) in heard and Lamp("RED") in heard)
        status = service.status()
        assert status.shoe_connected and status.transport == f"loopback:{name}"
        assert (status.state, status.shoe, status.coup) == ("on_hold", 1, 1)
        assert status.hold is not None and status.hold[0] == "UNREADABLE_CARD"
        assert status.ledger_ok and status.backlog == 0
        assert "HOLD: UNREADABLE_CARD" in service.reporter.line()
    finally:
        service.stop()
        runner.join(10)
    assert rc == [0]
    snapshot = json.loads((tmp_path / "state" / "status.json").read_text())
    assert snapshot["phase"] == "stopped" and snapshot["hold"] == "UNREADABLE_CARD"
