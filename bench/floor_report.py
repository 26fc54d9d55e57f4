"""The floor's shift report over a full floor: `--tables` tables (300) x `--hours` hours (8)
of coups with their money, in a real PostgreSQL (hil/floor_servers.py), timed as the pit
runs it (shoe_floor.report.floor_report; goal, issue 21: under 1 s).

The store is written directly, as the collector keeps it: each table's records are a real
money ledger (hil/money_ledger.py: dealt shoes, a croupier's banks and stakes, a console's
void, a shoe's KEY and VOID) played at a croupier's pace so that `--shoes` shoes fill the
hours, and the table's own Ed25519 signature over the last record of each transaction (a
live link publishes one message a commit, and the collector keeps each message's
signature), its key lodged as `shoe-floor lodge-key` files it. A few ledgers are played
(one per house of `--houses`) and each table stores one of them under its own name and key
(the chain does not name the table; its signatures do).

The report is then timed over the whole range (the shift), best of `--repeat`, and once
under cProfile, whose largest parts say what dominates. With `--cli` the command
(`shoe-floor report --json`) is timed too, end to end.

    .venv/bin/python bench/floor_report.py [--tables 300] [--hours 8] [--shoes 7]
        [--houses baden,baden-punto-banco,zoppot-1934] [--repeat 1] [--cli]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.latency import machine_name  # noqa: E402
from hil.floor_servers import Postgres  # noqa: E402
from hil.money_ledger import T0_NS, Clock, MoneyTable, records_of  # noqa: E402
from shoe_daemon.audit import keys  # noqa: E402
from shoe_daemon.audit.ledger import Record  # noqa: E402
from shoe_daemon.audit.table_signatures import RecordSignature, statement  # noqa: E402
from shoe_floor.chain import Tip  # noqa: E402
from shoe_floor.report import floor_report  # noqa: E402
from shoe_floor.store import Store  # noqa: E402
from shoe_floor.table_keys import lodge  # noqa: E402

GOAL_S = 1.0
SECOND = 1_000_000_000


def played(profile: str, seed: int, shoes: int, hours: float, work: Path) -> list[Record]:
    """A ledger of `shoes` shoes with money, its transactions spread over `hours`."""
    trial = work / f"trial-{profile}"
    MoneyTable(trial, profile, seed=seed, shoes=shoes, table=profile).run()
    transactions = len({(r.boot, r.wall_ns, r.mono_ns) for r in records_of(trial)})
    step = int(hours * 3600 * SECOND / transactions)
    state = work / f"ledger-{profile}"
    MoneyTable(state, profile, seed=seed, shoes=shoes, table=profile,
               clock=Clock(T0_NS, step)).run()
    return records_of(state)


def signed_last(records: list[Record]) -> list[Record]:
    """The last record of each transaction: what a live link's messages end with."""
    last = []
    for record, after in zip(records, [*records[1:], None], strict=True):
        if after is None or (after.boot, after.wall_ns, after.mono_ns) != (
                record.boot, record.wall_ns, record.mono_ns):
            last.append(record)
    return last


def fill(store: Store, ledgers: list[list[Record]], tables: int, work: Path,
         table_keys: Path) -> int:
    """Each table's records, signatures and tip, as the collector keeps them."""
    count = 0
    for n in range(tables):
        name = f"table-{n + 1:03d}"
        records = ledgers[n % len(ledgers)]
        key = keys.keygen(work / "keys" / name)
        lodge(table_keys, name, key.public_pem, "bench")
        signatures = [RecordSignature(key.key_id, r.idx, r.hash,
                                      key.private.sign(statement(name, r.idx, r.hash)))
                      for r in signed_last(records)]
        now = time.time_ns()
        with store.batch():
            store.lock_tips([name])
            store.add_records([(name, r) for r in records], now)
            store.add_signatures([(name, s) for s in signatures], now)
            store.set_tips({name: Tip(records[-1].idx, records[-1].hash)})
        count += len(records)
    if store.postgres:
        store.db.execute("ANALYZE")
    return count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=300)
    parser.add_argument("--hours", type=float, default=8.0)
    parser.add_argument("--shoes", type=int, default=7, help="shoes a table plays in them")
    parser.add_argument("--houses", default="baden,baden-punto-banco,zoppot-1934")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--profile-tables", type=int, default=10,
                        help="tables the profiled run reports (it is slower)")
    parser.add_argument("--cli", action="store_true", help="time the command too")
    args = parser.parse_args()
    print(f"machine: {machine_name()}")
    work = Path(tempfile.mkdtemp(prefix="floor-report-bench-"))
    pg = Postgres()
    pg.start()
    try:
        began = time.perf_counter()
        ledgers = [played(house, 3 + i, args.shoes, args.hours, work)
                   for i, house in enumerate(args.houses.split(","))]
        print(f"ledgers played: {[len(r) for r in ledgers]} records, "
              f"{time.perf_counter() - began:.1f} s")
        database = pg.new_database()
        table_keys = work / "table-keys"
        table_keys.mkdir()
        store = Store(database)
        began = time.perf_counter()
        count = fill(store, ledgers, args.tables, work, table_keys)
        print(f"store filled: {args.tables} tables, {count} records, "
              f"{time.perf_counter() - began:.1f} s")
        end = T0_NS + int(args.hours * 3600 * SECOND) + SECOND
        times = []
        for _ in range(args.repeat):
            began = time.perf_counter()
            floor = floor_report(store, table_keys, T0_NS, end)
            times.append(time.perf_counter() - began)
        best = min(times)
        coups = sum(t["coups"]["decided"] for t in floor["total"])
        print(f"report: {len(floor['tables'])} tables, {coups} coups, {count} records: "
              f"best {best:.2f} s of {args.repeat} ({count / best:,.0f} records/s); goal "
              f"{GOAL_S} s: {'met' if best < GOAL_S else 'NOT met'}")
        profile = cProfile.Profile()
        profile.enable()
        floor_report(store, table_keys, T0_NS, end,
                     [t["table_id"] for t in floor["tables"][:args.profile_tables]])
        profile.disable()
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(15)
        print(f"what dominates ({args.profile_tables} tables under cProfile, by own time; "
              "profiling slows it):")
        print("\n".join(line for line in out.getvalue().splitlines()[:30] if line.strip()))
        store.close()
        if args.cli:
            toml = work / "floor.toml"
            for name in ("pw", "ca"):  # the broker's, read by the configuration, unused here
                (work / name).write_text("unused\n")
            toml.write_text("[floor]\nbroker = \"mqtts://127.0.0.1:8883\"\nusername = \"c\"\n"
                            f"password_file = \"{work / 'pw'}\"\nca_file = \"{work / 'ca'}\"\n"
                            f"\n[collector]\ndatabase = {json.dumps(database)}\n"
                            f"table_keys = \"{table_keys}\"\n")
            began = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "shoe_floor.cli", "report", "--config", str(toml),
                 "--all", "--json"], cwd=ROOT, capture_output=True, text=True)
            print(f"shoe-floor report --all --json: exit {done.returncode}, "
                  f"{time.perf_counter() - began:.2f} s, {len(done.stdout):,} bytes"
                  + (f": {done.stderr.strip()}" if done.returncode else ""))
    finally:
        pg.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
