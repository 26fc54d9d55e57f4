"""The answers' part of the attack suite: the real daemon process with its console and its
money over a real pty, its loop made slow by a real mechanism (another process holding the
ledger's write lock, as an operator's `sqlite3` session left in a transaction does), and
a client that asks again with the same request id until it has an outcome."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drivers.records import opens_shoe
from hil.processes import start_daemon, stop
from shoe_daemon.audit.ledger import Record
from shoe_daemon.audit.reader import LedgerReader
from tests.console_support import Client, new_id, people_by_cli
from tests.pty_shoe import PtyShoe, wait_for_log

ADMIT = 0.5  # s: the daemon's console_admit
ANSWER = 1.5  # s: its console_answer
BUSY = 5.0  # s the daemon's ledger waits for a lock (sqlite3's default timeout)


def config(workdir: Path) -> Path:
    path = workdir / "shoe-daemon.toml"
    path.write_text(f"console_admit = {ADMIT}\nconsole_answer = {ANSWER}\nodds = \"off\"\n"
                    "[money]\nmin_bank = 100\nmin_stake = 10\n")
    return path


@dataclass
class Daemon:
    """One run of the real daemon on `state` (a restart is another run on the same state)."""

    workdir: Path
    state: Path
    proc: subprocess.Popen[str] = field(init=False)
    url: str = field(init=False)

    def start(self) -> Daemon:
        log = self.workdir / "daemon.log"
        seen = log.read_text().count('"console.listening"') if log.exists() else 0
        self.proc = start_daemon(self.workdir, "baden",
                                 extra=["--config", str(config(self.workdir)),
                                        "--console", "127.0.0.1:0"])
        deadline = time.monotonic() + 30
        while True:  # this run's URL: the log is appended by every run
            lines = [x for x in (log.read_text() if log.exists() else "").splitlines()
                     if '"console.listening"' in x]
            if len(lines) > seen:
                self.url = json.loads(lines[-1])["url"]
                return self
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the daemon did not start: {log.read_text()[-2000:]}")
            time.sleep(0.05)

    def stop(self) -> int:
        return stop(self.proc)

    def kill(self) -> None:
        """kill -9: nothing of the process's own goes on."""
        self.proc.kill()
        self.proc.wait(10)

    def client(self, person: str = "bob", pin: str = "1234") -> Client:
        client = Client(self.url)
        status, body = client.sign_in(person, pin)
        assert status == 200, body
        return client


@contextmanager
def daemon(workdir: Path) -> Any:
    """The daemon, its people made with the CLI, its shoe on a pty (connected, quiet)."""
    people_by_cli(workdir / "state")
    shoe = PtyShoe(workdir)
    run = Daemon(workdir, workdir / "state").start()
    try:
        wait_for_log(workdir, "shoe.connected")
        yield run, shoe
    finally:
        if run.proc.poll() is None:
            assert run.stop() == 0
        shoe.close()


class LedgerLock:
    """Another process's write transaction on the daemon's ledger: its commits wait for it
    (at most BUSY s, then the ledger refuses them)."""

    def __init__(self, state: Path) -> None:
        self.db = sqlite3.connect(state / "ledger.sqlite3", isolation_level=None, timeout=10)

    def __enter__(self) -> LedgerLock:
        self.db.execute("BEGIN IMMEDIATE")
        return self

    def __exit__(self, *_: Any) -> None:
        self.db.execute("ROLLBACK")
        self.db.close()


@dataclass
class Asked:
    """One request and every answer it got, first to last (all but the last: 202)."""

    body: dict[str, Any]
    answers: list[tuple[int, Any]] = field(default_factory=list)

    @property
    def id(self) -> str:
        return str(self.body["id"])

    @property
    def final(self) -> tuple[int, Any]:
        return self.answers[-1]


def action(kind: str, **args: str) -> dict[str, Any]:
    return {"id": new_id(), "kind": kind, "args": args}


def ask(client: Client, body: dict[str, Any], asked: Asked | None = None,
        timeout: float = 30.0) -> Asked:
    """Send, and ask again with the same id while the answer is "still being done" (202)."""
    asked = asked or Asked(body)
    deadline = time.monotonic() + timeout
    while True:
        status, answer, _ = client.post("/api/actions", body)
        asked.answers.append((status, answer))
        if status != 202:
            return asked
        assert answer["in_progress"] and answer["id"] == body["id"], answer
        assert time.monotonic() < deadline, "still being done after all this time"


def ledger_actions(state: Path) -> dict[str, list[Record]]:
    """The ledger's action records by request id, read-only while the daemon runs."""
    reader = LedgerReader(state)
    try:
        found: dict[str, list[Record]] = {}
        for record in reader.records(kinds=("action",)):
            found.setdefault(record.body["id"], []).append(record)
        return found
    finally:
        reader.close()


def wait_for_action(state: Path, request_id: str, timeout: float = 15.0) -> Record:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = ledger_actions(state).get(request_id)
        if found:
            return found[0]
        time.sleep(0.005)
    raise AssertionError(f"action {request_id} never reached the ledger")


def wait_for_shoe(state: Path, timeout: float = 15.0) -> None:
    """Until the ledger holds a shoe's start (`BTN,SHOE`)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        reader = LedgerReader(state)
        try:
            if any(opens_shoe(r.body) for r in reader.records(kinds=("frame",))):
                return
        finally:
            reader.close()
        time.sleep(0.02)
    raise AssertionError("no shoe started in the ledger")


def check_true(state: Path, asked: list[Asked]) -> dict[str, int]:
    """Every answer against the ledger: 200 is the record at its index, done once; any
    refusal ("nothing was done" included) has no record; 202 only before an outcome. The
    count of each final status."""
    recorded = ledger_actions(state)
    assert all(len(records) == 1 for records in recorded.values()), "an action twice"
    counts: dict[str, int] = {}
    for one in asked:
        assert all(status == 202 for status, _ in one.answers[:-1]), one.answers
        status, answer = one.final
        counts[str(status)] = counts.get(str(status), 0) + 1
        found = recorded.get(one.id, [])
        if status == 200:
            assert [r.idx for r in found] == [answer["ledger_index"]], (one.id, answer)
            record = found[0].body
            assert (record["kind"], record["args"]) == (one.body["kind"], one.body["args"])
            assert answer["action"] == record
        else:
            assert found == [], (one.id, status, answer)
    return counts
