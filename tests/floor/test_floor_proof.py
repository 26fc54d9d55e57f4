"""Every record the collector stores is proven its table's by a signature the store keeps
(shoe_floor/proof.py; docs/floor.md, "The store"), whatever way it came: a message ahead of a
gap that waited and was linked later, copies, a key rotated mid-stream; a store made before
the signatures were kept (a pit upgraded), refused until its table's next message proves its
records; and the regulator's own check of a table's signatures, as docs/floor.md writes it.
Real broker, real links and ledgers, a real collector, PostgreSQL and SQLite."""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from shoe_daemon.audit import keys
from shoe_daemon.audit.layout import iso
from shoe_daemon.floor.link import FloorLink
from shoe_daemon.floor.outbox import pack
from shoe_daemon.floor.topics import RECORDS, topic
from shoe_floor import query
from shoe_floor.proof import prove
from shoe_floor.store import Store
from shoe_floor.table_keys import LodgedKeys
from tests.floor.conftest import PREFIX, Raw, Table, assert_exact, lodge_key, wait_for
from tests.floor.test_floor_daemon import stored
from tests.floor.test_floor_export import audit_verify, floor_cli
from tests.test_audit_money import events

FLOOR_DOC = Path(__file__).resolve().parents[2] / "docs" / "floor.md"


def proven_through(database: str, table: str, table_keys: Path, last: int) -> int:
    """The record the first good kept signature at or after `last` names (VerifyFailed: the
    table's stored records up to `last` are not all proven)."""
    store = Store(database)
    try:
        first, tip = query.stored_span(store, table) or (1, 0)
        return prove(store, table, first, last, tip, LodgedKeys(table_keys)).through
    finally:
        store.close()


def with_export(toml: Path, state_dir: Path) -> Path:
    """The collector's floor.toml with the floor's `[export]` key directory."""
    toml.write_text(toml.read_text() + f'\n[export]\nstate_dir = "{state_dir}"\n')
    return toml


def send_all(database: str, *tables: Table) -> None:
    """The tables' links started, until the store holds exactly their ledgers, and stopped."""
    links = [FloorLink(t.config, t.state_dir, poll=0.1) for t in tables]
    for link in links:
        link.start()
    try:
        assert_exact(database, list(tables)).close()
    finally:
        for link in links:
            link.stop()


def kept(database: str, table: str) -> list[tuple[int, str]]:
    store = Store(database)
    try:
        return [(idx, kid) for idx, kid in store.db.execute(store.q(
            "SELECT idx, key_id FROM signatures WHERE table_id = ? ORDER BY idx, key_id"),
            (table,)).fetchall()]
    finally:
        store.close()


def test_every_stored_record_is_proven_whatever_way_it_came(make_table, collector, database,
                                                             table_keys, tmp_path):
    """Records 11..20 first, ahead of a gap: they wait, and are linked when 1..10 come; then
    a copy overlapping both, a message of records all stored already, and the table's key
    rotated and lodged, its next records and a resend of stored ones signed with the new key.
    After each step every stored record is proven, through the table's tip."""
    table = make_table("t1")
    table.commit(30)
    records = table.records()
    sender = Raw(table.config, table.state_dir)  # signs as the table's link does
    on = topic(PREFIX, "t1", RECORDS)
    collector()
    try:
        assert sender.publish(on, pack(records[10:20], 64 * 1024)[1]) == 0
        wait_for(lambda: kept(database, "t1") == [(20, table.key_id)], what="the signature "
                 "of the waiting message")
        assert stored(database, "t1") == 0  # nothing stored yet: it waits
        assert sender.publish(on, pack(records[:10], 64 * 1024)[1]) == 0
        wait_for(lambda: stored(database, "t1") == 20, what="1..20 linked")
        for last in range(1, 21):  # each record, the tip last: from the waiting message's
            assert proven_through(database, "t1", table_keys, last) == (10 if last <= 10
                                                                        else 20)
        assert sender.publish(on, pack(records[5:15], 64 * 1024)[1]) == 0  # a copy: dropped
        assert sender.publish(on, pack(records[18:20], 64 * 1024)[1]) == 0  # stored already
        wait_for(lambda: (15, table.key_id) in kept(database, "t1"), what="the copy's")
        assert stored(database, "t1") == 20
        keys.rotate(table.state_dir, now=datetime.now(UTC) + timedelta(seconds=5))
        new = lodge_key(table_keys, "t1", table.state_dir)
        rotated = Raw(table.config, table.state_dir)
        try:
            assert rotated.publish(on, pack(records[18:20], 64 * 1024)[1]) == 0  # a resend
            assert rotated.publish(on, pack(records[20:], 64 * 1024)[1]) == 0
        finally:
            rotated.close()
        store = assert_exact(database, [table])
        store.close()
        assert (20, new) in kept(database, "t1") and (30, new) in kept(database, "t1")
        assert proven_through(database, "t1", table_keys, 30) == 30
        assert proven_through(database, "t1", table_keys, 20) == 20
    finally:
        sender.close()


def test_a_store_made_before_the_signatures_were_kept(make_table, collector, collector_toml,
                                                      database, tmp_path):
    """A pit upgraded: its store has no `signatures`. The export says to start the upgraded
    collector; once it has, the records stored before are refused, named, until the table's
    next message proves them all through the chain; then the export is the table's ledger."""
    table = make_table("t1")
    table.commit(20)
    first = collector("collector-1")
    send_all(database, table)
    first.stop()
    store = Store(database)
    store.db.execute("DROP TABLE signatures")  # as the collector before this change left it
    store.close()
    toml = with_export(collector_toml("collector-1"), tmp_path / "floor")
    assert floor_cli("keygen", "--config", str(toml)).returncode == 0
    out = tmp_path / "export"
    before = floor_cli("export", "--config", str(toml), "--out", str(out))
    assert before.returncode == 2 and not out.exists()
    assert "the store keeps no table signatures yet (made by an earlier collector): start " \
        "the upgraded `shoe-floor collect` once" in before.stderr
    collector("collector-1")  # the upgraded collector: the schema gains `signatures`
    with_export(toml, tmp_path / "floor")  # (starting it wrote its file anew)
    unproven = floor_cli("export", "--config", str(toml), "--out", str(out))
    assert unproven.returncode == 1 and not out.exists()
    assert ("FAILED: table t1: record 1: no signature of table t1 covers it (records 1..20 of "
            "the range): the store keeps no signature of the table at or after it: stored "
            "before the floor kept the tables' signatures (an upgrade: the table's next "
            "message proves them)") in unproven.stderr
    table.commit(1)  # the table's next message, signed over record 21
    send_all(database, table)
    done = floor_cli("export", "--config", str(toml), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert events(out / "t1") == [r.as_dict() for r in table.records()]
    checked = floor_cli("verify", str(out), "--public-key", str(out / "floor.pub.pem"),
                        "--table-keys", str(toml.parent / "table-keys"))
    assert checked.returncode == 0, checked.stderr
    assert "every record signed by table t1: 1 signature(s), the last over record 21" \
        in checked.stdout


def doc_python(name: str) -> str:
    text = FLOOR_DOC.read_text()
    found = re.search(rf"<!-- {name} -->\n```python\n(.*?)```\n<!-- /{name} -->", text, re.S)
    assert found, f"docs/floor.md has no {name} block"
    return found.group(1)


def test_the_regulators_check_of_a_tables_signatures_as_documented(make_table, collector,
                                                                    collector_toml, database,
                                                                    table_keys, tmp_path):
    """docs/floor.md's Python lines, run in a table's directory of a real export (its range
    ending inside a message, so that tail.jsonl holds the rest of it) with the key lodged:
    it passes; with another table's key as the one lodged, or a record of the tail changed,
    it fails."""
    t1, t2 = make_table("t1"), make_table("t2")
    t1.commit(24)
    t1.commit(16)  # a second transaction, a later time: the range ends between the two
    t2.commit(3)
    collector()
    send_all(database, t1, t2)
    toml = with_export(collector_toml("collector-1"), tmp_path / "floor")
    assert floor_cli("keygen", "--config", str(toml)).returncode == 0
    out = tmp_path / "export"
    to = t1.records()[24].wall_ns  # records 1..24: the 40 went as one message, signed at 40
    done = floor_cli("export", "--config", str(toml), "--out", str(out), "--to",
                     iso(to)[:26] + "Z", "--table", "t1")
    assert done.returncode == 0, done.stderr
    d = out / "t1"
    assert len((d / "tail.jsonl").read_text().splitlines()) == 16
    script = tmp_path / "check.py"
    script.write_text(doc_python("table-signature-check"))
    lodged = sorted(str(p) for p in (table_keys / "t1").glob("*.pub.pem"))

    def check(*pems: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(script), *pems], cwd=d, capture_output=True,
                              text=True, timeout=60)

    good = check(*lodged)
    assert good.returncode == 0, good.stderr
    assert good.stdout.strip() == "records 1..24 signed by table t1"
    other = check(*sorted(str(p) for p in (table_keys / "t2").glob("*.pub.pem")))
    assert other.returncode != 0 and f"key id {t1.key_id} is not lodged for t1" in other.stderr
    tail = (d / "tail.jsonl").read_text().splitlines(keepends=True)
    tail[3] = tail[3].replace('"9C"', '"KD"')
    (d / "tail.jsonl").write_text("".join(tail))
    changed = check(*lodged)
    assert changed.returncode != 0 and "record 28: its content does not match" in changed.stderr
    refused = audit_verify(d, out / "floor.pub.pem")
    assert refused.returncode == 1 and "tail.jsonl: SHA-256 is not the manifest's" in \
        refused.stderr
