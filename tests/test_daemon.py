"""The real `shoe-daemon run` process over a real pseudo terminal, the test playing the shoe.

These pin the daemon's side of the protocol (cumulative ACKs, re-ACK on a duplicate, the
lamp from the coup state), publishing, clean stops and refusals; the simulated-shoe runs in
test_hil.py cover whole shoes and every fault.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
import tty
from pathlib import Path

import pytest

from drivers.framing import FrameDecoder, encode
from drivers.messages import HOST_TO_SHOE, Ack, Lamp
from drivers.transport import Transport, TransportLost
from hil.script import parse_script
from shoe_daemon.service import config
from shoe_daemon.service.loop import ServiceLoop

ROOT = Path(__file__).resolve().parent.parent


class Shoe:
    """The test's end of a pty, symlinked like /dev/shoe."""

    def __init__(self, link: Path):
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.slave = slave
        self.link = link
        link.symlink_to(os.ttyname(slave))
        self.decoder = FrameDecoder(HOST_TO_SHOE)
        self.seq = 0
        self.received: list = []

    def send(self, script: str) -> None:
        for message in parse_script(script):
            os.write(self.master, encode(self.seq, message))
            self.seq += 1

    def resend(self, seq: int, script: str) -> None:
        for i, message in enumerate(parse_script(script)):
            os.write(self.master, encode(seq + i, message))

    def read_until(self, predicate, timeout: float = 5.0) -> list:
        end = time.monotonic() + timeout
        while not predicate(self.received):
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"host never answered as expected: {self.received}")
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                self.received += [f.message for f in self.decoder.feed(os.read(self.master, 4096))]
        return self.received

    def close(self) -> None:
        for fd in (self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)


def daemon(tmp: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "shoe_daemon.service.cli", "run", "--profile", "baden",
         "--port", str(tmp / "shoe"), "--state-dir", str(tmp / "state"),
         "--results", str(tmp / "results.jsonl"), "--log-format", "json",
         "--reconnect-min", "0.05", "--reconnect-max", "0.2", "--http", "127.0.0.1:0", *extra],
        cwd=ROOT, stderr=subprocess.PIPE, text=True,
    )


@pytest.fixture
def shoe(tmp_path: Path):
    s = Shoe(tmp_path / "shoe")
    yield s
    s.close()


def acks(received) -> list[int]:
    return [m.seq for m in received if isinstance(m, Ack)]


def lamps(received) -> list[str]:
    return [m.colour for m in received if isinstance(m, Lamp)]


def results(tmp: Path) -> list[dict]:
    path = tmp / "results.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def test_a_coup_is_acknowledged_published_and_lamped(tmp_path, shoe):
    proc = daemon(tmp_path)
    try:
        shoe.read_until(lambda r: "GREEN" in lamps(r))  # connected: lamp sent at once
        shoe.send("HELLO:0badcafe SHOE DEAL 2C TH 3D 6S")
        shoe.read_until(lambda r: 6 in acks(r) and "AMBER" in lamps(r))  # punter on 5
        assert acks(shoe.received) == [0, 1, 2, 3, 4, 5, 6]
        shoe.send("CARTE 4H")
        shoe.read_until(lambda r: 8 in acks(r))
        end = time.monotonic() + 5
        while not results(tmp_path) and time.monotonic() < end:
            time.sleep(0.02)
        (r,) = [x for x in results(tmp_path) if x["event"] == "coup.result"]
        assert r["punter"]["cards"] == ["2C", "3D", "4H"] and r["outcome"] == "punter"
        shoe.read_until(lambda r: lamps(r)[-1] == "GREEN")  # decided: ready again
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    events = [json.loads(line)["event"] for line in err.splitlines()]
    # Nobody configured: said at start, since the shoe's KEY then takes nothing.
    assert events[:4] == ["display.listening", "supervisor.none_configured", "ledger.restored",
                          "daemon.start"]
    assert events[-1] == "daemon.stop"
    assert "shoe.hello" in events and "coup.result" in events
    result_log = next(json.loads(x) for x in err.splitlines() if '"coup.result"' in x)
    assert result_log["table"] == "table-1" and result_log["shoe"] == 1
    assert result_log["coup"] == 1 and result_log["frame"] == 8


def test_duplicates_and_gaps_are_dropped_and_reacknowledged(tmp_path, shoe):
    proc = daemon(tmp_path)
    try:
        shoe.read_until(lambda r: "GREEN" in lamps(r))
        shoe.send("HELLO:0badcafe SHOE DEAL")
        shoe.read_until(lambda r: 2 in acks(r))
        shoe.resend(1, "SHOE")  # a duplicate
        shoe.resend(5, "9C")  # a gap: 3 is next
        shoe.read_until(lambda r: len(acks(r)) >= 5)
        assert acks(shoe.received) == [0, 1, 2, 2, 2]
        shoe.send("9C 5D KH 3S")
        shoe.read_until(lambda r: 6 in acks(r))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=10)
    assert [x["punter"]["cards"] for x in results(tmp_path) if x["event"] == "coup.result"] == [
        ["9C", "KH"]
    ]
    assert proc.returncode == 0


def test_a_hello_is_acknowledged_at_once_and_again_after_a_reboot(tmp_path, shoe):
    """Protocol 1.1: a shoe sends its HELLO and nothing else until that HELLO's ACK."""
    proc = daemon(tmp_path)
    try:
        shoe.read_until(lambda r: "GREEN" in lamps(r))
        shoe.send("HELLO:0badcafe")
        shoe.read_until(lambda r: acks(r) == [0])
        shoe.send("SHOE DEAL 9C")
        shoe.read_until(lambda r: acks(r) == [0, 1, 2, 3])
        shoe.seq = 0  # rebooted mid-coup: numbering from 0 under a new boot id
        shoe.send("HELLO:1234abcd")
        shoe.read_until(lambda r: acks(r) == [0, 1, 2, 3, 0])
        shoe.send("2D KH 3S")
        shoe.read_until(lambda r: acks(r) == [0, 1, 2, 3, 0, 1, 2, 3])
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert [x["punter"]["cards"] for x in results(tmp_path) if x["event"] == "coup.result"] == [
        ["9C", "KH"]
    ]
    assert '"shoe.reboot"' in err


def test_red_lamp_on_hold(tmp_path, shoe):
    proc = daemon(tmp_path)
    try:
        shoe.read_until(lambda r: "GREEN" in lamps(r))
        shoe.send("HELLO:0badcafe SHOE DEAL ??")
        shoe.read_until(lambda r: "RED" in lamps(r))
        shoe.send("ENTER:9C")
        shoe.read_until(lambda r: lamps(r)[-1] == "GREEN" and 4 in acks(r))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=10)
    assert proc.returncode == 0


def test_waits_for_a_missing_shoe_and_stops_cleanly(tmp_path):
    proc = daemon(tmp_path)
    assert proc.stderr is not None
    err = ""
    while '"shoe.unavailable"' not in err:  # started (the display first) and waiting
        line = proc.stderr.readline()
        assert line, err
        err += line
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    _, more = proc.communicate(timeout=10)
    err += more
    assert proc.returncode == 0
    events = [json.loads(line)["event"] for line in err.splitlines()]
    assert "shoe.unavailable" in events and events[-1] == "daemon.stop"
    assert events.count("shoe.unavailable") == 1  # one line per outage, not per attempt


def test_bad_configuration_is_refused_at_start(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "shoe_daemon.service.cli", "run", "--profile", "baden",
         "--state-dir", str(tmp_path), "--results", "-", "--baud", "1234567"],
        cwd=ROOT, capture_output=True, text=True, timeout=30,
    )
    assert done.returncode == 2 and "setting 'baud'" in done.stderr


class _VanishingTransport(Transport):
    """A shoe that opens and is unplugged before the first byte can be written to it:
    the one transport double here, at the hardware edge, to hit that exact instant."""

    name = "vanishing"

    def __init__(self, stop):
        self.opens = 0
        self._open = False
        self.stop = stop

    @property
    def is_open(self):
        return self._open

    def open(self):
        self.opens += 1
        self._open = True
        if self.opens == 3:
            self.stop()

    def write(self, data):
        self._open = False
        raise TransportLost("unplugged right after open")

    def read(self, timeout):
        return b""

    def close(self):
        self._open = False


def test_a_shoe_lost_right_after_opening_is_reopened(tmp_path):
    settings = config.Config(**{s.name: s.default for s in config.SETTINGS} | {
        "profile": "baden", "state_dir": tmp_path, "results": str(tmp_path / "r.jsonl"),
        "reconnect_min": 0.01, "reconnect_max": 0.01})
    transport = _VanishingTransport(lambda: service.stop())
    service = ServiceLoop(settings, transport)
    assert service.run() == 0
    assert transport.opens == 3
