"""Kills at exact, named points inside a stream of multi-record messages, on PostgreSQL and
SQLite: each ends with the store holding exactly each table's ledger, verified.

A crash point (shoe_daemon/floor/crashpoint.py) has the real process kill itself with SIGKILL
at a named step, armed by its environment alone; the PUBACK withheld is the network's doing
(a relay that carries the table's bytes to the broker and none back), then a kill -9 from
here. The durable state a kill can leave is one of these, whatever the instant:

- the table (a real `shoe-daemon run` against its simulated shoe): records committed and not
  published; published and not acknowledged; acknowledged and the cursor not written. The
  table deals first with no link, so its link starts with a backlog and sends it as arrays
  of up to 200 records; a restart sends from the cursor, the collector drops the copies.
- the collector (`shoe-floor collect`): a batch of arrays written and not committed (rolled
  back, delivered again); committed and not acknowledged (delivered again, dropped as
  copies); and either, with a second collector of the group at work.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from hil.floor_servers import ROOT, Proxy, wait_for
from hil.harness import stop
from shoe_daemon.floor.crashpoint import VARIABLE
from shoe_daemon.floor.cursor import acked_index
from shoe_daemon.floor.link import FloorLink
from shoe_daemon.floor.outbox import Outbox
from shoe_floor.chain import GAP, UNANCHORED
from shoe_floor.store import Store
from tests.floor.conftest import assert_exact
from tests.floor.real_tables import RealTable

BACKLOG = 900  # records a table commits before its link starts: more than four arrays
ARRAY = 200  # records a message, at most (FloorLink's batch)
EXACT = 100  # records a message in the collector's cases: so many of theirs fit in 64 KiB
KILLED = -signal.SIGKILL


def committed(state: Path) -> int:
    """The ledger's last record, read as the link reads it (read-only, beside the daemon);
    0 while the daemon is still making the ledger's file."""
    outbox = Outbox(state)
    try:
        return outbox.bounds()[1]
    except sqlite3.OperationalError:  # the file is there, its table not yet
        return 0
    finally:
        outbox.close()


def stored(database: str, table: str) -> int:
    store = Store(database)
    try:
        return len(store.records(table))
    finally:
        store.close()


def armed(point: str) -> dict[str, str]:
    return {VARIABLE: point}


def died_at(log: str, point: str) -> bool:
    return any(json.loads(line).get("point") == point
               for line in log.splitlines() if '"crash_point"' in line)


def acked_at_start(log: str) -> list[int]:
    """The cursor each run of the daemon's link started from (its `floor.start` lines)."""
    return [json.loads(line)["acked"] for line in log.splitlines() if '"floor.start"' in line]


def with_backlog(t: RealTable, seed: int) -> None:
    """The table deals with no link until its ledger holds BACKLOG records, and stops; its
    shoe waits for the next daemon, which starts with all of them to send. Three shoes: two
    are about the backlog, and a loaded machine may stop the daemon only as they end; the
    third is dealt to the next daemon, whose link must have new records to send."""
    t.start_shoe(shoes=3, pace=0.002, seed=seed)
    t.start_daemon(floor=False)
    wait_for(lambda: committed(t.state) >= BACKLOG, 90, 0.1, "the backlog to be dealt")
    assert t.daemon is not None and stop(t.daemon) == 0, t.log()[-3000:]
    assert acked_index(t.state) == 0


def test_a_crash_point_is_inert_unless_armed_and_kills_at_its_pass(tmp_path):
    script = ("from shoe_daemon.floor.crashpoint import crash_point\n"
              "for n in range(3):\n"
              "    crash_point('link.before_cursor')\n"
              "    print(n, flush=True)\n")

    def run(value: str | None) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k != VARIABLE}
        if value is not None:
            env[VARIABLE] = value
        return subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=60)

    assert run(None).stdout.split() == ["0", "1", "2"]
    assert run("link.before_publish").stdout.split() == ["0", "1", "2"]  # another point
    second = run("link.before_cursor:2")
    assert second.returncode == KILLED and second.stdout.split() == ["0"]
    assert died_at(second.stderr, "link.before_cursor")
    first = run("link.before_cursor")
    assert first.returncode == KILLED and first.stdout == ""
    for wrong in ("link.nowhere", "link.before_cursor:0", "link.before_cursor:x"):
        refused = run(wrong)
        assert refused.returncode == 1 and VARIABLE in refused.stderr, refused.stderr


# The table.

def test_the_daemon_killed_after_committing_before_publishing(tables, collector, database):
    """Killed as it packs its third array: the first two are the most the broker can have;
    the records after them are committed at the table and nowhere else."""
    c = collector()
    t = tables(1)[0]
    with_backlog(t, seed=81)
    t.start_daemon(env=armed("link.before_publish:3"))
    assert t.daemon is not None and t.daemon.wait(90) == KILLED, t.log()[-3000:]
    assert died_at(t.log(), "link.before_publish")
    at = acked_index(t.state)
    assert at <= 2 * ARRAY and stored(database, t.name) <= 2 * ARRAY
    assert committed(t.state) > 3 * ARRAY
    t.start_daemon()
    t.finish()
    store = assert_exact(database, [t], timeout=90)
    assert store.alarms() == []
    assert acked_at_start(t.log())[-1] == at  # the restart sent from the cursor
    assert acked_index(t.state) == len(t.records())
    assert c.stored == len(t.records())


def test_the_daemon_killed_after_publishing_before_the_puback(tables, collector, database,
                                                              broker):
    """The table reaches the broker through a relay that stops carrying the broker's bytes
    back once the table has sent more than its TLS handshake and login: its arrays reach the
    broker, and the collector stores them; no PUBACK reaches the table, whose cursor stays
    where it was. Then kill -9, the relay restored, the daemon started again: it sends the
    backlog again from its cursor, and the collector drops every copy."""
    proxy = Proxy(broker.port)
    try:
        c = collector()
        t = tables(1, port=proxy.port, keepalive=60)[0]  # no ping goes unanswered meanwhile
        with_backlog(t, seed=82)
        proxy.hold_replies(after=16 * 1024)
        t.start_daemon()
        wait_for(lambda: stored(database, t.name) >= BACKLOG and c.received > c.messages, 90,
                 0.1, "the arrays at the collector")
        assert t.daemon is not None
        t.daemon.send_signal(signal.SIGKILL)
        assert t.daemon.wait(30) == KILLED
        assert acked_index(t.state) == 0  # nothing acknowledged reached the table
        at_kill = stored(database, t.name)
        proxy.restore()
        t.start_daemon()
        t.finish()
        store = assert_exact(database, [t], timeout=90)
        assert store.alarms() == []
        assert acked_at_start(t.log())[-1] == 0
        assert c.received - c.stored >= at_kill  # each stored record came again, dropped
        assert acked_index(t.state) == len(t.records())
    finally:
        proxy.close()


def test_the_daemon_killed_after_the_puback_before_the_cursor(tables, collector, database):
    """Killed as it is about to move its cursor the second time: the broker has acknowledged
    arrays beyond the cursor on disk, which the collector then stores; the restart sends
    them again from the cursor, and the collector drops the copies."""
    c = collector()
    t = tables(1)[0]
    with_backlog(t, seed=83)
    t.start_daemon(env=armed("link.before_cursor:2"))
    assert t.daemon is not None and t.daemon.wait(90) == KILLED, t.log()[-3000:]
    assert died_at(t.log(), "link.before_cursor")
    at = acked_index(t.state)
    assert at >= 2  # the end of a message of several records
    at_kill = wait_for(lambda: (n := stored(database, t.name)) > at and n, 30, 0.1,
                       "the acknowledged arrays beyond the cursor at the collector")
    t.start_daemon()
    t.finish()
    store = assert_exact(database, [t], timeout=90)
    assert store.alarms() == []
    assert acked_at_start(t.log())[-1] == at
    assert c.received - c.stored >= at_kill - at
    assert acked_index(t.state) == len(t.records())


# The collector.

def start_collector(toml: Path, env: dict[str, str]) -> tuple[subprocess.Popen, Path]:
    """`shoe-floor collect` as deployed, with a crash point armed; its log's path."""
    log = toml.with_suffix(".log")
    with log.open("a") as out:
        proc = subprocess.Popen([sys.executable, "-m", "shoe_floor.cli", "collect", "--config",
                                 str(toml)], cwd=ROOT, stdout=out, stderr=out,
                                env={**os.environ, **env})
    wait_for(lambda: '"collector.connected"' in log.read_text() or proc.poll() is not None,
             30, what="the collector to connect")
    assert proc.poll() is None, log.read_text()
    return proc, log


BATCH_POINTS = [pytest.param("collector.before_commit:2", id="before-commit"),
                pytest.param("collector.before_ack", id="after-commit-before-ack")]


@pytest.mark.parametrize("point", BATCH_POINTS)
def test_the_collector_killed_mid_batch(make_table, collector_toml, collector, database,
                                        point):
    """A backlog of ten arrays; the collector is killed in a batch of them: before its
    commit (the second batch: the first stays, this one is rolled back and comes again), or
    after its commit and before any acknowledgement (the first: it all comes again, and is
    dropped as copies). Started again, it stores exactly the rest."""
    table = make_table("t1")
    table.commit(10 * EXACT)
    proc, log = start_collector(collector_toml("collector-1"), armed(point))
    link = FloorLink(table.config, table.state_dir, poll=0.1, batch=EXACT)
    link.start()
    try:
        assert proc.wait(60) == KILLED, log.read_text()[-3000:]
        assert died_at(log.read_text(), point.split(":")[0])
        kept = stored(database, "t1")
        assert 0 < kept < 10 * EXACT and kept % EXACT == 0  # whole arrays: the first batch
        wait_for(lambda: link.backlog() == 0, 60, what="the broker to take every array")
        again = collector("collector-1")  # its session: what it had not acknowledged
        store = assert_exact(database, [table])
        assert store.alarms() == []
        assert again.stored == 10 * EXACT - kept
        if point == "collector.before_ack":
            assert again.received - again.stored >= kept  # the committed batch, again
    finally:
        link.stop()
        if proc.poll() is None:
            proc.kill()


@pytest.mark.parametrize("point", BATCH_POINTS)
def test_a_collector_of_a_group_killed_mid_batch(make_table, collector_toml, collector,
                                                 database, point):
    """Two collectors share the arrays of three tables; one is killed in a batch, the other
    works on. What the dead one held waits in its session at the broker; started again, it
    takes it, and the store holds every ledger. Each collector sees the other's share as a
    gap for a while: gap alarms, resends, nothing else."""
    tables = [make_table(f"t{i}") for i in range(3)]
    for t in tables:
        t.commit(5 * EXACT)
    proc, log = start_collector(collector_toml("collector-1", batch_size=2 * EXACT),
                                armed(point))
    other = collector("collector-2", batch_size=2 * EXACT)
    links = [FloorLink(t.config, t.state_dir, poll=0.1, batch=EXACT) for t in tables]
    for link in links:
        link.start()
    try:
        assert proc.wait(60) == KILLED, log.read_text()[-3000:]
        assert died_at(log.read_text(), point.split(":")[0])
        wait_for(lambda: other.received > 0, 30, what="the other collector at work")
        again = collector("collector-1", batch_size=2 * EXACT)
        store = assert_exact(database, tables, timeout=120)
        assert {a["kind"] for a in store.alarms()} <= {GAP, UNANCHORED}
        assert again.received > 0  # what it had not acknowledged, from its session
    finally:
        for link in links:
            link.stop()
        if proc.poll() is None:
            proc.kill()
