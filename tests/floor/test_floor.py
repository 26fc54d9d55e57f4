"""The floor end to end, with a real broker, real links beside real ledgers, a real
collector and a real database (PostgreSQL, and SQLite): every case ends with the store
holding exactly each table's ledger, verified link by link."""

from __future__ import annotations

import signal

import pytest

from shoe_daemon.audit.ledger import Record, chain_hash
from shoe_daemon.floor import acked_index
from shoe_daemon.floor.cursor import Cursor, write_cursor
from shoe_daemon.floor.link import FloorLink
from shoe_daemon.floor.outbox import message
from shoe_daemon.floor.topics import ONLINE, RECORDS, STATE, topic
from shoe_floor.chain import BROKEN, CONFLICT, EDITED, GAP, MALFORMED, UNANCHORED
from shoe_floor.collector import Collector
from shoe_floor.config import load
from shoe_floor.store import Store
from tests.floor.conftest import (
    PREFIX,
    Postgres,
    Raw,
    assert_exact,
    floor_toml,
    kill,
    spawn,
    wait_for,
)


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
                link.publish_state(f'{{"coup": {round_}}}'.encode())
        store = assert_exact(database, tables)
        assert store.alarms() == []
        assert {row["table"]: row["online"] for row in store.tables()} == {
            "t1": "online", "t2": "online"}
        wait_for(lambda: [bytes(r["state"] or b"") for r in Store(database).tables()] == [
            b'{"coup": 4}'] * 2, what="the tables' last state")
        wait_for(lambda: all(link.backlog() == 0 for link in links), what="backlog 0")
    finally:
        for link in links:
            link.stop()


def test_a_resend_from_the_start_stores_nothing_twice(make_table, collector, database):
    table = make_table("t1")
    c = collector()
    link = FloorLink(table.config, table.state_dir, poll=0.2)
    link.start()
    try:
        table.commit(20)
        link.notify()
        assert_exact(database, [table])
        stored = c.stored
        c.client.publish(f"{table.config.topic_prefix}/t1/resend", b"1", qos=1)
        table.commit(2)
        link.notify()
        store = assert_exact(database, [table])
        assert c.stored == stored + 2
        assert store.alarms() == []
    finally:
        link.stop()


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["stopped", "killed"])
def test_the_broker_down_while_the_table_commits(make_table, collector, database, broker, how):
    """Committed while the broker is down: kept in the ledger, sent in order when it returns.
    Killed (no save of its queue), the broker may lose records it acknowledged: the
    collector sees the gap when the next records arrive and has the table resend."""
    table = make_table("t1")
    collector()
    link = FloorLink(table.config, table.state_dir, poll=0.1, retry=0.3)
    link.start()
    try:
        table.commit(10)
        link.notify()
        assert_exact(database, [table])
        for _ in range(20):  # records on their way when the broker goes
            table.commit(5)
            link.notify()
        broker.stop(how)
        wait_for(lambda: not link.connected, what="the link to see the broker gone")
        for _ in range(10):
            table.commit(3)
            link.notify()
        assert link.backlog() > 0
        broker.start()
        table.commit(4)
        link.notify()
        assert_exact(database, [table], timeout=90)
        wait_for(lambda: link.backlog() == 0, what="the backlog to drain")
    finally:
        link.stop()


def tampered(record: Record, *, body: dict | None = None, prev: str | None = None,
             rehash: bool = False) -> bytes:
    """A copy of a record as a forger would send it: content changed, and perhaps rechained
    with the public chain_hash (the HMAC seal it cannot make is copied as it was)."""
    fake = Record(record.idx, record.wall_ns, record.mono_ns, record.boot, record.kind,
                  body if body is not None else record.body,
                  prev if prev is not None else record.prev, record.hash, record.mac)
    if rehash:
        fake = Record(fake.idx, fake.wall_ns, fake.mono_ns, fake.boot, fake.kind, fake.body,
                      fake.prev, chain_hash(fake.prev, fake.content()), fake.mac)
    return message(fake)


def test_records_edited_or_forged_on_the_wire(make_table, collector, database):
    table = make_table("t1")
    collector()
    link = FloorLink(table.config, table.state_dir, poll=0.1)
    link.start()
    forger = Raw(table.config, table.state_dir)
    records_topic = topic(PREFIX, "t1", RECORDS)
    try:
        table.commit(5)
        link.notify()
        assert_exact(database, [table])
        third, fifth = table.records()[2], table.records()[4]
        assert forger.publish(records_topic, tampered(third, body={"n": 99})) == 0
        assert forger.publish(records_topic, tampered(third, body={"n": 99}, rehash=True)) == 0
        ahead = Record(6, fifth.wall_ns, fifth.mono_ns, fifth.boot, "result", {"banco": 1},
                       "0" * 64, "", "")
        assert forger.publish(records_topic, tampered(ahead, rehash=True)) == 0
        assert forger.publish(records_topic, b"{not json") == 0
        store = Store(database)
        kinds = wait_for(lambda: {a["kind"] for a in store.alarms()} >= {
            EDITED, CONFLICT, BROKEN, MALFORMED} and store.alarms(), what="four alarms")
        by_kind = {a["kind"]: a for a in kinds}
        assert by_kind[EDITED]["idx"] == 3 and "edited" in by_kind[EDITED]["detail"]
        assert by_kind[CONFLICT]["idx"] == 3 and third.hash[:16] in by_kind[CONFLICT]["detail"]
        assert by_kind[BROKEN]["idx"] == 6 and '"banco":1' in by_kind[BROKEN]["payload"]
        table.commit(4)  # the table's own record 6 and after: taken, the forgery was not
        link.notify()
        assert_exact(database, [table])
    finally:
        forger.close()
        link.stop()


def test_a_backlog_goes_as_multi_record_messages_then_one_record_a_message(
        make_table, collector, database):
    """A table that comes back with a backlog sends it as JSON arrays of consecutive records
    (each under the link's byte limit), and each record arrives exactly; once it keeps up,
    a commit of one record is one message of one record."""
    table = make_table("t1")
    table.commit(1000)
    c = collector()
    link = FloorLink(table.config, table.state_dir, poll=0.1, batch=100, batch_bytes=16384)
    link.start()
    try:
        assert_exact(database, [table], timeout=120)
        assert c.received == 1000 and c.messages < 1000 // 10  # several records a message
        messages = c.messages
        for n in range(1, 4):
            table.commit(1)
            link.notify()
            assert_exact(database, [table])
            assert (c.received, c.messages) == (1000 + n, messages + n)
        assert Store(database).alarms() == []
        wait_for(lambda: acked_index(table.state_dir) == 1003, what="the cursor at the end")
    finally:
        link.stop()


def test_a_tampered_record_inside_a_multi_record_message(make_table, collector, database):
    """The record edited inside a batch is alarmed on its own (its JSON alone kept); the
    message is refused whole (the table's one signature vouches for the records before it
    only through the edited one); the table's true copy then fills the chain."""
    table = make_table("t1")
    table.commit(5)
    collector()
    records = table.records()
    fake = tampered(records[2], body={"n": 99})
    batch = b"[" + b",".join([message(records[0]), message(records[1]), fake,
                              message(records[3]), message(records[4])]) + b"]"
    forger = Raw(table.config, table.state_dir)
    try:
        assert forger.publish(topic(PREFIX, "t1", RECORDS), batch) == 0
        store = Store(database)
        alarms = wait_for(lambda: store.alarms(), what="the edited record's alarm")
        assert [(a["kind"], a["idx"]) for a in alarms] == [(EDITED, 3)]
        assert alarms[0]["payload"] == fake.decode()
        assert store.records("t1") == []
    finally:
        forger.close()
    link = FloorLink(table.config, table.state_dir, poll=0.1)
    link.start()
    try:
        store = assert_exact(database, [table])
        assert {a["kind"] for a in store.alarms()} <= {EDITED, GAP}
    finally:
        link.stop()


def test_a_table_cannot_write_another_tables_topics(make_table, collector, database):
    t1, t2 = make_table("t1"), make_table("t2")
    collector()
    links = [FloorLink(t.config, t.state_dir, poll=0.1) for t in (t1, t2)]
    for link in links:
        link.start()
    intruder = Raw(t2.config)
    try:
        t1.commit(3)
        t2.commit(2)
        for link in links:
            link.notify()
        assert_exact(database, [t1, t2])
        genuine = t1.records()[2]
        next_one = Record(4, genuine.wall_ns, genuine.mono_ns, genuine.boot, "result",
                          {"from": "t2"}, genuine.hash, "", "")
        for leaf, payload in ((RECORDS, tampered(next_one, rehash=True)),
                              (STATE, b'{"shoe": "forged"}'), (ONLINE, b"offline")):
            assert forger_refused(intruder.publish(topic(PREFIX, "t1", leaf), payload))
        t1.commit(2)
        links[0].notify()
        store = assert_exact(database, [t1, t2])
        assert store.alarms() == []
        assert {r["table"]: r["online"] for r in store.tables()}["t1"] == "online"
        assert all(r["state"] is None for r in store.tables())
    finally:
        intruder.close()
        for link in links:
            link.stop()


def forger_refused(reason: int) -> bool:
    return reason == 0x87  # MQTT 5 "Not authorized": the broker ACL dropped the publish


def test_a_gap_is_repaired_by_asking_the_table_to_resend(make_table, collector, database):
    """The broker acknowledged records 1-10 and then lost record 5 (a crash before it saved
    its queue): the table's cursor is past it, only the collector can notice."""
    table = make_table("t1")
    table.commit(10)
    ten = table.records()[9]
    write_cursor(table.state_dir, Cursor(10, ten.hash))
    collector()
    lost = Raw(table.config, table.state_dir)
    for record in table.records():
        if record.idx != 5:
            assert lost.publish(topic(PREFIX, "t1", RECORDS), message(record)) == 0
    lost.close()
    link = FloorLink(table.config, table.state_dir, poll=0.1)
    link.start()
    try:
        store = assert_exact(database, [table])
        assert [(a["kind"], a["idx"]) for a in store.alarms()] == [(GAP, 5)]
        table.commit(2)
        link.notify()
        assert_exact(database, [table])
    finally:
        link.stop()


def test_a_collector_that_never_saw_the_start_asks_for_it(make_table, collector, database):
    table = make_table("t1")
    table.commit(10)
    write_cursor(table.state_dir, Cursor(10, table.records()[9].hash))
    collector()
    link = FloorLink(table.config, table.state_dir, poll=0.1)
    link.start()
    try:
        table.commit(5)
        link.notify()
        store = assert_exact(database, [table])
        assert [(a["kind"], a["idx"]) for a in store.alarms()] == [(UNANCHORED, 1)]
    finally:
        link.stop()


def test_a_pruned_ledger_starts_at_its_pruned_record(make_table, collector, database):
    table = make_table("t1")
    table.commit(20)
    table.ledger.remove_before(11, {"exports": ["test"]})
    table.commit(3)
    collector()
    link = FloorLink(table.config, table.state_dir, poll=0.1)
    link.start()
    try:
        store = assert_exact(database, [table])
        assert store.records("t1")[0].idx == 11
        assert store.alarms() == []
    finally:
        link.stop()


def test_collectors_share_the_load(make_table, collector, database):
    """Two collectors in one shared subscription: each takes part of every table's stream,
    out of order for the chain; together they store each ledger once, verified."""
    tables = [make_table(f"t{i}") for i in range(3)]
    first, second = collector("collector-1"), collector("collector-2")
    links = [FloorLink(t.config, t.state_dir, poll=0.1) for t in tables]
    for link in links:
        link.start()
    try:
        for _ in range(20):
            for t, link in zip(tables, links, strict=True):
                t.commit(10)
                link.notify()
        store = assert_exact(database, tables)
        assert first.received > 0 and second.received > 0
        assert first.stored + second.stored == 600
        assert store.alarms() == []
    finally:
        for link in links:
            link.stop()


def test_the_last_will_says_offline(make_table, collector, database, tmp_path):
    table = make_table("t1")
    collector()
    toml = floor_toml(table, tmp_path / "t1.toml", keepalive=1)
    proc = spawn("-m", "tests.floor.link_process", str(table.state_dir), str(toml))
    try:
        online = {}

        def word() -> str | None:
            store = Store(database)
            online.update({r["table"]: r["online"] for r in store.tables()})
            store.close()
            return online.get("t1")

        wait_for(lambda: word() == "online", what="online")
        kill(proc)
        wait_for(lambda: word() == "offline", what="the broker to publish the will")
    finally:
        kill(proc)


@pytest.mark.parametrize("database", ["postgresql"], indirect=True)
def test_the_database_down_for_a_while(make_table, collector_toml, broker):
    """PostgreSQL restarted under the collector: nothing acknowledged while it is down, the
    broker keeps the messages, the collector opens the store again and catches up."""
    pg = Postgres()
    pg.start()
    try:
        database = pg.new_database()
        table = make_table("t1")
        c = Collector(load(collector_toml(database=database)))
        c.start()
        link = FloorLink(table.config, table.state_dir, poll=0.1)
        link.start()
        try:
            table.commit(10)
            link.notify()
            assert_exact(database, [table])
            pg.stop(remove=False)
            for _ in range(10):
                table.commit(10)
                link.notify()
            wait_for(lambda: link.backlog() == 0, what="the broker to take the records")
            pg.start()
            store = assert_exact(database, [table])
            assert store.alarms() == []
            store.close()
        finally:
            link.stop()
            c.stop()
    finally:
        pg.stop()
