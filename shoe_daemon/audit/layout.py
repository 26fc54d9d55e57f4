"""What an audit export is: its files, its manifest's format, its time notation, and where
the table keeps each export's signed manifest. Written by shoe_daemon.audit.export, read by
shoe_daemon.audit.verify and shoe_daemon.audit.retention (docs/audit.md has the whole format).

An export is a directory a regulator can check with standard tools:
- `events.jsonl`: the ledger's records in the range, one canonical JSON object a line;
- `coups.csv`: one row per decided coup, rebuilt deterministically from those records;
- `settlements.csv`: one row per line of each coup's settlement (the money), rebuilt the
  same way (format 2; an export of format 1, made before the money, has none);
- `manifest.json`: what was exported (table, software, index and time range, counts per
  kind, the chain's two ends, each file's SHA-256, the signing key's id);
- `manifest.sig`: the raw 64-byte Ed25519 signature over the exact bytes of manifest.json;
- `table.pub.pem`: the signing key's public half, for convenience only: the regulator checks
  exports against the key the casino lodged, by key id.

A table's directory of a floor export (shoe_floor.export) is of its own format, the same
files and three more, named in its manifest like the others: the table's own signatures over
its records (`signatures.jsonl`), the records after the range up to the first one signed
(`tail.jsonl`), and the table's public keys that check them (`table-keys.json`): what proves
each record came from its table (shoe_daemon.audit.table_signatures).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from shoe_daemon.audit.ledger import Record, canonical
from shoe_daemon.audit.reader import VerifyFailed

FORMAT = "shoe-daemon-audit-export/2"
EVENTS = "events.jsonl"
COUPS = "coups.csv"
SETTLEMENTS = "settlements.csv"
MANIFEST = "manifest.json"
SIGNATURE = "manifest.sig"
PUBLIC_KEY = "table.pub.pem"
SIGNATURES = "signatures.jsonl"
TAIL = "tail.jsonl"
TABLE_KEYS = "table-keys.json"
DATA_FILES = (COUPS, EVENTS, SETTLEMENTS)
EXPORT_FILES = (EVENTS, COUPS, SETTLEMENTS, MANIFEST, SIGNATURE, PUBLIC_KEY)
#: A table's directory of a floor export: the table's format and its table signatures.
SIGNED_FORMAT = "shoe-floor-table-export/1"
SIGNED_FILES = (*DATA_FILES, SIGNATURES, TABLE_KEYS, TAIL)
#: The data files of each format `audit verify` reads: format 1 is an export made before
#: the money (no settlements.csv), still checked as it was signed.
FORMATS = {
    "shoe-daemon-audit-export/1": (COUPS, EVENTS),
    FORMAT: DATA_FILES,
    SIGNED_FORMAT: SIGNED_FILES,
}
RECORD_FIELDS = ("idx", "wall_ns", "mono_ns", "boot", "kind", "body", "prev", "hash", "mac")


def iso(ns: int) -> str:
    """Nanoseconds since the epoch as UTC ISO 8601, to the nanosecond."""
    seconds, fraction = divmod(ns, 1_000_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{fraction:09d}Z"


def event_line(record: Record) -> bytes:
    """A record's line of events.jsonl (and of tail.jsonl): its canonical JSON, a newline."""
    return (canonical(record.as_dict()) + "\n").encode()


def manifest_bytes(manifest: dict[str, Any]) -> bytes:
    """The exact bytes of manifest.json, which the signature covers."""
    return (json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def check_manifest(manifest: Any) -> None:
    """VerifyFailed unless `manifest` has the fields the checks of an export rely on."""
    try:
        ok = (manifest["format"] in FORMATS
              and isinstance(manifest["records"]["first"], int)
              and isinstance(manifest["records"]["last"], int)
              and isinstance(manifest["chain"]["prev"], str)
              and isinstance(manifest["chain"]["last"], str)
              and set(manifest["files"]) == set(FORMATS[manifest["format"]])
              and isinstance(manifest["counts"], dict)
              and (manifest["format"] != SIGNED_FORMAT
                   or (isinstance(manifest["floor"]["table_id"], str)
                       and isinstance(manifest["floor"]["table_signatures"], dict))))
    except (KeyError, TypeError):
        ok = False
    if not ok:
        raise VerifyFailed(f"{MANIFEST}: not a {FORMAT} manifest (nor one of "
                           f"{', '.join(f for f in FORMATS if f != FORMAT)})")


def data_files(manifest: dict[str, Any]) -> tuple[str, ...]:
    """The data files a checked manifest's format holds, in its sha256sum order."""
    return FORMATS[manifest["format"]]


def export_files(form: str) -> tuple[str, ...]:
    """Every file an export of this format holds."""
    return (*FORMATS[form], MANIFEST, SIGNATURE, PUBLIC_KEY)


def exports_dir(state_dir: Path) -> Path:
    """Where each export's signed manifest is kept: what `audit prune` may rely on."""
    return state_dir / "audit" / "exports"


def recorded_exports(state_dir: Path) -> list[Path]:
    """The kept manifests, oldest records first."""
    home = exports_dir(state_dir)
    if not home.is_dir():
        return []
    return sorted(p for p in home.iterdir() if p.is_dir() and not p.name.startswith("."))
