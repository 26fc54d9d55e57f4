"""Real parts for the floor's tests: a mosquitto on a free loopback port with TLS, logins
made by the shipped script and the ACL made by the shipped code, stopped and started again
on demand; a PostgreSQL cluster made by initdb in a temporary directory, one database per
test. Nothing is mocked: the link, the broker, the collector and the database all run."""

from __future__ import annotations

import datetime
import ipaddress
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from shoe_daemon.audit.ledger import Ledger
from shoe_daemon.floor.config import FloorConfig
from shoe_floor.broker import BrokerFiles, acl_text, broker_conf
from shoe_floor.collector import Collector
from shoe_floor.config import load
from shoe_floor.store import Store

ROOT = Path(__file__).resolve().parents[2]
CREDENTIALS = ROOT / "scripts" / "floor-table-credentials"
MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
PREFIX = "test/floor"
COLLECTOR = "shoe-floor"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(check, timeout: float = 30.0, every: float = 0.05, what: str = "condition"):
    """Poll until `check()` is truthy; its value, or a failure saying what never came."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(every)


# TLS: a throwaway CA and a server certificate for the loopback address.

def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


@dataclass(frozen=True)
class Certs:
    ca: Path
    cert: Path
    key: Path


@pytest.fixture(scope="session")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    d = tmp_path_factory.mktemp("certs")
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (x509.CertificateBuilder().subject_name(_name("shoe-floor test CA"))
          .issuer_name(_name("shoe-floor test CA")).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(hours=1))
          .not_valid_after(now + datetime.timedelta(days=2))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    san = x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                       x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
    cert = (x509.CertificateBuilder().subject_name(_name("localhost"))
            .issuer_name(ca.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(san, critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .sign(ca_key, hashes.SHA256()))
    out = Certs(d / "ca.pem", d / "broker.pem", d / "broker.key")
    out.ca.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    out.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    out.key.write_bytes(_pem_key(key))
    return out


# The broker.

class Broker:
    """A mosquitto of the shipped configuration on 127.0.0.1:`port`, restartable."""

    def __init__(self, root: Path, certs: Certs):
        self.root = root
        self.certs = certs
        self.port = free_port()
        self.passwd = root / "passwd"
        self.files = BrokerFiles(certs.ca, certs.cert, certs.key, self.passwd,
                                 root / "acl", root / "data")
        self.files.persistence_dir.mkdir()
        self.files.acl_file.write_text(acl_text(PREFIX, COLLECTOR))
        extra = (f"log_dest file {root / 'mosquitto.log'}", "log_type all")
        if os.geteuid() == 0:
            extra = (*extra, "user root")  # else it drops to `mosquitto`, who cannot read here
        self.conf = root / "mosquitto.conf"
        self.conf.write_text(broker_conf(self.files, self.port, "127.0.0.1", extra))
        self.proc: subprocess.Popen | None = None

    def login(self, name: str) -> str:
        """A new login made by the shipped script; its password. A running broker reloads."""
        secret = self.root / f"{name}.secret"
        subprocess.run([str(CREDENTIALS), "--passwd", str(self.passwd), name, str(secret)],
                       check=True, capture_output=True)
        if self.proc is not None:
            self.proc.send_signal(signal.SIGHUP)
            time.sleep(0.3)  # mosquitto re-reads the files in its next loop
        return secret.read_text().strip()

    def config(self, name: str, password: str) -> FloorConfig:
        return FloorConfig("127.0.0.1", self.port, name, password, self.certs.ca, PREFIX,
                           keepalive=5)

    def start(self) -> None:
        assert self.proc is None
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(self._listening, 20, what="mosquitto to listen")

    def _listening(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise AssertionError(f"mosquitto exited {self.proc.returncode}: {self.log()[-2000:]}")
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", self.port)) == 0

    def stop(self, sig: int = signal.SIGTERM) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)
        self.proc.wait(20)
        self.proc = None

    def log(self) -> str:
        path = self.root / "mosquitto.log"
        return path.read_text(errors="replace") if path.exists() else ""


@pytest.fixture
def broker(tmp_path: Path, certs: Certs) -> Iterator[Broker]:
    root = tmp_path / "broker"
    root.mkdir()
    b = Broker(root, certs)
    b.login(COLLECTOR)
    b.start()
    yield b
    if b.proc is not None:
        b.stop()


# PostgreSQL.

def _pg_bin() -> Path:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    if not found:
        raise RuntimeError("PostgreSQL server binaries not found (Debian package postgresql)")
    return found[-1].parent


class Postgres:
    """A throwaway cluster on a unix socket; run as `postgres` when the tests run as root,
    since initdb refuses root."""

    def __init__(self) -> None:
        self.bin = _pg_bin()
        self.dir = Path(tempfile.mkdtemp(prefix="floor-pg-"))
        self.data = self.dir / "data"
        self.sock = self.dir / "sock"
        self.sock.mkdir()
        self.user = None if os.geteuid() != 0 else "postgres"
        if self.user:
            entry = pwd.getpwnam(self.user)
            for path in (self.dir, self.sock):
                os.chown(path, entry.pw_uid, entry.pw_gid)
        self.count = 0

    def _run(self, *argv: str) -> None:
        prefix = ["runuser", "-u", self.user, "--"] if self.user else []
        subprocess.run([*prefix, *argv], check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        if not self.data.exists():
            self._run(str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U",
                      "floor", "--no-sync", "-E", "UTF8")
        opts = f"-c listen_addresses='' -c unix_socket_directories={self.sock} -c fsync=off"
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-w", "-l",
                  str(self.dir / "pg.log"), "-o", opts, "start")

    def stop(self, remove: bool = True) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")
        if remove:
            shutil.rmtree(self.dir, ignore_errors=True)

    def url(self, db: str) -> str:
        return f"postgresql://floor@/{db}?host={self.sock}"

    def new_database(self) -> str:
        import psycopg

        self.count += 1
        name = f"floor_{self.count}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)


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
def make_table(tmp_path: Path, broker: Broker) -> Iterator:
    made: list[Table] = []

    def make(name: str) -> Table:
        password = broker.login(name)
        state = tmp_path / name
        table = Table(name, state, broker.config(name, password), Ledger(state))
        made.append(table)
        return table

    yield make
    for table in made:
        table.ledger.close()


@pytest.fixture
def collector_toml(tmp_path: Path, broker: Broker, database: str):
    """Write a collector's floor.toml; its path."""

    def write(client_id: str = "collector-1", **collector: object) -> Path:
        path = tmp_path / f"{client_id}.toml"
        settings = {"database": database, "client_id": client_id, "gap_grace": 0.3,
                    "resend_every": 1.0, **collector}
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
    forger holding that login would, and reports the broker's PUBACK reason code."""

    def __init__(self, config: FloorConfig):
        import threading

        from shoe_daemon.floor.mqtt import connect, make_client

        self.client = make_client(config, f"{config.username}-raw")
        self._acks: dict[int, int] = {}
        self._ready = threading.Event()
        self.client.on_connect = lambda *_: self._ready.set()
        self.client.on_publish = lambda _c, _u, mid, reason, _p: self._acks.__setitem__(
            mid, int(reason.value))
        connect(self.client, config)
        assert self._ready.wait(20)

    def publish(self, topic: str, payload: bytes) -> int:
        mid = self.client.publish(topic, payload, qos=1).mid
        return wait_for(lambda: self._acks.get(mid, -1) + 1, 20, what="a PUBACK") - 1

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
