"""A full disk under the ledger (a real tmpfs filled to the last byte, not a mock): the daemon
stops new coups with the lamp red, logs it, keeps retrying, and once space returns finishes
the shoe with nothing dropped or reordered."""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
from pathlib import Path

import pytest

from hil.harness import start_daemon, start_shoe, stop


@pytest.fixture
def small_disk(tmp_path: Path):
    mount = tmp_path / "state"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], check=True)
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(directory: Path) -> Path:
    filler = directory / "filler"
    with filler.open("wb") as f, contextlib.suppress(OSError):
        while True:
            f.write(b"\0" * 65536)
            f.flush()
    return filler


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def test_full_disk_holds_the_table_and_loses_nothing(tmp_path, small_disk):
    shoe, _ = start_shoe(tmp_path, "baden", shoes=1, seed=41, pace=0.01)
    daemon = start_daemon(tmp_path, "baden")
    try:
        deadline = time.monotonic() + 20
        while len(lines(tmp_path / "results.jsonl")) < 5 and time.monotonic() < deadline:
            time.sleep(0.05)
        filler = fill(small_disk)
        time.sleep(2.0)
        during = len(lines(tmp_path / "results.jsonl"))
        time.sleep(1.0)
        assert len(lines(tmp_path / "results.jsonl")) == during  # no new result while full
        filler.unlink()
        shoe.wait(60)
    finally:
        rc = stop(daemon)
        stop(shoe)
    log = (tmp_path / "daemon.log").read_text()
    assert '"ledger.write_failed"' in log and '"ledger.recovered"' in log, log[-3000:]
    assert log.count('"ledger.write_failed"') == 1  # one line per outage, not per retry
    assert "RED" in (tmp_path / "lamps.log").read_text().split()
    assert shoe.returncode == 0 and rc == 0
    got = [x for x in lines(tmp_path / "results.jsonl") if x["event"] == "coup.result"]
    assert got == lines(tmp_path / "truth.jsonl")
