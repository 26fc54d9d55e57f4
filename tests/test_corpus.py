"""The regression corpus (tests/corpus): each capture through the real `shoe-daemon replay`
command must print exactly the reviewed expected output, as gpsd checks its device logs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from shoe_daemon.game.irregularities import Code
from tests.corpus.cases import CASES, HERE, Case

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_capture_replays_to_its_expected_output(case: Case):
    console = (["--console", str(HERE / f"{case.name}.console.jsonl")] if case.console
               else ["--trust-keys"])
    resume = ["--resume", str(case.resume)] if case.resume is not None else []
    done = subprocess.run(
        [sys.executable, "-m", "shoe_daemon.service.cli", "replay", "--profile", case.profile,
         *console, *resume, str(HERE / f"{case.name}.cap")],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (HERE / f"{case.name}.jsonl").read_text()
    assert "frames=" in done.stderr and "duplicates=" in done.stderr


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_cases_still_make_the_committed_capture(case: Case):
    assert case.capture() == (HERE / f"{case.name}.cap").read_bytes()
    console = HERE / f"{case.name}.console.jsonl"
    assert console.exists() is bool(case.console)
    if case.console:
        assert case.console_file() == console.read_text()


def test_corpus_covers_every_irregularity_and_outcome():
    lines = [
        json.loads(line)
        for case in CASES
        for line in (HERE / f"{case.name}.jsonl").read_text().splitlines()
    ]
    codes = {line["code"] for line in lines if line["event"] == "irregularity"}
    assert codes == {code.value for code in Code}
    outcomes = {line["outcome"] for line in lines if line["event"] == "coup.result"}
    assert outcomes == {"banker", "punter", "egalite", "cancelled", "void"}
    assert any(line.get("last_coup") for line in lines)


def test_corpus_captures_carry_line_faults():
    """The captures must exercise the decoder: noise, damage, resends."""
    stats = {}
    for case in CASES:
        resume = ["--resume", str(case.resume)] if case.resume is not None else []
        done = subprocess.run(
            [sys.executable, "-m", "shoe_daemon.service.cli", "replay", "--profile", case.profile,
             *resume, str(HERE / f"{case.name}.cap")],
            capture_output=True, text=True, cwd=ROOT, check=True,
        )
        for item in done.stderr.split("\n", 1)[0].split():
            key, _, value = item.partition("=")
            stats[key] = stats.get(key, 0) + int(value)
    for key in ("noise_bytes", "bad_crc", "duplicates", "resets"):
        assert stats[key] > 0, (key, stats)


def test_a_capture_that_begins_mid_stream_is_not_taken_on_trust():
    # seq-wrap begins at 65530 with no HELLO and no resend rounds that show where the shoe's
    # window starts: a host without state takes none of it (docs/shoe-line-protocol.md, "The
    # host without state"); with --resume, as its host resumed, it plays whole.
    done = subprocess.run(
        [sys.executable, "-m", "shoe_daemon.service.cli", "replay", "--profile", "baden",
         str(HERE / "seq-wrap.cap")],
        capture_output=True, text=True, cwd=ROOT, check=True,
    )
    assert done.stdout == ""
    assert "capture ended before the shoe's numbering was known" in done.stderr
    assert " syncs=0" in done.stderr and " unsynced=" in done.stderr
