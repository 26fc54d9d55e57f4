"""`shoe-floor export`: the regulator's signed export of many tables at once, from the
records the collector verified, signed with the floor's own Ed25519 key.

The export directory holds one subdirectory per table, each a complete single-table export
in the table's own format (shoe_daemon.audit.layout; docs/audit.md): events.jsonl and
coups.csv byte for byte what the table's own export of the same range holds, manifest.json,
manifest.sig, and table.pub.pem, which here is the *floor's* public key. Each checks with
`shoe-daemon audit verify DIR/<table> --public-key floor.pub.pem` and with the openssl steps
of docs/audit.md. At the top, floor-manifest.json names every table exported, its range and
the SHA-256 of its manifest.json, signed by the same key (floor-manifest.sig), so a table's
directory cannot be left out or swapped unnoticed.

Before anything is signed, each table's chain is checked again in the store, from the first
record the floor holds to the end of the range (index, link and hash of every record, as
`audit verify` checks events.jsonl): a store changed after collection is refused, nothing
written. The HMAC seals need the table's ledger key, which the floor does not hold: the
manifest says so. What the chain check cannot settle is said in each manifest's `floor`
section, signed: the floor alarms about records of the range (a conflicting copy of a record
refused, a gap repaired...), and whether the range is known complete (the floor holds a
verified record after it) or ends at the floor's verified tip.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
import tomllib
from collections import Counter
from dataclasses import dataclass
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
    iso,
    manifest_bytes,
)
from shoe_daemon.audit.ledger import Chain, LedgerCorrupt, Record, Start, canonical
from shoe_daemon.audit.reader import AuditError, VerifyFailed
from shoe_floor import query
from shoe_floor.config import CollectorConfigError, parse
from shoe_floor.names import directory_for
from shoe_floor.store import Store

FLOOR_FORMAT = "shoe-floor-export/1"
FLOOR_MANIFEST = "floor-manifest.json"
FLOOR_SIGNATURE = "floor-manifest.sig"
FLOOR_KEY = "floor.pub.pem"
DEFAULT_STATE_DIR = Path("/var/lib/shoe-floor")


@dataclass(frozen=True)
class ExportConfig:
    database: str
    state_dir: Path  # the floor's signing keys are in state_dir/keys (shoe_daemon.audit.keys)


def load_config(path: Path) -> ExportConfig:
    """The store from `[collector] database`, the keys from `[export] state_dir`."""
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise CollectorConfigError(f"{path}: {e}") from e
    collector = parse(data, path.parent)
    section = data.get("export", {})
    unknown = sorted(set(section) - {"state_dir"}) if isinstance(section, dict) else ["?"]
    if unknown:
        raise CollectorConfigError(f"export.{unknown[0]}: unknown setting (known: state_dir)")
    state_dir = Path(section.get("state_dir", str(DEFAULT_STATE_DIR)))
    if not state_dir.is_absolute():
        state_dir = path.parent / state_dir
    return ExportConfig(collector.database, state_dir)


def _fsync_tree(root: Path) -> None:
    for path in sorted(root.rglob("*"), reverse=True):
        keys.fsync_path(path)
    keys.fsync_path(root)


def export_floor(store: Store, state_dir: Path, out: Path, start_ns: int | None = None,
                 end_ns: int | None = None, tables: list[str] | None = None,
                 created: str | None = None) -> dict[str, Any]:
    """Write the floor's signed export of the tables asked (all with records if None) into
    `out`, a new or empty directory; return the floor manifest."""
    try:
        key = keys.load_current(state_dir)
    except keys.KeyProblem as e:
        raise AuditError(f"{e} (the floor's key: `shoe-floor keygen --config ...`)") from e
    out = out.resolve()
    if out.is_dir() and any(out.iterdir()):
        raise AuditError(f"{out} is not empty: export into a new or empty directory")
    if out.exists() and not out.is_dir():
        raise AuditError(f"{out} exists and is not a directory")
    created = created or iso(time.time_ns())
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        entries: list[dict[str, Any]] = []
        without: list[str] = []
        with query.snapshot(store):
            known = query.table_ids(store)
            chosen = list(dict.fromkeys(tables)) if tables else known
            unknown = [t for t in chosen if t not in known]
            if unknown:
                raise AuditError(f"no records of table {unknown[0]!r} at the floor "
                                 f"(tables: {', '.join(known) or 'none'})")
            dirs = [directory_for(t) for t in chosen]
            if len(set(dirs)) != len(dirs):
                raise AuditError("two tables would share a directory name")
            for table, name in zip(chosen, dirs, strict=True):
                span = query.time_span(store, table, start_ns, end_ns)
                if span is None:
                    without.append(table)
                    continue
                (tmp / name).mkdir()
                manifest = _table(store, table, span, tmp / name, key, start_ns, end_ns,
                                  created)
                entries.append(_entry(table, name, manifest, tmp / name / MANIFEST))
        if not entries:
            raise AuditError("no records of any table in that time range: nothing exported")
        floor = {
            "format": FLOOR_FORMAT,
            "time": {"from": None if start_ns is None else iso(start_ns),
                     "to": None if end_ns is None else iso(end_ns)},
            "tables": entries,
            "without_records": without,
            "sha256sum": [f"{e['manifest_sha256']}  {e['dir']}/{MANIFEST}" for e in entries],
            "key_id": key.key_id,
            "signature": {"algorithm": "Ed25519", "file": FLOOR_SIGNATURE,
                          "over": FLOOR_MANIFEST},
            "created": created,
            "exporter": f"shoe-floor {__version__}",
        }
        data = manifest_bytes(floor)
        (tmp / FLOOR_MANIFEST).write_bytes(data)
        (tmp / FLOOR_SIGNATURE).write_bytes(key.private.sign(data))
        (tmp / FLOOR_KEY).write_bytes(key.public_pem)
        _fsync_tree(tmp)
        for path in (tmp, *(p for p in tmp.iterdir() if p.is_dir())):
            os.chmod(path, 0o755)
        os.replace(tmp, out)  # rename(2): atomic, and allowed onto an empty directory
        keys.fsync_path(out.parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return floor


def _entry(table: str, name: str, manifest: dict[str, Any], path: Path) -> dict[str, Any]:
    said = manifest["floor"]
    return {"table_id": table, "dir": name, "table": manifest["table"],
            "records": manifest["records"], "chain": manifest["chain"],
            "coups": manifest["coups"], "complete": said["complete"],
            "alarms": len(said["alarms"]),
            "manifest_sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


def _table(store: Store, table: str, span: tuple[int, int], outdir: Path, key: keys.TableKey,
           start_ns: int | None, end_ns: int | None, created: str) -> dict[str, Any]:
    """One table's export into `outdir`, in the table's own format, after its chain is
    checked from the first record the floor holds to the end of the range."""
    first, last = span
    held = query.stored_span(store, table)
    assert held is not None
    stored_first, tip = held
    first_prev = query.chain_start(store, table, stored_first)
    if first_prev is None:
        raise VerifyFailed(f"table {table}: its first stored record {stored_first} is not "
                           "record 1 and no ledger.pruned record vouches for it: nothing "
                           "exported")
    chain = Chain(Start(stored_first, first_prev), None)
    counts: Counter[str] = Counter()
    coups = CoupsTable()
    digest = hashlib.sha256()
    start: Record | None = None  # the latest daemon.start at or before `last`
    starts: list[int] = []
    head: Record | None = None
    earliest = latest = 0
    with (outdir / EVENTS).open("wb") as events:
        for record in query.records(store, table, stored_first, last):
            try:
                chain.follow(record)
            except LedgerCorrupt as e:
                raise VerifyFailed(f"table {table}: record {e.index}: {e.why}; the floor's "
                                   "store no longer holds what the collector verified: "
                                   "nothing exported") from e
            if record.kind == "daemon.start":
                start = record
            if record.idx < first:
                continue
            head = head or record
            earliest = min(earliest or record.wall_ns, record.wall_ns)
            latest = max(latest, record.wall_ns)
            if record.kind == "daemon.start":
                starts.append(record.idx)
            line = (canonical(record.as_dict()) + "\n").encode()
            events.write(line)
            digest.update(line)
            counts[record.kind] += 1
            coups.feed(record)
    if chain.expected != last + 1 or head is None:
        raise VerifyFailed(f"table {table}: record {chain.expected}: missing from the store "
                           f"(the range ends at {last}): nothing exported")
    coups_bytes = coups.text().encode()
    (outdir / COUPS).write_bytes(coups_bytes)
    hashes = {EVENTS: digest.hexdigest(), COUPS: hashlib.sha256(coups_bytes).hexdigest()}
    body = start.body if start is not None else {}
    complete = tip > last
    alarms = query.alarms_in(store, table, first, last, earliest, latest)
    waiting = query.waiting_from(store, table)
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
        "chain": {"prev": head.prev, "last": chain.prev},
        "files": hashes,
        "sha256sum": [f"{hashes[name]}  {name}" for name in DATA_FILES],
        "ledger": {"first": stored_first, "last": tip,
                   "verified": f"chain of records {stored_first}..{last} as the floor holds "
                               "them, at export; the seals (mac) need the table's ledger key: "
                               "`shoe-daemon audit verify --state-dir` at the table"},
        "key_id": key.key_id,
        "signature": {"algorithm": "Ed25519", "file": SIGNATURE, "over": MANIFEST},
        "created": created,
        "exporter": f"shoe-floor {__version__}",
        "floor": {
            "table_id": table,
            "signed_by": "the floor's key, not the table's: check the key id against the "
                         "floor key lodged",
            "complete": complete,
            "open_end": None if complete else (
                f"the floor's verified records of this table end at {tip}: records the "
                "table committed after it, before the range's end, had not reached the "
                "floor at export" + (f" (records from {waiting} wait behind a gap)"
                                     if waiting is not None else "")),
            "alarms": [dict(a, raised_at=iso(a["raised_at"])) for a in alarms],
        },
    }
    data = manifest_bytes(manifest)
    (outdir / MANIFEST).write_bytes(data)
    (outdir / SIGNATURE).write_bytes(key.private.sign(data))
    (outdir / PUBLIC_KEY).write_bytes(key.public_pem)
    assert sorted(p.name for p in outdir.iterdir()) == sorted(EXPORT_FILES)
    return manifest
