"""The floor with real daemons: `shoe-daemon run` processes with a `[floor]` table, each
against its simulated shoe over a pty (hil/harness.py), a real mosquitto, a real collector
into PostgreSQL. The broker killed mid-shoe, the network cut for a long stretch of play, the
daemon killed with SIGKILL with records committed and not yet sent: every case ends with
the store holding exactly each table's ledger, verified, and the table never held up.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from hil.floor_servers import ROOT, Proxy, wait_for
from hil.harness import display_url
from shoe_daemon.floor.cursor import acked_index, backlog
from shoe_floor.store import Store
from tests.floor.conftest import assert_exact

pytestmark = pytest.mark.parametrize("database", ["postgresql"], indirect=True)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "shoe_daemon.service.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def stored(database: str, table: str) -> int:
    store = Store(database)
    try:
        return len(store.records(table))
    finally:
        store.close()


def test_three_real_tables_reach_the_store_exactly(tables, collector, database):
    dealt = tables(3)
    dealt[0].http = "127.0.0.1:0"  # one with its display on, two without: the floor still
    collector()                    # gets each table's public view
    for i, t in enumerate(dealt):
        t.start_shoe(shoes=1, pace=0.004, seed=40 + i)
        t.start_daemon()
    wait_for(lambda: all((t.status().get("floor") or {}).get("connected") for t in dealt), 30,
             what="every link to connect")
    during = cli("status", "--state-dir", str(dealt[1].state))
    assert during.returncode == 0, during.stdout
    assert "floor: connected to mqtts://127.0.0.1:" in during.stdout
    assert dealt[0].shoe is not None and dealt[0].daemon is not None
    dealt[0].shoe.wait(120)
    url = display_url(dealt[0].workdir, dealt[0].daemon)
    with urllib.request.urlopen(f"{url}api/state", timeout=10) as reply:
        shown = reply.read()  # what the table's screen shows: the public view
    wait_for(lambda: last_state(database, dealt[0].name) == shown, 20,
             what="the floor to hold the view the screen shows")
    for t in dealt:
        t.finish()
    store = assert_exact(database, dealt)
    assert store.alarms() == []
    rows = {r["table"]: r for r in store.tables()}
    for t in dealt:
        assert acked_index(t.state) == len(t.records()) and backlog(t.state) == 0
        assert rows[t.name]["online"] == "offline"  # a clean stop says so
        view = json.loads(rows[t.name]["state"])
        assert view["table"] == t.name and view["shoe"]["number"] == t.coups()[-1]["shoe"]
    kinds = [r.kind for r in dealt[0].records()]
    assert kinds[0] == "daemon.start" and kinds[-1] == "daemon.stop"
    after = cli("status", "--state-dir", str(dealt[1].state))
    assert "floor: link not running; the broker has acknowledged every record through " \
        f"{len(dealt[1].records())}; 0 to send" in after.stdout, after.stdout


def last_state(database: str, table: str) -> bytes | None:
    store = Store(database)
    try:
        row = {r["table"]: r for r in store.tables()}.get(table)
        return None if row is None or row["state"] is None else bytes(row["state"])
    finally:
        store.close()


def test_the_broker_killed_and_restarted_mid_shoe(tables, collector, database, broker):
    dealt = tables(2)
    collector()
    for i, t in enumerate(dealt):
        t.start_shoe(shoes=1, pace=0.01, seed=50 + i)
        t.start_daemon()
    wait_for(lambda: all(stored(database, t.name) > 50 for t in dealt), 30,
             what="records at the collector")
    broker.stop(signal.SIGKILL)  # no save: what it acknowledged since its last save is lost
    down = wait_for(lambda: (r := cli("status", "--state-dir", str(dealt[0].state))).stdout
                    .count("floor: DOWN") and r, 20, 0.2, "status to say the floor is down")
    assert down.returncode == 0, down.stdout  # the table plays on: in play, exit 0
    assert "floor link down since" in dealt[0].status()["status"]
    before = [len(t.coups()) for t in dealt]
    time.sleep(2.0)
    assert all(len(t.coups()) > n for t, n in zip(dealt, before, strict=True))  # played on
    broker.start()
    for t in dealt:
        t.finish()
    store = assert_exact(database, dealt, timeout=90)
    assert {a["kind"] for a in store.alarms()} <= {"gap"}  # the broker's loss, repaired
    for t in dealt:
        assert '"floor.disconnected"' in t.log() and t.log().count('"floor.connected"') >= 2


def test_the_network_cut_for_a_long_stretch_of_play(tables, collector, database, broker):
    """Tables reach the broker through a relay that is cut (nothing carried, nothing closed:
    the TCP sessions hang, as when a cable is pulled) for 15 s of fast play, some hundreds of
    coups at each table (hours of a real table's play), over several of the link's attempts
    to reconnect; then the network comes back under play."""
    proxy = Proxy(broker.port)
    try:
        dealt = tables(2, port=proxy.port)
        collector()
        for i, t in enumerate(dealt):
            t.start_shoe(shoes=20, pace=0.004, seed=60 + i)
            t.start_daemon()
        wait_for(lambda: all(stored(database, t.name) > 20 for t in dealt), 30,
                 what="records at the collector")
        proxy.cut()
        cut_at, back_at = [len(t.coups()) for t in dealt], time.monotonic() + 15.0
        wait_for(lambda: all((t.status().get("floor") or {}).get("connected") is False
                             for t in dealt), 20, 0.2, "the links to see the cut")
        wait_for(lambda: time.monotonic() > back_at and all(
            len(t.coups()) - n >= 120 for t, n in zip(dealt, cut_at, strict=True)),
                 60, 0.2, "at least 120 coups dealt at each table with the network cut")
        held = [stored(database, t.name) for t in dealt]
        assert all(backlog(t.state) > 500 for t in dealt)
        proxy.restore()
        wait_for(lambda: all((t.status().get("floor") or {}).get("connected") for t in dealt),
                 30, 0.2, "the links to come back")
        for t in dealt:
            assert t.shoe is not None and t.shoe.poll() is None  # still dealing
            t.finish(shoe_off=True)
        store = assert_exact(database, dealt, timeout=90)
        assert store.alarms() == []
        assert all(len(t.records()) > h + 500 for t, h in zip(dealt, held, strict=True))
        for t in dealt:
            assert '"floor.disconnected"' in t.log() and '"floor.unreachable"' in t.log()
    finally:
        proxy.close()


def test_the_daemon_killed_with_records_committed_and_unsent(tables, collector, database,
                                                            broker):
    dealt = tables(2)
    collector()
    for i, t in enumerate(dealt):
        t.start_shoe(shoes=2, pace=0.006, seed=70 + i)
        t.start_daemon()
    wait_for(lambda: all(stored(database, t.name) > 20 for t in dealt), 30,
             what="records at the collector")
    broker.stop()
    first = dealt[0]
    wait_for(lambda: backlog(first.state) > 200, 30, what="records committed, not sent")
    acked = acked_index(first.state)
    assert first.daemon is not None
    first.daemon.send_signal(signal.SIGKILL)  # between its commits and their publishing
    first.daemon.wait(10)
    waiting = backlog(first.state)
    assert acked_index(first.state) == acked and waiting > 200
    broker.start()
    time.sleep(1.0)  # the shoe waits for its ACKs meanwhile; the other table sends again
    first.start_daemon()
    wait_for(lambda: acked_index(first.state) > acked + waiting, 30,
             what="the restarted daemon to send what the dead one left")
    assert first.daemon is not None
    first.daemon.send_signal(signal.SIGKILL)  # and once more, with records on the wire
    first.daemon.wait(10)
    first.start_daemon()
    for t in dealt:
        t.finish()
    store = assert_exact(database, dealt, timeout=90)
    assert store.alarms() == []
    assert first.log().count('"daemon.start"') == 3
