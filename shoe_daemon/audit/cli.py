"""`shoe-daemon audit ...`: the command line of the audit (keys, export, verify); `audit prune`
reads the daemon's configuration and the floor link's cursor, so the service adds it
(shoe_daemon/service/prune.py).

service/cli.py adds these commands to the main parser; `python -m shoe_daemon.audit.cli
audit ...` runs them without it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from shoe_daemon.audit import keys
from shoe_daemon.audit.export import export
from shoe_daemon.audit.reader import AuditError, VerifyFailed
from shoe_daemon.audit.verify import public_key_at, verify_export, verify_ledger

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def parse_time(text: str) -> int:
    """ISO 8601 (UTC when it has no zone) to nanoseconds since the epoch."""
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError as e:
        raise argparse.ArgumentTypeError(
            f"not an ISO 8601 time: {text!r} (e.g. 2026-03-01T06:00:00Z)") from e
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return (when - _EPOCH) // timedelta(microseconds=1) * 1000


def add_export_arguments(parser: argparse.ArgumentParser) -> None:
    """An export's `--out`, `--from` and `--to`: the table's and the floor's alike."""
    parser.add_argument("--out", type=Path, required=True, help="a new or empty directory")
    add_range_arguments(parser)


def add_range_arguments(parser: argparse.ArgumentParser) -> None:
    """`--from` and `--to`, a range of time as the exports and the reports take it."""
    parser.add_argument("--from", dest="start", type=parse_time, metavar="T",
                        help="first time (ISO 8601, UTC if no zone), inclusive")
    parser.add_argument("--to", dest="end", type=parse_time, metavar="T",
                        help="last time (ISO 8601, UTC if no zone), exclusive")


def add_audit_parser(subparsers: Any) -> Any:
    """`shoe-daemon audit ...`, added to the main parser's subparsers; its own subparsers, for
    the service to add `prune`."""
    audit = subparsers.add_parser(
        "audit", help="export the ledger for the regulator, verify it, manage the signing key",
        description="Signed exports of the audit ledger, their verification, and the "
                    "table's Ed25519 signing keys (docs/audit.md).")
    sub = audit.add_subparsers(dest="audit_command", required=True, metavar="COMMAND")
    for name, text in (
        ("keygen", "make the table's first signing key"),
        ("rotate-key", "make a new current signing key (old public keys are kept)"),
        ("public-key", "print the current public key and its key id, to lodge"),
    ):
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument("--state-dir", type=Path, required=True, help="the daemon's state dir")
    ex = sub.add_parser("export", help="write a signed export of the ledger",
                        description="Write events.jsonl, coups.csv, manifest.json, "
                                    "manifest.sig and table.pub.pem into OUT.")
    ex.add_argument("--state-dir", type=Path, required=True, help="the daemon's state dir")
    add_export_arguments(ex)
    ve = sub.add_parser("verify", help="verify an export, or the live ledger",
                        description="Verify an export directory (signature, files, chain, "
                                    "coups), or with --state-dir the live ledger (chain and "
                                    "HMAC seals).")
    ve.add_argument("export", nargs="?", type=Path, metavar="OUTDIR", help="an export")
    ve.add_argument("--public-key", type=Path, metavar="PEM",
                    help="the public key lodged for the table (default: the export's own)")
    ve.add_argument("--table-key", type=Path, action="append", metavar="PEM",
                    help="a floor export's table directory: a key lodged for the table "
                         "(repeatable); its table signatures must use these keys alone")
    ve.add_argument("--without-table-signatures", action="store_true",
                    help="accept a floor export's table directory made before the floor kept "
                         "the tables' signatures: vouched for by the floor's key alone")
    ve.add_argument("--state-dir", type=Path, help="verify this live ledger instead")
    ve.add_argument("--against", type=Path, action="append", metavar="OUTDIR",
                    help="with --state-dir: also check the ledger still holds this export")
    return sub


def _run(args: argparse.Namespace) -> int:
    command = args.audit_command
    if command == "keygen":
        made = keys.keygen(args.state_dir)
        print(f"made {keys.keys_dir(args.state_dir) / made.stem}.key, key id {made.key_id}")
        return 0
    if command == "rotate-key":
        made = keys.rotate(args.state_dir)
        print(f"rotated: {made.stem} is current, key id {made.key_id}; old public keys kept")
        return 0
    if command == "public-key":
        current = keys.load_current(args.state_dir)
        sys.stdout.write(current.public_pem.decode())
        print(f"key id: {current.key_id}")
        return 0
    if command == "export":
        manifest = export(args.state_dir, args.out, args.start, args.end)
        r = manifest["records"]
        print(f"exported records {r['first']}..{r['last']} ({r['count']}), "
              f"{manifest['coups']} coups, to {args.out}; signed by key id {manifest['key_id']}")
        return 0
    if command == "verify":
        if (args.export is None) == (args.state_dir is None):
            raise AuditError("give an export directory or --state-dir (one of them)")
        if args.export is not None:
            if args.against:
                raise AuditError("--against goes with --state-dir")
            lodged = None if args.table_key is None else {
                keys.key_id(key): key for key in map(public_key_at, args.table_key)}
            print(verify_export(args.export, args.public_key, lodged,
                                args.without_table_signatures))
        else:
            if args.public_key or args.table_key or args.without_table_signatures:
                raise AuditError("--public-key, --table-key and --without-table-signatures go "
                                 "with an export directory")
            print(verify_ledger(args.state_dir, args.against))
        return 0
    raise AuditError(f"unknown audit command {command!r}")


def run_audit(args: argparse.Namespace,
              more: Callable[[argparse.Namespace], int | None] | None = None) -> int:
    """Run `shoe-daemon audit ...`: 0 done/intact, 1 not intact, 2 could not be done. `more`
    runs the commands the service added (None: not one of them)."""
    prog = f"shoe-daemon audit {args.audit_command}"
    try:
        done = None if more is None else more(args)
        return _run(args) if done is None else done
    except VerifyFailed as e:
        print(f"{prog}: FAILED: {e}", file=sys.stderr)
        return 1
    except (AuditError, keys.KeyProblem) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    """`python -m shoe_daemon.audit.cli audit ...`: the same commands without the main CLI."""
    parser = argparse.ArgumentParser(prog="shoe-daemon")
    add_audit_parser(parser.add_subparsers(dest="command", required=True))
    return run_audit(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
