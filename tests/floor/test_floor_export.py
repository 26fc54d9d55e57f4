"""The regulator's multi-table export from the floor, end to end: real tables (a coup machine
dealing the simulated croupier's shoe into a real ledger) published through the real link
and broker, collected into PostgreSQL and SQLite, exported with `shoe-floor export`, then
checked as the regulator checks a table's export: `shoe-daemon audit verify` and the openssl
and Python steps of docs/audit.md, and the floor's own steps of docs/floor.md. Tampering
with the export, or with the store before the export, is caught."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from hil.money_ledger import MoneyTable
from shoe_daemon.audit import keys
from shoe_daemon.audit.cli import parse_time
from shoe_daemon.audit.export import export as table_export
from shoe_daemon.audit.layout import iso, manifest_bytes
from shoe_daemon.audit.ledger import Record, canonical, chain_hash
from shoe_daemon.floor.link import FloorLink
from shoe_daemon.floor.outbox import message
from shoe_daemon.floor.signing import Signer
from shoe_daemon.floor.topics import RECORDS, topic
from shoe_floor.export import FLOOR_MANIFEST
from shoe_floor.store import Store
from tests.floor.conftest import PREFIX, ROOT, Raw, assert_exact, wait_for
from tests.floor.game import GameTable
from tests.floor.test_floor import tampered
from tests.test_audit import chain_check, standard_check
from tests.test_audit_money import events, forge, sign

BIN = Path(sys.executable).parent
FLOOR_DOC = ROOT / "docs" / "floor.md"


def run(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True, timeout=300)


def floor_cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return run(sys.executable, "-m", "shoe_floor.cli", *argv)


def audit_verify(export: Path, key: Path) -> subprocess.CompletedProcess[str]:
    return run(str(BIN / "shoe-daemon"), "audit", "verify", str(export), "--public-key",
               str(key))


def floor_check(export: Path) -> subprocess.CompletedProcess[str]:
    """docs/floor.md's check of a floor export with standard tools, as written there."""
    text = FLOOR_DOC.read_text()
    match = re.search(r"<!-- floor-check -->\n```sh\n(.*?)```\n<!-- /floor-check -->", text,
                      re.S)
    assert match, "docs/floor.md has no floor-check block"
    return run("bash", "-c", "set -eo pipefail\n" + match.group(1), cwd=export)


@pytest.fixture
def floor(make_table, collector, collector_toml, database, tmp_path):
    """Two tables dealt into their ledgers and collected; the floor's config and key."""
    collector()
    games = [GameTable(make_table("t1"), "baden", 41).connect(),
             GameTable(make_table("t2"), "zoppot-1934", 42).connect()]
    try:
        for _ in range(16):  # both at play at once: a time range covers both
            for game in games:
                game.deal(10)
        assert_exact(database, [g.table for g in games])
    finally:
        for game in games:
            game.stop()
    toml = collector_toml("collector-1")
    state = tmp_path / "floor-state"
    toml.write_text(toml.read_text() + f'\n[export]\nstate_dir = "{state}"\n')
    made = floor_cli("keygen", "--config", str(toml))
    assert made.returncode == 0, made.stderr
    return toml, games, state


def middle(game: GameTable) -> tuple[str, str]:
    """A time range inside the table's records: from its 20th record to its 150th."""
    records = game.table.records()
    return iso(records[19].wall_ns)[:26] + "Z", iso(records[149].wall_ns)[:26] + "Z"


def test_the_floor_export_checks_as_each_tables_own(floor, tmp_path):
    toml, games, state = floor
    start, end = middle(games[0])
    out = tmp_path / "export"
    done = floor_cli("export", "--config", str(toml), "--out", str(out), "--from", start,
                     "--to", end)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "floor-manifest.json", "floor-manifest.sig", "floor.pub.pem", "t1", "t2"]
    key = out / "floor.pub.pem"
    public = floor_cli("public-key", "--config", str(toml))
    assert public.stdout.startswith(key.read_text())
    kid = keys.load_current(state).key_id
    assert public.stdout.splitlines()[-1] == f"key id: {kid}"
    floor_manifest = json.loads((out / FLOOR_MANIFEST).read_text())
    assert [e["table_id"] for e in floor_manifest["tables"]] == ["t1", "t2"]
    for game in games:
        d = out / game.name
        verified = audit_verify(d, key)
        assert verified.returncode == 0, verified.stderr
        assert f"table {game.name}" in verified.stdout and kid in verified.stdout
        check = standard_check(d)
        assert check.returncode == 0, check.stderr
        assert "Signature Verified Successfully" in check.stdout
        assert check.stdout.splitlines()[-1] == kid
        assert chain_check(d).returncode == 0
        manifest = json.loads((d / "manifest.json").read_text())
        assert manifest["table"] == game.name and manifest["profile"] == game.profile
        assert manifest["coups"] > 3 and manifest["floor"]["complete"] is True
        assert manifest["floor"]["alarms"] == []
        # What the table itself exports for that range is, record for record, the same
        # (signed with the table's own key, the one its floor link signs with).
        own = table_export(game.table.state_dir, tmp_path / f"own-{game.name}",
                           parse_time(start), parse_time(end))
        for name in ("events.jsonl", "coups.csv"):
            assert (d / name).read_bytes() == (tmp_path / f"own-{game.name}" / name).read_bytes()
        assert manifest["records"] == own["records"] and manifest["chain"] == own["chain"]
    whole = floor_check(out)
    assert whole.returncode == 0, whole.stdout + whole.stderr
    assert "t1/manifest.json: OK" in whole.stdout and "t2/events.jsonl: OK" in whole.stdout
    listed = floor_cli("verify", str(out), "--public-key", str(key))
    assert listed.returncode == 0 and listed.stdout.count("export intact") == 2


def test_a_tables_directory_differs_from_its_own_export_only_in_who_vouches(floor, tmp_path):
    """One builder writes both (shoe_daemon/audit/builder.py): the floor's manifest of a table
    is the table's own, field for field, but for the signer, what the source could verify
    (the floor holds no ledger key), the floor's own signed section, and its format: the
    table's files, the same bytes, and the table's signatures that prove them."""
    toml, games, state = floor
    start, end = middle(games[1])
    out = tmp_path / "export"
    done = floor_cli("export", "--config", str(toml), "--out", str(out), "--from", start,
                     "--to", end, "--table", games[1].name)
    assert done.returncode == 0, done.stderr
    game = games[1]  # its signing key made for the floor link signs its own export too
    own = table_export(game.table.state_dir, tmp_path / "own", parse_time(start),
                       parse_time(end))
    floors = json.loads((out / game.name / "manifest.json").read_text())
    vouching = {"ledger", "key_id", "created", "exporter", "floor", "format", "files",
                "sha256sum"}
    assert set(floors) - vouching == set(own) - vouching and "floor" not in own
    assert {k: v for k, v in floors.items() if k not in vouching} == \
        {k: v for k, v in own.items() if k not in vouching}
    assert (floors["format"], own["format"]) == ("shoe-floor-table-export/1",
                                                 "shoe-daemon-audit-export/2")
    assert {name: floors["files"][name] for name in own["files"]} == own["files"]
    assert floors["sha256sum"][:3] == own["sha256sum"]
    assert sorted(set(floors["files"]) - set(own["files"])) == [
        "signatures.jsonl", "table-keys.json", "tail.jsonl"]
    assert floors["floor"]["table_signatures"]["key_ids"] == [game.table.key_id]
    assert floors["key_id"] == keys.load_current(state).key_id != own["key_id"]
    assert floors["exporter"].startswith("shoe-floor ")
    assert own["exporter"].startswith("shoe-daemon ")
    assert "the seals (mac) need the table's ledger key" in floors["ledger"]["verified"]


def test_a_tampered_floor_export_fails_every_check(floor, tmp_path):
    toml, _games, _state = floor
    out = tmp_path / "export"
    assert floor_cli("export", "--config", str(toml), "--out", str(out)).returncode == 0
    key = tmp_path / "lodged.pem"
    key.write_bytes((out / "floor.pub.pem").read_bytes())
    events = out / "t1" / "events.jsonl"
    lines = events.read_text().splitlines(keepends=True)
    lines[10] = lines[10].replace('"kind":"frame"', '"kind":"result"', 1)
    events.write_text("".join(lines))
    bad = audit_verify(out / "t1", key)
    assert bad.returncode == 1 and "FAILED: record" in bad.stderr
    assert standard_check(out / "t1").returncode != 0
    assert floor_check(out).returncode != 0
    assert floor_cli("verify", str(out), "--public-key", str(key)).returncode == 1
    # A table's directory left out: the floor's signed manifest still names it.
    shutil.rmtree(out / "t1")
    gone = floor_cli("verify", str(out), "--public-key", str(key))
    assert gone.returncode == 1 and "removed or added" in gone.stderr
    assert floor_check(out).returncode != 0
    # The floor manifest edited: its signature fails.
    manifest = out / FLOOR_MANIFEST
    manifest.write_text(manifest.read_text().replace('"t2"', '"t9"'))
    assert floor_cli("verify", str(out), "--public-key", str(key)).returncode == 1
    assert floor_check(out).returncode != 0


def test_a_store_changed_after_collection_is_not_exported(floor, database, tmp_path):
    toml, _games, _state = floor
    store = Store(database)
    try:
        with store.batch():
            store.db.execute(store.q("UPDATE records SET body = ? WHERE table_id = ? AND "
                                     "idx = ?"), ('{"seq":1,"type":"CARD","fields":["9C"]}',
                                                  "t2", 7))
    finally:
        store.close()
    out = tmp_path / "export"
    done = floor_cli("export", "--config", str(toml), "--out", str(out))
    assert done.returncode == 1
    assert "t2: record 7: its content does not match its hash" in done.stderr
    assert not out.exists() and not list(tmp_path.glob(".export.*"))
    # The other table alone is still exported.
    only = floor_cli("export", "--config", str(toml), "--out", str(out), "--table", "t1")
    assert only.returncode == 0, only.stderr
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["t1"]


def test_alarms_and_an_open_end_are_said_in_the_signed_manifest(make_table, collector,
                                                                  collector_toml, database,
                                                                  tmp_path):
    collector()
    game = GameTable(make_table("t1"), "baden", 43).connect()
    forger = Raw(game.table.config, game.table.state_dir)  # a message edited after signing
    try:
        game.deal(40)
        assert_exact(database, [game.table])
        fifth = game.table.records()[4]
        assert forger.publish(topic(PREFIX, "t1", RECORDS),
                              tampered(fifth, body={"seq": 99, "type": "HB", "fields": []})) == 0
        assert forger.publish(topic(PREFIX, "t1", RECORDS),
                              message(game.table.records()[-1])) == 0  # a duplicate: dropped
        wait_for(lambda: Store(database).alarms("t1"), what="the alarm")
    finally:
        forger.close()
        game.stop()
    toml = collector_toml("collector-1")
    toml.write_text(toml.read_text() + f'\n[export]\nstate_dir = "{tmp_path / "keys"}"\n')
    assert floor_cli("export", "--config", str(toml), "--out", str(tmp_path / "x")).returncode \
        == 2  # no floor key yet: `shoe-floor keygen` says so
    assert floor_cli("keygen", "--config", str(toml)).returncode == 0
    again = floor_cli("keygen", "--config", str(toml))
    assert again.returncode == 2 and "rotate-key" in again.stderr
    out = tmp_path / "export"
    done = floor_cli("export", "--config", str(toml), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "1 floor alarm(s)" in done.stderr and "verified tip" in done.stderr
    manifest = json.loads((out / "t1" / "manifest.json").read_text())
    said = manifest["floor"]
    assert [(a["kind"], a["idx"]) for a in said["alarms"]] == [("edited", 5)]
    assert said["complete"] is False and "end at" in said["open_end"]
    assert audit_verify(out / "t1", out / "floor.pub.pem").returncode == 0
    floor_manifest = json.loads((out / FLOOR_MANIFEST).read_text())
    assert floor_manifest["tables"][0]["alarms"] == 1
    assert floor_manifest["tables"][0]["complete"] is False
    unknown = floor_cli("export", "--config", str(toml), "--out", str(tmp_path / "y"),
                        "--table", "t9")
    assert unknown.returncode == 2 and "t9" in unknown.stderr


def test_a_table_pruned_before_the_floor_saw_it_exports_from_its_retained_start(
        make_table, collector, collector_toml, database, tmp_path):
    table = make_table("t1")
    table.commit(30)
    table.ledger.remove_before(21, {"exports": ["test"]})
    table.commit(5)
    collector()
    link = FloorLink(table.config, table.state_dir, poll=0.1)
    link.start()
    try:
        assert_exact(database, [table])
    finally:
        link.stop()
    toml = collector_toml("collector-1")
    toml.write_text(toml.read_text() + f'\n[export]\nstate_dir = "{tmp_path / "keys"}"\n')
    assert floor_cli("keygen", "--config", str(toml)).returncode == 0
    out = tmp_path / "export"
    assert floor_cli("export", "--config", str(toml), "--out", str(out)).returncode == 0
    manifest = json.loads((out / "t1" / "manifest.json").read_text())
    assert manifest["records"]["first"] == 21 and manifest["ledger"]["first"] == 21
    assert audit_verify(out / "t1", out / "floor.pub.pem").returncode == 0


def test_a_table_that_stopped_is_exported_to_its_stop_without_a_warning(
        make_table, collector, collector_toml, database, tmp_path):
    # Issue 23: a table that stopped cleanly and is stored whole is not "short" at export.
    collector()
    stopped = GameTable(make_table("t1"), "baden", 43).connect()
    running = GameTable(make_table("t2"), "baden", 44).connect()
    try:
        stopped.deal(30)
        running.deal(30)
        stopped.table.ledger.append("daemon.stop", {"shoe": 1, "coup": None})
        stopped.link.notify()
        assert_exact(database, [stopped.table, running.table])
    finally:
        stopped.stop()  # says offline
    wait_for(lambda: {t["table"]: t["online"] for t in Store(database).tables()}.get("t1")
             == "offline", what="t1's offline word")
    last = stopped.table.records()[-1].idx
    try:
        toml = collector_toml("collector-1")
        toml.write_text(toml.read_text() + f'\n[export]\nstate_dir = "{tmp_path / "keys"}"\n')
        assert floor_cli("keygen", "--config", str(toml)).returncode == 0
        out = tmp_path / "export"
        done = floor_cli("export", "--config", str(toml), "--out", str(out))
    finally:
        running.stop()
    assert done.returncode == 0, done.stderr
    assert f"t1: records 1..{last}" in done.stdout and "the table stopped" in done.stdout
    assert "t1: the range ends" not in done.stderr  # no warning for the table that stopped
    assert "t2: the range ends at the floor's verified tip" in done.stderr  # still running
    said = json.loads((out / "t1" / "manifest.json").read_text())["floor"]
    assert said["complete"] is False and said["stopped"] is True
    assert f"stopped at record {last}" in said["open_end"]
    assert json.loads((out / "t2" / "manifest.json").read_text())["floor"]["stopped"] is False
    assert audit_verify(out / "t1", out / "floor.pub.pem").returncode == 0


def test_a_database_that_cannot_be_reached_is_named_not_a_traceback(certs, tmp_path):
    """As on a pit whose PostgreSQL is down: exit 2 naming the setting, nothing written."""
    (tmp_path / "secret").write_text("s3cret\n")
    nowhere = tmp_path / "no-server"
    nowhere.mkdir()
    (tmp_path / "table-keys").mkdir()
    toml = tmp_path / "floor.toml"
    toml.write_text(f'[floor]\nbroker = "mqtts://127.0.0.1:1"\nusername = "shoe-floor"\n'
                    f'password_file = "secret"\nca_file = "{certs.ca}"\n\n[collector]\n'
                    f'database = "postgresql://shoe-floor@/shoe_floor?host={nowhere}"\n'
                    f'table_keys = "table-keys"\n\n'
                    f'[export]\nstate_dir = "{tmp_path / "state"}"\n')
    assert floor_cli("keygen", "--config", str(toml)).returncode == 0
    done = floor_cli("export", "--config", str(toml), "--out", str(tmp_path / "x"))
    assert done.returncode == 2, done.stderr
    assert "shoe-floor export: collector.database: cannot connect" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "x").exists()


def test_the_floor_export_gains_the_money(make_table, collector, collector_toml, database,
                                          tmp_path):
    """A table's money (hil/money_ledger.py: dealt shoes, a croupier's stakes, a console's
    void) collected at the floor and exported: each table's directory has its
    settlements.csv, checked by the standard tools and by `audit verify`'s money checks,
    byte for byte the table's own; a settlement forged in it and signed again with the
    floor's key is named by `shoe-floor verify`."""
    collector()
    table = make_table("t1")
    MoneyTable(table.state_dir, "baden", seed=7, voids={4: "console"}, table="t1").run()
    link = FloorLink(table.config, table.state_dir, poll=0.1)
    link.start()
    try:
        assert_exact(database, [table])
    finally:
        link.stop()
    toml = collector_toml("collector-1")
    state = tmp_path / "floor-state"
    toml.write_text(toml.read_text() + f'\n[export]\nstate_dir = "{state}"\n')
    assert floor_cli("keygen", "--config", str(toml)).returncode == 0
    records = table.records()
    settlements = [r for r in records if r.kind == "money.settlement"]
    start = iso(settlements[10].wall_ns)[:26] + "Z"
    out = tmp_path / "export"
    done = floor_cli("export", "--config", str(toml), "--out", str(out), "--from", start)
    assert done.returncode == 0, done.stderr
    key = out / "floor.pub.pem"
    d = out / "t1"
    assert (d / "settlements.csv").is_file()
    verified = audit_verify(d, key)
    assert verified.returncode == 0, verified.stderr
    assert "money: " in verified.stdout and "settlements follow their rounds and results" \
        in verified.stdout
    check = standard_check(d)
    assert check.returncode == 0 and "settlements.csv: OK" in check.stdout
    whole = floor_check(out)
    assert whole.returncode == 0 and "t1/settlements.csv: OK" in whole.stdout
    own = table_export(table.state_dir, tmp_path / "own", parse_time(start))  # its own key
    for name in ("events.jsonl", "coups.csv", "settlements.csv"):
        assert (d / name).read_bytes() == (tmp_path / "own" / name).read_bytes()
    manifest = json.loads((d / "manifest.json").read_text())
    assert manifest["settlements"] == own["settlements"]
    assert manifest["settlements"]["coups"] == len(
        [s for s in settlements if s.wall_ns >= parse_time(start)])

    def richer(rows: list[dict]) -> None:
        i = [i for i, r in enumerate(rows) if r["kind"] == "money.settlement"
             and any(ln["result"] == "lost" for ln in r["body"]["lines"])][3]
        line = next(ln for ln in rows[i]["body"]["lines"] if ln["result"] == "lost")
        bank = next(ln for ln in rows[i]["body"]["lines"] if ln["kind"] == "bank")
        line["paid"], line["net"] = "1.00", str(Decimal(line["net"]) + 1)
        bank["carried"], bank["net"] = (str(Decimal(bank["carried"]) - 1),
                                        str(Decimal(bank["net"]) - 1))
        richer.idx = rows[i]["idx"]

    forge(d, state, richer)  # signed again with the floor's own key ...
    resign_floor(out, state)  # ... and the floor's manifest with it
    assert floor_check(out).returncode == 0  # the standard tools see a well-signed export
    bad = floor_cli("verify", str(out), "--public-key", str(key))
    assert bad.returncode == 1  # the table's signatures are not the forger's to make
    named = re.search(r"t1: record (\d+) \(events.jsonl line \d+\): its hash \w+ is not the "
                      r"one table t1 signed, \w+ \(signatures.jsonl line \d+\): one of "
                      r"records (\d+)\.\.\1 is not the table's", bad.stderr)
    assert named and int(named[2]) <= richer.idx <= int(named[1]), bad.stderr
    # A forger holding the table's key as well: the money is still checked by the rules.
    resign_table(d, table.state_dir, state)
    resign_floor(out, state)
    bad = floor_cli("verify", str(out), "--public-key", str(key))
    assert bad.returncode == 1
    assert f"t1: record {richer.idx} (events.jsonl line " in bad.stderr
    assert "money.settlement of shoe 1 coup" in bad.stderr and "the rules give" in bad.stderr


def resign_floor(out: Path, state: Path) -> None:
    """The floor manifest made to name its tables' manifests as they are now, signed again
    with the floor's key (state)."""
    floor_manifest = json.loads((out / FLOOR_MANIFEST).read_text())
    for entry in floor_manifest["tables"]:
        entry["manifest_sha256"] = hashlib.sha256(
            (out / entry["dir"] / "manifest.json").read_bytes()).hexdigest()
    floor_manifest["sha256sum"] = [f"{e['manifest_sha256']}  {e['dir']}/manifest.json"
                                   for e in floor_manifest["tables"]]
    data = manifest_bytes(floor_manifest)
    (out / FLOOR_MANIFEST).write_bytes(data)
    (out / "floor-manifest.sig").write_bytes(keys.load_current(state).private.sign(data))


def resign_table(d: Path, table_state: Path, floor_state: Path) -> None:
    """A table directory whose events.jsonl was forged (tests.test_audit_money.forge): its
    tail chained on again from the forged last record, each table signature made again over
    the new hash of its record with the table's key, the manifest signed with the floor's."""
    manifest = json.loads((d / "manifest.json").read_text())
    prev = manifest["chain"]["last"]
    tail = []
    for line in (d / "tail.jsonl").read_text().splitlines():
        r = json.loads(line)
        r["prev"] = prev
        r["hash"] = prev = chain_hash(prev, Record(**r).content())
        tail.append(r)
    hashes = {r["idx"]: r["hash"] for r in [*events(d), *tail]}
    table_id = manifest["floor"]["table_id"]
    signer = Signer(table_state)
    lines = [signer.sign(table_id, s["idx"], hashes[s["idx"]]).line() for s in
             map(json.loads, (d / "signatures.jsonl").read_text().splitlines())]
    files = {"tail.jsonl": "".join(canonical(r) + "\n" for r in tail).encode(),
             "signatures.jsonl": b"".join(lines)}
    for name, data in files.items():
        (d / name).write_bytes(data)
        manifest["files"][name] = hashlib.sha256(data).hexdigest()
    manifest["sha256sum"] = [f"{manifest['files'][n]}  {n}" for n in sorted(manifest["files"])]
    sign(d, floor_state, manifest)
