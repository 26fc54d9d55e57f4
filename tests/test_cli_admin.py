"""`shoe-daemon check-config` and `shoe-daemon status`, run as a technician would: real files,
the real daemon process, the simulated shoe plugged in while the daemon waits for it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hil.harness import ROOT, start_shoe, stop
from shoe_daemon.audit import keys
from shoe_daemon.audit.ledger import Ledger, load_key

EXAMPLE = ROOT / "docs" / "shoe-daemon.toml"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "shoe_daemon.service.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def config_file(tmp_path: Path, **override: str) -> Path:
    """The example configuration with the technician's edits."""
    text = EXAMPLE.read_text()
    settings = {"state_dir": f'"{tmp_path / "state"}"',
                "results": f'"{tmp_path / "state" / "results.jsonl"}"', **override}
    lines = []
    for line in text.splitlines():
        key = line.split("=")[0].strip()
        lines.append(f"{key} = {settings.pop(key)}" if key in settings else line)
    lines += [f"{key} = {value}" for key, value in settings.items()]
    path = tmp_path / "shoe-daemon.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


# ---- check-config ---------------------------------------------------------------------------


def test_check_config_says_what_the_service_will_do(tmp_path) -> None:
    keys.keygen(tmp_path / "state")
    made = keys.load_current(tmp_path / "state")
    result = cli("check-config", "--config", str(config_file(tmp_path, table='"T7"')))
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "table: T7" in out
    assert "profile: baden: Grand Casino Baden" in out and "docs/seeds/003_" in out
    assert "shoe: serial port /dev/shoe at 115200 baud" in out
    assert f"state: {tmp_path / 'state'}" in out
    assert f"key id {made.key_id}" in out
    assert "language: English (en), with the French game terms (Banco, Punto" in out
    assert "configuration OK" in out
    chinese = cli("check-config", "--config", str(config_file(tmp_path)),
                  "--display-language", "zh", "--display-terms", "language")
    assert "language: 中文 (zh), with the language's own game terms" in chinese.stdout


def test_check_config_warns_of_what_the_start_survives(tmp_path) -> None:
    result = cli("check-config", "--config", str(config_file(tmp_path)),
                 "--port", str(tmp_path / "unplugged"))
    assert result.returncode == 0, result.stdout
    assert "WARNING: setting 'port'" in result.stdout and "will start and wait" in result.stdout
    assert "WARNING: signing key: none yet; run `shoe-daemon audit keygen" in result.stdout


@pytest.mark.parametrize(("edit", "named"), [
    ({"profile": '"monte-carlo"'}, "setting 'profile'"),
    ({"baud": "300"}, "setting 'baud'"),
    ({"port": '"shoe"'}, "setting 'port'"),
    ({"transport": '"usb"', "usb_endpoint_in": "0x01"}, "setting 'usb_endpoint_in'"),
    ({"colour": '"green"'}, "unknown setting 'colour'"),
    ({"display_language": '"it"'}, "setting 'display_language'"),
])
def test_check_config_names_the_bad_setting(tmp_path, edit, named) -> None:
    result = cli("check-config", "--config", str(config_file(tmp_path, **edit)))
    assert result.returncode == 2
    assert named in result.stdout


def test_check_config_refuses_a_state_dir_it_cannot_create(tmp_path) -> None:
    (tmp_path / "a-file").write_text("")
    result = cli("check-config", "--config", str(config_file(tmp_path)),
                 "--state-dir", str(tmp_path / "a-file" / "state"))
    assert result.returncode == 2
    assert "ERROR: setting 'state_dir'" in result.stdout


# ---- status ---------------------------------------------------------------------------------


def _status(state: Path) -> subprocess.CompletedProcess[str]:
    return cli("status", "--state-dir", str(state))


def _until(check, seconds: float = 15.0):
    deadline = time.monotonic() + seconds
    while True:
        result = check()
        if result or time.monotonic() > deadline:
            return result
        time.sleep(0.2)


def test_status_follows_the_daemon_waiting_serving_and_stopped(tmp_path) -> None:
    state = tmp_path / "state"
    config = config_file(tmp_path, port=f'"{tmp_path / "shoe"}"')
    daemon = subprocess.Popen([sys.executable, "-m", "shoe_daemon.service.cli", "run", "--config",
                               str(config), "--log-format", "json", "--reconnect-max", "0.3"],
                              cwd=ROOT, stderr=(tmp_path / "daemon.log").open("w"))
    shoe = None
    try:
        waiting = _until(lambda: (r := _status(state)).returncode == 1 and "waiting" in r.stdout
                         and r)
        assert waiting, _status(state).stdout
        assert f"daemon: running, pid {daemon.pid}" in waiting.stdout
        assert f"waiting for the shoe on {tmp_path / 'shoe'}" in waiting.stdout

        shoe, _ = start_shoe(tmp_path, "baden", pace=0.02)  # plugged in now
        serving = _until(lambda: (r := _status(state)).returncode == 0
                         and "last result" in r.stdout and r)
        assert serving, _status(state).stdout
        out = serving.stdout
        assert "status: Table table-1 baden: shoe 1" in out
        assert "shoe: connected (serial:" in out
        assert "chain and seals good" in out
    finally:
        stop(daemon)
        if shoe is not None:
            stop(shoe)
    stopped = _status(state)
    assert stopped.returncode == 3, stopped.stdout
    assert f"daemon: not running (last pid {daemon.pid})" in stopped.stdout


def test_status_reports_a_broken_chain(tmp_path) -> None:
    state = tmp_path / "state"
    ledger = Ledger(state)
    ledger.append("daemon.start", {"pid": os.getpid()})
    ledger.append("daemon.stop", {})
    ledger.close()
    db = sqlite3.connect(state / "ledger.sqlite3")
    db.execute("DROP TRIGGER records_append_only_update")
    db.execute("UPDATE records SET body = '{\"pid\": 1}' WHERE idx = 1")
    db.commit()
    db.close()
    result = _status(state)
    assert result.returncode == 3  # not running: the stop is on record
    assert "ledger: 0 records, chain and seals BROKEN: record 1" in result.stdout


def _first_start_moment(state: Path) -> Path:
    """The state directory as the daemon's very first start leaves it for a moment, in
    Ledger.__init__'s order: the key, the ledger's file (WAL), not yet its tables."""
    state.mkdir()
    load_key(state / "ledger.key")
    db = sqlite3.connect(state / "ledger.sqlite3")
    db.execute("PRAGMA journal_mode=WAL")
    db.close()
    return state / "ledger.sqlite3"


def test_status_during_the_first_start_says_the_daemon_is_starting(tmp_path) -> None:
    ledger = _first_start_moment(tmp_path / "state")
    result = _status(tmp_path / "state")
    assert result.returncode == 1, result.stdout + result.stderr  # running, not in play
    assert "daemon: starting (making its audit ledger)" in result.stdout
    assert "ledger: being made by the starting daemon" in result.stdout
    assert "BROKEN" not in result.stdout and "no such table" not in result.stdout
    # The same file long after: a first start that died before its tables, not a start.
    old = time.time() - 600
    os.utime(ledger, (old, old))
    result = _status(tmp_path / "state")
    assert result.returncode == 3, result.stdout + result.stderr
    assert "daemon: not running" in result.stdout
    assert "its file has no tables: a first start stopped before making them" in result.stdout
    assert "BROKEN" not in result.stdout
    # The daemon then makes its tables: the ledger is read as ever.
    Ledger(tmp_path / "state").close()
    result = _status(tmp_path / "state")
    assert result.returncode == 3 and "ledger: 0 records, chain and seals good" in result.stdout


def test_status_reads_a_state_dir_given_relative(tmp_path) -> None:
    ledger = Ledger(tmp_path / "state")
    ledger.append("daemon.start", {"pid": os.getpid()})
    ledger.append("daemon.stop", {})
    ledger.close()
    result = subprocess.run([sys.executable, "-m", "shoe_daemon.service.cli", "status",
                             "--state-dir", "state"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 3, result.stdout + result.stderr
    assert "ledger: 2 records, chain and seals good" in result.stdout


def test_status_needs_a_state_dir() -> None:
    assert cli("status").returncode == 2
