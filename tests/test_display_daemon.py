"""The daemon shows committed state only: never ahead of the audit ledger, and again after a
restart. The daemon runs in-process on a real ledger; the shoe is a scripted transport (the
hardware edge) and a full disk is the ledger refusing writes while `full` is set."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from drivers.framing import FrameDecoder, encode
from drivers.messages import HOST_TO_SHOE, Ack
from drivers.transport import Transport
from hil.script import parse_script
from shoe_daemon.audit.ledger import Ledger, LedgerError
from shoe_daemon.service import config
from shoe_daemon.service.loop import ServiceLoop


class FillingLedger(Ledger):
    """A real ledger on a disk that can be full: writes fail while `full`."""

    full = False

    def append_many(self, items):  # type: ignore[no-untyped-def]
        if self.full:
            raise LedgerError("No space left on device")
        return super().append_many(items)


class ScriptedShoe(Transport):
    """Sends the first unacknowledged frame on every read, as a shoe resending after its
    timeout would; `before(index, attempt)` runs first (to fill or free the disk)."""

    name = "scripted"

    def __init__(self, script: str,
                 before: Callable[[int, int], None] = lambda index, attempt: None,
                 batch: bool = False) -> None:
        self.frames = [encode(seq, m) for seq, m in enumerate(parse_script(script))]
        self.before = before
        self.attempts = [0] * len(self.frames)
        self.acked = -1
        self.decoder = FrameDecoder(HOST_TO_SHOE)
        self.done: Callable[[], None] = lambda: None
        self._open = False
        self.batch = batch  # everything unacknowledged in one read, as after a reconnect

    @property
    def is_open(self) -> bool:
        return self._open

    def open(self) -> None:
        self._open = True

    def read(self, timeout: float) -> bytes:
        index = self.acked + 1
        if index >= len(self.frames):
            self.done()
            return b""
        self.attempts[index] += 1
        self.before(index, self.attempts[index])
        return b"".join(self.frames[index:]) if self.batch else self.frames[index]

    def write(self, data: bytes) -> None:
        for frame in self.decoder.feed(data):
            if isinstance(frame.message, Ack):
                self.acked = frame.message.seq

    def close(self) -> None:
        self._open = False


def settings(tmp_path: Path) -> config.Config:
    return config.Config(**{s.name: s.default for s in config.SETTINGS} | {
        "profile": "baden", "state_dir": tmp_path / "state",
        "results": str(tmp_path / "results.jsonl"), "http": "off"})


def test_the_display_never_runs_ahead_of_the_ledger(tmp_path):
    shown: list[dict[str, Any]] = []
    ledger = FillingLedger(tmp_path / "state")

    def sink(state: bytes) -> None:
        view = json.loads(state)
        committed = [r.body["line"] for r in ledger.records(kinds=("result",))
                     if r.body["line"]["event"] == "coup.result"]
        # Whatever a screen gets is already in the ledger: its results and its coup.
        assert len(view["history"]["bead_plate"]) <= len(committed)
        if view["coup"] and view["coup"]["outcome"]:
            assert committed and committed[-1]["coup"] == view["coup"]["number"]
        shown.append(view)

    def disk(index: int, attempt: int) -> None:
        if index == 6:  # 3S, the deciding card: the disk is full for its first two tries
            ledger.full = attempt <= 2

    shoe = ScriptedShoe("HELLO:0badcafe SHOE DEAL 9C 2D KH 3S DEAL 4C", disk)
    d = ServiceLoop(settings(tmp_path), shoe, ledger=ledger, display=sink)
    shoe.done = d.stop
    assert d.run() == 0
    assert shoe.attempts[6] == 3  # refused twice, then committed
    decided = [v for v in shown if v["state"] == "decided"]
    assert len(decided) == 1 and decided[0]["coup"]["punter"]["cards"] == ["9C", "KH"]
    assert shown[-1]["state"] == "dealing" and shown[-1]["coup"]["number"] == 2
    assert "9C" not in json.dumps(shown[-1])


def test_a_restarted_daemon_shows_the_state_the_ledger_holds(tmp_path):
    first: list[bytes] = []
    shoe = ScriptedShoe("HELLO:0badcafe SHOE DEAL 9C 2D KH 3S DEAL 4C 5D")
    d = ServiceLoop(settings(tmp_path), shoe, display=first.append)
    shoe.done = d.stop
    assert d.run() == 0
    d.table.ledger.close()
    again: list[bytes] = []
    d2 = ServiceLoop(settings(tmp_path), ScriptedShoe(""), display=again.append)
    d2.restore()
    view = json.loads(again[0])
    assert view == json.loads(first[-1])
    assert view["state"] == "dealing" and view["coup"]["punter"]["cards"] == [None]
    assert [b["winner"] for b in view["history"]["bead_plate"]] == ["P"]
    assert "4C" not in again[0].decode() and "5D" not in again[0].decode()


def test_a_failing_display_never_stops_the_table(tmp_path):
    def broken(_: bytes) -> None:
        raise RuntimeError("the screen's side broke")

    shoe = ScriptedShoe("HELLO:0badcafe SHOE DEAL 9C 2D KH 3S")
    d = ServiceLoop(settings(tmp_path), shoe, display=broken)
    shoe.done = d.stop
    assert d.run() == 0
    assert shoe.acked == 6  # every frame acknowledged
    lines = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert [x["outcome"] for x in lines] == ["punter"]


def test_frames_read_together_are_shown_as_one_view_with_every_result_in_the_roads(tmp_path):
    # After a reconnect the shoe resends its backlog at once: two whole coups and the deal of
    # a third in one read. The table builds one view for the batch (docs/display.md, "One
    # view a batch"): the screen goes from the empty shoe to coup 3 being dealt, and both
    # results are in the roads and counts; the cards of coups 1 and 2 are never on it.
    shown: list[dict[str, Any]] = []
    shoe = ScriptedShoe("HELLO:0badcafe SHOE DEAL 9C 2D KH 3S DEAL 4C 5D 2H 3S DEAL 8C",
                        batch=True)
    d = ServiceLoop(settings(tmp_path), shoe, display=lambda b: shown.append(json.loads(b)))
    shoe.done = d.stop
    assert d.run() == 0
    assert [v["state"] for v in shown] == ["no_shoe", "dealing"]
    last = shown[-1]
    assert last["coup"]["number"] == 3 and last["coup"]["punter"]["cards"] == [None]
    assert [b["winner"] for b in last["history"]["bead_plate"]] == ["P", "B"]
    assert last["history"]["counts"]["punter"] == last["history"]["counts"]["banker"] == 1
    assert [(c["col"], c["winner"]) for c in last["history"]["big_road"]] == [(0, "P"), (1, "B")]
    assert "9C" not in json.dumps(shown) and "8C" not in json.dumps(shown)


def test_frames_read_one_at_a_time_are_shown_change_by_change(tmp_path):
    # At a croupier's pace each read brings one frame: every change is its own view.
    shown: list[dict[str, Any]] = []
    shoe = ScriptedShoe("HELLO:0badcafe SHOE DEAL 9C 2D KH 3S DEAL 4C")
    d = ServiceLoop(settings(tmp_path), shoe, display=lambda b: shown.append(json.loads(b)))
    shoe.done = d.stop
    assert d.run() == 0
    assert [len(v["coup"]["punter"]["cards"]) for v in shown if v["coup"] and
            v["coup"]["number"] == 1 and v["state"] == "dealing"] == [0, 1, 1, 2]
    decided = [v for v in shown if v["state"] == "decided"]
    assert len(decided) == 1 and decided[0]["coup"]["punter"]["cards"] == ["9C", "KH"]
