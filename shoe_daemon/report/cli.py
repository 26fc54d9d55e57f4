"""`shoe-daemon report`: the shift report for the pit (docs/report.md).

    shoe-daemon report --state-dir DIR [--from T] [--to T | --all] [--shifts 06:00,14:00,22:00]
    shoe-daemon report EXPORT [--public-key PEM] [--from T] [--to T]
    ... [--json]

From the table's ledger (read-only) it reports the current shift unless a range is given;
from an export (what a regulator holds), the whole export. The records are checked before
any figure is given: the ledger's chain and seals, and the money of the range (as `audit
verify` checks it: shoe_daemon.audit.money_check); an export as `audit verify` checks it.
A record that does not check is a FAILED report (exit 1) with nothing reported.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from datetime import time as clock_time
from pathlib import Path
from typing import Any

from shoe_daemon.audit.cli import parse_time
from shoe_daemon.audit.layout import EVENTS, MANIFEST
from shoe_daemon.audit.ledger import LedgerError, Record
from shoe_daemon.audit.money_check import MoneyCheck
from shoe_daemon.audit.reader import AuditError, LedgerReader, VerifyFailed
from shoe_daemon.audit.verify import verify_export
from shoe_daemon.report.figures import ReportError, ShiftReport
from shoe_daemon.report.text import render

SHIFTS = "06:00,14:00,22:00"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def parse_shifts(text: str) -> list[clock_time]:
    """"06:00,14:00,22:00": the local times at which the pit's shifts begin."""
    try:
        starts = sorted({clock_time.fromisoformat(part.strip()) for part in text.split(",")})
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"shifts are local times HH:MM, comma-separated, not "
                                         f"{text!r}") from e
    if not starts:
        raise argparse.ArgumentTypeError("give at least one shift start")
    return starts


def current_shift(now: datetime, starts: list[clock_time]) -> tuple[datetime, datetime]:
    """The shift `now` (an aware local time) falls in: from the last start at or before it
    to the next start after it."""
    around = [datetime.combine(now.date() + timedelta(days=d), t, now.tzinfo)
              for d in (-1, 0, 1) for t in starts]
    return max(s for s in around if s <= now), min(s for s in around if s > now)


def asked_range(start: int | None, end: int | None, whole: bool, shifts: list[clock_time]
                ) -> tuple[int | None, int | None, str | None]:
    """The range a report is asked for (`--from`, `--to`, `--all`; the current shift in the
    machine's local time when none is given) and, for the current shift, the words naming
    it."""
    if whole and (start is not None or end is not None):
        raise AuditError("--all or a range (--from, --to), not both")
    if start is not None or end is not None or whole:
        return start, end, None
    begins, ends = current_shift(datetime.now().astimezone(), shifts)
    return ns(begins), ns(ends), \
        f"the current shift, {begins:%Y-%m-%d %H:%M} to {ends:%H:%M} {begins:%Z}".rstrip()


def ns(when: datetime) -> int:
    return (when - _EPOCH) // timedelta(microseconds=1) * 1000


def add_report_parser(subparsers: Any) -> argparse.ArgumentParser:
    """`shoe-daemon report ...`, added to the main parser's subparsers."""
    p = subparsers.add_parser(
        "report", help="the shift report for the pit: drop, commission, the bank per shoe",
        description="The shift report per shoe (drop, commission or Taxe, wins and losses by "
                    "side, the bank's history, voids and who voided them) from the ledger or "
                    "an export, checked first (docs/report.md).")
    p.add_argument("export", nargs="?", type=Path, metavar="EXPORT",
                   help="an export directory (default: the whole export)")
    p.add_argument("--state-dir", type=Path, help="the daemon's state dir: its ledger")
    p.add_argument("--public-key", type=Path, metavar="PEM",
                   help="with an export: the key lodged for the table")
    p.add_argument("--from", dest="start", type=parse_time, metavar="T",
                   help="first time (ISO 8601, UTC if no zone), inclusive")
    p.add_argument("--to", dest="end", type=parse_time, metavar="T",
                   help="last time (ISO 8601, UTC if no zone), exclusive")
    p.add_argument("--all", action="store_true", help="the whole ledger, not the shift")
    p.add_argument("--shifts", type=parse_shifts, default=parse_shifts(SHIFTS),
                   metavar="HH:MM,...", help=f"local times the shifts begin (default {SHIFTS})")
    p.add_argument("--json", action="store_true", help="the figures as JSON")
    return p


def _index_range(records: Iterator[Record], start_ns: int | None, end_ns: int | None
                 ) -> tuple[int, int] | None:
    """As an export's range: from the first record at or after `start_ns` to the last one
    before `end_ns` (contiguous by index)."""
    first = last = None
    for record in records:
        if first is None and (start_ns is None or record.wall_ns >= start_ns):
            first = record.idx
        if end_ns is None or record.wall_ns < end_ns:
            last = record.idx
    return None if first is None or last is None or first > last else (first, last)


def from_ledger(state_dir: Path, start_ns: int | None, end_ns: int | None
                ) -> tuple[dict[str, Any], str]:
    reader = LedgerReader(state_dir)
    try:
        reader.db.execute("BEGIN")
        span = _index_range(reader.records(), start_ns, end_ns)
        report = ShiftReport(*(span or (0, -1)), start_ns, end_ns)
        money = MoneyCheck(from_start=span is not None and span[0] == 1)
        count = 0
        try:
            for record in reader.checked():
                report.feed(record)
                if span is not None and span[0] <= record.idx <= span[1]:
                    money.feed(record)
                count += 1
            summary = money.finish()
        except (VerifyFailed, LedgerError) as e:
            raise VerifyFailed(f"ledger {reader.path}: {e}") from e
        reader.db.execute("COMMIT")
    except sqlite3.Error as e:
        raise AuditError(f"{reader.path}: {e}") from e
    finally:
        reader.close()
    return report.to_dict(), (f"ledger {reader.path}, {count} records, chain and seals good; "
                              f"{summary.text()}")


def from_export(outdir: Path, public_key: Path | None, start_ns: int | None,
                end_ns: int | None) -> tuple[dict[str, Any], str]:
    checked = verify_export(outdir, public_key)
    manifest = json.loads((outdir / MANIFEST).read_bytes())

    def records() -> Iterator[Record]:
        with (outdir / EVENTS).open("rb") as f:
            for line in f:
                yield Record(**json.loads(line))

    span = _index_range(records(), start_ns, end_ns)
    report = ShiftReport(*(span or (0, -1)), start_ns, end_ns, profile=manifest.get("profile"),
                         display=manifest.get("display"))
    report.table = manifest.get("table")
    for record in records():
        report.feed(record)
    return report.to_dict(), f"export {outdir}: {checked}"


def run_report(args: argparse.Namespace) -> int:
    """0 reported, 1 the records do not check (nothing reported), 2 could not report."""
    prog = "shoe-daemon report"
    try:
        if (args.export is None) == (args.state_dir is None):
            raise AuditError("give an export directory or --state-dir (one of them)")
        start, end, shift = args.start, args.end, None
        if args.export is not None:
            if args.all:
                raise AuditError("--all goes with --state-dir: an export is reported whole")
            report, source = from_export(args.export, args.public_key, start, end)
        else:
            if args.public_key:
                raise AuditError("--public-key goes with an export directory")
            start, end, shift = asked_range(start, end, args.all, args.shifts)
            report, source = from_ledger(args.state_dir, start, end)
        report["shift"] = shift
        report["source"] = source
        if args.json:
            print(json.dumps(report, indent=2, ensure_ascii=False))
        else:
            sys.stdout.write(render(report, source))
        return 0
    except VerifyFailed as e:
        print(f"{prog}: FAILED: {e}; nothing reported", file=sys.stderr)
        return 1
    except (AuditError, ReportError, OSError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    """`python -m shoe_daemon.report.cli report ...`: the command without the main CLI."""
    parser = argparse.ArgumentParser(prog="shoe-daemon")
    add_report_parser(parser.add_subparsers(dest="command", required=True))
    return run_report(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
