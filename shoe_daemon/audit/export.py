"""`shoe-daemon audit export`: the regulator's signed export of a range of the ledger.

The export (its files in shoe_daemon.audit.layout, written by shoe_daemon.audit.builder) is
made only from a ledger that verifies (chain and HMAC seals from the retained start), so the
table's signature never vouches for a rewritten ledger. The ledger is opened read-only: an
audit never writes to the daemon's database. Each export's manifest and signature are kept
in the state directory, for `audit prune` (shoe_daemon.audit.retention).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from shoe_daemon import __version__
from shoe_daemon.audit import keys
from shoe_daemon.audit.builder import ExportBuilder, staged
from shoe_daemon.audit.layout import MANIFEST, SIGNATURE, exports_dir, iso
from shoe_daemon.audit.reader import AuditError, LedgerReader, VerifyFailed


def _range(db: sqlite3.Connection, start_ns: int | None, end_ns: int | None) -> tuple[int, int]:
    """The contiguous index range [first, last]: first is the earliest record at or after
    `start_ns`, last the latest one before `end_ns` (the chain needs no gaps, so records in
    between go too even if a clock step put their wall time outside)."""
    first = db.execute("SELECT MIN(idx) FROM records WHERE wall_ns >= ?",
                       (start_ns if start_ns is not None else -(2**63),)).fetchone()[0]
    last = db.execute("SELECT MAX(idx) FROM records WHERE wall_ns < ?",
                      (end_ns if end_ns is not None else 2**63 - 1,)).fetchone()[0]
    if first is None or last is None or first > last:
        span = f"from {iso(start_ns) if start_ns is not None else 'the start'} " \
               f"to {iso(end_ns) if end_ns is not None else 'the end'}"
        raise AuditError(f"no ledger records {span}")
    return first, last


def export(state_dir: Path, out: Path, start_ns: int | None = None, end_ns: int | None = None,
           created: str | None = None) -> dict[str, Any]:
    """Write a signed export of the records in the range into `out`; return its manifest."""
    try:
        key = keys.load_current(state_dir)
    except keys.KeyProblem as e:
        raise AuditError(str(e)) from e
    out = out.resolve()
    with staged(out) as tmp:
        reader = LedgerReader(state_dir)
        try:
            reader.db.execute("BEGIN")  # one snapshot while the daemon goes on appending
            first, last = _range(reader.db, start_ns, end_ns)
            ledger_last = reader.last_index()
            retained = reader.start().first_idx
            build = ExportBuilder(tmp, first, last, start_ns, end_ns)
            try:
                build.write(reader.checked(last))
            except VerifyFailed as e:
                raise AuditError(f"the ledger does not verify, nothing exported: {e} (see "
                                 f"`shoe-daemon audit verify --state-dir {state_dir}`)") from e
            reader.db.execute("COMMIT")
        finally:
            reader.close()
        manifest = build.sign(
            key, created=created or iso(time.time_ns()),
            exporter=f"shoe-daemon {__version__}",
            ledger={"first": retained, "last": ledger_last,
                    "verified": f"chain and seals of records {retained}..{last} at export"})
    _record_export(state_dir, out, manifest)
    return manifest


def _record_export(state_dir: Path, out: Path, manifest: dict[str, Any]) -> None:
    """Keep the manifest and its signature (small, for ever) so that pruning can prove the
    records it removes were exported; the regulator holds the export itself."""
    r = manifest["records"]
    stamp = manifest["created"].replace("-", "").replace(":", "")[:15]
    home = exports_dir(state_dir)
    target = home / f"{r['first']:012d}-{r['last']:012d}-{stamp}"
    try:
        home.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".record.", dir=home))
        for name in (MANIFEST, SIGNATURE):
            shutil.copyfile(out / name, tmp / name)
            keys.fsync_path(tmp / name)
        if target.exists():
            target = target.with_name(f"{target.name}-{tmp.name[-8:]}")
        os.replace(tmp, target)
        keys.fsync_path(home)
    except OSError as e:
        raise AuditError(f"exported to {out}, but could not keep its manifest in {home} "
                         f"({e.strerror or e}): `audit prune` will not count this export") from e
