"""`python -m hil.harness demo --floor`: the README's demo with the floor. Three simulated
tables with real daemons, a real broker and the collector into SQLite; every result is
printed as the floor stored it, and the demo ends saying the floor holds each ledger."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from hil.harness import ROOT
from tests.test_demo import check

TABLES = ("table-1", "table-2", "table-3")


def demo(*extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hil.harness", "demo", "--floor", "--pace",
                           "0.003", "--seed", "5", *extra], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def test_the_floor_demo_shows_each_table_s_results_as_the_floor_stored_them() -> None:
    words, as_json = demo(), demo("--json")
    assert words.returncode == 0, words.stdout[-2000:] + words.stderr[-2000:]
    assert as_json.returncode == 0, as_json.stderr[-2000:]
    out = words.stdout.splitlines()
    assert out[0].startswith("floor: broker mqtts://127.0.0.1:")
    at = out.index("pit people (sign in at the pit page):")
    people = out[at + 1:at + 4]
    assert [line.split()[0] for line in people] == ["pit_boss", "surveillance", "regulator"]
    assert all(re.search(r": PIN \d{4}, badge DEMO-[PVR]-[0-9A-F]{4}$", line) for line in people)
    for table in TABLES:
        assert any(line.startswith(f"{table}: table display http://127.0.0.1:") for line in out)
    assert out[-1].startswith("floor: every table's ledger at the floor, verified link by link")
    published = [json.loads(line) for line in as_json.stdout.splitlines()]
    for table in TABLES:  # the same seed deals the same shoes: words and lines agree
        said = [line.split("  ", 1)[1] for line in out if line.startswith(f"{table}  ")]
        lines = [{k: v for k, v in p.items() if k != "table"} for p in published
                 if p["table"] == table]
        assert len(said) == len(lines) and sum(p["event"] == "coup.result" for p in lines) > 50
        for line, text in zip(lines, said, strict=True):
            check(line, text)
    assert "every table's ledger at the floor" in as_json.stderr
