"""The floor's bench, with a real mosquitto and a real PostgreSQL (hil/floor_servers.py):

- drain: records a second the collector takes from a backlog into PostgreSQL. Many tables'
  ledgers (real records: dealt shoes' frames and results, real chains and seals) are sent
  to the broker by their own floor links while no collector runs, as during a pit outage;
  then `shoe-floor collect` starts and the bench times until every record is stored
  (goal: at least 20,000 records/s). Then the store is exported whole (`shoe-floor
  export`: every record proven by its table's kept signatures) and the export checked with
  the lodged keys (`shoe-floor verify`), each timed.
- latency: from a table's commit (the record's `wall_ns`, stamped just before the ledger's
  commit) to the row's commit in PostgreSQL (`track_commit_timestamp`), p50 and p99, with
  200 simulated tables dealing at a croupier's pace (each a real ledger and a real
  FloorLink, one commit per shoe message) and a few real daemons against simulated shoes
  (goal: p99 under 250 ms). The collector runs as its own process, as deployed.
- page: from a table's commit of a change that makes its tile different (a new coup, a
  result) to the pit's page showing it, p50 and p99, with the same 200 simulated tables
  (each also publishing its display's public view after each commit, as the daemon does;
  in `latency` they commit records only) and the same real daemons, `shoe-floor serve` and
  Debian's Chromium, headless, showing the real page: a MutationObserver installed before
  the page's script notes `performance.timeOrigin + performance.now()` (wall clock, ms) when
  a tile first shows each (shoe, coup, outcome). The commit's time is the record's `wall_ns`,
  as for the row. Beside it: the same on the page's event stream (a client in its own
  process: the server's part), the row latency of the same run, Chromium's main-thread time,
  and the CPU used by each program on the machine while the tables dealt (goal: p99 under
  250 ms).
- table: the cost to the table, its deciding-frame latency through the real daemon
  (bench/latency.py) with no link, with the link and the broker up, with the broker down,
  and with the network to it cut.

    .venv/bin/python bench/floor.py [drain] [latency] [page] [table] [--tables 200]
        [--records 1000]
"""

from __future__ import annotations

import argparse
import heapq
import json
import logging
import multiprocessing
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import structlog

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.display_latency import CHROMIUM_ARGS  # noqa: E402
from bench.latency import machine_name, report  # noqa: E402
from bench.latency import run as table_latency  # noqa: E402
from drivers.messages import Hello, Message  # noqa: E402
from drivers.records import frame_body, next_seq  # noqa: E402
from hil.dealer import deal_shoes  # noqa: E402
from hil.floor_demo import demo_pit_people  # noqa: E402
from hil.floor_servers import (  # noqa: E402
    COLLECTOR,
    PIT,
    PREFIX,
    Broker,
    Postgres,
    Proxy,
    make_certs,
    wait_for,
)
from hil.harness import start_daemon, start_shoe, stop  # noqa: E402
from shoe_daemon.audit import keys  # noqa: E402
from shoe_daemon.audit.ledger import Ledger  # noqa: E402
from shoe_daemon.display.publisher import TableDisplay  # noqa: E402
from shoe_daemon.floor.config import FloorConfig  # noqa: E402
from shoe_daemon.floor.link import FloorLink  # noqa: E402
from shoe_daemon.game.coup import CoupMachine  # noqa: E402
from shoe_daemon.game.houses import get_profile  # noqa: E402
from shoe_floor.collector import Collector  # noqa: E402
from shoe_floor.config import parse  # noqa: E402
from shoe_floor.table_keys import lodge  # noqa: E402

Commit = list[tuple[str, dict[str, Any]]]  # what the table commits for one shoe message


def table_commits(profile: str, seed: int, shoes: int = 2) -> list[Commit]:
    """Dealt shoes as the table commits them: each message's frame and the lines it decided."""
    machine = CoupMachine(get_profile(profile))
    commits, seq = [], 0
    for message in deal_shoes(profile, shoes=shoes, seed=seed).messages:
        if isinstance(message, Hello):
            seq = 0
        lines = machine.handle(message)
        commits.append([("frame", frame_body(seq, message)),
                        *(("result", {"line": line}) for line in lines)])
        seq = next_seq(seq)
    return commits


class SimTable:
    """A simulated table as the daemon runs one: its coup machine takes each message the
    simulated croupier deals, the frame and the lines it decided are committed in one
    transaction, and then (with `views`) its display's public view is published through the
    link, the same JSON the table's screen gets."""

    def __init__(self, name: str, ledger: Ledger, link: FloorLink, seed: int, views: bool):
        self.machine = CoupMachine(get_profile("baden"))
        self.ledger = ledger
        self.link = link
        self.seed = seed
        self.messages: list[Message] = []
        self.n = 0
        self.seq = 0
        self.display = TableDisplay(name, self._publish) if views else None
        self.view: bytes | None = None  # the last view published
        self.shown = tile_key(None, None)  # a tile without a view: no change to see
        self.changes: list[tuple[str, int]] = []  # (the tile's key, the commit's wall_ns)

    def _publish(self, view: bytes) -> None:
        self.view = view
        self.link.publish_state(view)

    def step(self) -> None:
        if self.n == len(self.messages):  # dealt out: the croupier opens new shoes
            self.messages += deal_shoes("baden", shoes=2, seed=self.seed).messages
            self.seed += 1000
        message = self.messages[self.n]
        self.n += 1
        if isinstance(message, Hello):
            self.seq = 0
        lines = self.machine.handle(message)
        records = self.ledger.append_many([("frame", frame_body(self.seq, message)),
                                           *(("result", {"line": line}) for line in lines)])
        self.seq = next_seq(self.seq)
        self.link.notify()
        if self.display is None:
            return
        for line in lines:
            self.display.record(line)
        before = self.view
        self.display.show(self.machine)
        if self.view is before:
            return  # the view did not change
        view = json.loads(self.view or b"{}")
        key = tile_key(view.get("shoe"), view.get("coup"))
        if key != self.shown:
            self.shown = key
            self.changes.append(("/".join(key), records[0].wall_ns))


def tile_key(shoe: dict[str, Any] | None, coup: dict[str, Any] | None) -> tuple[str, ...]:
    """What makes a tile different to the eye, as the page's recorder reads it back from the
    tile: shoe and coup number and the coup's outcome (pit.js: data-shoe, data-coup, the
    `outcome` span)."""
    return (str(shoe["number"]) if shoe else "", str(coup["number"]) if coup else "",
            (coup.get("outcome") or "") if coup else "")


class Floor:
    """A broker, a PostgreSQL database, and the logins of a collector and `tables` tables."""

    def __init__(self, work: Path, tables: int, batch_size: int):
        self.work = work
        (work / "broker").mkdir()
        self.broker = Broker(work / "broker", make_certs(work / "certs"), log=False)
        self.names = [f"t{i:03d}" for i in range(tables)]
        self.passwords = {name: self.broker.login(name)
                          for name in [COLLECTOR, PIT, *self.names]}
        self.broker.start()
        self.pg = Postgres(("track_commit_timestamp=on",))
        self.pg.start()
        self.database = self.pg.new_database()
        self.batch_size = batch_size
        self.table_keys = work / "table-keys"
        self.table_keys.mkdir()

    def keyed(self, name: str, state: Path) -> None:
        """The table's signing key, made as the install makes it (unless made already) and
        lodged at the pit as the casino does: the collector stores only signed records."""
        if keys.current_stem(state) is None:
            keys.keygen(state)
        lodge(self.table_keys, name, keys.load_current(state).public_pem, name)

    def toml(self, n: int = 1) -> Path:
        """Collector n's file: its own client id, the one group (they share the records)."""
        path = self.work / f"collector-{n}.toml"
        path.write_text("\n".join([
            "[floor]", f'broker = "mqtts://127.0.0.1:{self.broker.port}"',
            f'username = "{COLLECTOR}"', f'password = "{self.passwords[COLLECTOR]}"',
            f'ca_file = "{self.broker.certs.ca}"', f'topic_prefix = "{PREFIX}"', "",
            "[collector]", f'database = "{self.database}"', f'client_id = "collector-{n}"',
            f'table_keys = "{self.table_keys}"', f"batch_size = {self.batch_size}"]) + "\n")
        return path

    def collector(self, n: int = 1) -> Collector:
        import tomllib

        return Collector(parse(tomllib.loads(self.toml(n).read_text()), self.work))

    def collector_process(self, n: int = 1) -> subprocess.Popen:
        """`shoe-floor collect`, as deployed; its log in collector-N.log."""
        log = (self.work / f"collector-{n}.log").open("a")
        return subprocess.Popen([sys.executable, "-m", "shoe_floor.cli", "collect", "--config",
                                 str(self.toml(n))], cwd=ROOT, stdout=log, stderr=log)

    def pit_process(self) -> tuple[subprocess.Popen, str]:
        """`shoe-floor serve` on collector 1's file with a `[pit]` table, as deployed; its
        process and its page's URL."""
        toml = self.work / "pit.toml"
        toml.write_text(self.toml(1).read_text() + "\n[pit]\nhttp = \"127.0.0.1:0\"\n"
                        f'client_id = "pit-1"\nusername = "{PIT}"\n'
                        f'password = "{self.passwords[PIT]}"\n')
        log_path = self.work / "pit.log"
        with log_path.open("a") as log:
            proc = subprocess.Popen([sys.executable, "-m", "shoe_floor.cli", "serve",
                                     "--config", str(toml)], cwd=ROOT, stdout=log, stderr=log)

        def url() -> str | None:
            for line in log_path.read_text().splitlines():
                if '"pit.listening"' in line:
                    return str(json.loads(line)["url"])
            if proc.poll() is not None:
                raise RuntimeError(f"shoe-floor serve exited: {log_path.read_text()[-2000:]}")
            return None

        return proc, wait_for(url, 60, 0.1, "the pit's page to listen")

    def pit_session(self, url: str) -> str:
        """A demo pit boss made for this run, signed in at the page: the session's cookie
        (name=value), for the stream's reader and Chromium."""
        boss = next(p for p in demo_pit_people(self.work / "pit.toml") if p.role == "pit_boss")
        body = json.dumps({"id": f"bench-{os.getpid():010d}", "method": "pin",
                           "person": boss.id, "pin": boss.pin}).encode()
        origin = url.rstrip("/")
        request = urllib.request.Request(origin + "/api/sign-in", data=body, method="POST",
                                         headers={"Content-Type": "application/json",
                                                  "Origin": origin})
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.headers["Set-Cookie"].split(";", 1)[0]

    def stored(self) -> int:
        import psycopg

        with psycopg.connect(self.database) as conn:
            return conn.execute("SELECT count(*) FROM records").fetchone()[0]

    def daemon_toml(self, name: str, port: int | None = None) -> Path:
        path = self.work / f"{name}.toml"
        path.write_text("\n".join([
            "[floor]", f'broker = "mqtts://127.0.0.1:{port or self.broker.port}"',
            f'username = "{name}"', f'password = "{self.passwords[name]}"',
            f'ca_file = "{self.broker.certs.ca}"', f'topic_prefix = "{PREFIX}"']) + "\n")
        return path

    def close(self) -> None:
        if self.broker.proc is not None:
            self.broker.stop()
        self.pg.stop()


# ---- many tables' links, in processes of their own ------------------------------------------

LINKS_PER_PROCESS = 40  # paho waits on select(), which takes descriptors below 1024 only:
                        # a link holds about 6 (its socket, paho's wake-up pair, the ledger)


def _in_processes(work: Any, tables: list[tuple[FloorConfig, Path]], *args: Any) -> None:
    """`work(tables_slice, *args)` in forked processes of LINKS_PER_PROCESS tables each."""
    context = multiprocessing.get_context("fork")
    procs = [context.Process(target=work, args=(tables[i:i + LINKS_PER_PROCESS], *args))
             for i in range(0, len(tables), LINKS_PER_PROCESS)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join()
        if proc.exitcode != 0:
            raise RuntimeError(f"a load process failed ({proc.exitcode})")


def _send_backlog(tables: list[tuple[FloorConfig, Path]], records: int) -> None:
    """Each table's link sends its ledger's `records` records and stops."""
    links = [FloorLink(config, state, window=500) for config, state in tables]
    for link in links:
        link.start()
    wait_for(lambda: all(link.acked == records for link in links), 600, 0.2,
             "every table's records on the broker")
    for link in links:
        link.stop()


# ---- drain ---------------------------------------------------------------------------------

def drain(work: Path, tables: int, records: int, batch_size: int,
          collectors: int) -> dict[str, Any]:
    floor = Floor(work, tables, batch_size)
    try:
        for n in range(1, collectors + 1):  # their sessions and shared subscription, then
            first = floor.collector(n)      # they go away: the backlog waits for them
            first.start()
            wait_for(first.connected.is_set, 20, what="the collector to connect")
            first.stop()
        template = [r for commit in table_commits("baden", 1, shoes=records // 450 + 1)
                    for r in commit][:records]
        t = time.monotonic()
        states = []
        for name in floor.names:
            state = work / "tables" / name
            ledger = Ledger(state)
            for i in range(0, len(template), 500):
                ledger.append_many(template[i:i + 500])
            ledger.close()
            floor.keyed(name, state)
            states.append(state)
        made = time.monotonic() - t
        t = time.monotonic()
        _in_processes(_send_backlog, [(floor.broker.config(name, floor.passwords[name]), state)
                                      for name, state in zip(floor.names, states, strict=True)],
                      records)
        queued = time.monotonic() - t
        total = tables * records
        before = _cpu_by_program()
        procs = [floor.collector_process(n) for n in range(1, collectors + 1)]
        t0 = time.monotonic()
        try:
            wait_for(lambda: floor.stored() >= total, 900, 0.1, "the store to hold everything")
            wall = time.monotonic() - t0
            cpu = {k: round(v - before.get(k, 0.0), 1) for k, v in _cpu_by_program().items()
                   if v - before.get(k, 0.0) >= 0.1}
        finally:
            for proc in procs:
                stop(proc)
        import psycopg

        with psycopg.connect(floor.database) as conn:
            first_ts, last_ts = conn.execute(
                "SELECT extract(epoch FROM min(pg_xact_commit_timestamp(xmin))), "
                "extract(epoch FROM max(pg_xact_commit_timestamp(xmin))) FROM records").fetchone()
            alarms = dict(conn.execute("SELECT kind, count(*) FROM alarms GROUP BY kind")
                          .fetchall())
        exact = _exact(floor.database, floor.names, states)
        span = float(last_ts - first_ts)
        return {"tables": tables, "records": total, "collectors": collectors,
                "batch_size": batch_size,
                "ledgers_made_s": round(made, 1), "sent_to_broker_s": round(queued, 1),
                "collector_start_to_all_stored_s": round(wall, 2),
                "records_per_s_from_start": round(total / wall),
                "records_per_s_first_to_last_commit": round(total / span) if span else None,
                "cpu_s_during_drain": cpu,
                "alarms": alarms, "store_equals_ledgers": exact,
                **_export_and_verify(floor)}
    finally:
        floor.close()


def _export_and_verify(floor: Floor) -> dict[str, Any]:
    """The drained store exported whole by `shoe-floor export` (every table's records proven
    by its kept signatures, checked with its lodged key) and the export checked by `shoe-floor
    verify` with the lodged keys, each timed as its own process."""
    toml = floor.toml(1)
    toml.write_text(toml.read_text() + f'\n[export]\nstate_dir = "{floor.work / "floor"}"\n')
    cli = [sys.executable, "-m", "shoe_floor.cli"]
    subprocess.run([*cli, "keygen", "--config", str(toml)], check=True, capture_output=True)
    out = floor.work / "export"
    t = time.monotonic()
    subprocess.run([*cli, "export", "--config", str(toml), "--out", str(out)], check=True,
                   capture_output=True)
    exported = time.monotonic() - t
    t = time.monotonic()
    subprocess.run([*cli, "verify", str(out), "--public-key", str(out / "floor.pub.pem"),
                    "--table-keys", str(floor.table_keys)], check=True, capture_output=True)
    checked = time.monotonic() - t
    signatures = sum(len((d / "signatures.jsonl").read_bytes().splitlines())
                     for d in out.iterdir() if d.is_dir())
    return {"export_s": round(exported, 1), "verify_s": round(checked, 1),
            "export_signatures": signatures}


def _cpu_by_program() -> dict[str, float]:
    """CPU seconds (user and system) used so far by each program running, by name: where a
    drain's time goes (the collectors, mosquitto, PostgreSQL's backends)."""
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[str, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
            cmdline = (stat.parent / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        fields = text.rsplit(")", 1)[1].split()
        name = text[text.index("(") + 1:text.rindex(")")]
        if b"shoe_floor.cli" in cmdline:
            name = "shoe-floor " + cmdline[cmdline.index(b"shoe_floor.cli") + 1].decode()
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return out


class Load:
    """The machine's 1-minute load average, sampled every 2 s while the block runs: the
    other work sharing the machine, for the figures' row."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while True:
            self.samples.append(os.getloadavg()[0])
            if self._done.wait(2.0):
                return

    def __enter__(self) -> Load:
        self._thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self._done.set()
        self._thread.join()

    def range(self) -> list[float]:
        return [round(min(self.samples), 1), round(max(self.samples), 1)]


def _exact(database: str, names: list[str], states: list[Path]) -> bool:
    from shoe_floor.store import Store

    store = Store(database)
    try:
        for name, state in zip(names, states, strict=True):
            ledger = Ledger(state)
            try:
                if store.records(name) != list(ledger.records()):
                    return False
            finally:
                ledger.close()
        return True
    finally:
        store.close()


# ---- latency -------------------------------------------------------------------------------

def latency(work: Path, tables: int, pace: float, seconds: float, daemons: int,
            batch_size: int, page: bool = False) -> dict[str, Any]:
    """The row latency; with `page`, the tables publish their views, `shoe-floor serve` and
    Chromium show the pit's page, and the page latency is measured too."""
    floor = Floor(work, tables + daemons, batch_size)
    collector = floor.collector_process()
    real: list[tuple[Path, subprocess.Popen, subprocess.Popen]] = []
    pit: subprocess.Popen | None = None
    watcher: Any = None
    try:
        wait_for(lambda: "collector.connected" in (work / "collector-1.log").read_text(), 30,
                 what="the collector to connect")
        if page:
            pit, url = floor.pit_process()
            cookie = floor.pit_session(url)
            watcher, ready, done = _page_watcher(url, cookie, work / "shown.json")
            if not ready.wait(120):
                raise RuntimeError("the pit's page did not come up in Chromium")
            stream = multiprocessing.get_context("spawn").Process(
                target=_watch_stream, args=(url, cookie, str(work / "streamed.jsonl")),
                daemon=True)
            stream.start()
        names, daemon_names = floor.names[:tables], set(floor.names[tables:])
        for i, name in enumerate(sorted(daemon_names)):
            where = work / "daemons" / name
            where.mkdir(parents=True)
            shoe, _ = start_shoe(where, "baden", seed=80 + i, extra=(
                "--pace-range", str(pace / 2), str(pace * 1.5)))
            floor.keyed(name, where / "state")
            daemon = start_daemon(where, "baden", http="off", extra=(
                "--config", str(floor.daemon_toml(name)), "--table", name))
            real.append((where, shoe, daemon))
        for name in names:
            floor.keyed(name, work / "tables" / name)
        began_ns = time.time_ns()
        cpu_before = _cpu_by_program()
        views = work / "views" if page else None
        if views is not None:
            views.mkdir()
        with Load() as load:
            _in_processes(_deal, [(floor.broker.config(name, floor.passwords[name]),
                                   work / "tables" / name) for name in names], pace, seconds,
                          views)
        dealt_ns = time.time_ns()
        cpu = {k: round(v - cpu_before.get(k, 0.0), 1) for k, v in _cpu_by_program().items()
               if v - cpu_before.get(k, 0.0) >= 0.5}
        for _, shoe, daemon in real:
            stop(shoe)
            stop(daemon)
        expected = sum(_count(work / "tables" / name) for name in names) + sum(
            _count(where / "state") for where, _, _ in real)
        wait_for(lambda: floor.stored() >= expected, 120, 0.2, "the store to hold everything")
        import psycopg

        with psycopg.connect(floor.database) as conn:
            rows = conn.execute(
                "SELECT table_id, extract(epoch FROM pg_xact_commit_timestamp(xmin)) * 1e3 "
                "- wall_ns / 1e6 FROM records WHERE wall_ns >= %s", (began_ns,)).fetchall()
        simulated = [float(ms) for table, ms in rows if table not in daemon_names]
        from_daemons = [float(ms) for table, ms in rows if table in daemon_names]
        out = {"tables": tables, "real_daemons": daemons, "pace_s": pace, "seconds": seconds,
               "records": len(rows), "records_per_s": round(len(rows) / seconds),
               "simulated": _quantiles(simulated), "real_daemons_figures":
                   _quantiles(from_daemons), "cpu_s_while_dealing": cpu,
               "load_1min_while_dealing": load.range()}
        if views is not None:
            time.sleep(2.0)  # the last views reach the page (a broker hop and an SSE event)
            done.set()
            watcher.join(120)
            stream.terminate()
            watched = json.loads((work / "shown.json").read_text())
            shown = watched["shown"]
            streamed = [json.loads(line) for line in
                        (work / "streamed.jsonl").read_text().splitlines()]
            changes: dict[str, list[tuple[str, int]]] = {}
            for part in views.glob("*.json"):
                changes.update(json.loads(part.read_text()))
            results = {name: _results(where / "state", began_ns)
                       for (where, _, _), name in zip(real, sorted(daemon_names), strict=True)}
            out["page"] = _page_figures(shown, changes, results, began_ns)
            out["sse_event"] = _page_figures([r[:3] for r in streamed], changes, results,
                                             began_ns)
            out["stream_per_s"] = _stream_rates(work / "streamed.jsonl.counts", began_ns,
                                                dealt_ns)
            out["page_main_thread_s"] = watched["main_thread_s"]
        return out
    finally:
        if watcher is not None and watcher.is_alive():
            watcher.terminate()
        for _, shoe, daemon in real:
            stop(shoe)
            stop(daemon)
        if pit is not None:
            stop(pit)
        stop(collector)
        floor.close()


# In the page, before its script: when each tile first shows each (shoe, coup, outcome),
# whether the page adds a tile anew or changes the one it has (its attributes, its parts).
PAGE_RECORDER = """
window.__shown = [];
(() => {
  const last = new Map();
  const keyOf = (tile) => {
    const outcome = tile.querySelector(".state .outcome");
    return [tile.dataset.shoe, tile.dataset.coup,
            outcome ? outcome.className.replace(/^outcome /, "") : ""].join("/");
  };
  document.addEventListener("DOMContentLoaded", () => {
    const board = document.getElementById("tiles");
    new MutationObserver((records) => {
      const t = performance.timeOrigin + performance.now();
      const touched = new Set();
      for (const r of records) {
        if (r.target === board) {
          for (const node of r.addedNodes) {
            if (node.classList && node.classList.contains("tile")) touched.add(node);
          }
        } else {
          const node = r.target.nodeType === 1 ? r.target : r.target.parentElement;
          const tile = node && node.closest(".tile");
          if (tile) touched.add(tile);
        }
      }
      for (const tile of touched) {
        if (!tile.isConnected) continue;
        const key = keyOf(tile);
        if (last.get(tile.dataset.table) !== key) {
          last.set(tile.dataset.table, key);
          window.__shown.push([tile.dataset.table, key, t]);
        }
      }
    }).observe(board, {childList: true, subtree: true, characterData: true, attributes: true,
                       attributeFilter: ["data-shoe", "data-coup", "class"]});
  });
})();
"""


def _page_watcher(url: str, cookie: str, out: Path) -> tuple[Any, Any, Any]:
    """Chromium on the page in a process of its own (the load's processes are forked from
    this one, which must not hold Playwright's threads); (process, ready, done)."""
    context = multiprocessing.get_context("spawn")
    ready, done = context.Event(), context.Event()
    proc = context.Process(target=_watch_page, args=(url, cookie, str(out), ready, done),
                           daemon=True)
    proc.start()
    return proc, ready, done


def _watch_page(url: str, cookie: str, out: str, ready: Any, done: Any) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1920, "height": 1080})
        name, value = cookie.split("=", 1)
        page.context.add_cookies([{"name": name, "value": value, "url": url}])  # signed in
        page.add_init_script(PAGE_RECORDER)
        page.goto(url)
        while page.evaluate("document.body.dataset.link") != "live":
            time.sleep(0.05)  # wait_for_function would need eval, which the CSP forbids
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")

        def metrics() -> dict[str, float]:
            return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}

        before = metrics()
        ready.set()
        while not done.wait(1.0):
            page.evaluate("window.__shown.length")  # keep the driver's connection serviced
        after = metrics()
        # Where the page's main thread spent its time meanwhile (Chromium's own counters).
        spent = {name: round(after[name] - before.get(name, 0.0), 1) for name in (
            "TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")
            if name in after}
        Path(out).write_text(json.dumps({"shown": page.evaluate("window.__shown"),
                                         "main_thread_s": spent}))
        browser.close()


def _watch_stream(url: str, cookie: str, out: str) -> None:
    """The page's event stream read as Chromium reads it, in a process of its own: when each
    tile's key first arrives (wall clock, ms), one JSON line each, until terminated. It
    splits the page's latency into the server's part and the browser's."""
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=600)
    conn.request("GET", "/api/events", headers={"Cookie": cookie})
    response = conn.getresponse()
    last: dict[str, str] = {}
    event = b""
    tiles = feet = foot_events = 0  # so far: whole tiles, and counts alone (pit.js: foot)
    written = 0.0
    with open(out, "a") as sink, open(out + ".counts", "a") as counts:
        while line := response.readline():
            if line.startswith(b"event: "):
                event = line[7:].strip()
            if not line.startswith(b"data: ") or event not in (b"tile", b"tiles", b"foot"):
                continue
            now = time.time() * 1000
            data = json.loads(line[6:])
            if event == b"foot":
                foot_events += 1
                feet += len(data["feet"])
            for tile in (data["tiles"] if event == b"tiles" else [data["tile"]]
                         if event == b"tile" else []):
                tiles += event == b"tile"
                key = "/".join(tile_key(tile.get("shoe"), tile.get("coup")))
                if last.get(tile["table"]) != key:
                    last[tile["table"]] = key
                    sink.write(json.dumps([tile["table"], key, now, tiles]) + "\n")
                    sink.flush()
            if now - written >= 1000:  # the counts, a line a second: rates over any span
                written = now
                counts.write(json.dumps([now, tiles, foot_events, feet]) + "\n")
                counts.flush()


def _stream_rates(path: Path, began_ns: int, ended_ns: int) -> dict[str, float]:
    """What the page's stream carried a second while the tables dealt: whole tiles (`tile`
    events), `foot` events, and the tiles' feet in them."""
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    inside = [r for r in rows if began_ns / 1e6 <= r[0] <= ended_ns / 1e6]
    if len(inside) < 2:
        return {}
    (t0, *first), (t1, *last) = inside[0], inside[-1]
    span = (t1 - t0) / 1000
    return {name: round((b - a) / span, 1) for name, a, b in zip(
        ("tile_events", "foot_events", "feet"), first, last, strict=True)}


def _results(state: Path, since_ns: int) -> list[tuple[str, int]]:
    """A real daemon's results as its tile shows them, with their commit's wall_ns."""
    ledger = Ledger(state)
    try:
        return [("/".join((str(line["shoe"]), str(line["coup"]), line["outcome"])), r.wall_ns)
                for r in ledger.records() if r.kind == "result" and r.wall_ns >= since_ns
                and (line := r.body.get("line", {})).get("event") == "coup.result"]
    finally:
        ledger.close()


def _page_figures(shown: list[list[Any]], changes: dict[str, list[tuple[str, int]]],
                  results: dict[str, list[tuple[str, int]]], began_ns: int) -> dict[str, Any]:
    """Each change matched with the first time its tile showed it at or after the commit."""
    seen: dict[tuple[str, str], list[float]] = {}
    for table, key, t_ms in shown:
        seen.setdefault((table, key), []).append(float(t_ms))

    def delays(wanted: dict[str, list[tuple[str, int]]]) -> tuple[list[float], int]:
        ms, missing = [], 0
        for table, keyed in wanted.items():
            for key, wall_ns in keyed:
                if wall_ns < began_ns:
                    continue
                at = wall_ns / 1e6
                later = [t for t in seen.get((table, key), []) if t >= at - 1.0]
                if later:
                    ms.append(min(later) - at)
                else:
                    missing += 1
        return ms, missing

    simulated, sim_missing = delays(changes)
    daemons, daemon_missing = delays(results)
    return {"simulated_changes": _quantiles(simulated), "not_shown": sim_missing,
            "real_daemons_results": _quantiles(daemons), "daemon_results_not_shown":
                daemon_missing, "tiles_changed_on_page": len(shown)}


def _count(state: Path) -> int:
    ledger = Ledger(state)
    try:
        return sum(1 for _ in ledger.records())
    finally:
        ledger.close()


def _deal(tables: list[tuple[FloorConfig, Path]], pace: float, seconds: float,
          views: Path | None = None) -> None:
    """Tables dealing at a croupier's pace: each shoe message committed as the table commits
    it (its frame and the lines it decided, one transaction), then the link told. With
    `views`, each table also publishes its public view, and the changes of its tile's key
    with their commit's wall_ns go to a JSON file in that directory."""
    ledgers = [Ledger(state) for _, state in tables]
    links = [FloorLink(config, state) for config, state in tables]
    sims = [SimTable(config.table, ledger, link, 100 + i % 20, views is not None)
            for i, ((config, _), ledger, link) in enumerate(zip(tables, ledgers, links,
                                                                strict=True))]
    for link in links:
        link.start()
    wait_for(lambda: all(link.connected for link in links), 60, what="links to connect")
    rng = random.Random(len(tables))
    due = [(time.monotonic() + rng.uniform(0, pace), i) for i in range(len(tables))]
    heapq.heapify(due)
    end = time.monotonic() + seconds
    while due[0][0] < end:
        when, i = heapq.heappop(due)
        time.sleep(max(0.0, when - time.monotonic()))
        sims[i].step()
        heapq.heappush(due, (when + rng.uniform(pace / 2, pace * 1.5), i))
    wait_for(lambda: all(link.backlog() == 0 for link in links), 120, 0.2,
             "every link's backlog to drain")
    for link in links:
        link.stop(drain=2.0)
    for ledger in ledgers:
        ledger.close()
    if views is not None:
        (views / f"{os.getpid()}.json").write_text(json.dumps(
            {config.table: sim.changes for (config, _), sim in zip(tables, sims, strict=True)}))


def _quantiles(ms: list[float]) -> dict[str, Any]:
    if len(ms) < 2:
        return {"n": len(ms)}
    q = statistics.quantiles(ms, n=100, method="inclusive")  # never beyond the max
    return {"n": len(ms), "p50_ms": round(q[49], 1), "p99_ms": round(q[98], 1),
            "max_ms": round(max(ms), 1)}


# ---- the cost to the table -----------------------------------------------------------------

def table_cost(work: Path, coups: int, gap: float, seed: int) -> dict[str, Any]:
    floor = Floor(work, 3, 500)
    collector = floor.collector_process()
    proxy = Proxy(floor.broker.port)
    figures: dict[str, Any] = {}
    try:
        up, cut, down = floor.names  # a login each: each run is a new ledger
        figures["no link"] = report("no link", table_latency("baden", coups, gap, None, seed))
        figures["link, broker up"] = report("link, broker up", table_latency(
            "baden", coups, gap, None, seed, ("--config", str(floor.daemon_toml(up))),
            keyed=lambda state: floor.keyed(up, state)))
        figures["link, broker up"]["records_at_the_floor"] = floor.stored()
        proxy.cut()
        figures["link, network cut"] = report("link, network cut", table_latency(
            "baden", coups, gap, None, seed, ("--config", str(floor.daemon_toml(cut,
                                                                                proxy.port)))))
        floor.broker.stop()
        figures["link, broker down"] = report("link, broker down", table_latency(
            "baden", coups, gap, None, seed, ("--config", str(floor.daemon_toml(down)))))
    finally:
        proxy.close()
        stop(collector)
        floor.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("parts", nargs="*", default=["drain", "latency", "page", "table"],
                        choices=["drain", "latency", "page", "table"])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--records", type=int, default=1000, help="per table, for the drain")
    parser.add_argument("--batch-size", type=int, default=500, help="the collector's")
    parser.add_argument("--collectors", type=int, default=1,
                        help="collector processes sharing the drain (one group)")
    parser.add_argument("--pace", type=float, default=2.0,
                        help="mean seconds between a simulated table's commits")
    parser.add_argument("--seconds", type=float, default=60.0, help="of dealing, for latency")
    parser.add_argument("--daemons", type=int, default=3, help="real daemons, for latency")
    parser.add_argument("--coups", type=int, default=200, help="for the table's cost")
    parser.add_argument("--gap", type=float, default=0.02, help="for the table's cost")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    print("machine:", machine_name(), flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    for part in args.parts:
        work = Path(tempfile.mkdtemp(prefix=f"floor-bench-{part}-"))
        try:
            if part == "drain":
                out = drain(work, args.tables, args.records, args.batch_size,
                            args.collectors)
            elif part in ("latency", "page"):
                out = latency(work, args.tables, args.pace, args.seconds, args.daemons,
                              args.batch_size, page=part == "page")
            else:
                out = table_cost(work, args.coups, args.gap, args.seed)
            print(f"{part}: {json.dumps(out)}", flush=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
