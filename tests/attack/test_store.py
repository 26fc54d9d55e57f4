"""The pit's store rewritten behind the collector's back, and a floor export edited after it
was signed (issue 19, item 6; docs/security.md). Two real daemons deal a shoe each through
their links; `shoe-floor collect` (its own process) stores every record in a real
PostgreSQL; then each attack gets its own copy of that store and writes it as whoever holds
the database's login would: a card changed with every later hash recomputed, a record
deleted and the chain relinked, signatures deleted or swapped, records moved between tables,
and, holding the pit's key directory too, the table's key replaced by the attacker's. The
floor's own commands run as processes: `shoe-floor export` refuses, naming the record, and
writes nothing, or the regulator's `shoe-floor verify` / `shoe-daemon audit verify` with the
lodged keys refuse what it wrote. Nothing is lost: the other table of the same rewritten
store still exports, record for record its ledger, and every table's own ledger verifies."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from shoe_daemon.audit import keys
from shoe_daemon.audit.ledger import Record, canonical, chain_hash
from shoe_daemon.audit.table_signatures import statement
from shoe_floor.store import Store
from tests.attack.store_support import Pit, collected_pit, daemon_cli, events, floor_cli
from tests.floor.test_floor_export import resign_floor

COLUMNS = "table_id, idx, wall_ns, mono_ns, boot, kind, body, prev, hash, mac, received_at"


@pytest.fixture(scope="module")
def pit(tmp_path_factory: pytest.TempPathFactory):
    with collected_pit(tmp_path_factory.mktemp("pit")) as collected:
        yield collected


@pytest.fixture(scope="module")
def good(pit: Pit, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The untouched store's export, whole."""
    store, toml = pit.copy()
    store.close()
    out = tmp_path_factory.mktemp("good") / "export"
    done = floor_cli("export", "--config", str(toml), "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out


def floor_verify(pit: Pit, out: Path, lodged: bool = True):
    extra = ["--table-keys", str(pit.regulator_keys)] if lodged else []
    return floor_cli("verify", str(out), "--public-key", str(pit.floor_key), *extra)


def audit_verify(pit: Pit, table_dir: Path, table: str, lodged: bool = True):
    extra = [a for pem in sorted((pit.regulator_keys / table).glob("*.pub.pem"))
             for a in ("--table-key", str(pem))] if lodged else []
    return daemon_cli("audit", "verify", str(table_dir), "--public-key", str(pit.floor_key),
                      *extra)


def as_ledger(records: list[Record]) -> list[dict]:
    return [r.as_dict() for r in records]


# Writing the store as an attacker with the database's login.

def rechained(records: list[Record], start: int) -> list[Record]:
    """`records[start:]` with every `prev` and `hash` recomputed from the one before."""
    out = list(records[:start])
    prev = out[-1].hash if out else records[0].prev
    for r in records[start:]:
        r = dataclasses.replace(r, prev=prev)
        r = dataclasses.replace(r, hash=chain_hash(prev, r.content()))
        out.append(r)
        prev = r.hash
    return out


def rewrite(store: Store, table: str, records: list[Record], start: int) -> None:
    """The table's stored records from position `start` replaced by `records[start:]`, and
    its tip moved to the new last record, in one transaction."""
    rows = [(table, r.idx, r.wall_ns, r.mono_ns, r.boot, r.kind, canonical(r.body), r.prev,
             r.hash, r.mac, 0) for r in records[start:]]
    with store.db.transaction():
        store.db.execute("DELETE FROM records WHERE table_id = %s AND idx >= %s",
                         (table, records[start].idx))
        with store.db.cursor() as cur:
            cur.executemany(f"INSERT INTO records ({COLUMNS}) VALUES "
                            "(%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)", rows)
        store.db.execute("UPDATE tables SET tip_idx = %s, tip_hash = %s WHERE table_id = %s",
                         (records[-1].idx, records[-1].hash, table))


def card_at(records: list[Record]) -> int:
    """The position of a dealt card's frame in the middle of the table's records."""
    cards = [n for n, r in enumerate(records)
             if r.kind == "frame" and r.body.get("type") == "CARD"]
    return cards[len(cards) // 2]


def other_card(record: Record) -> Record:
    fields = list(record.body["fields"])
    fields[0] = "KD" if fields[0] != "KD" else "QS"
    return dataclasses.replace(record, body={**record.body, "fields": fields})


def signatures_of(store: Store, table: str) -> list[tuple]:
    return list(store.db.execute("SELECT idx, hash, key_id, signature FROM signatures WHERE "
                                 "table_id = %s ORDER BY idx", (table,)).fetchall())


def a_card_changed_the_chain_recomputed(store: Store) -> tuple[str, int]:
    records = store.records("t1")
    n = card_at(records)
    records[n] = other_card(records[n])
    rewrite(store, "t1", rechained(records, n), n)
    return "t1", records[n].idx


def a_record_deleted_the_chain_relinked(store: Store) -> tuple[str, int]:
    records = store.records("t1")
    n = card_at(records)
    gone = records[n].idx
    kept = records[:n] + [dataclasses.replace(r, idx=r.idx - 1) for r in records[n + 1:]]
    rewrite(store, "t1", rechained(kept, n), n)
    return "t1", gone


def the_last_signature_deleted(store: Store) -> tuple[str, int]:
    tip = signatures_of(store, "t2")[-1][0]
    with store.db.transaction():
        store.db.execute("DELETE FROM signatures WHERE table_id = 't2' AND idx = %s", (tip,))
    return "t2", tip


def a_signature_swapped_for_another_tables(store: Store) -> tuple[str, int]:
    """t1's signature over its last record replaced by t2's genuine signature over its own
    last record, made to name t1's: another table's key."""
    idx = signatures_of(store, "t1")[-1][0]
    _, _, kid, sig = signatures_of(store, "t2")[-1]
    with store.db.transaction():
        store.db.execute("UPDATE signatures SET key_id = %s, signature = %s WHERE table_id = "
                         "'t1' AND idx = %s", (kid, sig, idx))
    return "t1", idx


def a_signature_swapped_for_another_record(store: Store) -> tuple[str, int]:
    """t1's signature over its last record replaced by its own genuine signature over the
    record signed before it."""
    kept = signatures_of(store, "t1")
    idx = kept[-1][0]
    with store.db.transaction():
        store.db.execute("UPDATE signatures SET signature = %s WHERE table_id = 't1' AND "
                         "idx = %s", (kept[-2][3], idx))
    return "t1", idx


def a_records_table_changed(store: Store) -> tuple[str, int]:
    """t1's record replaced by t2's record of the same index, its table_id changed, and t1's
    chain recomputed from there so that it links."""
    records = store.records("t1")
    n = card_at(records)
    taken = next(r for r in store.records("t2") if r.idx == records[n].idx)
    with store.db.transaction():
        store.db.execute("DELETE FROM records WHERE table_id = 't2' AND idx = %s", (taken.idx,))
    records[n] = taken
    rewrite(store, "t1", rechained(records, n), n)
    return "t1", taken.idx


def another_tables_history_passed_off(store: Store) -> tuple[str, int]:
    """Every row of t2 (records, signatures, tip) relabelled as t1's, t1's own dropped."""
    with store.db.transaction():
        for table in ("records", "signatures", "tables", "pending", "alarms"):
            store.db.execute(f"DELETE FROM {table} WHERE table_id = 't1'")
            store.db.execute(f"UPDATE {table} SET table_id = 't1' WHERE table_id = 't2'")
    return "t1", signatures_of(store, "t1")[0][0]


def named_span(stderr: str, table: str) -> tuple[int, int] | None:
    """The records a refusal names: the record it names first, and the span it says may
    hold the change (`one of records A..B`, or `(records A..B of the range)`) if any."""
    found = re.search(rf"FAILED: table {table}: record (\d+): (.*)", stderr)
    if found is None:
        return None
    span = (re.search(r"one of records (\d+)\.\.(\d+)", found[2])
            or re.search(r"\(records (\d+)\.\.(\d+) of the range\)", found[2]))
    return (int(span[1]), int(span[2])) if span else (int(found[1]), int(found[1]))


CHANGED = (r"no signature of table t1 covers it .*the table signed record \d+ as \w+, the store "
           r"(holds \w+|holds no record there): (one of records \d+\.\.\d+|record \d+) was "
           r"changed after collection, every later hash recomputed")
STORE_ATTACKS: list[tuple[Callable[[Store], tuple[str, int]], str]] = [
    (a_card_changed_the_chain_recomputed, CHANGED),
    (a_record_deleted_the_chain_relinked, CHANGED),
    (the_last_signature_deleted, r"no signature of table t2 covers it .*the store keeps no "
     r"signature of the table at or after it"),
    (a_signature_swapped_for_another_tables, r"the signature kept for it is by key \w+, "
     r"lodged for table 't2', not for 't1'"),
    (a_signature_swapped_for_another_record, r"the signature kept for it does not verify "
     r"with t1's key"),
    (a_records_table_changed, CHANGED),
    (another_tables_history_passed_off, r"the signature kept for it is by key \w+, lodged for "
     r"table 't2', not for 't1'"),
]


@pytest.mark.parametrize("attack, why", STORE_ATTACKS, ids=[a.__name__ for a, _ in STORE_ATTACKS])
def test_a_store_rewritten_behind_the_collector_is_refused_by_the_export(pit, tmp_path, attack,
                                                                         why):
    store, toml = pit.copy()
    try:
        table, changed = attack(store)
    finally:
        store.close()
    out = tmp_path / "export"
    done = floor_cli("export", "--config", str(toml), "--out", str(out))
    assert done.returncode == 1, done.stdout + done.stderr
    assert re.search(why, done.stderr), done.stderr
    span = named_span(done.stderr, table)
    assert span is not None and span[0] <= changed <= span[1], (changed, done.stderr)
    assert "nothing exported" in done.stderr
    assert not out.exists() and not list(tmp_path.glob(".export.*"))
    # Nothing lost: the table holds every record still, and the other table of the same
    # rewritten store exports, record for record its ledger.
    own = daemon_cli("audit", "verify", "--state-dir", str(pit.tables[table].state))
    assert own.returncode == 0, own.stderr
    other = "t2" if table == "t1" else "t1"
    if attack is another_tables_history_passed_off:
        return  # the store holds no other table now
    rest = floor_cli("export", "--config", str(toml), "--out", str(out), "--table", other)
    if attack is a_records_table_changed:  # taken from t2: t2 lacks it, and says so
        assert rest.returncode == 1
        assert f"FAILED: table t2: record {changed}: missing" in rest.stderr, rest.stderr
        return
    assert rest.returncode == 0, rest.stderr
    assert events(out / other) == as_ledger(pit.ledger(other))
    assert floor_verify(pit, out).returncode == 0


def test_an_untouched_store_exports_and_verifies_as_each_tables_ledger(pit, good):
    whole = floor_verify(pit, good)
    assert whole.returncode == 0, whole.stderr
    assert whole.stdout.count("every record signed by table") == 2
    for table in ("t1", "t2"):
        kid = keys.key_id(keys.load_public_pem(
            (pit.tables[table].workdir / f"{table}.pub.pem").read_bytes(), table))
        assert events(good / table) == as_ledger(pit.ledger(table))
        assert (good / table / "tail.jsonl").read_bytes() == b""  # its last record signed
        checked = audit_verify(pit, good / table, table)
        assert checked.returncode == 0, checked.stderr
        assert f"every record signed by table {table}" in checked.stdout
        assert f"key id(s) {kid} (the keys lodged, given)" in checked.stdout
        said = json.loads((good / table / "manifest.json").read_text())["floor"]
        assert said["table_signatures"]["key_ids"] == [kid]
    floor = json.loads((good / "floor-manifest.json").read_text())
    assert [e["table_keys"] for e in floor["tables"]] == [
        [p.name.split(".")[0] for p in (pit.regulator_keys / t).glob("*.pub.pem")]
        for t in ("t1", "t2")]


def test_the_tables_key_replaced_at_the_pit_is_refused_by_the_regulator(pit, tmp_path):
    """An attacker holding the database's login and the pit's key directory: a card of t1
    changed, the chain recomputed, every t1 signature made again with his own key, lodged at
    the pit in place of t1's. The pit cannot tell (the export is made, and checks against
    the keys in it); the regulator, with the keys the casino lodged with them, refuses it,
    and without them is told the key ids to compare."""
    table_keys = tmp_path / "table-keys"
    shutil.copytree(pit.table_keys, table_keys)
    attacker = keys.keygen(tmp_path / "attacker")
    for old in (table_keys / "t1").glob("*.pub.pem"):
        old.unlink()
    (table_keys / "t1" / f"{attacker.key_id}.pub.pem").write_bytes(attacker.public_pem)
    store, toml = pit.copy(table_keys)
    try:
        signed = [row[0] for row in signatures_of(store, "t1")]
        a_card_changed_the_chain_recomputed(store)
        hashes = {r.idx: r.hash for r in store.records("t1")}
        with store.db.transaction():
            store.db.execute("DELETE FROM signatures WHERE table_id = 't1'")
            for idx in signed:
                made = attacker.private.sign(statement("t1", idx, hashes[idx]))
                store.db.execute("INSERT INTO signatures (table_id, idx, hash, key_id, "
                                 "signature, received_at) VALUES ('t1', %s, %s, %s, %s, 0)",
                                 (idx, hashes[idx], attacker.key_id, made.hex()))
    finally:
        store.close()
    out = tmp_path / "export"
    done = floor_cli("export", "--config", str(toml), "--out", str(out))
    assert done.returncode == 0, done.stderr  # the pit's own check is against its keys
    assert events(out / "t1") != as_ledger(pit.ledger("t1"))
    refused = floor_verify(pit, out)
    assert refused.returncode == 1
    assert (f"FAILED: t1: table-keys.json: key id {attacker.key_id} is not one of the keys "
            "lodged for table t1") in refused.stderr
    alone = audit_verify(pit, out / "t1", "t1")
    assert alone.returncode == 1 and f"key id {attacker.key_id} is not one" in alone.stderr
    told = audit_verify(pit, out / "t1", "t1", lodged=False)  # no lodged keys given: named
    assert told.returncode == 0 and f"key id(s) {attacker.key_id} (compare them" in told.stdout


# A floor export edited after it was signed.

def edit_a_card(d: Path) -> None:
    lines = (d / "events.jsonl").read_text().splitlines(keepends=True)
    n = next(i for i, line in enumerate(lines[len(lines) // 2:], len(lines) // 2)
             if '"type":"CARD"' in line)
    record = json.loads(lines[n])
    record["body"]["fields"][0] = "KD" if record["body"]["fields"][0] != "KD" else "QS"
    lines[n] = canonical(record) + "\n"
    (d / "events.jsonl").write_text("".join(lines))


def edit_a_signature(d: Path) -> None:
    lines = (d / "signatures.jsonl").read_text().splitlines(keepends=True)
    line = json.loads(lines[len(lines) // 2])
    line["signature"] = ("0" if line["signature"][0] != "0" else "1") + line["signature"][1:]
    lines[len(lines) // 2] = canonical(line) + "\n"
    (d / "signatures.jsonl").write_text("".join(lines))


def swap_the_keys_file(d: Path) -> None:
    other = json.loads((d.parent / "t2" / "table-keys.json").read_text())
    (d / "table-keys.json").write_text(canonical(
        {kid: next(iter(other.values())) for kid in json.loads(
            (d / "table-keys.json").read_text())}) + "\n")


EDITS = [(edit_a_card, r"t1: events.jsonl: SHA-256|t1: record \d+ \(events.jsonl line \d+\)"),
         (edit_a_signature, r"t1: signatures.jsonl: SHA-256 is not the manifest's"),
         (swap_the_keys_file, r"t1: table-keys.json: SHA-256 is not the manifest's")]


@pytest.mark.parametrize("edit, why", EDITS, ids=[e.__name__ for e, _ in EDITS])
def test_an_export_edited_after_signing_is_refused_by_both_verifiers(pit, good, tmp_path, edit,
                                                                     why):
    out = tmp_path / "export"
    shutil.copytree(good, out)
    edit(out / "t1")
    whole = floor_verify(pit, out)
    assert whole.returncode == 1 and re.search(why, whole.stderr), whole.stderr
    alone = audit_verify(pit, out / "t1", "t1")
    assert alone.returncode == 1 and "FAILED:" in alone.stderr, alone.stderr
    assert floor_verify(pit, good).returncode == 0  # the export as signed still checks


def test_an_export_rewritten_with_the_floors_own_key_is_refused_by_the_tables(pit, good,
                                                                              tmp_path):
    """Whoever holds the floor's key too: a card changed in events.jsonl, the chain, every
    file and both manifests made consistent again and signed with the floor's key. The
    standard tools see a well-signed export; the table's signatures, which only the table's
    key makes, name the records."""
    from tests.test_audit_money import forge

    out = tmp_path / "export"
    shutil.copytree(good, out)
    d = out / "t1"
    changed: list[int] = []

    def change(rows: list[dict]) -> None:
        n = next(i for i in range(len(rows) // 2, len(rows))
                 if rows[i]["kind"] == "frame" and rows[i]["body"].get("type") == "CARD")
        rows[n]["body"]["fields"][0] = "KD" if rows[n]["body"]["fields"][0] != "KD" else "QS"
        changed.append(rows[n]["idx"])

    forge(d, pit.floor_state, change)
    resign_floor(out, pit.floor_state)
    for verdict in (floor_verify(pit, out), audit_verify(pit, d, "t1")):
        assert verdict.returncode == 1
        found = re.search(r"record (\d+) \(events.jsonl line \d+\): its hash \w+ is not the "
                          r"one table t1 signed, \w+ \(signatures.jsonl line \d+\): (?:one of "
                          r"records (\d+)\.\.\1|record \1) is not the table's", verdict.stderr)
        assert found, verdict.stderr
        low = int(found[2] or found[1])
        assert low <= changed[0] <= int(found[1])


def test_an_export_stripped_of_its_table_signatures_is_refused(pit, good, tmp_path):
    """Whoever holds the floor's key makes a table's directory look like one made before the
    floor kept the tables' signatures (the three files gone, format 2), a card changed, all
    signed again with the floor's key: both verifiers refuse it; accepted only when asked
    for (an export made before the upgrade), and then said to be the floor's word alone."""
    from tests.test_audit_money import forge, sign

    out = tmp_path / "export"
    shutil.copytree(good, out)
    d = out / "t1"
    manifest = json.loads((d / "manifest.json").read_text())
    for name in ("signatures.jsonl", "tail.jsonl", "table-keys.json"):
        (d / name).unlink()
        del manifest["files"][name]
    manifest["format"] = "shoe-daemon-audit-export/2"
    del manifest["floor"]["table_signatures"]
    sign(d, pit.floor_state, manifest)
    forge(d, pit.floor_state, lambda rows: rows[len(rows) // 2]["body"].update(forged=True))
    floor = json.loads((out / "floor-manifest.json").read_text())
    next(e for e in floor["tables"] if e["dir"] == "t1").pop("table_keys")
    (out / "floor-manifest.json").write_text(json.dumps(floor))
    resign_floor(out, pit.floor_state)
    for verdict in (floor_verify(pit, out), audit_verify(pit, d, "t1")):
        assert verdict.returncode == 1
        assert ("manifest.json: a floor export without the table's signatures (format "
                "shoe-daemon-audit-export/2): its records are vouched for by the floor's key "
                "alone, not proven the table's") in verdict.stderr, verdict.stderr
    asked = floor_cli("verify", str(out), "--public-key", str(pit.floor_key),
                      "--without-table-signatures")
    assert asked.returncode == 0, asked.stderr
    assert "t1: export intact" in asked.stdout and "vouched for by the floor's key alone" \
        in asked.stdout
