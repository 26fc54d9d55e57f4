"""`python -m hil.harness demo --floor`: the floor on one machine (issue 11).

A broker (mosquitto with the shipped configuration and ACL, TLS with a throwaway CA, one
login per table, and the collector's and the pit page's own), `shoe-floor collect` into an
SQLite file, and a few tables, each a simulated shoe dealing at a croupier's pace and the
real daemon with a `[floor]` table and its own signing key (`audit keygen`), lodged at the
pit with `shoe-floor lodge-key`. It prints each table's display URL, then every result as
the floor received it (read back from the collector's store, not from the tables), and at
the end whether the floor holds exactly every table's ledger; the pit's page (`shoe-floor
serve`, on its own read-only login) shows the tables live meanwhile, to the pit's people made
for the run (a pit boss, a surveillance officer and a regulator; their PINs and badges
printed, as the console's demo prints its people).
"""

from __future__ import annotations

import json
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO

from hil.console_demo import DemoPerson, made_for_this_run, save_demo_people
from hil.floor_servers import COLLECTOR, MOSQUITTO, PIT, Broker, make_certs, wait_for
from hil.processes import ROOT, display_url, start_daemon, start_shoe, stop
from hil.readable import describe
from shoe_daemon.audit import keys
from shoe_daemon.audit.ledger import Ledger
from shoe_daemon.floor.topics import DEFAULT_PREFIX
from shoe_floor.pit.people import PEOPLE_FILE, PitRole, pit_people
from shoe_floor.store import Store


def _floor_table(broker: Broker, name: str) -> list[str]:
    """A login's `[floor]` table: the secret file the credentials script wrote for it."""
    return ["[floor]", f'broker = "mqtts://127.0.0.1:{broker.port}"', f'username = "{name}"',
            f'password_file = "{broker.secret(name)}"',
            f'ca_file = "{broker.certs.ca}"', f'topic_prefix = "{broker.prefix}"']


def demo_pit_people(config: Path) -> list[DemoPerson]:
    """A pit boss, a surveillance officer and a regulator with secrets made for this run, in
    the pit's people file beside `config` (as `shoe-floor people add` makes it)."""
    return save_demo_people(pit_people(config.parent / PEOPLE_FILE), made_for_this_run([
        ("pitboss", "Demo Pit Boss", PitRole.PIT_BOSS, "DEMO-P"),
        ("surveillance", "Demo Surveillance", PitRole.SURVEILLANCE, "DEMO-V"),
        ("regulator", "Demo Regulator", PitRole.REGULATOR, "DEMO-R")]))


def start_pit_page(config: Path, work: Path, info: TextIO) -> subprocess.Popen | None:
    """The pit's page (`shoe-floor serve`) on the collector's store; its URL as it announces
    it in its log."""
    log = work / "pit.log"
    proc = subprocess.Popen([sys.executable, "-m", "shoe_floor.cli", "serve", "--config",
                             str(config)], cwd=ROOT, stdout=log.open("w"), stderr=subprocess.STDOUT)
    try:
        url = wait_for(lambda: re.search(r"https?://[^\s\"']+", log.read_text()), 15,
                       what="the pit page's URL")[0]
        print(f"pit page: {url} (open it in a browser)", file=info, flush=True)
    except AssertionError:
        print(f"pit page: started, its log in {log}", file=info, flush=True)
    return proc


class FloorWatch:
    """The results the floor has stored, read-only from the collector's SQLite file."""

    def __init__(self, database: Path):
        self.database = database
        self.seen: dict[str, int] = {}

    def new_lines(self) -> list[tuple[str, dict[str, Any]]]:
        if not self.database.exists():
            return []
        db = sqlite3.connect(f"file:{self.database}?mode=ro", uri=True)
        try:
            rows = db.execute("SELECT table_id, idx, body FROM records WHERE kind = 'result' "
                              "ORDER BY received_at, table_id, idx").fetchall()
        except sqlite3.OperationalError:  # the collector has not made its tables yet
            return []
        finally:
            db.close()
        out = []
        for table, idx, body in rows:
            if idx > self.seen.get(table, 0):
                self.seen[table] = idx
                out.append((table, json.loads(body)["line"]))
        return out


def floor_demo(profile: str, tables: int, shoes: int, pace: float, seed: int,
               as_json: bool) -> int:
    def _stop(*_: Any) -> None:
        raise KeyboardInterrupt

    if not Path(MOSQUITTO).is_file():
        print("demo --floor: mosquitto, the floor's broker, is not installed; `bash "
              "scripts/setup` installs it (scripts/debian-packages.txt)", file=sys.stderr)
        return 1
    signal.signal(signal.SIGTERM, _stop)
    info = sys.stderr if as_json else sys.stdout
    names = [f"table-{i + 1}" for i in range(tables)]
    running: list[subprocess.Popen] = []
    with tempfile.TemporaryDirectory(prefix="shoe-floor-demo-") as tmp:
        work = Path(tmp)
        (work / "broker").mkdir()
        broker = Broker(work / "broker", make_certs(work / "certs"), log=False,
                        prefix=DEFAULT_PREFIX)
        for name in [COLLECTOR, PIT, *names]:
            broker.login(name)
        broker.start()
        database = work / "floor.sqlite3"
        config = work / "floor.toml"
        table_keys = work / "table-keys"
        table_keys.mkdir()
        config.write_text("\n".join([*_floor_table(broker, COLLECTOR), "", "[collector]",
                                     f'database = "{database}"',
                                     f'table_keys = "{table_keys}"',
                                     'client_id = "demo-collector"', "", "[pit]",
                                     'http = "127.0.0.1:0"', 'client_id = "demo-pit"',
                                     'name = "the demo floor"',
                                     f'username = "{PIT}"',
                                     f'password_file = "{broker.secret(PIT)}"']) + "\n")
        tables_at: dict[str, Path] = {}
        try:
            log = work / "collector.log"
            running.append(subprocess.Popen(
                [sys.executable, "-m", "shoe_floor.cli", "collect", "--config", str(config)],
                cwd=ROOT, stdout=log.open("w"), stderr=subprocess.STDOUT))
            wait_for(lambda: "collector.connected" in log.read_text(), 30,
                     what="the collector to connect")
            print(f"floor: broker mqtts://127.0.0.1:{broker.port}, collector into {database}",
                  file=info, flush=True)
            print("pit people (sign in at the pit page):", file=info)
            for person in demo_pit_people(config):
                print(person.said(), file=info, flush=True)
            pit = start_pit_page(config, work, info)
            if pit is not None:
                running.append(pit)
            shoes_run = []
            for i, name in enumerate(names):
                where = work / name
                where.mkdir()
                (where / "shoe-daemon.toml").write_text("\n".join(_floor_table(broker, name))
                                                        + "\n")
                _lodge(config, name, where / "state")
                shoe, _ = start_shoe(where, profile, shoes=shoes, seed=seed + i, pace=pace)
                daemon = start_daemon(where, profile, http="127.0.0.1:0", extra=[
                    "--config", str(where / "shoe-daemon.toml"), "--table", name])
                running += [shoe, daemon]
                shoes_run.append(shoe)
                tables_at[name] = where / "state"
                print(f"{name}: table display {display_url(where, daemon)}", file=info,
                      flush=True)
            print(f"{tables} simulated {profile} tables, seed {seed}; each result below as the "
                  "floor stored it; Ctrl-C to stop", file=info, flush=True)
            watch = FloorWatch(database)
            while any(s.poll() is None for s in shoes_run):
                _show(watch, as_json)
                time.sleep(0.3)
        except KeyboardInterrupt:
            pass
        except (RuntimeError, AssertionError) as failed:
            print(f"demo: {failed}", file=sys.stderr)
            return 1
        finally:
            for proc in reversed(running[1:]):  # the tables (their links send the rest)
                stop(proc)
        try:
            held = _settle(database, tables_at)
            _show(FloorWatch(database), as_json, quiet=True)
            print(held, file=info, flush=True)
        finally:
            stop(running[0])
            broker.stop()
    return 0


def _lodge(config: Path, name: str, state: Path) -> None:
    """The table's signing key, made as the install makes it, and its public half lodged at
    the pit as the casino does (`shoe-floor lodge-key`): the collector stores only records
    their table signed."""
    made = keys.keygen(state)
    public = keys.keys_dir(state) / f"{made.stem}.pub.pem"
    subprocess.run([sys.executable, "-m", "shoe_floor.cli", "lodge-key", "--config",
                    str(config), name, str(public)], cwd=ROOT, check=True,
                   capture_output=True)


def _show(watch: FloorWatch, as_json: bool, quiet: bool = False) -> None:
    for table, line in watch.new_lines():
        if not quiet:
            print(json.dumps({"table": table, **line}) if as_json else
                  f"{table}  {describe(line)}", flush=True)


def _settle(database: Path, tables: dict[str, Path], timeout: float = 20.0) -> str:
    """Whether the floor holds exactly each table's ledger, in a line."""
    def compare() -> dict[str, tuple[int, int]]:
        store = Store(str(database))
        try:
            out = {}
            for name, state in tables.items():
                ledger = Ledger(state)
                try:
                    mine = list(ledger.records())
                finally:
                    ledger.close()
                theirs = store.records(name)
                out[name] = (len(theirs) if theirs == mine else -1, len(mine))
            return out
        finally:
            store.close()

    deadline = time.monotonic() + timeout
    counts = compare()
    while any(a != b for a, b in counts.values()) and time.monotonic() < deadline:
        time.sleep(0.5)
        counts = compare()
    said = ", ".join(f"{name} {b} records" for name, (_, b) in counts.items())
    if all(a == b for a, b in counts.values()):
        return f"floor: every table's ledger at the floor, verified link by link ({said})"
    short = [name for name, (a, b) in counts.items() if a != b]
    return f"floor: {', '.join(short)} not yet whole at the floor ({said})"
