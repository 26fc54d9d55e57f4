"""Only the table's own records reach the store: every records message signed with the
table's Ed25519 key, checked at the pit against the keys lodged for that table. Real broker,
real links beside real ledgers, a real collector, PostgreSQL and SQLite. Forgers hold the
table's broker login (the ACL lets them publish on its topic); each refused message is
named, stores none of its records, and every case ends with the store equal to the ledger."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from hil.floor_servers import COLLECTOR, ROOT
from shoe_daemon.audit import keys
from shoe_daemon.audit.ledger import Record, chain_hash
from shoe_daemon.floor.link import FloorLink
from shoe_daemon.floor.outbox import message
from shoe_daemon.floor.signing import KEY_ID, Signer
from shoe_daemon.floor.topics import RECORDS, topic
from shoe_floor.chain import (
    BAD_SIGNATURE,
    GAP,
    SIGNED_OTHER,
    SPLICED,
    UNANCHORED,
    UNKNOWN_KEY,
    UNSIGNED,
)
from shoe_floor.store import Store
from tests.floor.conftest import PREFIX, Raw, assert_exact, lodge_key, wait_for


def rechained_next(after: Record, body: dict) -> Record:
    """A false record for the index after `after`, linked to it with the public chain hash:
    all a forger needs to pass the chain check, without the table's key."""
    partial = Record(after.idx + 1, after.wall_ns + 1, after.mono_ns + 1, after.boot,
                     "result", body, after.hash, "", after.mac)
    return Record(partial.idx, partial.wall_ns, partial.mono_ns, partial.boot, partial.kind,
                  partial.body, partial.prev, chain_hash(partial.prev, partial.content()),
                  partial.mac)


def alarms(database: str, table: str | None = None) -> list[dict]:
    store = Store(database)
    try:
        return store.alarms(table)
    finally:
        store.close()


def kinds(database: str) -> list[tuple[str, int | None]]:
    return [(a["kind"], a["idx"]) for a in alarms(database)]


def test_a_forger_with_the_tables_login_cannot_take_its_next_record(
        make_table, collector, database, tmp_path):
    """The forger publishes a fully rechained false record 6 before the table's own:
    unsigned it is refused; signed with a key of the forger's own, refused too. The table's
    true record 6 and its successors are stored as if nothing had happened."""
    table = make_table("t1")
    collector()
    link = FloorLink(table.config, table.state_dir, poll=0.1)
    link.start()
    forger = Raw(table.config)  # the table's login, not its key
    keys.keygen(tmp_path / "forger")
    with_own_key = Raw(table.config, tmp_path / "forger")
    records_topic = topic(PREFIX, "t1", RECORDS)
    try:
        table.commit(5)
        link.notify()
        assert_exact(database, [table])
        fake = message(rechained_next(table.records()[-1], {"banco": "forged"}))
        assert forger.publish(records_topic, fake) == 0  # the broker takes it: the login is good
        assert with_own_key.publish(records_topic, fake) == 0
        got = wait_for(lambda: len(alarms(database)) == 2 and alarms(database),
                       what="both forgeries refused")
        assert [(a["kind"], a["idx"]) for a in got] == [(UNSIGNED, 6), (UNKNOWN_KEY, 6)]
        assert got[0]["detail"].startswith("record 6: not signed (no key-id, no signed, no "
                                           "signature property): refused, none stored")
        forger_kid = keys.load_current(tmp_path / "forger").key_id
        assert (f"signed with key {forger_kid}, which is not lodged for t1 (lodged: "
                f"{table.key_id})") in got[1]["detail"]
        assert got[0]["payload"] == fake.decode()
        table.commit(4)  # the table's own record 6 and after
        link.notify()
        store = assert_exact(database, [table])
        assert store.records("t1")[5].body != {"banco": "forged"}
        assert kinds(database) == [(UNSIGNED, 6), (UNKNOWN_KEY, 6)]  # no conflict, no gap
    finally:
        forger.close()
        with_own_key.close()
        link.stop()


def test_a_message_signed_with_another_tables_key(make_table, collector, database):
    """t2's key is genuine, and lodged, but for t2: on t1's topic it signs nothing."""
    t1, t2 = make_table("t1"), make_table("t2")
    collector()
    link = FloorLink(t1.config, t1.state_dir, poll=0.1)
    link.start()
    borrowed = Raw(t1.config, t2.state_dir)  # t1's login, t2's key
    try:
        t1.commit(3)
        link.notify()
        assert_exact(database, [t1])
        fake = rechained_next(t1.records()[-1], {"from": "t2's key"})
        assert borrowed.publish(topic(PREFIX, "t1", RECORDS), message(fake)) == 0
        got = wait_for(lambda: alarms(database), what="the refusal")
        assert [(a["kind"], a["idx"]) for a in got] == [(UNKNOWN_KEY, 4)]
        assert f"signed with key {t2.key_id}, which is not lodged for t1" in got[0]["detail"]
        assert "that key is lodged for table 't2'" in got[0]["detail"]
        t1.commit(2)
        link.notify()
        assert_exact(database, [t1])
        assert kinds(database) == [(UNKNOWN_KEY, 4)]
    finally:
        borrowed.close()
        link.stop()


def test_a_signature_over_another_record(make_table, collector, database):
    """The table's genuine signature of record 3, put on a forged record 4: refused as
    signed over another record; with its `signed` property made to name record 4, it does
    not verify. The table's own record 4 is stored after both."""
    table = make_table("t1")
    collector()
    table.commit(3)
    signer = Signer(table.state_dir)
    third = table.records()[2]
    genuine = signer.sign("t1", third.idx, third.hash).properties()  # as the link made it
    fake = rechained_next(third, {"n": "forged"})
    forger = Raw(table.config)
    records_topic = topic(PREFIX, "t1", RECORDS)
    try:
        assert forger.publish(records_topic, b"[" + b",".join(
            message(r) for r in table.records()) + b"]", genuine) == 0  # the table's own
        wait_for(lambda: len(Store(database).records("t1")) == 3, what="records 1-3")
        assert forger.publish(records_topic, message(fake), genuine) == 0
        renamed = [(k, f"4 {fake.hash}" if k == "signed" else v) for k, v in genuine]
        assert forger.publish(records_topic, message(fake), renamed) == 0
        got = wait_for(lambda: len(alarms(database)) == 2 and alarms(database),
                       what="both refusals")
        assert [(a["kind"], a["idx"]) for a in got] == [(SIGNED_OTHER, 4), (BAD_SIGNATURE, 4)]
        assert (f"t1's key {table.key_id} signed record 3 {third.hash[:16]}, not the message's "
                f"last record 4 {fake.hash[:16]}") in got[0]["detail"]
        assert f"does not verify with t1's key {table.key_id} over record 4" in got[1]["detail"]
    finally:
        forger.close()
    link = FloorLink(table.config, table.state_dir, poll=0.1)
    link.start()
    try:
        table.commit(2)
        link.notify()
        assert_exact(database, [table])
        assert kinds(database) == [(SIGNED_OTHER, 4), (BAD_SIGNATURE, 4)]
    finally:
        link.stop()


def test_records_inserted_removed_or_reordered_inside_a_signed_message(
        make_table, collector, database):
    """A genuine message of records 1-4, signed by the table, changed on the way: a record
    slipped in, one taken out, two swapped. Each is refused whole and named; nothing of
    them is stored; the table's own messages then fill the chain."""
    table = make_table("t1")
    collector()
    table.commit(4)
    r = table.records()
    inserted = rechained_next(r[1], {"slipped": "in"})  # a self-consistent record 3
    forger = Raw(table.config, table.state_dir)  # signs over the last record, #4, genuinely
    records_topic = topic(PREFIX, "t1", RECORDS)
    changed = {"inserted": [r[0], r[1], inserted, r[2], r[3]],
               "removed": [r[0], r[2], r[3]],
               "reordered": [r[1], r[0], r[2], r[3]]}
    try:
        for records in changed.values():
            payload = b"[" + b",".join(message(x) for x in records) + b"]"
            assert forger.publish(records_topic, payload) == 0
        got = wait_for(lambda: len(alarms(database)) == 3 and alarms(database),
                       what="three refusals")
        assert [(a["kind"], a["idx"]) for a in got] == [(SPLICED, 3), (SPLICED, 3),
                                                          (SPLICED, 1)]
        assert "record 3 follows record 3 inside the message" in got[0]["detail"]
        assert "record 3 follows record 1 inside the message" in got[1]["detail"]
        assert "record 1 follows record 2 inside the message" in got[2]["detail"]
        assert all("refused, none stored" in a["detail"] for a in got)
        assert Store(database).records("t1") == []
    finally:
        forger.close()
    link = FloorLink(table.config, table.state_dir, poll=0.1)
    link.start()
    try:
        assert_exact(database, [table])
        assert [k for k, _ in kinds(database)] == [SPLICED] * 3
    finally:
        link.stop()


class Sniffer:
    """A plain (not shared) subscriber under the collector's login: each records message a
    table publishes, with its user properties, as a third party on the broker sees it."""

    def __init__(self, config) -> None:
        from shoe_daemon.floor.mqtt import connect, make_client

        self.seen: list[tuple[bytes, dict[str, str]]] = []
        self._ready = threading.Event()
        self.client = make_client(config, "sniffer")
        self.client.on_connect = lambda c, *_: (
            c.subscribe(topic(PREFIX, "+", RECORDS), qos=1), self._ready.set())
        self.client.on_message = lambda _c, _u, msg: self.seen.append((bytes(msg.payload), dict(
            getattr(msg.properties, "UserProperty", None) or [])))
        connect(self.client, config)
        assert self._ready.wait(20)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def test_a_key_rotated_mid_stream(make_table, collector, database, broker, table_keys):
    """The table rotates its key while its link runs: the link signs with the new key from
    its next message, without a restart. Lodged first, nothing is refused; rotated again
    before lodging, its messages are refused (one alarm) until the key is lodged, then sent
    again at the collector's request: nothing is lost."""
    table = make_table("t1")
    collector()
    sniffer = Sniffer(broker.config(COLLECTOR, (broker.root / f"{COLLECTOR}.secret")
                                    .read_text().strip()))
    link = FloorLink(table.config, table.state_dir, poll=0.1)
    link.start()
    try:
        table.commit(5)
        link.notify()
        assert_exact(database, [table])
        first = table.key_id
        second = keys.rotate(table.state_dir, now=_later(1))
        lodge_key(table_keys, "t1", table.state_dir)  # the casino lodges it, then ...
        for _ in range(3):
            table.commit(2)
            link.notify()
        assert_exact(database, [table])
        assert alarms(database) == []
        ids = [props[KEY_ID] for _, props in sniffer.seen]
        assert ids[0] == first and ids[-1] == second.key_id
        third = keys.rotate(table.state_dir, now=_later(2))  # ... and now forgets to
        for _ in range(3):
            table.commit(2)
            link.notify()
        got = wait_for(lambda: alarms(database), what="the unlodged key's alarm")
        assert [a["kind"] for a in got] == [UNKNOWN_KEY] and 13 <= got[0]["idx"] <= 17
        assert f"signed with key {third.key_id}, which is not lodged for t1" in got[0]["detail"]
        wait_for(lambda: link.backlog() == 0, what="the broker to take them all")
        assert {props[KEY_ID] for _, props in sniffer.seen[-1:]} == {third.key_id}
        assert len(Store(database).records("t1")) == 11
        lodge_key(table_keys, "t1", table.state_dir)
        store = assert_exact(database, [table])  # resent at the collector's request
        assert [a["kind"] for a in store.alarms()] == [UNKNOWN_KEY]  # one, not one a message
    finally:
        link.stop()
        sniffer.close()


def _later(seconds: int):
    from datetime import UTC, datetime, timedelta

    return datetime.now(UTC) + timedelta(seconds=seconds)


def test_records_that_arrive_before_their_key_is_lodged(make_table, collector, database,
                                                         tmp_path):
    """A new table starts sending before the casino lodged its key: everything is refused,
    one alarm says so. Its key lodged with `shoe-floor lodge-key` (the collector is not
    restarted, and the table commits nothing more), the collector asks it to resend and the
    store holds its whole ledger."""
    table = make_table("t1", lodged=False)
    c = collector()
    link = FloorLink(table.config, table.state_dir, poll=0.1)
    link.start()
    try:
        for _ in range(4):
            table.commit(5)
            link.notify()
        wait_for(lambda: link.backlog() == 0, what="the broker to take every record")
        got = wait_for(lambda: alarms(database), what="the refusal")
        wait_for(lambda: c.refused >= 1 and c.received == 20, what="every message refused")
        assert [(a["kind"], a["idx"]) for a in got] == [(UNKNOWN_KEY, got[0]["idx"])]
        assert "(lodged: none)" in got[0]["detail"]
        assert Store(database).records("t1") == []
        public = keys.keys_dir(table.state_dir) / f"{keys.current_stem(table.state_dir)}.pub.pem"
        toml = tmp_path / "collector-1.toml"
        done = subprocess.run([sys.executable, "-m", "shoe_floor.cli", "lodge-key", "--config",
                               str(toml), "t1", str(public)], cwd=ROOT, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"lodged key id {table.key_id} for table t1:")
        store = assert_exact(database, [table])
        assert [a["kind"] for a in store.alarms()] == [UNKNOWN_KEY]
        assert GAP not in {a["kind"] for a in store.alarms()}
        again = subprocess.run([sys.executable, "-m", "shoe_floor.cli", "lodge-key", "--config",
                                str(toml), "t2", str(public)], cwd=ROOT, capture_output=True,
                               text=True, timeout=60)
        assert again.returncode == 2
        assert f"key id {table.key_id} is lodged for table 't1' already" in again.stderr
    finally:
        link.stop()


def test_a_genuine_gap_is_still_repaired(make_table, collector, database):
    """Signed records with one lost on the way (the broker lost it after acknowledging):
    the gap is named and repaired by the table's resend, as without signatures."""
    table = make_table("t1")
    table.commit(8)
    collector()
    lost = Raw(table.config, table.state_dir)
    try:
        for record in table.records():
            if record.idx != 4:
                assert lost.publish(topic(PREFIX, "t1", RECORDS), message(record)) == 0
        wait_for(lambda: kinds(database) == [(GAP, 4)], what="the gap's alarm")
    finally:
        lost.close()
    from shoe_daemon.floor.cursor import Cursor, write_cursor

    write_cursor(table.state_dir, Cursor(8, table.records()[7].hash))
    link = FloorLink(table.config, table.state_dir, poll=0.1)
    link.start()
    try:
        assert_exact(database, [table])
        assert kinds(database) == [(GAP, 4)]
        assert UNANCHORED not in {k for k, _ in kinds(database)}
    finally:
        link.stop()


def test_a_collector_without_its_table_keys_does_not_start(collector_toml, tmp_path: Path):
    toml = collector_toml("collector-1")
    toml.write_text(toml.read_text().replace(str(tmp_path / "table-keys"),
                                             str(tmp_path / "nowhere")))
    done = subprocess.run([sys.executable, "-m", "shoe_floor.cli", "collect", "--config",
                           str(toml)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert (f"shoe-floor: collector.table_keys: {tmp_path / 'nowhere'} is not a directory"
            in done.stderr)
    assert "shoe-floor lodge-key TABLE FILE" in done.stderr
