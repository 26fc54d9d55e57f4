"""Cost of the audit ledger per coup, with synchronous=FULL, on this machine's disk.

A coup is about eight shoe frames and one result line. The daemon commits each batch of
frames it reads in one transaction; at a croupier's pace that is one frame per commit, at
line rate several. Both are measured, on a fresh ledger in a temporary directory on the
same file system as the repository (the disk a state directory would use). Then the watch
on the ledger's file (one stat after each commit, docs/audit.md) and what putting a
deleted ledger back costs at that size.

    .venv/bin/python bench/ledger_cost.py [--coups 300]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.latency import machine_name  # noqa: E402
from drivers.framing import encode  # noqa: E402,F401
from drivers.messages import SEQ_MODULUS  # noqa: E402
from drivers.records import frame_body  # noqa: E402
from hil.dealer import deal_shoes  # noqa: E402
from shoe_daemon.audit.ledger import Ledger, file_id  # noqa: E402
from shoe_daemon.game.coup import CoupMachine  # noqa: E402
from shoe_daemon.game.houses import get_profile  # noqa: E402


def coups_as_records(coups: int) -> list[list[tuple[str, dict]]]:
    """The ledger records of each coup, frame by frame (a frame with the lines it decided)."""
    machine = CoupMachine(get_profile("baden"))
    batches: list[list[tuple[str, dict]]] = []
    coup: list[list[tuple[str, dict]]] = []
    for seq, message in enumerate(deal_shoes("baden", coups // 60 + 2, seed=5).messages):
        lines = machine.handle(message)
        frame = [("frame", frame_body(seq % SEQ_MODULUS, message))]
        frame += [("result", {"line": line}) for line in lines]
        coup.append(frame)
        if any(line["event"] == "coup.result" for line in lines):
            batches.append(coup)
            coup = []
            if len(batches) == coups:
                break
    return batches  # per coup: a list of per-frame record lists


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--coups", type=int, default=300)
    args = parser.parse_args()
    coups = coups_as_records(args.coups)
    print("machine:", machine_name())
    with tempfile.TemporaryDirectory(dir=ROOT, prefix=".bench-ledger-") as tmp:
        ledger = Ledger(Path(tmp) / "a")
        per_coup = []
        for coup in coups:
            t = time.perf_counter()
            for frame in coup:  # croupier pace: one commit per frame
                ledger.append_many(frame)
            per_coup.append((time.perf_counter() - t) * 1000)
        commits = [c / len(coup) for c, coup in zip(per_coup, coups, strict=True)]
        print(f"one commit per frame: {statistics.median(per_coup):.2f} ms per coup (median), "
              f"p99 {statistics.quantiles(per_coup, n=100)[98]:.2f} ms; "
              f"{statistics.median(commits):.3f} ms per commit; "
              f"{sum(len(c) for c in coups) / len(coups):.1f} frames per coup")
        ledger = Ledger(Path(tmp) / "b")
        t = time.perf_counter()
        for coup in coups:  # line rate: a coup's frames arrive in one read
            ledger.append_many([r for frame in coup for r in frame])
        batched = (time.perf_counter() - t) * 1000 / len(coups)
        print(f"one commit per coup: {batched:.2f} ms per coup")
        print(f"ledger size: {(Path(tmp) / 'a' / 'ledger.sqlite3').stat().st_size / len(coups):.0f}"
              " bytes per coup (before WAL checkpoint)")
        watch(ledger_a := Ledger(Path(tmp) / "a"), statistics.median(commits), coups[0][0])
        ledger_a.close()


def watch(ledger: Ledger, commit_ms: float, frame: list[tuple[str, dict]]) -> None:
    """The file watch's stat against a commit, and one put-back of the whole ledger."""
    n = 20000
    t = time.perf_counter()
    for _ in range(n):
        file_id(ledger.path)
    stat_us = (time.perf_counter() - t) * 1e6 / n
    print(f"file watch: {stat_us:.1f} us a commit (one stat), "
          f"{stat_us / 10 / commit_ms:.2f} % of a commit")
    records = ledger.verify()
    size = ledger.path.stat().st_size + Path(f"{ledger.path}-wal").stat().st_size
    for path in ledger.path.parent.glob("ledger.sqlite3*"):
        path.unlink()
    t = time.perf_counter()
    ledger.append_many(frame)  # finds the file gone and puts it back before it returns
    put_back = (time.perf_counter() - t) * 1000
    assert ledger.lost is None and file_id(ledger.path) is not None
    print(f"put back after deletion: {put_back:.1f} ms for {records} records "
          f"({size / 1e6:.1f} MB with its WAL), the commit that found it included")


if __name__ == "__main__":
    main()
