"""`shoe-daemon audit ...`: the command line of the audit (keys, export, verify, prune).

service/cli.py adds these commands to the main parser; `python -m shoe_daemon.audit.cli
audit ...` runs them without it.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from shoe_daemon.audit import keys, retention
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
    parser.add_argument("--from", dest="start", type=parse_time, metavar="T",
                        help="first time (ISO 8601, UTC if no zone), inclusive")
    parser.add_argument("--to", dest="end", type=parse_time, metavar="T",
                        help="last time (ISO 8601, UTC if no zone), exclusive")


def add_audit_parser(subparsers: Any) -> argparse.ArgumentParser:
    """`shoe-daemon audit ...`, added to the main parser's subparsers."""
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
    pr = sub.add_parser("prune", help="remove exported records older than the retention period",
                        description="Remove the oldest ledger records once they are older "
                                    "than the retention period and covered by signed exports "
                                    "(docs/audit.md, Retention).")
    pr.add_argument("--config", type=Path, help="the daemon's TOML file: its state_dir and "
                                                "retention_days")
    pr.add_argument("--state-dir", type=Path, help="the daemon's state dir")
    pr.add_argument("--keep-days", type=int, metavar="N",
                    help="retention period in days (default: retention_days of --config)")
    pr.add_argument("--dry-run", action="store_true", help="say what would go, remove nothing")
    return audit


def _prune(args: argparse.Namespace) -> int:
    from shoe_daemon.floor.cursor import acked_index, cursor_path
    from shoe_daemon.service import config

    state_dir, keep_days = args.state_dir, args.keep_days
    floor = None
    if args.config is not None:
        try:
            settings = config.load(argparse.Namespace(config=args.config, state_dir=state_dir))
        except config.ConfigError as e:
            raise AuditError(str(e)) from e
        state_dir = settings.state_dir
        keep_days = settings.retention_days if keep_days is None else keep_days
        floor = settings.floor is not None
    if state_dir is None or keep_days is None:
        raise AuditError("give --config, or --state-dir with --keep-days")
    if keep_days == 0:
        print("retention_days is 0: records are kept for ever, nothing pruned")
        return 0
    if floor is None:  # no file to say: a table that ever had a floor link has its cursor
        floor = cursor_path(state_dir).exists()
    try:
        acked = acked_index(state_dir) if floor else None
    except ValueError as e:
        raise AuditError(f"the floor link's cursor: {e}; nothing pruned") from e
    if args.dry_run:
        chosen = retention.plan(state_dir, keep_days, floor_acked=acked)
        removed = 0
    else:
        chosen, removed = retention.prune(state_dir, keep_days, floor_acked=acked)
    verb = "would remove" if args.dry_run else "removed"
    span = f" (records {chosen.first}..{chosen.cut - 1})" if chosen.count else ""
    print(f"{verb} {chosen.count if args.dry_run else removed} records{span}; stopped at record "
          f"{chosen.cut} because {chosen.bound}; exports relied on: "
          f"{', '.join(chosen.exports) or 'none'}")
    return 0


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
    if command == "prune":
        return _prune(args)
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


def run_audit(args: argparse.Namespace) -> int:
    """Run `shoe-daemon audit ...`: 0 done/intact, 1 not intact, 2 could not be done."""
    prog = f"shoe-daemon audit {args.audit_command}"
    try:
        return _run(args)
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
