"""`shoe-daemon audit export`: the regulator's signed export of a range of the ledger.

The export (its files in shoe_daemon.audit.layout) is made only from a ledger that verifies
(chain and HMAC seals from the retained start), so the table's signature never vouches for
a rewritten ledger. The ledger is opened read-only: an audit never writes to the daemon's
database. Each export's manifest and signature are kept in the state directory, for
`audit prune` (shoe_daemon.audit.retention).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from shoe_daemon import __version__
from shoe_daemon.audit import keys
from shoe_daemon.audit.coups import CoupsTable
from shoe_daemon.audit.layout import (
    COUPS,
    DATA_FILES,
    EVENTS,
    EXPORT_FILES,
    FORMAT,
    MANIFEST,
    PUBLIC_KEY,
    SIGNATURE,
    exports_dir,
    iso,
    manifest_bytes,
)
from shoe_daemon.audit.ledger import Record, canonical
from shoe_daemon.audit.reader import AuditError, LedgerReader, VerifyFailed


def _iso_now() -> str:
    return iso(time.time_ns())


def _empty_or_absent(out: Path) -> None:
    if out.is_dir():
        if any(out.iterdir()):
            raise AuditError(f"{out} is not empty: export into a new or empty directory")
    elif out.exists():
        raise AuditError(f"{out} exists and is not a directory")


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
    _empty_or_absent(out)
    reader = LedgerReader(state_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        reader.db.execute("BEGIN")  # one snapshot while the daemon goes on appending
        first, last = _range(reader.db, start_ns, end_ns)
        ledger_last = reader.last_index()
        retained = reader.start().first_idx
        counts: Counter[str] = Counter()
        coups = CoupsTable()
        events_hash = hashlib.sha256()
        start: Record | None = None  # the latest daemon.start at or before `last`
        starts: list[int] = []
        head = tail = None
        earliest = latest = 0
        try:
            with (tmp / EVENTS).open("wb") as events:
                for record in reader.checked(last):
                    if record.kind == "daemon.start":
                        start = record
                    if record.idx < first:
                        continue
                    head = head or record
                    tail = record
                    earliest = min(earliest or record.wall_ns, record.wall_ns)
                    latest = max(latest, record.wall_ns)
                    if record.kind == "daemon.start":
                        starts.append(record.idx)
                    line = (canonical(record.as_dict()) + "\n").encode()
                    events.write(line)
                    events_hash.update(line)
                    counts[record.kind] += 1
                    coups.feed(record)
                events.flush()
                os.fsync(events.fileno())
        except VerifyFailed as e:
            raise AuditError(f"the ledger does not verify, nothing exported: {e} "
                             f"(see `shoe-daemon audit verify --state-dir {state_dir}`)") from e
        reader.db.execute("COMMIT")
        assert head is not None and tail is not None and tail.idx == last
        coups_bytes = coups.text().encode()
        (tmp / COUPS).write_bytes(coups_bytes)
        hashes = {EVENTS: events_hash.hexdigest(), COUPS: hashlib.sha256(coups_bytes).hexdigest()}
        body = start.body if start is not None else {}
        manifest = {
            "format": FORMAT,
            "table": body.get("table"),
            "profile": body.get("profile"),
            "software": None if start is None else {
                "version": body.get("version"),
                "code_sha256": body.get("code_sha256"),
                "daemon_start_record": start.idx,
            },
            "daemon_starts": starts,
            "records": {"first": first, "last": last, "count": last - first + 1},
            "time": {
                "from": None if start_ns is None else iso(start_ns),
                "to": None if end_ns is None else iso(end_ns),
                "earliest_record": iso(earliest),
                "latest_record": iso(latest),
            },
            "counts": dict(sorted(counts.items())),
            "coups": len(coups.rows),
            "chain": {"prev": head.prev, "last": tail.hash},
            "files": hashes,
            "sha256sum": [f"{hashes[name]}  {name}" for name in DATA_FILES],
            "ledger": {"first": retained, "last": ledger_last,
                       "verified": f"chain and seals of records {retained}..{last} at export"},
            "key_id": key.key_id,
            "signature": {"algorithm": "Ed25519", "file": SIGNATURE, "over": MANIFEST},
            "created": created or _iso_now(),
            "exporter": f"shoe-daemon {__version__}",
        }
        data = manifest_bytes(manifest)
        (tmp / MANIFEST).write_bytes(data)
        (tmp / SIGNATURE).write_bytes(key.private.sign(data))
        (tmp / PUBLIC_KEY).write_bytes(key.public_pem)
        for name in EXPORT_FILES:
            keys.fsync_path(tmp / name)
        os.chmod(tmp, 0o755)
        os.replace(tmp, out)  # rename(2): atomic, and allowed onto an empty directory
        keys.fsync_path(out.parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        reader.close()
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
