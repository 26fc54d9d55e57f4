"""`shoe-daemon audit`: signed exports, their verification, the live ledger's, the keys.

Real SQLite, real files, real `openssl`. Every way of tampering with an export or with the
database must fail, naming the first bad record (or the file and line); the intact ones
pass. Tampering with the database is done the way an attacker would: triggers dropped with
sqlite3, or the file's bytes edited.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
import stat
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from shoe_daemon.audit import cli as audit_cli
from shoe_daemon.audit import keys, layout, ledger
from shoe_daemon.audit.builder import ExportBuilder, staged
from shoe_daemon.audit.coups import CoupsTable
from shoe_daemon.audit.export import export as write_export
from shoe_daemon.audit.ledger import Ledger, Record, canonical, chain_hash
from shoe_daemon.audit.reader import VerifyFailed
from shoe_daemon.audit.verify import verify_export as audit_verify_export
from shoe_daemon.game import results

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "audit.md"
T0 = datetime(2026, 3, 1, 6, 0, tzinfo=UTC)
MIN = 60 * 1_000_000_000
T0_NS = audit_cli.parse_time("2026-03-01T06:00:00Z")
OPENSSL = shutil.which("openssl")


# ---- a table's day in the ledger -----------------------------------------------------------------


def _frame(seq: int, type_: str, *fields: str) -> tuple[str, dict]:
    return "frame", {"seq": seq, "type": type_, "fields": list(fields)}


def _result(line: dict) -> tuple[str, dict]:
    return "result", {"line": line}


def _start(version: str) -> tuple[str, dict]:
    return "daemon.start", {"version": version, "code_sha256": hashlib.sha256(
        version.encode()).hexdigest(), "table": "T7", "profile": "baden",
        "config": {"port": "/dev/shoe"}}


def _coup(coup: int, punter: list[str], banker: list[str], irregular: list[str],
          last: bool = False) -> dict:
    return results.coup_result(shoe=1, coup=coup, profile="baden",
                               outcome=results.outcome_of(punter, banker), punter=punter,
                               banker=banker, last_coup=last, irregularities=irregular)


def _irregularity(code: str, coup: int, hold: bool = True) -> dict:
    return results.irregularity(code=code, shoe=1, coup=coup, rule="000 rule 12",
                                detail=f"{code} at coup {coup}", hold=hold, action="see docs")


# (minutes after T0, records): two boots of the daemon, three coups, holds and a badge.
BOOT_A = [
    (0, [_start("0.1.0"), ("transport", {"event": "connected", "detail": "serial:/dev/shoe"})]),
    (1, [_frame(0, "HELLO", "SHOE-9", "SN42", "1.2", "b00t"), _frame(1, "BTN", "SHOE")]),
    (2, [_frame(2, "CARD", "6D", "P"), _frame(3, "CARD", "??", "B"),
         _result(_irregularity("UNREADABLE_CARD", 1))]),
    (3, [_frame(4, "BTN", "ENTER", "5D"),
         _result(results.resolution(code="UNREADABLE_CARD", shoe=1, coup=1, how="ENTER 5D",
                                    by="croupier")),
         _frame(5, "CARD", "8H", "P"), _frame(6, "CARD", "2S", "B"),
         _result(_coup(1, ["6D", "8H"], ["5D", "2S"], ["UNREADABLE_CARD"]))]),
    (4, [_frame(7, "HB"), _frame(8, "CARD", "9C", "P"), _frame(9, "CARD", "KH", "B"),
         _frame(10, "CARD", "3D", "P"), _frame(11, "CARD", "4S", "B"),
         _result(_coup(2, ["9C", "3D"], ["KH", "4S"], []))]),
    (5, [_frame(12, "CARD", "ZZ", "P"), _result(_irregularity("FOREIGN_CARD", 2)),
         _frame(13, "BTN", "KEY", "4711"), _frame(14, "BTN", "OK"),
         _result(results.resolution(code="FOREIGN_CARD", shoe=1, coup=2, how="OK", by="4711"))]),
    (6, [("transport", {"event": "lost", "detail": "marker-EIO"}), ("daemon.stop", {})]),
]
BOOT_B = [
    (60, [_start("0.1.1"), ("restore", {"frames": 14, "shoes_before": 0}),
          ("transport", {"event": "connected", "detail": "serial:/dev/shoe"})]),
    (61, [("clock.step", {"jump_ns": -2_000_000_000}), _frame(0, "HB"),
          _frame(1, "CARD", "4H", "P"), _frame(2, "CARD", "4C", "B"),
          _frame(3, "CARD", "5S", "P"), _frame(4, "CARD", "3D", "B"),
          _result(_coup(3, ["4H", "5S"], ["4C", "3D"], [], last=True))]),
    (62, [_frame(5, "HB")]),
]
COUPS_CSV = """\
shoe,coup,time,punter_cards,banker_cards,punter_total,banker_total,outcome,irregularities,\
resolved_by,last_coup,ledger_index
1,1,2026-03-01T06:03:00.000000000Z,6D 8H,5D 2S,4,7,banker,UNREADABLE_CARD,\
UNREADABLE_CARD:ENTER_5D:croupier,false,12
1,2,2026-03-01T06:04:00.000000000Z,9C 3D,KH 4S,2,4,banker,,FOREIGN_CARD:OK:4711,false,18
1,3,2026-03-01T07:01:00.000000000Z,4H 5S,4C 3D,9,7,punter,,,true,35
"""


class Clock:
    """Stands in for the `time` module the ledger reads."""

    def __init__(self) -> None:
        self.wall, self.mono = T0_NS, 1_000_000

    def time_ns(self) -> int:
        return self.wall

    def monotonic_ns(self) -> int:
        return self.mono


def write_day(state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    monkeypatch.setattr(ledger, "time", clock)
    for boot in (BOOT_A, BOOT_B):
        book = Ledger(state)
        for minute, items in boot:
            clock.wall, clock.mono = T0_NS + minute * MIN, clock.mono + MIN
            book.append_many(items)
        book.close()
    monkeypatch.undo()


def all_records(state: Path) -> list[Record]:
    book = Ledger(state)
    try:
        return list(book.records())
    finally:
        book.close()


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    state = tmp_path / "state"
    write_day(state, monkeypatch)
    keys.keygen(state, now=T0)
    return state


@pytest.fixture
def export(state: Path, tmp_path: Path) -> Path:
    out = tmp_path / "export"
    write_export(state, out)
    return out


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    """`shoe-daemon audit ARGV...` as cli.py runs it (add_audit_parser + run_audit)."""
    code = audit_cli.main(["audit", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def lines_of(path: Path) -> list[str]:
    return path.read_text().splitlines(keepends=True)


def records_in(export: Path) -> list[dict]:
    return [json.loads(line) for line in lines_of(export / "events.jsonl")]


# ---- the intact export ---------------------------------------------------------------------------


def test_ledger_fixture_is_what_the_expectations_assume(state: Path) -> None:
    records = all_records(state)
    assert len(records) == 36
    assert [r.idx for r in records if r.kind == "daemon.start"] == [1, 26]


def test_intact_export_verifies(export: Path, state: Path, capsys) -> None:
    assert sorted(p.name for p in export.iterdir()) == sorted(layout.EXPORT_FILES)
    current = keys.load_current(state)
    code, out, err = run(capsys, "verify", export)
    assert (code, err) == (0, "")
    assert out.count("\n") == 1
    assert "records 1..36 (36), 3 coups, table T7" in out
    assert f"signed by key id {current.key_id} (the table.pub.pem in the export" in out
    lodged = state / "keys" / f"{current.stem}.pub.pem"
    code, out, _ = run(capsys, "verify", export, "--public-key", lodged)
    assert code == 0
    assert f"key id {current.key_id} (the key given with --public-key)" in out


def test_export_contents(export: Path, state: Path) -> None:
    records = all_records(state)
    assert (export / "events.jsonl").read_text() == "".join(
        canonical(r.as_dict()) + "\n" for r in records)
    assert (export / "coups.csv").read_text() == COUPS_CSV
    manifest = json.loads((export / "manifest.json").read_bytes())
    assert manifest["table"] == "T7" and manifest["profile"] == "baden"
    assert manifest["software"] == {"version": "0.1.1", "daemon_start_record": 26,
                                    "code_sha256": hashlib.sha256(b"0.1.1").hexdigest()}
    assert manifest["daemon_starts"] == [1, 26]
    assert manifest["records"] == {"first": 1, "last": 36, "count": 36}
    assert manifest["counts"] == {"clock.step": 1, "daemon.start": 2, "daemon.stop": 1,
                                  "frame": 21, "restore": 1, "result": 7, "transport": 3}
    assert manifest["chain"] == {"prev": ledger.GENESIS, "last": records[-1].hash}
    assert manifest["time"]["earliest_record"] == "2026-03-01T06:00:00.000000000Z"
    for name in ("events.jsonl", "coups.csv"):
        digest = hashlib.sha256((export / name).read_bytes()).hexdigest()
        assert manifest["files"][name] == digest
        assert f"{digest}  {name}" in manifest["sha256sum"]
    assert manifest["key_id"] == keys.load_current(state).key_id
    assert (export / "table.pub.pem").read_bytes() == keys.load_current(state).public_pem
    assert len((export / "manifest.sig").read_bytes()) == 64


def test_export_is_deterministic_and_leaves_the_ledger_untouched(state: Path, tmp_path: Path,
                                                                 capsys) -> None:
    db = state / "ledger.sqlite3"
    before = db.read_bytes()
    write_export(state, tmp_path / "a", created="2026-03-02T00:00:00Z")
    write_export(state, tmp_path / "b", created="2026-03-02T00:00:00Z")
    assert run(capsys, "verify", "--state-dir", state)[0] == 0
    for name in layout.EXPORT_FILES:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert db.read_bytes() == before


def test_time_range_export_verifies(state: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "range"
    code, text, _ = run(capsys, "export", "--state-dir", state, "--out", out,
                        "--from", "2026-03-01T06:04:00Z", "--to", "2026-03-01T07:00:00")
    assert code == 0 and "exported records 13..25 (13), 1 coups" in text
    records = all_records(state)
    manifest = json.loads((out / "manifest.json").read_bytes())
    assert manifest["records"] == {"first": 13, "last": 25, "count": 13}
    assert manifest["chain"] == {"prev": records[11].hash, "last": records[24].hash}
    assert manifest["software"]["version"] == "0.1.0"  # the daemon.start before the range
    assert manifest["daemon_starts"] == []
    assert manifest["time"]["from"] == "2026-03-01T06:04:00.000000000Z"
    assert manifest["time"]["to"] == "2026-03-01T07:00:00.000000000Z"
    assert (out / "coups.csv").read_text().splitlines()[1:] == [COUPS_CSV.splitlines()[2]]
    code, text, _ = run(capsys, "verify", out)
    assert code == 0 and "records 13..25 (13), 1 coups" in text

    later = tmp_path / "later"
    assert run(capsys, "export", "--state-dir", state, "--out", later,
               "--from", "2026-03-01T07:00:00+00:00")[0] == 0
    second = json.loads((later / "manifest.json").read_bytes())
    assert second["records"]["first"] == 26 and second["software"]["version"] == "0.1.1"
    assert run(capsys, "verify", later)[0] == 0


def test_consecutive_exports_join_up(state: Path, tmp_path: Path) -> None:
    a = write_export(state, tmp_path / "a", end_ns=T0_NS + 60 * MIN)
    b = write_export(state, tmp_path / "b", start_ns=T0_NS + 60 * MIN)
    assert b["records"]["first"] == a["records"]["last"] + 1
    assert b["chain"]["prev"] == a["chain"]["last"]


def test_time_parsing() -> None:
    assert audit_cli.parse_time("2026-03-01T06:00:00") == T0_NS
    assert audit_cli.parse_time("2026-03-01T07:00:00+01:00") == T0_NS
    assert audit_cli.parse_time("2026-03-01T06:00:00.5Z") == T0_NS + 500_000_000
    assert audit_cli.parse_time("2026-03-01") == T0_NS - 6 * 60 * MIN
    assert layout.iso(T0_NS + 7) == "2026-03-01T06:00:00.000000007Z"


# ---- the standard tools of docs/audit.md ---------------------------------------------------------


def doc_block(name: str) -> str:
    text = DOC.read_text()
    match = re.search(rf"<!-- {name} -->\n```\w+\n(.*?)```\n<!-- /{name} -->", text, re.S)
    assert match, f"docs/audit.md has no {name} block"
    return match.group(1)


def standard_check(export: Path) -> subprocess.CompletedProcess[str]:
    script = "set -eo pipefail\n" + doc_block("standard-check")
    return subprocess.run(["bash", "-c", script], cwd=export, capture_output=True, text=True,
                          timeout=60)


def chain_check(export: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", doc_block("chain-check")], cwd=export,
                          capture_output=True, text=True, timeout=60)


def test_standard_tool_check_passes_on_an_intact_export(export: Path, state: Path) -> None:
    done = standard_check(export)
    assert done.returncode == 0, done.stderr
    assert "Signature Verified Successfully" in done.stdout
    assert "events.jsonl: OK" in done.stdout and "coups.csv: OK" in done.stdout
    assert done.stdout.splitlines()[-1] == keys.load_current(state).key_id
    done = chain_check(export)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "chain good: records 1..36\n"


@pytest.mark.parametrize("victim", ["manifest.json", "manifest.sig", "coups.csv",
                                    "events.jsonl"])
def test_standard_tool_check_fails_on_a_changed_file(export: Path, victim: str) -> None:
    data = bytearray((export / victim).read_bytes())
    data[len(data) // 2] ^= 0x01
    (export / victim).write_bytes(bytes(data))
    assert standard_check(export).returncode != 0


def test_chain_check_of_the_docs_names_the_bad_record(export: Path) -> None:
    lines = lines_of(export / "events.jsonl")
    lines[9] = lines[9].replace('"8H"', '"9H"')
    (export / "events.jsonl").write_text("".join(lines))
    done = chain_check(export)
    assert done.returncode == 1 and "bad record 10 (events.jsonl line 10)" in done.stderr


# ---- tampering with the export -------------------------------------------------------------------


def edit_events(export: Path, change) -> None:
    lines = lines_of(export / "events.jsonl")
    change(lines)
    (export / "events.jsonl").write_text("".join(lines))


def resign(export: Path, private: Ed25519PrivateKey) -> None:
    """What a forger with their own key does: manifest fixed up, signed, key replaced."""
    manifest = json.loads((export / "manifest.json").read_bytes())
    records = records_in(export)
    for name in ("events.jsonl", "coups.csv"):
        manifest["files"][name] = hashlib.sha256((export / name).read_bytes()).hexdigest()
    manifest["sha256sum"] = [f"{manifest['files'][n]}  {n}" for n in layout.DATA_FILES]
    manifest["chain"]["last"] = records[-1]["hash"]
    manifest["key_id"] = keys.key_id(private.public_key())
    data = layout.manifest_bytes(manifest)
    (export / "manifest.json").write_bytes(data)
    (export / "manifest.sig").write_bytes(private.sign(data))
    (export / "table.pub.pem").write_bytes(keys.public_pem(private.public_key()))


def modify_field(lines: list[str]) -> None:
    record = json.loads(lines[4])
    record["body"]["fields"][0] = "9H"
    lines[4] = canonical(record) + "\n"


def modify_time(lines: list[str]) -> None:
    record = json.loads(lines[18])
    record["wall_ns"] += 1
    lines[18] = canonical(record) + "\n"


def modify_non_canonical(lines: list[str]) -> None:
    lines[6] = lines[6].replace(",", ", ", 1)


def insert_copy(lines: list[str]) -> None:
    lines.insert(8, lines[7])


def insert_forged(lines: list[str]) -> None:
    """A whole record appended after the last, chained properly."""
    last = Record(**json.loads(lines[-1]))
    forged = Record(last.idx + 1, last.wall_ns, last.mono_ns, last.boot, "frame",
                    {"seq": 99, "type": "HB", "fields": []}, last.hash, "", "0" * 64)
    forged = Record(**{**forged.as_dict(), "hash": chain_hash(last.hash, forged.content())})
    lines.append(canonical(forged.as_dict()) + "\n")


def swap(lines: list[str]) -> None:
    lines[9], lines[10] = lines[10], lines[9]


def delete_mac(lines: list[str]) -> None:
    record = json.loads(lines[4])
    record["mac"] = "f" * 64
    lines[4] = canonical(record) + "\n"


EVENT_TAMPERING = {
    "modify a field": (modify_field,
                       "record 5 (events.jsonl line 5): its content does not match its hash"),
    "modify a time": (modify_time,
                      "record 19 (events.jsonl line 19): its content does not match its hash"),
    "re-encode a line": (modify_non_canonical,
                         "record 7 (events.jsonl line 7): not in the canonical encoding"),
    "delete a line": (lambda lines: lines.pop(11),
                      "record 12 (events.jsonl line 12): expected here, found record 13"),
    "delete the first line": (lambda lines: lines.pop(0),
                              "record 1 (events.jsonl line 1): expected here, found record 2"),
    "delete the last line": (lambda lines: lines.pop(),
                             "record 36 (events.jsonl line 36): missing"),
    "insert a copied line": (insert_copy,
                             "record 9 (events.jsonl line 9): expected here, found record 8"),
    "insert a forged record": (insert_forged,
                               "events.jsonl line 37: record 37 is beyond the manifest's last"),
    "insert a blank line": (lambda lines: lines.insert(3, "\n"),
                            "record 4? (events.jsonl line 4): not a JSON record"),
    "swap two lines": (swap,
                       "record 10 (events.jsonl line 10): expected here, found record 11"),
    "change a seal": (delete_mac, "events.jsonl: SHA-256"),
    "truncate the last newline": (lambda lines: lines.append(lines.pop().rstrip("\n")),
                                  "events.jsonl line 36: not ended by a newline"),
}


@pytest.mark.parametrize("how", sorted(EVENT_TAMPERING))
def test_tampered_events_fail_naming_the_first_bad_record(export: Path, how: str,
                                                          capsys) -> None:
    change, expected = EVENT_TAMPERING[how]
    edit_events(export, change)
    code, out, err = run(capsys, "verify", export)
    assert code == 1 and out == ""
    assert expected in err, err
    assert err.startswith("shoe-daemon audit verify: FAILED: ")


def test_events_forged_and_resigned_with_another_key(export: Path, state: Path, capsys) -> None:
    """A forger re-signs everything with their own key: the export's own key says yes, with
    a key id that is not the lodged one; the lodged key says no."""
    edit_events(export, modify_field)
    lines = lines_of(export / "events.jsonl")
    prev = json.loads(lines[3])["hash"]
    rechained = []
    for line in lines[4:]:
        record = Record(**json.loads(line))
        digest = chain_hash(prev, record.content())
        rechained.append(canonical({**record.as_dict(), "prev": prev, "hash": digest}) + "\n")
        prev = digest
    (export / "events.jsonl").write_text("".join(lines[:4] + rechained))
    coups = CoupsTable()
    for line in lines_of(export / "events.jsonl"):
        coups.feed(Record(**json.loads(line)))
    (export / "coups.csv").write_text(coups.text())
    forger = Ed25519PrivateKey.generate()
    resign(export, forger)

    code, out, _ = run(capsys, "verify", export)
    assert code == 0 and f"key id {keys.key_id(forger.public_key())}" in out
    assert keys.load_current(state).key_id not in out
    lodged = state / "keys" / f"{keys.load_current(state).stem}.pub.pem"
    code, _, err = run(capsys, "verify", export, "--public-key", lodged)
    assert code == 1 and "the signature does not verify with key id" in err


def test_edited_coups_csv_names_its_line(export: Path, capsys) -> None:
    path = export / "coups.csv"
    path.write_text(path.read_text().replace(",punter,,,true,35", ",banker,,,true,35"))
    code, _, err = run(capsys, "verify", export)
    assert code == 1
    assert "coups.csv line 4: differs from the coups in events.jsonl" in err
    assert "punter" in err and "banker" in err


def test_coups_csv_with_a_row_removed(export: Path, capsys) -> None:
    path = export / "coups.csv"
    rows = lines_of(path)
    path.write_text("".join(rows[:2] + rows[3:]))
    code, _, err = run(capsys, "verify", export)
    assert code == 1 and "coups.csv line 3: differs" in err


@pytest.mark.parametrize("edit", [
    lambda m: m.replace('"table": "T7"', '"table": "T8"'),
    lambda m: m.replace('"last": 36', '"last": 35'),
    lambda m: m + " ",
])
def test_edited_manifest_fails_the_signature(export: Path, edit, capsys) -> None:
    path = export / "manifest.json"
    path.write_text(edit(path.read_text()))
    code, _, err = run(capsys, "verify", export)
    assert code == 1
    assert "manifest.json/manifest.sig: the signature does not verify with key id" in err


def test_replaced_signature(export: Path, capsys) -> None:
    other = Ed25519PrivateKey.generate()
    (export / "manifest.sig").write_bytes(other.sign((export / "manifest.json").read_bytes()))
    code, _, err = run(capsys, "verify", export)
    assert code == 1 and "the signature does not verify" in err
    (export / "manifest.sig").write_bytes(b"\0" * 63)
    assert run(capsys, "verify", export)[0] == 1


@pytest.mark.parametrize("name", layout.EXPORT_FILES)
def test_missing_file(export: Path, name: str, capsys) -> None:
    (export / name).unlink()
    code, _, err = run(capsys, "verify", export)
    assert code == 1 and f"{name}: missing from the export" in err


def test_wrong_public_key(export: Path, tmp_path: Path, capsys) -> None:
    other = Ed25519PrivateKey.generate()
    pem = tmp_path / "other.pub.pem"
    pem.write_bytes(keys.public_pem(other.public_key()))
    code, _, err = run(capsys, "verify", export, "--public-key", pem)
    assert code == 1
    assert f"does not verify with key id {keys.key_id(other.public_key())}" in err
    assert "the key given with --public-key" in err


def test_replaced_table_pub_pem(export: Path, state: Path, capsys) -> None:
    lodged = state / "keys" / f"{keys.load_current(state).stem}.pub.pem"
    other = Ed25519PrivateKey.generate()
    (export / "table.pub.pem").write_bytes(keys.public_pem(other.public_key()))
    assert run(capsys, "verify", export)[0] == 1
    code, _, err = run(capsys, "verify", export, "--public-key", lodged)
    assert code == 1 and "table.pub.pem: key id" in err and "is not the signing key" in err


def test_verify_refusals(tmp_path: Path, export: Path, capsys) -> None:
    code, _, err = run(capsys, "verify", tmp_path / "nowhere")
    assert code == 2 and "no such export directory" in err
    assert run(capsys, "verify")[0] == 2
    assert run(capsys, "verify", export, "--state-dir", tmp_path)[0] == 2
    code, _, err = run(capsys, "verify", export, "--public-key", tmp_path / "none.pem")
    assert code == 2 and "none.pem" in err


# ---- tampering with the database -----------------------------------------------------------------


def attacker(state: Path) -> sqlite3.Connection:
    """sqlite3 on the ledger with the append-only triggers dropped."""
    db = sqlite3.connect(state / "ledger.sqlite3", isolation_level=None)
    db.executescript("DROP TRIGGER records_append_only_update;"
                     "DROP TRIGGER records_append_only_delete;"
                     "DROP TRIGGER records_gap_free;")
    return db


def row_record(db: sqlite3.Connection, idx: int) -> Record:
    row = db.execute("SELECT * FROM records WHERE idx = ?", (idx,)).fetchone()
    return Record(*row[:5], json.loads(row[5]), *row[6:])


def db_modify(db: sqlite3.Connection) -> None:
    db.execute("UPDATE records SET body = replace(body, 'UNREADABLE_CARD', 'WRONG_ORDER') "
               "WHERE idx = 7")


def db_delete(db: sqlite3.Connection) -> None:
    db.execute("DELETE FROM records WHERE idx = 7")


def db_delete_first(db: sqlite3.Connection) -> None:
    db.execute("DELETE FROM records WHERE idx = 1")


def db_insert(db: sqlite3.Connection) -> None:
    """Shift records 7.. up one and put a forged, properly chained record at 7."""
    last = db.execute("SELECT MAX(idx) FROM records").fetchone()[0]
    for idx in range(last, 6, -1):
        db.execute("UPDATE records SET idx = idx + 1 WHERE idx = ?", (idx,))
    before = row_record(db, 6)
    forged = Record(7, before.wall_ns, before.mono_ns, before.boot, "frame",
                    {"seq": 3, "type": "CARD", "fields": ["9D", "B"]}, before.hash, "", "")
    digest = chain_hash(before.hash, forged.content())
    db.execute("INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?)",
               (7, forged.wall_ns, forged.mono_ns, forged.boot, forged.kind,
                canonical(forged.body), before.hash, digest, "0" * 64))


def db_reorder(db: sqlite3.Connection) -> None:
    db.execute("UPDATE records SET idx = -1 WHERE idx = 7")
    db.execute("UPDATE records SET idx = 7 WHERE idx = 8")
    db.execute("UPDATE records SET idx = 8 WHERE idx = -1")


def db_forge(db: sqlite3.Connection) -> None:
    """Change record 7 and re-chain everything after it; the seals cannot be remade."""
    last = db.execute("SELECT MAX(idx) FROM records").fetchone()[0]
    prev = row_record(db, 6).hash
    for idx in range(7, last + 1):
        record = row_record(db, idx)
        body = record.body
        if idx == 7:
            body = {"line": {**body["line"], "code": "WRONG_ORDER"}}
        content = Record(idx, record.wall_ns, record.mono_ns, record.boot, record.kind, body,
                         prev, "", "").content()
        digest = chain_hash(prev, content)
        db.execute("UPDATE records SET body = ?, prev = ?, hash = ?, mac = ? WHERE idx = ?",
                   (canonical(body), prev, digest, hashlib.sha256(digest.encode()).hexdigest(),
                    idx))
        prev = digest


DB_TAMPERING = {
    "modify": (db_modify, "record 7: its content does not match its hash"),
    "delete": (db_delete, "record 7: missing (found index 8 next)"),
    "delete the first": (db_delete_first, "record 1: missing: the ledger starts at record 2 but "
                                          "no ledger.pruned record says any were removed"),
    "insert": (db_insert, "record 7: its seal does not match"),
    "reorder": (db_reorder, "record 7: its prev does not match"),
    "forge without the key": (db_forge, "record 7: its seal does not match (rewritten without "
                                        "the ledger key)"),
}


@pytest.mark.parametrize("how", sorted(DB_TAMPERING))
def test_tampered_ledger_fails_naming_the_first_bad_record(state: Path, tmp_path: Path,
                                                           how: str, capsys) -> None:
    assert run(capsys, "verify", "--state-dir", state)[0] == 0
    change, expected = DB_TAMPERING[how]
    db = attacker(state)
    change(db)
    db.close()
    code, out, err = run(capsys, "verify", "--state-dir", state)
    assert code == 1 and out == ""
    assert expected in err, err
    # ... and such a ledger is not exported: the table's key never signs a rewrite
    out_dir = tmp_path / "refused"
    code, _, err = run(capsys, "export", "--state-dir", state, "--out", out_dir)
    assert code == 2 and "the ledger does not verify, nothing exported" in err
    assert expected in err
    assert not out_dir.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    # ... and the daemon's own check at start says the same
    book = Ledger(state)
    with pytest.raises(ledger.LedgerCorrupt, match=re.escape(expected)):
        book.verify()
    book.close()


def test_edited_database_file(state: Path, capsys) -> None:
    """No sqlite3 at all: the file's bytes edited in place, triggers and all still there."""
    path = state / "ledger.sqlite3"
    data = path.read_bytes()
    assert data.count(b"marker-EIO") == 1
    path.write_bytes(data.replace(b"marker-EIO", b"marker-OK!"))
    code, _, err = run(capsys, "verify", "--state-dir", state)
    assert code == 1 and "record 24: its content does not match its hash" in err


def test_unreadable_record_is_named(state: Path, capsys) -> None:
    db = attacker(state)
    db.execute("UPDATE records SET body = '{not json' WHERE idx = 9")
    db.close()
    code, _, err = run(capsys, "verify", "--state-dir", state)
    assert code == 1 and "record 9: unreadable" in err
    book = Ledger(state)
    with pytest.raises(ledger.LedgerCorrupt, match="record 9: unreadable"):
        book.verify()
    book.close()


def test_intact_ledger_verifies(state: Path, capsys) -> None:
    code, out, err = run(capsys, "verify", "--state-dir", state)
    assert (code, err) == (0, "")
    assert out.startswith("ledger intact: 36 records, chain and seals good")


def test_a_truncated_tail_is_caught_against_an_export(state: Path, export: Path,
                                                      capsys) -> None:
    db = attacker(state)
    db.execute("DELETE FROM records WHERE idx >= 35")
    db.close()
    # The chain that is left is whole: the ledger alone cannot tell (docs/audit.md).
    assert run(capsys, "verify", "--state-dir", state)[0] == 0
    code, _, err = run(capsys, "verify", "--state-dir", state, "--against", export)
    assert code == 1 and "record 35: missing" in err and "truncated" in err


def test_a_rewritten_ledger_is_caught_against_an_export(state: Path, export: Path,
                                                        capsys) -> None:
    code, out, _ = run(capsys, "verify", "--state-dir", state, "--against", export)
    assert code == 0 and "consistent with 1 export(s)" in out
    # The key holder rewrites the whole ledger, seals and all: only the export knows.
    key = bytes.fromhex((state / "ledger.key").read_text())
    db = attacker(state)
    db_forge(db)
    for idx, digest in db.execute("SELECT idx, hash FROM records").fetchall():
        db.execute("UPDATE records SET mac = ? WHERE idx = ?", (ledger.seal(key, digest), idx))
    db.close()
    assert run(capsys, "verify", "--state-dir", state)[0] == 0
    code, _, err = run(capsys, "verify", "--state-dir", state, "--against", export)
    assert code == 1 and "record 36: not the record the export" in err


def test_against_an_export_signed_by_a_stranger(state: Path, export: Path, capsys) -> None:
    resign(export, Ed25519PrivateKey.generate())
    code, _, err = run(capsys, "verify", "--state-dir", state, "--against", export)
    assert code == 1 and "not signed by one of this table's keys" in err


def test_verify_needs_the_ledger_key(state: Path, capsys) -> None:
    (state / "ledger.key").unlink()
    code, _, err = run(capsys, "verify", "--state-dir", state)
    assert code == 2 and "no ledger key" in err
    assert not (state / "ledger.key").exists()  # and it made none


# ---- export refusals -----------------------------------------------------------------------------


def test_export_needs_a_key(tmp_path: Path, monkeypatch, capsys) -> None:
    state = tmp_path / "state"
    write_day(state, monkeypatch)
    code, _, err = run(capsys, "export", "--state-dir", state, "--out", tmp_path / "x")
    assert code == 2
    assert f"run `shoe-daemon audit keygen --state-dir {state}`" in err
    assert not (tmp_path / "x").exists()


def test_export_into_a_non_empty_directory_is_refused(state: Path, tmp_path: Path,
                                                      capsys) -> None:
    out = tmp_path / "busy"
    out.mkdir()
    (out / "note.txt").write_text("mine")
    code, _, err = run(capsys, "export", "--state-dir", state, "--out", out)
    assert code == 2 and "is not empty" in err
    assert [p.name for p in out.iterdir()] == ["note.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run(capsys, "export", "--state-dir", state, "--out", empty)[0] == 0
    assert run(capsys, "verify", empty)[0] == 0


def test_export_of_an_empty_range_is_refused(state: Path, tmp_path: Path, capsys) -> None:
    code, _, err = run(capsys, "export", "--state-dir", state, "--out", tmp_path / "x",
                       "--from", "2027-01-01")
    assert code == 2 and "no ledger records from 2027-01-01T00:00:00" in err
    with pytest.raises(SystemExit):
        run(capsys, "export", "--state-dir", state, "--out", tmp_path / "x", "--to", "soon")
    assert "not an ISO 8601 time" in capsys.readouterr().err


def test_the_builder_refuses_records_that_stop_short_and_leaves_nothing(state: Path,
                                                                        tmp_path: Path) -> None:
    """The one builder of an export (the table's and the floor's): a source whose records end
    before the range does is named, at the first record missing, and nothing is placed."""
    records = all_records(state)
    out = tmp_path / "short"
    with pytest.raises(VerifyFailed, match=r"^record 21: missing \(the range ends at 30\)$"), \
            staged(out) as tmp:
        ExportBuilder(tmp, 13, 30, None, None).write(records[:20])
    with pytest.raises(VerifyFailed, match=r"^record 6: missing"), staged(out) as tmp:
        ExportBuilder(tmp, 13, 30, None, None).write(records[:5])
    with pytest.raises(VerifyFailed, match=r"^record 13: missing"), staged(out) as tmp:
        ExportBuilder(tmp, 13, 30, None, None).write([])
    assert not out.exists() and list(tmp_path.iterdir()) == [state]
    with staged(out) as tmp:
        build = ExportBuilder(tmp, 13, 25, None, None)
        build.write(records)  # records past the range's end are not read into it
        build.sign(keys.load_current(state), ledger={}, created="2026-03-02T00:00:00Z",
                   exporter="test")
    assert audit_verify_export(out).startswith("export intact: records 13..25 (13), 1 coups")


def test_export_without_a_ledger(tmp_path: Path, capsys) -> None:
    state = tmp_path / "state"
    keys.keygen(state)
    code, _, err = run(capsys, "export", "--state-dir", state, "--out", tmp_path / "x")
    assert code == 2 and "no ledger at" in err


# ---- keys ----------------------------------------------------------------------------------------


def test_keygen_files_and_refusals(tmp_path: Path, capsys) -> None:
    state = tmp_path / "state"
    code, out, _ = run(capsys, "keygen", "--state-dir", state)
    assert code == 0
    current = keys.load_current(state)
    assert current.stem in out and current.key_id in out
    directory = state / "keys"
    assert re.fullmatch(r"table-\d{8}T\d{6}Z", current.stem)
    assert (directory / "current").read_text() == current.stem + "\n"
    private = directory / f"{current.stem}.key"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert private.read_text().startswith("-----BEGIN PRIVATE KEY-----")
    assert (directory / f"{current.stem}.pub.pem").read_bytes() == current.public_pem
    code, _, err = run(capsys, "keygen", "--state-dir", state)
    assert code == 2 and "rotate-key" in err
    assert keys.load_current(state).key_id == current.key_id
    private.chmod(0o644)
    with pytest.raises(keys.KeyProblem, match="must be 0600"):
        keys.load_current(state)


def test_rotate_never_overwrites(tmp_path: Path, capsys) -> None:
    state = tmp_path / "state"
    with pytest.raises(keys.KeyProblem, match="keygen"):
        keys.rotate(state, now=T0)
    first = keys.keygen(state, now=T0)
    with pytest.raises(keys.KeyProblem, match="refusing to overwrite"):
        keys.rotate(state, now=T0)
    assert keys.load_current(state).key_id == first.key_id
    code, out, _ = run(capsys, "rotate-key", "--state-dir", state)  # now, not T0
    assert code == 0 and "old public keys kept" in out
    second = keys.load_current(state)
    assert second.key_id != first.key_id and second.key_id in out
    assert set(keys.public_keys(state)) == {first.key_id, second.key_id}


def test_public_key_output_is_a_pem_file_and_the_key_id_is_openssls(tmp_path: Path,
                                                                     capsys) -> None:
    state = tmp_path / "state"
    keys.keygen(state)
    code, out, _ = run(capsys, "public-key", "--state-dir", state)
    assert code == 0
    current = keys.load_current(state)
    assert out == current.public_pem.decode() + f"key id: {current.key_id}\n"
    lodged = tmp_path / "lodged.pub.pem"
    lodged.write_text(out)
    done = subprocess.run(
        f"openssl pkey -pubin -in {lodged} -outform DER | tail -c 32 | sha256sum | cut -c1-16",
        shell=True, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == current.key_id


def test_rotation_keeps_old_exports_verifiable(state: Path, tmp_path: Path, capsys) -> None:
    old = keys.load_current(state)
    before = tmp_path / "before"
    write_export(state, before)
    new = keys.rotate(state, now=datetime(2026, 4, 1, tzinfo=UTC))
    assert new.key_id != old.key_id and keys.load_current(state).key_id == new.key_id
    after = tmp_path / "after"
    assert run(capsys, "export", "--state-dir", state, "--out", after)[0] == 0
    assert json.loads((after / "manifest.json").read_bytes())["key_id"] == new.key_id

    old_pem = state / "keys" / f"{old.stem}.pub.pem"
    new_pem = state / "keys" / f"{new.stem}.pub.pem"
    assert keys.public_keys(state) == {old.key_id: old_pem, new.key_id: new_pem}
    code, out, _ = run(capsys, "verify", before, "--public-key", old_pem)
    assert code == 0 and f"key id {old.key_id}" in out
    assert run(capsys, "verify", before, "--public-key", new_pem)[0] == 1
    assert run(capsys, "verify", after, "--public-key", new_pem)[0] == 0
    assert run(capsys, "verify", after, "--public-key", old_pem)[0] == 1
    code, out, _ = run(capsys, "verify", "--state-dir", state, "--against", before,
                       "--against", after)
    assert code == 0 and "consistent with 2 export(s)" in out
    # and with the standard tools, the lodged old key
    done = subprocess.run([OPENSSL, "pkeyutl", "-verify", "-pubin", "-inkey", old_pem, "-rawin",
                           "-in", "manifest.json", "-sigfile", "manifest.sig"], cwd=before,
                          capture_output=True, text=True)
    assert done.returncode == 0 and "Signature Verified Successfully" in done.stdout


# ---- the command line ----------------------------------------------------------------------------


def test_module_runs_as_a_program(export: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "shoe_daemon.audit.cli", "audit", "verify",
                           str(export)], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("export intact: records 1..36")


def test_wired_into_shoe_daemon_cli(export: Path, capsys) -> None:
    from shoe_daemon.service import cli

    capsys.readouterr()
    assert cli.main(["audit", "verify", str(export)]) == 0
    assert capsys.readouterr().out.startswith("export intact")
