"""The sd_notify protocol against a real notification socket and the real daemon process.

The test plays systemd's part: it binds a unix datagram socket, starts `shoe-daemon run`
with `$NOTIFY_SOCKET` and `$WATCHDOG_USEC` as systemd would, and reads what arrives. READY=1
only once the ledger is verified and the shoe's port tried, WATCHDOG=1 pings while the loop
runs (the shoe dealing, or absent and being retried), none while the process is really
stopped (SIGSTOP), STOPPING=1 at SIGTERM, and no READY at all when the ledger is bad.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hil.harness import ROOT, start_shoe, stop
from shoe_daemon.audit.ledger import Ledger
from shoe_daemon.service.notify import Notifier, socket_address

WATCHDOG_USEC = 1_000_000  # 1 s: pings every 0.5 s


class Systemd:
    """The listening end of $NOTIFY_SOCKET: every datagram, with its arrival time."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(socket_address(name))
        self.messages: list[tuple[float, dict[str, str]]] = []
        self.cursor = 0  # wait_for looks from here on

    def read(self, seconds: float) -> list[tuple[float, dict[str, str]]]:
        """Everything that arrives within `seconds`."""
        got: list[tuple[float, dict[str, str]]] = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except TimeoutError:
                break
            fields = dict(line.split("=", 1) for line in data.decode().splitlines())
            got.append((time.monotonic(), fields))
        self.messages += got
        return got

    def wait_for(self, key: str, seconds: float = 15.0) -> dict[str, str]:
        """The next message (after the last one waited for) that carries `key`."""
        deadline = time.monotonic() + seconds
        while True:
            while self.cursor < len(self.messages):
                fields = self.messages[self.cursor][1]
                self.cursor += 1
                if key in fields:
                    return fields
            if time.monotonic() > deadline:
                raise AssertionError(f"no {key} within {seconds} s; got {self.messages}")
            self.read(0.2)

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def systemd(tmp_path: Path) -> Iterator[Systemd]:
    s = Systemd(str(tmp_path / "notify"))
    yield s
    s.close()


def start(workdir: Path, notify: str, port: Path, *extra: str) -> subprocess.Popen[str]:
    env = dict(os.environ, NOTIFY_SOCKET=notify, WATCHDOG_USEC=str(WATCHDOG_USEC))
    env.pop("WATCHDOG_PID", None)
    cmd = [sys.executable, "-m", "shoe_daemon.service.cli", "run", "--profile", "baden",
           "--state-dir", str(workdir / "state"), "--results", str(workdir / "results.jsonl"),
           "--port", str(port), "--log-format", "json", *extra]
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stderr=(workdir / "daemon.log").open("a"),
                            stdout=subprocess.DEVNULL, text=True)


def pings(messages: list[tuple[float, dict[str, str]]]) -> list[float]:
    return [t for t, fields in messages if fields.get("WATCHDOG") == "1"]


def ledger_kinds(state: Path) -> list[str]:
    db = sqlite3.connect(f"{(state / 'ledger.sqlite3').as_uri()}?mode=ro", uri=True)
    try:
        return [row[0] for row in db.execute("SELECT kind FROM records ORDER BY idx")]
    finally:
        db.close()


def test_ready_after_the_ledger_and_the_port_then_pings_and_none_when_hung(tmp_path, systemd):
    shoe, _ = start_shoe(tmp_path, "baden", shoes=3, pace=0.05)
    daemon = start(tmp_path, systemd.name, tmp_path / "shoe")
    try:
        first = systemd.wait_for("STATUS")
        assert "READY" not in first and "verifying the audit ledger" in first["STATUS"]
        ready = systemd.wait_for("READY")
        before = [f for _, f in systemd.messages[:systemd.cursor - 1]]
        assert not any("READY" in f for f in before)
        # At READY the ledger was verified and the port opened: both are on record.
        kinds = ledger_kinds(tmp_path / "state")
        assert kinds[0] == "daemon.start" and "transport" in kinds
        assert ready["READY"] == "1" and ready["STATUS"].startswith("Table table-1 baden: ")
        systemd.read(0.1)  # the rest of the last batch, then a fresh window
        healthy = pings(systemd.read(2.5))
        assert len(healthy) >= 4, systemd.messages[-10:]
        assert max(b - a for a, b in itertools.pairwise(healthy)) < 1.0  # WATCHDOG_USEC
        statuses = [f["STATUS"] for _, f in systemd.messages if "STATUS" in f]
        assert any("coup" in s and "shoe 1" in s for s in statuses), statuses

        daemon.send_signal(signal.SIGSTOP)  # the loop really stops: no pings may come
        try:
            hung = systemd.read(2.0)
            assert pings(hung) == [], hung
        finally:
            daemon.send_signal(signal.SIGCONT)
        assert len(pings(systemd.read(1.5))) >= 2  # alive again, pinging again

        daemon.send_signal(signal.SIGTERM)
        assert "stopping" in systemd.wait_for("STOPPING")["STATUS"]
        assert daemon.wait(10) == 0
    finally:
        stop(daemon)
        stop(shoe)


def test_no_shoe_still_ready_waiting_and_pinging_through_long_backoff(tmp_path):
    """An abstract socket, as systemd uses; the shoe absent with a 5 s backoff ceiling."""
    name = f"@shoe-daemon-test-{os.getpid()}-{time.monotonic_ns()}"
    systemd = Systemd(name)
    port = tmp_path / "no-shoe-here"
    daemon = start(tmp_path, name, port, "--reconnect-min", "2", "--reconnect-max", "5")
    try:
        ready = systemd.wait_for("READY")
        assert ready["STATUS"] == f"Table table-1 baden: waiting for the shoe on {port}"
        waiting = pings(systemd.read(3.0))
        assert len(waiting) >= 5, systemd.messages
        assert max(b - a for a, b in itertools.pairwise(waiting)) < 1.0
        assert daemon.poll() is None
    finally:
        stop(daemon)
        systemd.close()


def test_a_ledger_that_fails_verification_is_never_ready(tmp_path, systemd):
    state = tmp_path / "state"
    ledger = Ledger(state)
    ledger.append("daemon.start", {"pid": 1})
    ledger.close()
    (state / "ledger.key").unlink()  # a new key: every seal then fails to verify
    daemon = start(tmp_path, systemd.name, tmp_path / "no-shoe")
    try:
        assert daemon.wait(20) == 1
        messages = systemd.read(0.3) and systemd.messages
        assert not any("READY" in f for _, f in messages), messages
        assert "audit ledger unusable" in messages[-1][1]["STATUS"]
    finally:
        stop(daemon)


def test_the_watchdog_is_for_this_process_only() -> None:
    mine = Notifier({"NOTIFY_SOCKET": "/nonexistent", "WATCHDOG_USEC": "4000000",
                     "WATCHDOG_PID": str(os.getpid())})
    other = Notifier({"NOTIFY_SOCKET": "/nonexistent", "WATCHDOG_USEC": "4000000",
                      "WATCHDOG_PID": "1"})
    assert mine.ping_every == 2.0 and other.ping_every is None
    assert not Notifier({}).enabled
    mine.close()
    other.close()


def test_a_full_disk_says_hold_in_the_status_and_recovers(tmp_path, systemd):
    """A real tmpfs under the ledger, filled to the last byte (as tests/test_disk_full.py)."""
    state = tmp_path / "state"
    state.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(state)], check=True)
    shoe, _ = start_shoe(tmp_path, "baden", pace=0.02)
    daemon = start(tmp_path, systemd.name, tmp_path / "shoe")
    filler = state / "filler"
    try:
        systemd.wait_for("READY")
        while "coup 2," not in systemd.wait_for("STATUS")["STATUS"]:
            pass  # dealing, with a result on record
        with filler.open("wb") as f, contextlib.suppress(OSError):
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        hold = systemd.wait_for("STATUS")
        while "HOLD" not in hold["STATUS"]:
            hold = systemd.wait_for("STATUS")
        assert hold["STATUS"] == ("Table table-1 baden: HOLD: ledger unwritable "
                                  "(database or disk is full)")
        assert len(pings(systemd.read(1.5))) >= 2  # held, not hung: still pinging
        filler.unlink()
        back = systemd.wait_for("STATUS")["STATUS"]
        while "HOLD" in back or "shoe 1 coup" not in back:  # plays on where the ledger stopped
            back = systemd.wait_for("STATUS")["STATUS"]
    finally:
        stop(daemon)
        stop(shoe)
        subprocess.run(["umount", "-l", str(state)], check=False)


def test_a_full_socket_never_blocks_and_the_latest_status_wins(tmp_path, systemd):
    notifier = Notifier({"NOTIFY_SOCKET": systemd.name})
    started = time.monotonic()
    for i in range(500):  # far more than the socket queues while nobody reads
        notifier.status(f"coup {i}")
    assert time.monotonic() - started < 1.0
    queued = [f["STATUS"] for _, f in systemd.read(0.3)]
    assert queued[0] == "coup 0" and "coup 499" not in queued
    notifier.tick()  # the next beat of the loop sends what waited
    notifier.status("coup 499")
    assert [f["STATUS"] for _, f in systemd.read(0.3)] == ["coup 499"]
    notifier.close()


def test_a_dealing_irregularity_shows_as_a_hold_with_its_rule(tmp_path, systemd):
    shoe, _ = start_shoe(tmp_path, "baden", pace=0.02, seed=3, faults=["unreadable=0.5"])
    daemon = start(tmp_path, systemd.name, tmp_path / "shoe")
    try:
        systemd.wait_for("READY")
        status = systemd.wait_for("STATUS")["STATUS"]
        while "HOLD" not in status:
            status = systemd.wait_for("STATUS")["STATUS"]
        assert status.startswith("Table table-1 baden: shoe 1 coup ")
        assert ", HOLD: UNREADABLE_CARD (shoe-line-protocol CARD ??)" in status  # its rule
    finally:
        stop(daemon)
        stop(shoe)
