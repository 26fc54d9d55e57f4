"""One table's export written: the one builder of the files shoe_daemon.audit.layout names.

`shoe-daemon audit export` (shoe_daemon.audit.export) builds it from the table's ledger,
`shoe-floor export` (shoe_floor.export) from the records the floor collected, one directory
per table; what both write is therefore by construction the same files, checked by the same
`audit verify` (shoe_daemon.audit.verify). The source checks the chain of the records it
hands over (and their seals where it holds the ledger key); the builder writes events.jsonl,
coups.csv and settlements.csv from them and then the signed manifest, and `staged` puts the
whole export in place atomically, so a failed export leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from shoe_daemon.audit import keys
from shoe_daemon.audit.coups import CoupsTable
from shoe_daemon.audit.layout import (
    COUPS,
    EVENTS,
    FORMAT,
    FORMATS,
    MANIFEST,
    PUBLIC_KEY,
    SETTLEMENTS,
    SIGNATURE,
    event_line,
    export_files,
    iso,
    manifest_bytes,
)
from shoe_daemon.audit.ledger import Record
from shoe_daemon.audit.reader import AuditError, VerifyFailed
from shoe_daemon.audit.settlements import SettlementsTable


class ExportBuilder:
    """A table's export of records `first`..`last` (the range asked from `start_ns` to
    `end_ns`, None for open) into `outdir`, an existing empty directory: `write` the
    records, then `sign`."""

    def __init__(self, outdir: Path, first: int, last: int, start_ns: int | None,
                 end_ns: int | None):
        self.outdir = outdir
        self.first, self.last = first, last
        self.start_ns, self.end_ns = start_ns, end_ns
        self.start: Record | None = None  # the latest daemon.start at or before `last`
        self.starts: list[int] = []  # the daemon.start records in the range
        self.head: Record | None = None
        self.tail: Record | None = None
        self.earliest = self.latest = 0  # the wall times of the range's records
        self.counts: Counter[str] = Counter()
        self.coups = CoupsTable()
        self.settlements = SettlementsTable()
        self.hashes: dict[str, str] = {}

    def write(self, records: Iterable[Record]) -> None:
        """events.jsonl, coups.csv and settlements.csv from `records`, in order and already
        checked by their source, from any record at or before `first` (those before it are
        read only for the daemon.start that names the software) up to `last`. VerifyFailed
        naming the first record missing if they stop short of `last`."""
        seen: Record | None = None
        digest = hashlib.sha256()
        with (self.outdir / EVENTS).open("wb") as events:
            for record in records:
                if record.idx > self.last:
                    break
                seen = record
                if record.kind == "daemon.start":
                    self.start = record
                if record.idx < self.first:
                    continue
                self.head = self.head or record
                self.tail = record
                self.earliest = min(self.earliest or record.wall_ns, record.wall_ns)
                self.latest = max(self.latest, record.wall_ns)
                if record.kind == "daemon.start":
                    self.starts.append(record.idx)
                line = event_line(record)
                events.write(line)
                digest.update(line)
                self.counts[record.kind] += 1
                self.coups.feed(record)
                self.settlements.feed(record)
        if self.tail is None or self.tail.idx != self.last:
            missing = self.first if seen is None else seen.idx + 1
            raise VerifyFailed(f"record {missing}: missing (the range ends at {self.last})")
        coups = self.coups.text().encode()
        (self.outdir / COUPS).write_bytes(coups)
        settlements = self.settlements.text().encode()
        (self.outdir / SETTLEMENTS).write_bytes(settlements)
        self.hashes = {EVENTS: digest.hexdigest(), COUPS: hashlib.sha256(coups).hexdigest(),
                       SETTLEMENTS: hashlib.sha256(settlements).hexdigest()}

    def add_file(self, name: str, data: bytes) -> None:
        """A further data file its format holds (a floor export's table signatures)."""
        (self.outdir / name).write_bytes(data)
        self.hashes[name] = hashlib.sha256(data).hexdigest()

    def sign(self, key: keys.TableKey, *, ledger: dict[str, Any], created: str, exporter: str,
             form: str = FORMAT, **sections: Any) -> dict[str, Any]:
        """Write manifest.json of format `form` (with `ledger`, what the source verified, and
        any further `sections` its exporter vouches for), its signature and the public key;
        return the manifest."""
        assert self.head is not None and self.tail is not None, "sign() before write()"
        assert sorted(self.hashes) == sorted(FORMATS[form]), "a data file missing"
        body = self.start.body if self.start is not None else {}
        manifest = {
            "format": form,
            "table": body.get("table"),
            "profile": body.get("profile"),
            "software": None if self.start is None else {
                "version": body.get("version"),
                "code_sha256": body.get("code_sha256"),
                "daemon_start_record": self.start.idx,
            },
            "daemon_starts": self.starts,
            "display": _display(body),
            "records": {"first": self.first, "last": self.last,
                        "count": self.last - self.first + 1},
            "time": {
                "from": None if self.start_ns is None else iso(self.start_ns),
                "to": None if self.end_ns is None else iso(self.end_ns),
                "earliest_record": iso(self.earliest),
                "latest_record": iso(self.latest),
            },
            "counts": dict(sorted(self.counts.items())),
            "coups": len(self.coups.rows),
            "settlements": {"coups": self.settlements.settlements,
                            "lines": len(self.settlements.rows)},
            "chain": {"prev": self.head.prev, "last": self.tail.hash},
            "files": self.hashes,
            "sha256sum": [f"{self.hashes[name]}  {name}" for name in FORMATS[form]],
            "ledger": ledger,
            "key_id": key.key_id,
            "signature": {"algorithm": "Ed25519", "file": SIGNATURE, "over": MANIFEST},
            "created": created,
            "exporter": exporter,
            **sections,
        }
        data = manifest_bytes(manifest)
        (self.outdir / MANIFEST).write_bytes(data)
        (self.outdir / SIGNATURE).write_bytes(key.private.sign(data))
        (self.outdir / PUBLIC_KEY).write_bytes(key.public_pem)
        os.chmod(self.outdir, 0o755)
        assert sorted(p.name for p in self.outdir.iterdir()) == sorted(export_files(form))
        return manifest


@contextlib.contextmanager
def staged(out: Path) -> Iterator[Path]:
    """A temporary directory beside `out` (a new or empty directory) to write an export in,
    synced and renamed onto `out` when the block ends; removed, and `out` untouched, if it
    raises."""
    if out.is_dir():
        if any(out.iterdir()):
            raise AuditError(f"{out} is not empty: export into a new or empty directory")
    elif out.exists():
        raise AuditError(f"{out} exists and is not a directory")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        yield tmp
        for path in sorted(tmp.rglob("*"), reverse=True):
            keys.fsync_path(path)
        os.chmod(tmp, 0o755)
        keys.fsync_path(tmp)
        os.replace(tmp, out)  # rename(2): atomic, and allowed onto an empty directory
        keys.fsync_path(out.parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _display(start: dict[str, Any]) -> dict[str, Any] | None:
    """The table's display language and game terms as its daemon.start recorded them: what a
    report from the export words the game in (docs/report.md)."""
    config = start.get("config")
    if not isinstance(config, dict):
        return None
    return {"language": config.get("display_language"), "terms": config.get("display_terms")}
