"""Retention: `audit prune` removes only exported records past the period, and the ledger
that is left still verifies, exports, and restores the daemon (docs/audit.md, Retention).

Real SQLite and files; the HIL test prunes under a running daemon and restarts it.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hil.harness import start_daemon, start_shoe, stop
from shoe_daemon.audit import cli as audit_cli
from shoe_daemon.audit import keys, layout, ledger, retention, verify
from shoe_daemon.audit.export import export as write_export
from shoe_daemon.audit.ledger import PRUNED, Ledger, LedgerCorrupt
from shoe_daemon.audit.reader import AuditError, VerifyFailed
from tests.test_audit import T0, T0_NS, Clock, _coup, _frame, _result, _start, all_records

ROOT = Path(__file__).resolve().parent.parent
DAY = retention.DAY_NS


def write_shoes(state: Path, monkeypatch: pytest.MonkeyPatch, shoes: int = 4) -> list[int]:
    """One shoe a day from T0, each from a daemon start to its stop; the BTN,SHOE indices."""
    clock = Clock()
    monkeypatch.setattr(ledger, "time", clock)
    starts = []
    for day in range(shoes):
        clock.wall = T0_NS + day * DAY
        book = Ledger(state)
        book.append_many([_start("0.2.0"), _frame(0, "HELLO", "1", "S", "SN", "1", f"boot{day}")])
        starts.append(book.append(*_frame(1, "BTN", "SHOE")).idx)
        for coup in (1, 2):
            clock.wall += 60 * 10**9
            book.append_many([_frame(2 * coup, "CARD", "9C", "P"),
                              _frame(2 * coup + 1, "CARD", "2D", "B"),
                              _result(_coup(coup, ["9C", "KH"], ["2D", "3S"], []))])
        book.append("daemon.stop", {})
        book.close()
    monkeypatch.undo()
    return starts


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    state = tmp_path / "state"
    write_shoes(state, monkeypatch)
    keys.keygen(state, now=T0)
    return state


@pytest.fixture
def starts(state: Path) -> list[int]:
    """Where each shoe's BTN,SHOE frame is in the ledger."""
    return [r.idx for r in all_records(state)
            if r.kind == "frame" and r.body["fields"][:1] == ["SHOE"]]


def later(days: float) -> int:
    return T0_NS + int(days * DAY)


# ---- what may go -----------------------------------------------------------------------------


def test_nothing_goes_without_an_export(state: Path) -> None:
    chosen, removed = retention.prune(state, 1, later(30))
    assert removed == 0 and chosen.cut == 1
    assert "no kept export" in chosen.bound
    assert all_records(state)[0].idx == 1


def test_exported_shoes_past_the_period_go_and_the_rest_verifies(state: Path, starts: list[int],
                                                                 tmp_path: Path) -> None:
    write_export(state, tmp_path / "x")
    total = len(all_records(state))
    chosen, removed = retention.prune(state, 1, later(30))
    last_shoe = starts[-1]
    assert removed == last_shoe - 1 and chosen.cut == last_shoe  # the last shoe stays whole
    assert "shoe in play" in chosen.bound
    left = all_records(state)
    assert [r.idx for r in left] == list(range(last_shoe, total + 2))
    assert left[-1].kind == PRUNED and left[-1].body["first_idx"] == last_shoe
    assert left[-1].body["carry"] == {"shoes": 3, "results": 6, "boot_id": "boot3"}
    # the last shoe's HELLO came before its BTN,SHOE: its boot id is carried, not kept
    book = Ledger(state)
    assert book.verify() == total + 2 - last_shoe
    book.close()
    assert "ledger intact: records" in verify.verify_ledger(state)


def test_the_period_holds_young_records(state: Path, starts: list[int], tmp_path: Path) -> None:
    write_export(state, tmp_path / "x")
    # at T0 + 3.5 days with 2 days kept, only days 0 and 1 are old enough; day 2 opens
    # with daemon.start and HELLO, two records before its BTN,SHOE
    chosen, removed = retention.prune(state, 2, later(3.5))
    assert chosen.cut == starts[2] - 2 and removed == starts[2] - 3
    assert "within the 2-day period" in chosen.bound


def test_a_hole_between_exports_stops_the_cut(state: Path, starts: list[int],
                                              tmp_path: Path) -> None:
    write_export(state, tmp_path / "day0", end_ns=later(1))  # records of day 0 only
    write_export(state, tmp_path / "day2", start_ns=later(2))  # day 2 on: day 1 missing
    chosen, removed = retention.prune(state, 1, later(30))
    day1 = starts[1] - 2  # daemon.start, HELLO, then BTN,SHOE
    assert chosen.cut == day1 and removed == day1 - 1
    assert f"records after {day1 - 1} are in no kept export" == chosen.bound
    write_export(state, tmp_path / "day1", start_ns=later(1), end_ns=later(2))
    chosen, removed = retention.prune(state, 1, later(30))  # the hole is filled now
    assert chosen.first == day1 and chosen.cut == starts[3]
    assert [e[:25] for e in chosen.exports] == [  # day 0's lies wholly in the pruned past
        f"{day1:012d}-{starts[2] - 3:012d}", f"{starts[2] - 2:012d}-{chosen.last - 1:012d}"]


def test_small_batches_each_leave_their_record(state: Path, tmp_path: Path) -> None:
    write_export(state, tmp_path / "x")
    _, removed = retention.prune(state, 1, later(30), batch=5)
    pruned = [r for r in all_records(state) if r.kind == PRUNED]
    assert len(pruned) == -(-removed // 5)
    assert pruned[-1].body["carry"]["results"] == 6
    assert "ledger intact" in verify.verify_ledger(state)


def test_a_changed_kept_manifest_stops_pruning(state: Path, tmp_path: Path) -> None:
    write_export(state, tmp_path / "x")
    (kept,) = layout.recorded_exports(state)
    manifest = kept / layout.MANIFEST
    manifest.write_text(manifest.read_text().replace('"coups": 8', '"coups": 9', 1))
    with pytest.raises(VerifyFailed, match="signature does not verify"):
        retention.prune(state, 1, later(30))
    assert all_records(state)[0].idx == 1


def test_an_export_of_another_ledger_stops_pruning(state: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "other"
    write_shoes(other, monkeypatch, shoes=1)
    Ledger(other).append("note", {"x": 1})  # same indices, different records
    for name in ("keys",):
        (other / name).symlink_to(state / name)
    write_export(other, tmp_path / "x")
    (kept,) = layout.recorded_exports(other)
    (state / "audit" / "exports").mkdir(parents=True)
    kept.rename(state / "audit" / "exports" / kept.name)
    with pytest.raises(VerifyFailed, match="not the record the export"):
        retention.prune(state, 1, later(30))


def test_a_period_under_a_day_is_refused(state: Path) -> None:
    with pytest.raises(AuditError, match="at least 1 day"):
        retention.plan(state, 0)


# ---- the ledger after pruning --------------------------------------------------------------


@pytest.fixture
def pruned(state: Path, tmp_path: Path) -> Path:
    write_export(state, tmp_path / "before")
    retention.prune(state, 1, later(30))
    return state


def attacker(state: Path) -> sqlite3.Connection:
    db = sqlite3.connect(state / "ledger.sqlite3", isolation_level=None)
    db.execute("DROP TRIGGER records_append_only_delete")
    return db


def test_removing_more_of_the_start_is_caught(pruned: Path, capsys) -> None:
    first = all_records(pruned)[0].idx
    attacker(pruned).execute("DELETE FROM records WHERE idx = ?", (first,))
    with pytest.raises(VerifyFailed, match=f"record {first}: missing"):
        verify.verify_ledger(pruned)
    book = Ledger(pruned)
    with pytest.raises(LedgerCorrupt, match=f"record {first}: missing"):
        book.verify()  # the daemon's own check at start
    code = audit_cli.main(["audit", "verify", "--state-dir", str(pruned)])
    assert code == 1 and f"record {first}: missing" in capsys.readouterr().err


def test_removing_the_pruned_record_is_caught(pruned: Path) -> None:
    Ledger(pruned).append("daemon.start", {})  # the pruned record is not the tail now
    idx = [r.idx for r in all_records(pruned) if r.kind == PRUNED][-1]
    attacker(pruned).execute("DELETE FROM records WHERE idx = ?", (idx,))
    with pytest.raises(VerifyFailed, match="missing"):
        verify.verify_ledger(pruned)


def test_a_record_put_before_the_start_is_caught(pruned: Path) -> None:
    row = sqlite3.connect(pruned / "ledger.sqlite3").execute(
        "SELECT * FROM records ORDER BY idx LIMIT 1").fetchone()
    db = sqlite3.connect(pruned / "ledger.sqlite3", isolation_level=None)
    db.execute("DROP TRIGGER records_gap_free")
    db.execute("INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?)", (2, *row[1:]))
    with pytest.raises(VerifyFailed, match=r"record 2: before record \d+, where"):
        verify.verify_ledger(pruned)
    book = Ledger(pruned)
    with pytest.raises(LedgerCorrupt, match=r"record 2: before record \d+, where .* \(inserted\)"):
        book.verify()
    book.close()


def test_an_unreadable_pruned_record_is_named(pruned: Path) -> None:
    idx = [r.idx for r in all_records(pruned) if r.kind == PRUNED][-1]
    db = sqlite3.connect(pruned / "ledger.sqlite3", isolation_level=None)
    db.execute("DROP TRIGGER records_append_only_update")
    db.execute("UPDATE records SET body = '{}' WHERE idx = ?", (idx,))
    db.close()
    said = f"record {idx}: unreadable .*the latest {PRUNED} record"
    with pytest.raises(VerifyFailed, match=said):
        verify.verify_ledger(pruned)
    book = Ledger(pruned)
    with pytest.raises(LedgerCorrupt, match=said):
        book.verify()
    book.close()


def test_a_pruned_ledger_exports_and_the_export_verifies(pruned: Path, tmp_path: Path) -> None:
    manifest = write_export(pruned, tmp_path / "after")
    first = all_records(pruned)[0].idx
    assert manifest["records"]["first"] == first and manifest["ledger"]["first"] == first
    assert verify.verify_export(tmp_path / "after").startswith("export intact")
    said = verify.verify_ledger(pruned, [tmp_path / "before", tmp_path / "after"])
    assert "consistent with 2 export(s)" in said


def test_an_old_export_wholly_pruned_is_said_not_comparable(state: Path, tmp_path: Path) -> None:
    write_export(state, tmp_path / "day0", end_ns=later(1))
    write_export(state, tmp_path / "rest", start_ns=later(1))
    retention.prune(state, 1, later(30))
    said = verify.verify_ledger(state, [tmp_path / "day0"])
    assert "1 of them before the retained records, not comparable" in said


def test_the_daemon_s_ledger_appends_after_a_prune_from_another_process(
        state: Path, tmp_path: Path) -> None:
    book = Ledger(state)  # the daemon's connection, its tail read before the prune
    write_export(state, tmp_path / "x")
    retention.prune(state, 1, later(30))
    record = book.append("transport", {"event": "connected"})
    assert record.prev == all_records(state)[-2].hash  # chained after the pruned record
    assert book.verify() > 0
    book.close()


# ---- the command ---------------------------------------------------------------------------


def cli(*argv: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shoe_daemon.service.cli", "audit", *map(str, argv)],
        cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_prune_command_with_the_config_file_and_dry_run(state: Path, starts: list[int],
                                                        tmp_path: Path) -> None:
    config = tmp_path / "shoe.toml"
    config.write_text(f'profile = "baden"\nstate_dir = "{state}"\n'
                      f'results = "{tmp_path / "r.jsonl"}"\nretention_days = 30\n')
    assert cli("export", "--state-dir", state, "--out", tmp_path / "x").returncode == 0
    dry = cli("prune", "--config", config, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.startswith(f"would remove {starts[-1] - 1} records")
    assert all_records(state)[0].idx == 1  # T0 is months ago: only the dry run held it
    done = cli("prune", "--config", config)
    assert done.returncode == 0 and done.stdout.startswith("removed ")
    assert all_records(state)[0].idx == starts[-1]
    again = cli("prune", "--state-dir", state, "--keep-days", "30")
    assert again.stdout.startswith("removed 0 records")


def test_prune_command_refusals(state: Path, tmp_path: Path) -> None:
    assert "give --config" in cli("prune", "--state-dir", state).stderr
    forever = cli("prune", "--state-dir", state, "--keep-days", "0")
    assert forever.returncode == 0 and "kept for ever" in forever.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text(f'profile = "baden"\nstate_dir = "{state}"\nresults = "-"\n'
                   'retention_days = -3\n')
    refused = cli("prune", "--config", bad)
    assert refused.returncode == 2 and "retention_days" in refused.stderr


def test_prune_keeps_what_the_floor_has_not_acknowledged(state: Path, starts: list[int],
                                                         tmp_path: Path) -> None:
    """With a [floor] table, the link's cursor bounds the cut: the ledger is its outbox."""
    from shoe_daemon.floor.cursor import Cursor, write_cursor

    (tmp_path / "ca.pem").write_text("")
    floor = ["[floor]", 'broker = "mqtts://floor:8883"', 'username = "t1"', 'password = "x"',
             f'ca_file = "{tmp_path / "ca.pem"}"']
    config = tmp_path / "shoe.toml"
    config.write_text("\n".join([f'profile = "baden"\nstate_dir = "{state}"', 'results = "-"',
                                 "retention_days = 30", *floor]) + "\n")
    assert cli("export", "--state-dir", state, "--out", tmp_path / "x").returncode == 0
    never = cli("prune", "--config", config, "--dry-run")  # the link has sent nothing yet
    assert never.stdout.startswith("would remove 0 records"), never.stdout + never.stderr
    assert "acknowledged records up to 0 only" in never.stdout
    acked = starts[1] + 2
    write_cursor(state, Cursor(acked, all_records(state)[acked - 1].hash))
    done = cli("prune", "--config", config)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"removed {acked} records")
    assert all_records(state)[0].idx == acked + 1  # starts[-1] would have gone without a floor
    write_cursor(state, Cursor(starts[2], all_records(state)[starts[2] - acked - 1].hash))
    alone = cli("prune", "--state-dir", state, "--keep-days", "30")  # the cursor speaks
    assert alone.stdout.startswith(f"removed {starts[2] - acked} records"), alone.stdout


def test_a_cursor_of_another_ledger_protects_everything(state: Path, tmp_path: Path) -> None:
    from shoe_daemon.floor.cursor import Cursor, acked_index, write_cursor

    write_cursor(state, Cursor(5, "0" * 64))  # a state directory begun anew: not this ledger's
    assert acked_index(state) == 0
    assert cli("export", "--state-dir", state, "--out", tmp_path / "x").returncode == 0
    kept = cli("prune", "--state-dir", state, "--keep-days", "30")
    assert kept.stdout.startswith("removed 0 records"), kept.stdout + kept.stderr


# ---- under a running daemon ------------------------------------------------------------------


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def test_pruning_under_a_live_table_then_a_restart_loses_and_repeats_nothing(
        tmp_path: Path) -> None:
    shoe, _ = start_shoe(tmp_path, "baden", shoes=3, seed=41, pace=0.002,
                         faults=["unreadable=0.05"])
    daemon = start_daemon(tmp_path, "baden")
    state = tmp_path / "state"
    try:
        deadline = time.monotonic() + 90
        while not any(x["shoe"] == 2 for x in _lines(tmp_path / "results.jsonl")):
            assert time.monotonic() < deadline and shoe.poll() is None
            time.sleep(0.05)
        keys.keygen(state)
        write_export(state, tmp_path / "x")
        _, removed = retention.prune(state, 1, time.time_ns() + 10 * DAY)  # daemon running
        assert removed > 0
        rc = stop(daemon)
        assert rc == 0
        path = tmp_path / "results.jsonl"  # lose the last line, as a crash before the write
        text = path.read_text()
        path.write_text(text[: text.rstrip("\n").rfind("\n") + 1])
        daemon = start_daemon(tmp_path, "baden")  # restores from the pruned ledger
        shoe.wait(120)
        deadline = time.monotonic() + 20
        log_path = tmp_path / "daemon.log"
        while log_path.read_text().count('"daemon.start"') < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        rc = stop(daemon)
        stop(shoe)
    log = (tmp_path / "daemon.log").read_text()
    assert shoe.returncode == 0 and rc == 0, log[-3000:]
    assert "ledger.replay_mismatch" not in log
    published = _lines(tmp_path / "results.jsonl")
    got = [x for x in published if x["event"] == "coup.result"]
    assert got == _lines(tmp_path / "truth.jsonl")  # every coup once, shoes numbered on
    book = Ledger(state)
    start = book.start()
    assert start.first_idx > 1 and book.verify() > 0
    kept = [r.body["line"] for r in book.records(kinds=("result",))]
    assert published == published[:start.results] + kept
    book.close()
