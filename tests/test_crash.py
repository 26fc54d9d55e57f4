"""Crash safety: kill -9 the real daemon at random instants of a live run, restart it, and
the results must still be every coup exactly once, in order, with a ledger that verifies.

The ledger is the truth (docs/audit.md): frames are acknowledged only once committed, the
coup in progress is rebuilt from the ledger, the results file completed from it.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from hil.harness import start_daemon, start_shoe, stop
from shoe_daemon.audit.ledger import Ledger


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.parametrize(("profile", "seed"), [("baden", 31), ("zoppot-1934", 32)])
def test_kill_9_at_random_instants_loses_and_repeats_nothing(tmp_path, profile, seed):
    shoe, _ = start_shoe(tmp_path, profile, shoes=2, seed=seed, pace=0.003,
                         faults=["noise=0.02", "unreadable=0.1", "face_up=0.05"])
    rng = random.Random(seed)
    daemon = start_daemon(tmp_path, profile)
    kills = 0
    try:
        while shoe.poll() is None and kills < 25:
            time.sleep(rng.uniform(0.02, 0.5))
            daemon.kill()  # SIGKILL: no cleanup at all
            daemon.wait()
            kills += 1
            daemon = start_daemon(tmp_path, profile)
        shoe.wait(120)
        deadline = time.monotonic() + 20  # the last daemon up (and its handlers) before stopping
        log_path = tmp_path / "daemon.log"
        while log_path.read_text().count('"daemon.start"') <= kills and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        rc = stop(daemon)
        stop(shoe)
    log = (tmp_path / "daemon.log").read_text()
    assert shoe.returncode == 0, (tmp_path / "shoe.log").read_text()[-2000:]
    assert rc == 0 and kills >= 5, log[-3000:]
    got = [x for x in _lines(tmp_path / "results.jsonl") if x["event"] == "coup.result"]
    truth = _lines(tmp_path / "truth.jsonl")
    assert [(x["shoe"], x["coup"]) for x in got] == [(x["shoe"], x["coup"]) for x in truth]
    assert got == truth
    assert "ledger.replay_mismatch" not in log
    ledger = Ledger(tmp_path / "state")
    assert ledger.verify() > 0
    recorded = [r.body["line"] for r in ledger.records(kinds=("result",))]
    assert recorded == _lines(tmp_path / "results.jsonl")  # the file is the ledger's, in full
