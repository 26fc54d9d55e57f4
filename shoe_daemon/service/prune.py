"""`shoe-daemon audit prune`: the retention period applied to the live ledger.

The pruning itself is the audit's (`shoe_daemon.audit.retention`); the command lives in the
service because it reads what the service owns: the daemon's configuration (its state
directory and `retention_days`) and the floor link's cursor (a record the floor's broker has
not acknowledged is never pruned).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from shoe_daemon.audit import retention
from shoe_daemon.audit.reader import AuditError
from shoe_daemon.floor.cursor import acked_index, cursor_path
from shoe_daemon.service import config


def add_prune_parser(audit_commands: Any) -> None:
    """`prune`, added to `shoe-daemon audit`'s commands."""
    pr = audit_commands.add_parser(
        "prune", help="remove exported records older than the retention period",
        description="Remove the oldest ledger records once they are older than the retention "
                    "period and covered by signed exports (docs/audit.md, Retention).")
    pr.add_argument("--config", type=Path, help="the daemon's TOML file: its state_dir and "
                                                "retention_days")
    pr.add_argument("--state-dir", type=Path, help="the daemon's state dir")
    pr.add_argument("--keep-days", type=int, metavar="N",
                    help="retention period in days (default: retention_days of --config)")
    pr.add_argument("--dry-run", action="store_true", help="say what would go, remove nothing")


def prune(args: argparse.Namespace) -> int:
    """Prune as `args` say and print what went; AuditError when it cannot be done."""
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
