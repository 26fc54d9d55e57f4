"""The collector's store written a batch at a time, many tables per statement (PostgreSQL and
SQLite), and a gap another collector of the group has filled forgotten, not alarmed."""

from __future__ import annotations

import time
from pathlib import Path

from hil.floor_servers import wait_for
from shoe_daemon.audit.ledger import Ledger
from shoe_floor.chain import Tip
from shoe_floor.collector import Gap
from shoe_floor.store import Store


def ledger_records(tmp_path: Path, name: str, count: int) -> list:
    ledger = Ledger(tmp_path / name)
    ledger.append_many(("frame", {"n": i, "table": name}) for i in range(count))
    records = list(ledger.records())
    ledger.close()
    return records


def test_a_batch_of_many_tables_in_a_few_statements(tmp_path: Path, database: str) -> None:
    a, b = ledger_records(tmp_path, "a", 6), ledger_records(tmp_path, "b", 3)
    store = Store(database)
    try:
        with store.batch():
            assert store.lock_tips(["b", "a"]) == {"a": None, "b": None}
            store.add_pending("a", a[4:], 1)
            store.add_records([("a", r) for r in a[:3]] + [("b", r) for r in b], 1)
            store.add_records([("a", a[2])], 2)  # delivered twice: stored once
            store.set_tips({"a": Tip(3, a[2].hash), "b": Tip(3, b[2].hash)})
        with store.batch():
            assert store.lock_tips(["a", "b"]) == {"a": Tip(3, a[2].hash),
                                                   "b": Tip(3, b[2].hash)}
            assert store.pending(["a", "b"]) == {"a": a[4:]}
        assert store.records("a") == a[:3] and store.records("b") == b
        assert store.tip("a") == Tip(3, a[2].hash) and store.tip("nowhere") is None
    finally:
        store.close()


def test_a_gap_filled_by_another_collector_is_not_alarmed(tmp_path: Path, collector,
                                                         database: str) -> None:
    """Collectors sharing a table's stream each see part of it: the records this one waits
    for may be another's share, stored meanwhile. It asks the store before it alarms; a gap
    still open is alarmed and asked for."""
    t1, t2 = ledger_records(tmp_path, "t1", 5), ledger_records(tmp_path, "t2", 5)
    store = Store(database)
    with store.batch():  # what another collector of the group committed
        store.lock_tips(["t1", "t2"])
        store.add_records([("t1", r) for r in t1] + [("t2", t2[0])], 1)
        store.set_tips({"t1": Tip(5, t1[4].hash), "t2": Tip(1, t2[0].hash)})
    store.close()
    c = collector(gap_grace=0.0)
    long_ago = time.monotonic() - 10
    c.gaps["t1"] = Gap(missing=3, seen=long_ago)  # as this collector's last batch left them
    c.gaps["t2"] = Gap(missing=2, seen=long_ago)
    wait_for(lambda: "t1" not in c.gaps and c.gaps["t2"].alarmed, 10,
             what="the collector's look at its gaps")
    alarms = Store(database).alarms()
    assert [(a["table"], a["kind"], a["idx"]) for a in alarms] == [("t2", "gap", 2)]


def test_collectors_starting_together_on_a_new_database_make_one_schema(database: str) -> None:
    """A group's collectors started at once (a pit's reboot): each makes the schema if it is
    not there; in PostgreSQL two `CREATE TABLE IF NOT EXISTS` at once collide, so one makes
    it and the others wait for it (an advisory lock), and none of them fails."""
    import threading

    failures: list[BaseException] = []
    stores: list[Store] = []
    go = threading.Barrier(6)

    def start() -> None:
        go.wait()
        try:
            stores.append(Store(database))
        except Exception as e:  # any failure is the finding
            failures.append(e)

    threads = [threading.Thread(target=start) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for store in stores:
        store.close()
    assert not failures and len(stores) == 6, failures
