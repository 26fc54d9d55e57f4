"""Real parts for the floor's tests, as fixtures: a mosquitto on a free loopback port with
TLS, logins made by the shipped script and the ACL made by the shipped code, stopped and
started again on demand; a PostgreSQL cluster made by initdb in a temporary directory, one
database per test (the servers themselves: hil/floor_servers.py). Nothing is mocked: the
link, the broker, the collector and the database all run. Each table has its own signing key
(`audit keygen` in its state directory), lodged where the collector reads it, as a casino
lodges it (`shoe-floor lodge-key`)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

from hil.floor_servers import (
    COLLECTOR,
    PIT,
    PREFIX,
    ROOT,
    Broker,
    Certs,
    Postgres,
    make_certs,
    wait_for,
)
from shoe_daemon.audit import keys
from shoe_daemon.audit.ledger import Ledger, Record
from shoe_daemon.floor.config import FloorConfig
from shoe_daemon.floor.signing import Signer
from shoe_floor.chain import parse_message
from shoe_floor.collector import Collector
from shoe_floor.config import load
from shoe_floor.store import Store
from shoe_floor.table_keys import lodge
from tests.floor.real_tables import RealTable, table_toml
from tests.test_display_browser import launch

__all__ = ["PIT", "PREFIX", "Postgres", "wait_for"]  # what the tests import from here


@pytest.fixture(scope="session")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    return make_certs(tmp_path_factory.mktemp("certs"))


@pytest.fixture
def broker(tmp_path: Path, certs: Certs) -> Iterator[Broker]:
    root = tmp_path / "broker"
    root.mkdir()
    b = Broker(root, certs)
    b.login(COLLECTOR)
    b.login(PIT)
    b.start()
    yield b
    if b.proc is not None:
        b.stop()


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    pg = Postgres()
    pg.start()
    yield pg
    pg.stop()


@pytest.fixture(params=["postgresql", "sqlite"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where the collector stores: a fresh PostgreSQL database, or an SQLite file."""
    if request.param == "sqlite":
        return str(tmp_path / "floor.sqlite3")
    return request.getfixturevalue("postgres").new_database()


# Tables and the collector.

@dataclass
class Table:
    """A table's state directory with a real ledger, and its floor login."""

    name: str
    state_dir: Path
    config: FloorConfig
    ledger: Ledger
    key_id: str = ""  # its signing key's, lodged at the pit unless made with lodged=False

    def commit(self, count: int, kind: str = "frame") -> None:
        """`count` records in one transaction, as the table commits a frame's lines."""
        start = self.ledger.start()
        base = start.first_idx
        self.ledger.append_many((kind, {"type": "CARD", "fields": ["9C"], "n": base + i,
                                        "table": self.name, "text": "é♠"})
                                for i in range(count))

    def records(self) -> list:
        return list(self.ledger.records())


@pytest.fixture
def table_keys(tmp_path: Path) -> Path:
    """The collector's `[collector] table_keys`: where the tables' public keys are lodged."""
    path = tmp_path / "table-keys"
    path.mkdir()
    return path


def lodge_key(table_keys: Path, table: str, state_dir: Path) -> str:
    """The table's current public key lodged at the pit, as `shoe-floor lodge-key` does."""
    kid, _, _ = lodge(table_keys, table, keys.load_current(state_dir).public_pem, "test")
    return kid


@pytest.fixture
def make_table(tmp_path: Path, broker: Broker, table_keys: Path) -> Iterator:
    made: list[Table] = []

    def make(name: str, lodged: bool = True) -> Table:
        password = broker.login(name)
        state = tmp_path / name
        key = keys.keygen(state)
        if lodged:
            lodge_key(table_keys, name, state)
        table = Table(name, state, broker.config(name, password), Ledger(state), key.key_id)
        made.append(table)
        return table

    yield make
    for table in made:
        table.ledger.close()


@pytest.fixture
def tables(tmp_path: Path, broker: Broker, table_keys: Path) -> Iterator:
    """Make real daemons' tables (tests/floor/real_tables.py), each with its broker login
    and its signing key (as the install makes it) lodged at the pit; `port` to reach the
    broker another way (a proxy). Stopped at the end."""
    made: list[RealTable] = []

    def make(count: int, port: int | None = None, keepalive: int = 2) -> list[RealTable]:
        for _ in range(count):
            name = f"table-{len(made) + 1}"
            work = tmp_path / name
            made.append(RealTable(name, work, table_toml(broker, name, work, port, keepalive)))
            keys.keygen(work / "state")
            lodge_key(table_keys, name, work / "state")
        return made

    yield make
    for t in made:
        t.close()


@pytest.fixture
def collector_toml(tmp_path: Path, broker: Broker, database: str, table_keys: Path):
    """Write a collector's floor.toml; its path."""

    def write(client_id: str = "collector-1", **collector: object) -> Path:
        path = tmp_path / f"{client_id}.toml"
        settings = {"database": database, "client_id": client_id,
                    "table_keys": str(table_keys), "gap_grace": 0.3, "resend_every": 1.0,
                    **collector}
        lines = ["[floor]", f'broker = "mqtts://127.0.0.1:{broker.port}"',
                 f'username = "{COLLECTOR}"',
                 f'password_file = "{broker.root / (COLLECTOR + ".secret")}"',
                 f'ca_file = "{broker.certs.ca}"', f'topic_prefix = "{PREFIX}"', "keepalive = 5",
                 "", "[collector]"]
        lines += [f"{k} = {json.dumps(v)}" for k, v in settings.items()]
        path.write_text("\n".join(lines) + "\n")
        return path

    return write


@pytest.fixture
def collector(collector_toml) -> Iterator:
    """Start collectors in this process (stopped at the end); the first is `collector()`."""
    running: list[Collector] = []

    def start(client_id: str = "collector-1", **settings: object) -> Collector:
        c = Collector(load(collector_toml(client_id, **settings)))
        c.start()
        running.append(c)
        wait_for(c.connected.is_set, 20, what="the collector to connect")
        return c

    yield start
    for c in running:
        c.stop()


def settled(store_path: str, tables: list[Table]) -> bool:
    """Whether a fresh look at the store shows every table's ledger, exactly."""
    store = Store(store_path)
    try:
        return all(store.records(t.name) == t.records() for t in tables)
    finally:
        store.close()


def assert_exact(database: str, tables: list[Table], timeout: float = 60.0) -> Store:
    """Wait for the store to hold exactly each table's ledger, then say so again plainly."""
    wait_for(lambda: settled(database, tables), timeout, 0.2, "the store to match the ledgers")
    store = Store(database)
    for t in tables:
        got = store.records(t.name)
        assert [r.idx for r in got] == [r.idx for r in t.records()]
        assert got == t.records()
    return store


def floor_toml(table: Table, path: Path, keepalive: int = 5) -> Path:
    """The table's `[floor]` table as an operator writes it."""
    secret = path.parent / f"{table.name}.password"
    secret.write_text(table.config.password + "\n")
    path.write_text("\n".join([
        "[floor]", f'broker = "{table.config.url}"', f'username = "{table.name}"',
        f'password_file = "{secret.name}"', f'ca_file = "{table.config.ca_file}"',
        f'topic_prefix = "{table.config.topic_prefix}"', f"keepalive = {keepalive}"]) + "\n")
    return path


def spawn(*argv: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, *argv], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)


def kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.wait(20)


class Raw:
    """A bare MQTT 5 client under a table's login: publishes what a test tells it, as a
    forger holding that login would, and reports the broker's PUBACK reason code. Given
    the table's state directory (`signer`), it signs each records message with the table's
    key as the link does (a message changed on the wire after the table signed it, or a
    forger who holds the table's key too); without, it cannot sign."""

    def __init__(self, config: FloorConfig, signer: Path | None = None):
        import threading

        from shoe_daemon.floor.mqtt import connect, make_client

        self.table = config.table
        self.signer = Signer(signer) if signer is not None else None
        self.client = make_client(config, f"{config.username}-raw")
        self._acks: dict[int, int] = {}
        self._ready = threading.Event()
        self.client.on_connect = lambda *_: self._ready.set()
        self.client.on_publish = lambda _c, _u, mid, reason, _p: self._acks.__setitem__(
            mid, int(reason.value))
        connect(self.client, config)
        assert self._ready.wait(20)

    def publish(self, topic: str, payload: bytes,
                properties: list[tuple[str, str]] | None = None) -> int:
        """Publish `payload` with these user `properties`, or else signed over its last
        record when this client holds a key and the payload holds records."""
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties

        if properties is None and self.signer is not None:
            parsed = parse_message(payload)
            last = parsed[-1]
            if isinstance(last, Record):
                properties = self.signer.sign(self.table, last.idx, last.hash).properties()
        props = None
        if properties:
            props = Properties(PacketTypes.PUBLISH)
            props.UserProperty = properties
        mid = self.client.publish(topic, payload, qos=1, properties=props).mid
        return wait_for(lambda: self._acks.get(mid, -1) + 1, 20, what="a PUBACK") - 1

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class Listener:
    """A bare MQTT 5 subscriber under any login: every message it is sent, as (topic,
    payload, retained), and the broker's SUBACK reason codes."""

    def __init__(self, config: FloorConfig, *filters: str, client_id: str | None = None):
        import threading

        from shoe_daemon.floor.mqtt import connect, make_client

        self.client = make_client(config, client_id or f"{config.username}-listener")
        self.messages: list[tuple[str, bytes, bool]] = []
        self.granted: list[int] = []
        self._ready = threading.Event()
        self.client.on_message = lambda _c, _u, m: self.messages.append(
            (m.topic, bytes(m.payload), bool(m.retain)))
        self.client.on_subscribe = lambda _c, _u, _mid, codes, _p: self.granted.extend(
            int(c.value) for c in codes)
        self.client.on_connect = lambda *_: self._ready.set()
        connect(self.client, config)
        assert self._ready.wait(20)
        self.client.subscribe([(f, 1) for f in filters])
        wait_for(lambda: len(self.granted) == len(filters), 20, what="a SUBACK")

    def on(self, leaf: str) -> list[bytes]:
        """The payloads received on topics ending in `/leaf`, in order."""
        return [p for t, p, _ in self.messages if t.endswith("/" + leaf)]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, one per module (the pit's page tests)."""
    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()
