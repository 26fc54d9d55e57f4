"""The console's tests' table: the real service loop and ledger, the real console server on
a free port, real HTTP; the shoe is a transport the test feeds (the hardware edge), so that
a test says exactly which frames come when. `ledger` (a slowed one) and the handoff's
deadlines (`admit`, `answer`) may be given.

People: `ana` (supervisor, PIN 4711, badge SUP-77), `bob` (croupier, PIN 1234, badge
CR-12), `cy` (croupier, PIN 5555, no badge).
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from drivers.framing import FrameDecoder, encode
from drivers.messages import HOST_TO_SHOE, Ack, Lamp, Message
from drivers.transport import Transport
from hil.script import parse_script
from shoe_daemon.audit.ledger import Ledger
from shoe_daemon.console.answers import LedgerActions
from shoe_daemon.console.people import Person, Role, people_paths
from shoe_daemon.console.recall import Recall
from shoe_daemon.console.server import ConsoleServer
from shoe_daemon.odds.tracker import KINDS as MONITOR_KINDS
from shoe_daemon.service import config
from shoe_daemon.service.loop import ServiceLoop

PEOPLE = (("ana", "Ana Weber", Role.SUPERVISOR, "4711", "SUP-77"),
          ("bob", "Bob Marti", Role.CROUPIER, "1234", "CR-12"),
          ("cy", "Cy Rossi", Role.CROUPIER, "5555", None))
SECRETS = ("4711", "SUP-77", "1234", "CR-12", "5555")


def make_people(state_dir: Path, people: tuple[tuple[Any, ...], ...] = PEOPLE) -> None:
    state_dir.mkdir(parents=True, exist_ok=True)
    file = people_paths(state_dir)
    roster = file.load(create_key=True)
    for pid, name, role, pin, badge in people:
        roster = roster.with_person(Person(pid, name, role))
        roster = roster.pin_for(pid, pin)
        if badge:
            roster = roster.badge_for(pid, badge)
    file.save(roster)


class FeedShoe(Transport):
    """A shoe whose frames the test gives (`feed`); each read resends all that is not yet
    acknowledged, as a shoe does after its timeout. It notes the lamps the host sends."""

    name = "feed"

    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self.acked = -1
        self.lamps: list[str] = []
        self.decoder = FrameDecoder(HOST_TO_SHOE)
        self._open = False
        self._lock = threading.Lock()

    @property
    def is_open(self) -> bool:
        return self._open

    def open(self) -> None:
        self._open = True

    def feed(self, script: str | list[Message], wait: bool = True) -> None:
        messages = parse_script(script) if isinstance(script, str) else script
        with self._lock:
            for message in messages:
                self.frames.append(encode(len(self.frames), message))
        if wait:
            self.wait_acked()

    def wait_acked(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while self.acked < len(self.frames) - 1:
            if time.monotonic() > deadline:
                raise AssertionError(f"frames acknowledged up to {self.acked} of "
                                     f"{len(self.frames)}")
            time.sleep(0.005)

    def wait_lamp(self, colour: str, timeout: float = 10.0) -> None:
        """The host's lamp goes out after the ACKs of a batch: wait for it."""
        deadline = time.monotonic() + timeout
        while not self.lamps or self.lamps[-1] != colour:
            if time.monotonic() > deadline:
                raise AssertionError(f"the lamp is {self.lamps[-1:]}, not {colour}")
            time.sleep(0.005)

    def read(self, timeout: float) -> bytes:
        with self._lock:
            pending = b"".join(self.frames[self.acked + 1:])
        if pending:
            return pending
        time.sleep(min(timeout, 0.01))
        return b""

    def write(self, data: bytes) -> None:
        for frame in self.decoder.feed(data):
            if isinstance(frame.message, Ack):
                self.acked = frame.message.seq
            elif isinstance(frame.message, Lamp):
                self.lamps.append(frame.message.colour)

    def close(self) -> None:
        self._open = False


class Client:
    """An HTTP client of the console: its cookie, its Origin (the console's own)."""

    def __init__(self, url: str, source: str | None = None) -> None:
        self.source = source  # the client's own address (127.0.0.2 ...: not the screen)
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.origin = f"http://{self.host}:{self.port}"
        self.cookie: str | None = None

    def request(self, method: str, path: str, body: Any = None, *, raw: bytes | None = None,
                headers: dict[str, str] | None = None,
                origin: str | None = "own") -> tuple[int, Any, dict[str, str]]:
        conn = http.client.HTTPConnection(
            self.host, self.port, timeout=20,
            source_address=(self.source, 0) if self.source else None)
        sent = dict(headers or {})
        if origin is not None:
            sent.setdefault("Origin", self.origin if origin == "own" else origin)
        if self.cookie:
            sent.setdefault("Cookie", self.cookie)
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        if data is not None:
            sent.setdefault("Content-Type", "application/json")
        try:
            conn.request(method, path, body=data, headers=sent)
            response = conn.getresponse()
            payload = response.read()
            got = {k.lower(): v for k, v in response.getheaders()}
        finally:
            conn.close()
        cookie = got.get("set-cookie")
        if cookie:
            pair = cookie.split(";", 1)[0]
            self.cookie = None if pair.endswith("=") or 'Max-Age=0' in cookie or \
                "expires=Thu, 01 Jan 1970" in cookie else pair
        try:
            parsed = json.loads(payload) if payload else None
        except ValueError:
            parsed = payload
        return response.status, parsed, got

    def post(self, path: str, body: Any = None, **kw: Any) -> tuple[int, Any, dict[str, str]]:
        return self.request("POST", path, body, **kw)

    def get(self, path: str, **kw: Any) -> tuple[int, Any, dict[str, str]]:
        return self.request("GET", path, origin=None, **kw)

    def sign_in(self, person: str, pin: str) -> tuple[int, Any]:
        status, body, _ = self.post("/api/sign-in", {"id": new_id(), "method": "pin",
                                                     "person": person, "pin": pin})
        return status, body

    def badge(self, badge: str) -> tuple[int, Any]:
        status, body, _ = self.post("/api/sign-in", {"id": new_id(), "method": "badge",
                                                     "badge": badge})
        return status, body

    def act(self, kind: str, /, **args: str) -> tuple[int, Any]:
        status, body, _ = self.post("/api/actions", {"id": new_id(), "kind": kind,
                                                     "args": args})
        return status, body


def new_id() -> str:
    return str(uuid.uuid4())


def settings(state: Path, profile: str = "baden", **more: Any) -> config.Config:
    values = {s.name: s.default for s in config.SETTINGS} | {
        "profile": profile, "state_dir": state, "results": str(state / "results.jsonl"),
        "http": "off", "console": "127.0.0.1:0"} | more
    return config.Config(**values)


class ConsoleTable:
    """The daemon's loop in a thread with the console on, its shoe fed by the test; with
    `money` (a `[money]` table), the table's money kept."""

    def __init__(self, state: Path, profile: str = "baden", idle: float = 900,
                 money: dict[str, Any] | None = None, ledger: Ledger | None = None,
                 **handoff: float) -> None:
        self.state = state
        self.settings = settings(state, profile, money=money)
        self.shoe = FeedShoe()
        people = people_paths(state)
        people.load(create_key=True)
        self.server = ConsoleServer("127.0.0.1", 0, people=people,
                                    recall=Recall(state, profile).answer, idle=idle,
                                    longest=max(idle, 3600), ledger=LedgerActions(state),
                                    **handoff)
        self.url = self.server.start()
        self.loop = ServiceLoop(self.settings, self.shoe, ledger=ledger, console=self.server)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.rc: int | None = None

    def _run(self) -> None:
        self.rc = self.loop.run()

    def start(self) -> ConsoleTable:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.shoe.is_open:
            if time.monotonic() > deadline:
                raise AssertionError("the loop did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> int | None:
        self.loop.stop()
        self.thread.join(20)
        self.server.stop()
        self.loop.table.ledger.close()
        return self.rc

    def client(self, source: str | None = None) -> Client:
        return Client(self.url, source)

    def kept(self) -> list[tuple[int, str]]:
        """What the requests kept: the ledger's records but the odds monitor's, which it
        commits at its own moments after a coup (docs/odds.md), whatever the console does."""
        return [(r.idx, r.kind) for r in self.records() if r.kind not in MONITOR_KINDS]

    def records(self, kind: str | None = None) -> list[Any]:
        ledger = Ledger(self.state)
        try:
            return [r for r in ledger.records() if kind is None or r.kind == kind]
        finally:
            ledger.close()

    @property
    def machine(self) -> Any:
        return self.loop.table.machine


@contextmanager
def console_table(state: Path, profile: str = "baden", **kw: Any) -> Iterator[ConsoleTable]:
    if not (state / "people.json").exists():
        make_people(state)
    table = ConsoleTable(state, profile, **kw).start()
    try:
        yield table
    finally:
        table.stop()


def people_by_cli(state_dir: Path, people: tuple[tuple[Any, ...], ...] = PEOPLE) -> None:
    """The people made as a technician makes them: `shoe-daemon people add`, each secret on
    standard input (never an argument)."""
    import subprocess
    import sys

    from hil.processes import ROOT

    state_dir.mkdir(parents=True, exist_ok=True)
    for pid, name, role, pin, badge in people:
        flags = ["--pin"] + (["--badge"] if badge else [])
        secrets = pin + "\n" + (badge + "\n" if badge else "")
        done = subprocess.run(
            [sys.executable, "-m", "shoe_daemon.service.cli", "people", "add", pid, "--name",
             name, "--role", role.value, *flags, "--state-dir", str(state_dir)],
            cwd=ROOT, input=secrets, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert pin not in done.stdout and (not badge or badge not in done.stdout)
