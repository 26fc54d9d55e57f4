"""The floor end to end, with a real broker, real links beside real ledgers, a real
collector and a real database (PostgreSQL, and SQLite): every case ends with the store
holding exactly each table's ledger, verified link by link."""

from __future__ import annotations

from shoe_daemon.floor.link import FloorLink
from tests.floor.conftest import assert_exact, wait_for


def test_committed_records_reach_the_store_once_verified(make_table, collector, database):
    tables = [make_table("t1"), make_table("t2")]
    collector()
    links = [FloorLink(t.config, t.state_dir, poll=0.2) for t in tables]
    for link in links:
        link.start()
    try:
        for round_ in range(5):
            for t, link in zip(tables, links, strict=True):
                t.commit(3 + round_)
                link.notify()
        store = assert_exact(database, tables)
        assert store.alarms() == []
        assert {row["table"]: row["online"] for row in store.tables()} == {
            "t1": "online", "t2": "online"}
        wait_for(lambda: all(link.backlog() == 0 for link in links), what="backlog 0")
    finally:
        for link in links:
            link.stop()
