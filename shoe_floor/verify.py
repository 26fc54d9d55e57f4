"""`shoe-floor verify`: a floor export checked whole: the floor manifest's signature, that it
names exactly the table directories present with their manifests' SHA-256, and each table's
directory as `shoe-daemon audit verify` checks a single table's export, with the same key:
its records proven the table's by the table's own signatures it carries. Given the tables'
lodged keys (`--table-keys DIR`, laid out as the pit's `table_keys`), each table's signatures
must be made with keys lodged for it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from shoe_daemon.audit import keys
from shoe_daemon.audit.layout import MANIFEST
from shoe_daemon.audit.reader import AuditError, VerifyFailed
from shoe_daemon.audit.verify import public_key_at, verify_export
from shoe_floor.export import FLOOR_FORMAT, FLOOR_KEY, FLOOR_MANIFEST, FLOOR_SIGNATURE
from shoe_floor.table_keys import LodgedKeys, read_dir


def verify_floor(outdir: Path, public_key: Path | None = None,
                 table_keys: Path | None = None, floor_alone: bool = False) -> list[str]:
    """One summary line per table, or VerifyFailed naming the first bad thing (`floor_alone`:
    accept tables without their signatures, as `audit verify` does)."""
    if table_keys is not None and not table_keys.is_dir():
        raise AuditError(f"--table-keys: {table_keys} is not a directory")
    if not outdir.is_dir():
        raise AuditError(f"{outdir}: no such export directory")
    for name in (FLOOR_MANIFEST, FLOOR_SIGNATURE, FLOOR_KEY):
        if not (outdir / name).is_file():
            raise VerifyFailed(f"{name}: missing from the floor export")
    key_path = public_key or outdir / FLOOR_KEY
    pub = public_key_at(key_path)
    kid = keys.key_id(pub)
    data = (outdir / FLOOR_MANIFEST).read_bytes()
    if not keys.verify_signature(pub, (outdir / FLOOR_SIGNATURE).read_bytes(), data):
        raise VerifyFailed(f"{FLOOR_MANIFEST}/{FLOOR_SIGNATURE}: the signature does not verify "
                           f"with key id {kid}: changed, or another key signed it")
    try:
        floor = json.loads(data)
        entries = floor["tables"]
        ok = floor["format"] == FLOOR_FORMAT and floor["key_id"] == kid
    except (ValueError, KeyError, TypeError) as e:
        raise VerifyFailed(f"{FLOOR_MANIFEST}: not a {FLOOR_FORMAT} manifest ({e})") from e
    if not ok:
        raise VerifyFailed(f"{FLOOR_MANIFEST}: not a {FLOOR_FORMAT} manifest of key id {kid}")
    present = sorted(p.name for p in outdir.iterdir() if p.is_dir())
    named = sorted(e["dir"] for e in entries)
    if present != named:
        raise VerifyFailed(f"{FLOOR_MANIFEST}: names the tables {named}, the export holds "
                           f"{present} (a table's directory removed or added)")
    lines = []
    for entry in entries:
        where = outdir / entry["dir"]
        digest = hashlib.sha256((where / MANIFEST).read_bytes()).hexdigest() \
            if (where / MANIFEST).is_file() else "missing"
        if digest != entry["manifest_sha256"]:
            raise VerifyFailed(f"{entry['dir']}/{MANIFEST}: not the manifest the floor signed "
                               "(replaced)")
        lodged = None if table_keys is None else read_dir(
            LodgedKeys(table_keys).directory(entry["table_id"]))
        try:
            lines.append(f"{entry['dir']}: "
                         f"{verify_export(where, key_path, lodged, floor_alone)}")
        except VerifyFailed as e:
            raise VerifyFailed(f"{entry['dir']}: {e}") from e
        said = json.loads((where / MANIFEST).read_bytes()).get("floor", {})
        if said.get("table_id") != entry["table_id"] or entry.get("table_keys") != \
                said.get("table_signatures", {}).get("key_ids"):
            raise VerifyFailed(f"{entry['dir']}/{MANIFEST}: names another table or other keys "
                               f"than {FLOOR_MANIFEST} does")
    return lines
