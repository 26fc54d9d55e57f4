"""The real processes the pit's attacks are made against (tests/attack/test_pit.py), and the
attacker's tools.

`Floor`: a mosquitto of the shipped configuration (hil/floor_servers.py), a PostgreSQL
database, the directory of the tables' lodged keys, and one floor.toml from which
`shoe-floor collect` and `shoe-floor serve` run as processes, as the units run them. A table
is a state directory with its own signing key, lodged by `shoe-floor lodge-key`, its broker
login made by the shipped script, and either the real daemon dealing a scripted shoe or the
real floor link alone (tests/floor/link_process.py) on a ledger the test commits to.

The attacker: `Forger`, a bare MQTT 5 client holding a table's own broker login (stolen from
its Pi), which publishes whatever it is told, retained or not, with whatever user properties
(a signature of its own, another table's, a genuine one taken from another message);
`Recorder`, a client under the page's login that keeps every status message with its
properties, to replay a genuine old one; `Sse`, the page's event stream read from its start.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from hil.floor_servers import COLLECTOR, PIT, PREFIX, ROOT, Broker, Certs, Postgres, wait_for
from hil.processes import start_daemon, start_shoe, stop
from shoe_daemon.audit import keys
from shoe_daemon.audit.ledger import Ledger
from shoe_daemon.floor.config import FloorConfig
from shoe_daemon.floor.mqtt import connect, make_client, user_properties
from shoe_daemon.floor.topics import topic
from shoe_floor.store import Store
from tests.floor.test_pit_server import Stream
from tests.pit_people import request, sign_in, write_people


def floor_cli(*argv: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "shoe_floor.cli", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, **kw)


class Process:
    """A process of the floor's, its output (JSON log lines) in a file."""

    def __init__(self, argv: list[str], log: Path):
        self.log = log
        self.proc = subprocess.Popen([sys.executable, *argv], cwd=ROOT,
                                     stdout=log.open("a"), stderr=subprocess.STDOUT, text=True)

    def events(self, name: str) -> list[dict[str, Any]]:
        found = []
        for line in self.log.read_text(errors="replace").splitlines():
            if f'"{name}"' in line and line.startswith("{"):
                found.append(json.loads(line))
        return found

    def wait_event(self, name: str, timeout: float = 30.0) -> dict[str, Any]:
        def seen() -> dict[str, Any] | None:
            if self.proc.poll() is not None:
                raise AssertionError(f"{self.log.name}: exited {self.proc.returncode}: "
                                     f"{self.log.read_text()[-2000:]}")
            events = self.events(name)
            return events[-1] if events else None

        return wait_for(seen, timeout, 0.05, f"{name} in {self.log.name}")

    def stop(self) -> int:
        return stop(self.proc)

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(20)


class Table:
    """A table: its state directory, signing key (lodged), broker login, floor.toml."""

    def __init__(self, floor: Floor, name: str, heartbeat: float = 1.0, keepalive: int = 2):
        self.floor = floor
        self.name = name
        self.work = floor.root / f"table-{len(floor.tables) + 1}"
        self.state = self.work / "state"
        self.work.mkdir()
        self.key = keys.keygen(self.state)
        lodged = floor_cli("lodge-key", "--config", str(floor.toml), name,
                           str(keys.keys_dir(self.state) / f"{self.key.stem}.pub.pem"))
        assert lodged.returncode == 0, lodged.stderr
        self.password = floor.broker.login(name)
        self.config = floor.broker.config(name, self.password)
        self.toml = self.work / "shoe-daemon.toml"
        (self.work / "floor.password").write_text(self.password + "\n")
        self.toml.write_text("\n".join([
            "[floor]", f'broker = "mqtts://127.0.0.1:{floor.broker.port}"',
            f"username = {json.dumps(name)}", 'password_file = "floor.password"',
            f'ca_file = "{floor.broker.certs.ca}"', f'topic_prefix = "{PREFIX}"',
            f"keepalive = {keepalive}", f"heartbeat = {heartbeat}"]) + "\n")
        self.procs: list[subprocess.Popen[str]] = []
        floor.tables.append(self)

    def topic(self, leaf: str) -> str:
        return topic(PREFIX, self.name, leaf)

    def deal(self, script: str, profile: str = "baden",
             pace: float = 0.5) -> subprocess.Popen[str]:
        """The real daemon, its link on, the simulated shoe playing `script` (a message each
        `pace` seconds, so that the table shows each) and staying plugged in; the daemon's
        process."""
        (self.work / "deal.script").write_text(script + "\n")
        shoe, _ = start_shoe(self.work, profile, pace=pace,
                             extra=["--script", str(self.work / "deal.script"),
                                    "--linger", "600"])
        daemon = start_daemon(self.work, profile, http="off",
                              extra=["--config", str(self.toml), "--table", self.name])
        self.procs += [shoe, daemon]
        return daemon

    def link(self) -> subprocess.Popen[str]:
        """The real floor link alone, in its own process, on this table's ledger."""
        proc = subprocess.Popen([sys.executable, "-m", "tests.floor.link_process",
                                 str(self.state), str(self.toml)], cwd=ROOT,
                                stdout=subprocess.DEVNULL,
                                stderr=(self.work / "link.log").open("a"))
        self.procs.append(proc)
        return proc

    def ledger(self) -> Ledger:
        return Ledger(self.state)

    def records(self) -> list:
        ledger = self.ledger()
        try:
            return list(ledger.records())
        finally:
            ledger.close()

    def close(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait(20)


class Floor:
    def __init__(self, root: Path, certs: Certs, postgres: Postgres, short_grace: float = 2.0):
        self.root = root
        (root / "broker").mkdir()
        self.broker = Broker(root / "broker", certs)
        self.broker.login(COLLECTOR)
        self.broker.login(PIT)
        self.broker.start()
        self.database = postgres.new_database()
        self.table_keys = root / "table-keys"
        self.table_keys.mkdir()
        self.tables: list[Table] = []
        self.procs: list[Process] = []
        self.toml = root / "floor.toml"
        write_people(root / "pit-people.json", badges=True)
        settings = {"database": self.database, "client_id": "collector-1",
                    "table_keys": str(self.table_keys), "gap_grace": 0.3, "resend_every": 1.0,
                    "short_grace": short_grace}
        self.toml.write_text("\n".join([
            "[floor]", f'broker = "mqtts://127.0.0.1:{self.broker.port}"',
            f'username = "{COLLECTOR}"',
            f'password_file = "{self.broker.secret(COLLECTOR)}"',
            f'ca_file = "{certs.ca}"', f'topic_prefix = "{PREFIX}"', "keepalive = 5", "",
            "[collector]", *(f"{k} = {json.dumps(v)}" for k, v in settings.items()), "",
            "[export]", f'state_dir = "{root / "floor-state"}"', "",
            "[pit]", 'http = "127.0.0.1:0"', f'username = "{PIT}"',
            f'password_file = "{self.broker.secret(PIT)}"', "poll = 0.3",
            "behind_grace = 1.0"]) + "\n")

    def table(self, name: str, **settings: Any) -> Table:
        return Table(self, name, **settings)

    def collector(self) -> Process:
        """`shoe-floor collect`, connected."""
        proc = Process(["-m", "shoe_floor.cli", "collect", "--config", str(self.toml)],
                       self.root / f"collector-{len(self.procs)}.log")
        self.procs.append(proc)
        proc.wait_event("collector.connected")
        return proc

    def pit(self, client_id: str = "pit-1") -> tuple[Process, str]:
        """`shoe-floor serve`, with its own broker client id; the page's URL."""
        toml = self.root / f"{client_id}.toml"
        toml.write_text(self.toml.read_text() + f'client_id = "{client_id}"\n')
        proc = Process(["-m", "shoe_floor.cli", "serve", "--config", str(toml)],
                       self.root / f"{client_id}.log")
        self.procs.append(proc)
        url = proc.wait_event("pit.listening")["url"]
        proc.wait_event("pit.broker_connected")
        return proc, url.rstrip("/")

    def store(self) -> Store:
        return Store(self.database, create=False)

    def read(self, what: Callable[[Store], Any]) -> Any:
        """`what` of a fresh look at the store."""
        store = self.store()
        try:
            return what(store)
        finally:
            store.close()

    def alarms(self, table: str) -> list[dict[str, Any]]:
        return self.read(lambda store: store.alarms(table))

    def stored(self, table: str) -> list:
        return self.read(lambda store: store.records(table))

    def whole(self, table: Table) -> bool:
        """Whether the store holds exactly the table's ledger."""
        return self.stored(table.name) == table.records()

    def close(self) -> None:
        for t in self.tables:
            t.close()
        for proc in self.procs:
            if proc.proc.poll() is None:
                proc.stop()
        if self.broker.proc is not None:
            self.broker.stop()


def tiles(url: str) -> dict[str, dict[str, Any]]:
    """The page's board, from its /api/tiles (signed in as the pit boss): each tile by table."""
    return {t["table"]: t for t in json.loads(
        request(url, "GET", "/api/tiles", cookie=signed_in(url))[2])["tiles"]}


SESSIONS: dict[str, str] = {}  # a page's URL: the pit boss's session there


def signed_in(url: str) -> str:
    """The pit boss's session at the page (signed in once per page)."""
    if url not in SESSIONS:
        SESSIONS[url] = sign_in(url)
    return SESSIONS[url]


def tile_of(url: str, table: str, wanted: Callable[[dict[str, Any]], Any],
            timeout: float = 30.0, what: str = "the tile") -> dict[str, Any]:
    """Wait for the table's tile to be as `wanted` says; the tile."""
    return wait_for(lambda: (lambda t: t if t is not None and wanted(t) else None)(
        tiles(url).get(table)), timeout, 0.1, what)


class Forger:
    """A bare MQTT 5 client under a table's own broker login, as a thief of the login would
    use it: publishes what it is told, retained or not, and waits for the broker's PUBACK."""

    def __init__(self, config: FloorConfig, client_id: str):
        self.client = make_client(config, client_id)
        self._acks: dict[int, int] = {}
        ready = threading.Event()
        self.client.on_connect = lambda *_: ready.set()
        self.client.on_publish = lambda _c, _u, mid, reason, _p: self._acks.__setitem__(
            mid, int(reason.value))
        connect(self.client, config)
        assert ready.wait(20)

    def publish(self, name: str, payload: bytes, properties: list[tuple[str, str]] | None,
                retain: bool) -> int:
        props = None
        if properties:
            props = Properties(PacketTypes.PUBLISH)
            props.UserProperty = properties
        mid = self.client.publish(name, payload, qos=1, retain=retain, properties=props).mid
        return wait_for(lambda: self._acks.get(mid, -1) + 1, 20, what="a PUBACK") - 1

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class Recorder:
    """Every status message under the page's login, with its user properties and whether it
    came retained: what an attacker who once read them could replay."""

    def __init__(self, config: FloorConfig, client_id: str = "recorder"):
        self.client = make_client(config, client_id)
        self.seen: list[tuple[str, bytes, list[tuple[str, str]], bool]] = []
        self._lock = threading.Lock()
        ready = threading.Event()
        self.client.on_connect = lambda *_: ready.set()
        self.client.on_message = self._on_message
        connect(self.client, config)
        assert ready.wait(20)
        self.client.subscribe([(topic(PREFIX, "+", leaf), 1)
                               for leaf in ("state", "online", "head")])

    def _on_message(self, _c: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
        with self._lock:
            self.seen.append((msg.topic, bytes(msg.payload), list(user_properties(msg) or []),
                              bool(msg.retain)))

    def on(self, name: str) -> list[tuple[bytes, list[tuple[str, str]]]]:
        with self._lock:
            return [(p, props) for t, p, props, _ in self.seen if t == name]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class Sse:
    """The page's event stream, read in a thread from its first event: all it ever sent."""

    def __init__(self, url: str):
        self.stream = Stream(url, signed_in(url))
        self.raw = bytearray()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            while chunk := self.stream.response.read1(65536):
                self.raw += chunk
        except Exception:  # closed under it, by close(): all it sent is in `raw`
            return

    def close(self) -> None:
        self.stream.close()


def settle(seconds: float) -> None:
    """Let the processes take what was sent (the page reads the store every 0.3 s)."""
    time.sleep(seconds)
