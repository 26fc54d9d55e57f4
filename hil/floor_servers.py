"""Real servers for the floor's demo, tests and bench, in one copy: a mosquitto on a free
loopback port with TLS (a throwaway CA), logins made by the shipped script and the ACL made
by the shipped code, stopped and started again on demand; a PostgreSQL cluster made by
initdb in a temporary directory; and a TCP proxy that can cut the network between a table
and its broker. `python -m hil.harness demo --floor` and bench/floor.py use them as they
are; tests/floor/conftest.py wraps them in fixtures."""

from __future__ import annotations

import datetime
import ipaddress
import os
import pwd
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from shoe_daemon.floor.config import FloorConfig
from shoe_floor.broker import BrokerFiles, acl_text, broker_conf

ROOT = Path(__file__).resolve().parents[1]
CREDENTIALS = ROOT / "scripts" / "floor-table-credentials"
MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
PREFIX = "test/floor"
COLLECTOR = "shoe-floor"
PIT = "shoe-floor-pit"  # the pit page's login: reads the tables' public topics only


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


def make_certs(d: Path) -> Certs:
    """A CA, and the broker's certificate for localhost and 127.0.0.1, written into `d`."""
    d.mkdir(parents=True, exist_ok=True)
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

    def __init__(self, root: Path, certs: Certs, log: bool = True, prefix: str = PREFIX):
        self.root = root
        self.certs = certs
        self.prefix = prefix
        self.port = free_port()
        self.passwd = root / "passwd"
        self.files = BrokerFiles(certs.ca, certs.cert, certs.key, self.passwd,
                                 root / "acl", root / "data")
        self.files.persistence_dir.mkdir()
        self.files.acl_file.write_text(acl_text(prefix, COLLECTOR, PIT))
        extra: tuple[str, ...] = (f"log_dest file {root / 'mosquitto.log'}",
                                  "log_type all" if log else "log_type error")
        if os.geteuid() == 0:
            extra = (*extra, "user root")  # else it drops to `mosquitto`, who cannot read here
        self.conf = root / "mosquitto.conf"
        self.conf.write_text(broker_conf(self.files, self.port, "127.0.0.1", extra))
        self.proc: subprocess.Popen | None = None

    def secret(self, name: str) -> Path:
        """The file holding a login's password, as the script wrote it."""
        return self.root / f"{name}.secret"

    def login(self, name: str) -> str:
        """A new login made by the shipped script; its password. A running broker reloads."""
        secret = self.secret(name)
        subprocess.run([str(CREDENTIALS), "--passwd", str(self.passwd), name, str(secret)],
                       check=True, capture_output=True)
        if self.proc is not None:
            self.proc.send_signal(signal.SIGHUP)
            time.sleep(0.3)  # mosquitto re-reads the files in its next loop
        return secret.read_text().strip()

    def config(self, name: str, password: str, port: int | None = None) -> FloorConfig:
        """A login's link settings; `port` to reach the broker another way (a proxy)."""
        return FloorConfig("127.0.0.1", port or self.port, name, password, self.certs.ca,
                           self.prefix, keepalive=5)

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


# PostgreSQL.

def _pg_bin() -> Path:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    if not found:
        raise RuntimeError("PostgreSQL server binaries not found (Debian package postgresql)")
    return found[-1].parent


class Postgres:
    """A throwaway cluster on a unix socket; run as `postgres` when the tests run as root,
    since initdb refuses root. `options`: more `-c name=value` server settings."""

    def __init__(self, options: tuple[str, ...] = ()) -> None:
        self.bin = _pg_bin()
        self.dir = Path(tempfile.mkdtemp(prefix="floor-pg-"))
        self.data = self.dir / "data"
        self.sock = self.dir / "sock"
        self.sock.mkdir()
        self.options = options
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
        opts = " ".join([f"-c listen_addresses='' -c unix_socket_directories={self.sock} "
                         "-c fsync=off", *(f"-c {o}" for o in self.options)])
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


# The network between a table and its broker.

class Proxy:
    """A TCP relay on a free loopback port to `target`, whose network can be cut: `cut()`
    stops carrying bytes both ways without closing anything, so each TCP session hangs as it
    does when a cable is pulled (what is in flight stays in the kernels' buffers, and new
    connections are accepted and go nowhere), and `restore()` carries them again.
    `hold_replies(after)` stops carrying the broker's bytes back on each connection once the
    table has sent `after` bytes on it (its TLS handshake and login are shorter): what the
    table publishes then reaches the broker and the broker's acknowledgements never reach
    the table, until `restore()`."""

    def __init__(self, target_port: int):
        self.target = ("127.0.0.1", target_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.flowing = threading.Event()
        self.flowing.set()
        self._stop = threading.Event()
        self._pairs: dict[socket.socket, socket.socket] = {}
        self._waiting: list[socket.socket] = []  # accepted while cut: joined on restore
        self._upstream: set[socket.socket] = set()  # the broker's side of each pair
        self._sent: dict[socket.socket, int] = {}  # bytes each table has sent upstream
        self._hold_after: int | None = None
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="proxy", daemon=True)
        self._thread.start()

    def cut(self) -> None:
        self.flowing.clear()

    def restore(self) -> None:
        self._hold_after = None
        self.flowing.set()

    def hold_replies(self, after: int = 0) -> None:
        self._hold_after = after

    def _held(self, s: socket.socket) -> bool:
        """Whether the broker's bytes on `s` (its side of a pair) wait: the table has sent
        more than `hold_replies`' count on that connection."""
        after = self._hold_after
        return after is not None and s in self._upstream and \
            self._sent.get(self._pairs.get(s), 0) > after

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.listener.close()
        for s in [*self._pairs, *self._waiting]:
            s.close()

    def _join(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(self.target, timeout=5)
        except OSError:
            client.close()
            return
        self._pairs[client], self._pairs[upstream] = upstream, client
        self._upstream.add(upstream)

    def _drop(self, s: socket.socket) -> None:
        other = self._pairs.pop(s, None)
        s.close()
        if other is not None:
            self._pairs.pop(other, None)
            other.close()
        for gone in (s, other):
            if gone is not None:
                self._upstream.discard(gone)
                self._sent.pop(gone, None)

    def _run(self) -> None:
        while not self._stop.is_set():
            flowing = self.flowing.is_set()
            if flowing and self._waiting:
                for client in self._waiting:
                    self._join(client)
                self._waiting.clear()
            watched = [self.listener, *(p for p in self._pairs if flowing and not self._held(p))]
            ready, _, _ = select.select(watched, [], [], 0.05)
            for s in ready:
                if s is self.listener:
                    client, _ = self.listener.accept()
                    if self.flowing.is_set():
                        self._join(client)
                    else:
                        self._waiting.append(client)
                    continue
                if s not in self._pairs or self._held(s):
                    continue
                try:
                    data = s.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    self._drop(s)
                    continue
                if s not in self._upstream:
                    self._sent[s] = self._sent.get(s, 0) + len(data)
                try:
                    self._pairs[s].sendall(data)
                except (OSError, KeyError):
                    self._drop(s)
