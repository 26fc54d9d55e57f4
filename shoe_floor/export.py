"""`shoe-floor export`: the regulator's signed export of many tables at once, from the
records the collector verified, signed with the floor's own Ed25519 key.

The export directory holds one subdirectory per table, each a complete single-table export
written by the table's own export builder (shoe_daemon.audit.builder; docs/audit.md):
events.jsonl and coups.csv byte for byte what the table's own export of the same range
holds, manifest.json, manifest.sig, and table.pub.pem, which here is the *floor's* public
key. Each checks with
`shoe-daemon audit verify DIR/<table> --public-key floor.pub.pem` and with the openssl steps
of docs/audit.md. At the top, floor-manifest.json names every table exported, its range and
the SHA-256 of its manifest.json, signed by the same key (floor-manifest.sig), so a table's
directory cannot be left out or swapped unnoticed.

Each table's directory also carries what proves its records are the table's, whoever has
written the store since the collector: the table's own signatures the collector kept, over
records of the range up to the first one signed at or after its end (signatures.jsonl), the
records after the range up to that one (tail.jsonl), and the table's lodged public keys
(table-keys.json), all named in its signed manifest (shoe_daemon.audit.table_signatures);
the floor manifest names each table's key ids.

Before anything is signed, each table's records are proven in the store (shoe_floor.proof:
every kept signature over them verified with the table's lodged key, the range covered) and
its chain checked again, from the first record the floor holds to the record the covering
signature names (index, link and hash of every record, as `audit verify` checks
events.jsonl): a store changed after collection is refused, nothing written. The HMAC seals
need the table's ledger key, which the floor does not hold: the manifest says so. What the
checks cannot settle is said in each manifest's `floor` section, signed: the floor alarms
about records of the range (a conflicting copy of a record refused, a gap repaired...), and
whether the range is known complete (the floor holds a verified record after it), ends where
the table stopped (its last record is its `daemon.stop` and it has said offline since), or
ends at the floor's verified tip.
"""

from __future__ import annotations

import hashlib
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shoe_daemon import __version__
from shoe_daemon.audit import keys
from shoe_daemon.audit.builder import ExportBuilder, staged
from shoe_daemon.audit.layout import (
    MANIFEST,
    SIGNATURES,
    SIGNED_FORMAT,
    TABLE_KEYS,
    TAIL,
    event_line,
    iso,
    manifest_bytes,
)
from shoe_daemon.audit.ledger import Chain, LedgerCorrupt, Record, Start
from shoe_daemon.audit.reader import AuditError, VerifyFailed
from shoe_daemon.audit.table_signatures import keys_file
from shoe_floor import query
from shoe_floor.config import CollectorConfigError, parse
from shoe_floor.names import directory_for
from shoe_floor.proof import prove
from shoe_floor.store import Store
from shoe_floor.table_keys import LodgedKeys

STOPPED = "daemon.stop"  # the record a table commits last when it stops cleanly

FLOOR_FORMAT = "shoe-floor-export/1"
FLOOR_MANIFEST = "floor-manifest.json"
FLOOR_SIGNATURE = "floor-manifest.sig"
FLOOR_KEY = "floor.pub.pem"
DEFAULT_STATE_DIR = Path("/var/lib/shoe-floor")


@dataclass(frozen=True)
class ExportConfig:
    database: str
    state_dir: Path  # the floor's signing keys are in state_dir/keys (shoe_daemon.audit.keys)
    table_keys: Path  # the tables' lodged public keys ([collector] table_keys)


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
    return ExportConfig(collector.database, state_dir, collector.table_keys)


def export_floor(store: Store, state_dir: Path, table_keys: Path, out: Path,
                 start_ns: int | None = None, end_ns: int | None = None,
                 tables: list[str] | None = None, created: str | None = None) -> dict[str, Any]:
    """Write the floor's signed export of the tables asked (all with records if None) into
    `out`, a new or empty directory, their records proven by the tables' signatures checked
    with the keys lodged in `table_keys`; return the floor manifest."""
    try:
        key = keys.load_current(state_dir)
    except keys.KeyProblem as e:
        raise AuditError(f"{e} (the floor's key: `shoe-floor keygen --config ...`)") from e
    if not table_keys.is_dir():
        raise AuditError(f"collector.table_keys: {table_keys} is not a directory: the tables' "
                         "lodged keys prove their records")
    lodged = LodgedKeys(table_keys)
    out = out.resolve()
    created = created or iso(time.time_ns())
    with staged(out) as tmp:
        entries: list[dict[str, Any]] = []
        without: list[str] = []
        with query.snapshot(store):
            chosen = chosen_tables(store, tables)
            dirs = [directory_for(t) for t in chosen]
            if len(set(dirs)) != len(dirs):
                raise AuditError("two tables would share a directory name")
            for table, name in zip(chosen, dirs, strict=True):
                span = query.time_span(store, table, start_ns, end_ns)
                if span is None:
                    without.append(table)
                    continue
                (tmp / name).mkdir()
                manifest = _table(store, table, span, tmp / name, key, lodged, start_ns,
                                  end_ns, created)
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
    return floor


def chosen_tables(store: Store, tables: list[str] | None) -> list[str]:
    """The tables asked (every table with records if None), each known to the store, which
    must keep the tables' signatures that prove their records; AuditError saying why not."""
    if not query.keeps_signatures(store):
        raise AuditError("the store keeps no table signatures yet (made by an earlier "
                         "collector): start the upgraded `shoe-floor collect` once, "
                         "which adds them (docs/floor.md, \"The store\")")
    known = query.table_ids(store)
    chosen = list(dict.fromkeys(tables)) if tables else known
    unknown = [t for t in chosen if t not in known]
    if unknown:
        raise AuditError(f"no records of table {unknown[0]!r} at the floor "
                         f"(tables: {', '.join(known) or 'none'})")
    return chosen


def _entry(table: str, name: str, manifest: dict[str, Any], path: Path) -> dict[str, Any]:
    said = manifest["floor"]
    return {"table_id": table, "dir": name, "table": manifest["table"],
            "records": manifest["records"], "chain": manifest["chain"],
            "coups": manifest["coups"], "complete": said["complete"],
            "stopped": said["stopped"],
            "alarms": len(said["alarms"]),
            "table_keys": said["table_signatures"]["key_ids"],
            "manifest_sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


def held_chain(store: Store, table: str) -> tuple[int, int, str]:
    """The first and last index of the table's stored chain and the hash before its first
    record; VerifyFailed if nothing vouches for where it starts."""
    held = query.stored_span(store, table)
    if held is None:
        raise VerifyFailed(f"table {table}: no records stored")
    stored_first, tip = held
    first_prev = query.chain_start(store, table, stored_first)
    if first_prev is None:
        raise VerifyFailed(f"table {table}: its first stored record {stored_first} is not "
                           "record 1 and no ledger.pruned record vouches for it")
    return stored_first, tip, first_prev


def checked(store: Store, table: str, first: int, first_prev: str,
            last: int) -> Iterator[Record]:
    """The table's stored records `first`..`last`, each checked by the ledger's `Chain` (no
    seals: the floor has no ledger key) before it is yielded; VerifyFailed at the first bad
    one."""
    chain = Chain(Start(first, first_prev), None)
    for record in query.records(store, table, first, last):
        try:
            chain.follow(record)
        except LedgerCorrupt as e:
            raise VerifyFailed(f"record {e.index}: {e.why}") from e
        yield record


def _table(store: Store, table: str, span: tuple[int, int], outdir: Path, key: keys.TableKey,
           lodged: LodgedKeys, start_ns: int | None, end_ns: int | None,
           created: str) -> dict[str, Any]:
    """One table's export into `outdir`, built as the table's own (shoe_daemon.audit.builder)
    with its table signatures, after its records are proven (shoe_floor.proof) and its chain
    checked from the first record the floor holds to the record the proof's signature names."""
    first, last = span
    try:
        stored_first, tip, first_prev = held_chain(store, table)
    except VerifyFailed as e:
        raise VerifyFailed(f"{e}: nothing exported") from e
    build = ExportBuilder(outdir, first, last, start_ns, end_ns)
    changed = "; the floor's store no longer holds what the collector verified: nothing exported"
    try:
        proof = prove(store, table, first, last, tip, lodged)
        build.write(checked(store, table, stored_first, first_prev, last))
        assert build.tail is not None
        tail = list(checked(store, table, last + 1, build.tail.hash, proof.through))
        if len(tail) != proof.through - last:
            raise VerifyFailed(f"record {last + len(tail) + 1}: missing")
    except VerifyFailed as e:
        raise VerifyFailed(f"table {table}: {e}{changed}") from e
    build.add_file(SIGNATURES, b"".join(s.line() for s in proof.signatures))
    build.add_file(TAIL, b"".join(map(event_line, tail)))
    build.add_file(TABLE_KEYS, keys_file(proof.keys))
    complete = tip > last
    # A table that stopped: its last record is its clean stop and it has said offline since.
    stopped = not complete and build.tail.kind == STOPPED \
        and query.online_word(store, table) == "offline"
    alarms = query.alarms_in(store, table, first, last, build.earliest, build.latest)
    waiting = query.waiting_from(store, table)
    return build.sign(
        key, created=created, exporter=f"shoe-floor {__version__}", form=SIGNED_FORMAT,
        ledger={"first": stored_first, "last": tip,
                "verified": f"chain of records {stored_first}..{proof.through} as the floor "
                            "holds them, at export; the seals (mac) need the table's ledger "
                            "key: `shoe-daemon audit verify --state-dir` at the table"},
        floor={
            "table_id": table,
            "signed_by": "the floor's key, not the table's: check the key id against the "
                         "floor key lodged",
            "table_signatures": {
                "statement": "shoe-floor records v1\n<idx>\n<hash>\n<table_id>",
                "count": len(proof.signatures),
                "covered_through": proof.through,
                "key_ids": sorted(proof.keys),
            },
            "complete": complete,
            "stopped": stopped,
            "open_end": None if complete else (
                f"the table stopped at record {tip} (its {STOPPED} record) and has said "
                "offline since: the floor holds everything it committed up to its stop; "
                "records of a run since, if any, have not reached the floor" if stopped else
                f"the floor's verified records of this table end at {tip}: records the "
                "table committed after it, before the range's end, had not reached the "
                "floor at export" + (f" (records from {waiting} wait behind a gap)"
                                     if waiting is not None else "")),
            "alarms": [dict(a, raised_at=iso(a["raised_at"])) for a in alarms],
        })
