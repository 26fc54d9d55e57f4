"""The pit the store's attacks run against (tests/attack/test_store.py): a real mosquitto, a
real PostgreSQL cluster, `shoe-floor collect` as its own process, and two real daemons
dealing simulated shoes over ptys, each table's key made, printed and lodged by the commands
an installer runs. The store they fill is then copied for each attack (a PostgreSQL
template), so every attack starts from the same untouched, collected store; the floor's
commands run as processes against the copy."""

from __future__ import annotations

import contextlib
import json
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from hil.floor_servers import (
    COLLECTOR,
    PREFIX,
    ROOT,
    Broker,
    Postgres,
    make_certs,
    wait_for,
)
from shoe_daemon.audit.ledger import Record
from shoe_floor.store import Store
from tests.floor.real_tables import RealTable, table_toml

TABLES = ("t1", "t2")


def run(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True, timeout=300)


def floor_cli(*argv: str) -> subprocess.CompletedProcess[str]:
    """`shoe-floor ...` as the pit's operator runs it."""
    return run(sys.executable, "-m", "shoe_floor.cli", *argv)


def daemon_cli(*argv: str) -> subprocess.CompletedProcess[str]:
    """`shoe-daemon ...` as a table's installer, or the regulator, runs it."""
    return run(sys.executable, "-m", "shoe_daemon.service.cli", *argv)


@dataclass
class Pit:
    root: Path
    pg: Postgres
    broker: Broker
    source: str  # the collected store's database: the template of every copy
    table_keys: Path  # the pit's lodged keys, [collector] table_keys
    regulator_keys: Path  # the same keys as the casino lodged them with the regulator
    floor_state: Path  # the floor's signing key
    floor_key: Path  # its public key, as the casino lodged it with the regulator
    tables: dict[str, RealTable] = field(default_factory=dict)
    copies: int = 0

    def copy(self, table_keys: Path | None = None) -> tuple[Store, Path]:
        """A fresh copy of the collected store, opened to write behind the collector's back,
        and a floor.toml whose `[collector] database` is that copy (and `table_keys` this
        directory, if given: the pit's own is shared by every attack)."""
        import psycopg

        self.copies += 1
        name = f"attack_{self.copies}"
        with psycopg.connect(self.pg.url("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name} TEMPLATE {self.source}")
        url = self.pg.url(name)
        return Store(url, create=False), self.toml(url, name, table_keys)

    def toml(self, database: str, name: str, table_keys: Path | None = None) -> Path:
        path = self.root / f"{name}.toml"
        path.write_text("\n".join([
            "[floor]", f'broker = "mqtts://127.0.0.1:{self.broker.port}"',
            f'username = "{COLLECTOR}"', f'password_file = "{self.broker.secret(COLLECTOR)}"',
            f'ca_file = "{self.broker.certs.ca}"', f'topic_prefix = "{PREFIX}"', "",
            "[collector]", f'database = "{database}"', f'client_id = "{name}"',
            f'table_keys = "{table_keys or self.table_keys}"', "gap_grace = 0.3",
            "resend_every = 1.0", "",
            "[export]", f'state_dir = "{self.floor_state}"']) + "\n")
        return path

    def ledger(self, table: str) -> list[Record]:
        return self.tables[table].records()


def _collector(toml: Path, log: Path) -> subprocess.Popen[bytes]:
    with log.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "shoe_floor.cli", "collect", "--config",
                                 str(toml)], cwd=ROOT, stdout=err, stderr=err)
    try:
        wait_for(lambda: '"collector.connected"' in log.read_text() or proc.poll() is not None,
                 30, what="the collector to connect")
        assert proc.poll() is None, log.read_text()[-2000:]
    except BaseException:
        proc.kill()  # never left running behind a failed start
        proc.wait()
        raise
    return proc


def _lodge(pit: Pit, toml: Path, table: RealTable) -> None:
    """The table's key made and printed at the table, lodged at the pit, as docs/floor.md
    says; the same PEM lodged with the regulator."""
    made = daemon_cli("audit", "keygen", "--state-dir", str(table.state))
    assert made.returncode == 0, made.stderr
    printed = daemon_cli("audit", "public-key", "--state-dir", str(table.state))
    pem = table.workdir / f"{table.name}.pub.pem"
    pem.write_text(printed.stdout)
    lodged = floor_cli("lodge-key", "--config", str(toml), table.name, str(pem))
    assert lodged.returncode == 0, lodged.stderr
    kid = printed.stdout.splitlines()[-1].split()[-1]
    (pit.regulator_keys / table.name).mkdir(parents=True)
    shutil.copy(pem, pit.regulator_keys / table.name / f"{kid}.pub.pem")


def _settled(database: str, tables: list[RealTable]) -> bool:
    store = Store(database, create=False)
    try:
        return all(store.records(t.name) == t.records() for t in tables)
    finally:
        store.close()


@contextlib.contextmanager
def collected_pit(root: Path) -> Iterator[Pit]:
    """Two tables that each dealt a whole shoe through their links, every record collected
    by `shoe-floor collect` into PostgreSQL, the collector stopped; the floor's key made."""
    broker = Broker(_made(root / "broker"), make_certs(_made(root / "certs")))
    broker.login(COLLECTOR)
    broker.start()
    pg = Postgres()
    pg.start()
    source = pg.new_database()
    pit = Pit(root, pg, broker, source.split("@/", 1)[1].split("?")[0],
              _made(root / "table-keys"), root / "regulator-keys", root / "floor-state",
              root / "floor.pub.pem")
    collector = None
    try:
        toml = pit.toml(source, "collector-1")
        assert floor_cli("keygen", "--config", str(toml)).returncode == 0
        pit.floor_key.write_text(floor_cli("public-key", "--config", str(toml)).stdout)
        collector = _collector(toml, root / "collector.log")
        for n, name in enumerate(TABLES):
            table = RealTable(name, root / name, table_toml(broker, name, root / name))
            pit.tables[name] = table
            _lodge(pit, toml, table)
            table.start_shoe(shoes=1, pace=0.002, seed=90 + n)
            table.start_daemon()
        for table in pit.tables.values():
            table.finish()
        wait_for(lambda: _settled(source, list(pit.tables.values())), 60, 0.2,
                 "the store to hold every ledger")
        collector.send_signal(signal.SIGTERM)
        assert collector.wait(30) == 0
        collector = None
        yield pit
    finally:
        if collector is not None:
            collector.kill()
            collector.wait()
        for table in pit.tables.values():
            table.close()
        pg.stop()
        broker.stop()


def _made(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def events(directory: Path, name: str = "events.jsonl") -> list[dict]:
    return [json.loads(line) for line in (directory / name).read_text().splitlines()]
