"""`shoe-daemon audit`: the regulator's export of the ledger, and its verification.

An export is a directory a regulator can check with standard tools (docs/audit.md):
- `events.jsonl`: the ledger's records in the range, one canonical JSON object a line;
- `coups.csv`: one row per decided coup, rebuilt deterministically from those records;
- `manifest.json`: what was exported (table, software, index and time range, counts per
  kind, the chain's two ends, each file's SHA-256, the signing key's id);
- `manifest.sig`: the raw 64-byte Ed25519 signature over the exact bytes of manifest.json;
- `table.pub.pem`: the signing key's public half, for convenience only: the regulator checks
  exports against the key the casino lodged, by key id.

The export is made only from a ledger that verifies (chain and HMAC seals from record 1),
so the table's signature never vouches for a rewritten ledger. The ledger is opened
read-only: an audit never writes to the daemon's database.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from shoe_daemon import __version__
from shoe_daemon.audit import keys
from shoe_daemon.audit.ledger import (
    Chain,
    Ledger,
    LedgerCorrupt,
    LedgerError,
    Record,
    Start,
    canonical,
)

FORMAT = "shoe-daemon-audit-export/1"
EVENTS = "events.jsonl"
COUPS = "coups.csv"
MANIFEST = "manifest.json"
SIGNATURE = "manifest.sig"
PUBLIC_KEY = "table.pub.pem"
DATA_FILES = (COUPS, EVENTS)
EXPORT_FILES = (EVENTS, COUPS, MANIFEST, SIGNATURE, PUBLIC_KEY)
RECORD_FIELDS = ("idx", "wall_ns", "mono_ns", "boot", "kind", "body", "prev", "hash", "mac")
COUPS_HEADER = ("shoe", "coup", "time", "punter_cards", "banker_cards", "punter_total",
                "banker_total", "outcome", "irregularities", "resolved_by", "last_coup",
                "ledger_index")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class AuditError(Exception):
    """The audit cannot be done (no key, no ledger, bad arguments): exit 2."""


class VerifyFailed(AuditError):
    """The export or ledger is not intact; the message names the first bad record: exit 1."""


# ---- time --------------------------------------------------------------------------------


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


def iso(ns: int) -> str:
    """Nanoseconds since the epoch as UTC ISO 8601, to the nanosecond."""
    seconds, fraction = divmod(ns, 1_000_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{fraction:09d}Z"


def _iso_now() -> str:
    return iso(time.time_ns())


# ---- the ledger, read-only ---------------------------------------------------------------


class LedgerReader(Ledger):
    """The daemon's ledger opened read-only (`mode=ro`): `records()`, and `checked()`.

    `Ledger.__init__` would create a missing HMAC key and re-create the triggers; an audit
    must do neither to the database it checks, so this opens the file itself.
    """

    def __init__(self, state_dir: Path):  # deliberately not Ledger.__init__ (see above)
        self.path = state_dir / "ledger.sqlite3"
        key_path = state_dir / "ledger.key"
        if not self.path.is_file():
            raise AuditError(f"no ledger at {self.path}")
        try:
            self.key = bytes.fromhex(key_path.read_text().strip())
        except FileNotFoundError as e:
            raise AuditError(f"no ledger key at {key_path}: the seals cannot be checked") from e
        except (OSError, ValueError) as e:
            raise AuditError(f"{key_path}: cannot read the ledger key ({e})") from e
        try:
            self.db = sqlite3.connect(f"{self.path.as_uri()}?mode=ro", uri=True,
                                      isolation_level=None, check_same_thread=False)
            self.db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as e:
            raise AuditError(f"{self.path}: {e}") from e

    def checked(self, last: int | None = None) -> Iterator[Record]:
        """`Ledger.checked`, its failures as VerifyFailed (an audit's "not intact", exit 1)."""
        try:
            yield from super().checked(last)
        except LedgerError as e:
            raise VerifyFailed(str(e)) from e

    def last_index(self) -> int:
        return self.db.execute("SELECT COALESCE(MAX(idx), 0) FROM records").fetchone()[0]


# ---- coups.csv -----------------------------------------------------------------------------


def _text(value: Any) -> str:
    """A value as one CSV token: spaces inside become '_' so lists can join on spaces."""
    return "_".join(str(value).split())


class CoupsTable:
    """One row per `coup.result`, with its irregularities and how they were resolved.

    A resolution (`irregularity.resolved`) belongs to the coup of its shoe and coup number:
    to that coup's row if its result came already (a hold raised after the coup was
    decided), else to the next result of that shoe and coup. One that no result in the
    range claims is in events.jsonl only.
    """

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self._by_coup: dict[tuple[Any, Any], dict[str, Any]] = {}
        self._pending: defaultdict[tuple[Any, Any], list[str]] = defaultdict(list)

    def feed(self, record: Record) -> None:
        if record.kind != "result":
            return
        line = record.body.get("line")
        if not isinstance(line, dict):
            return
        where = (line.get("shoe"), line.get("coup"))
        event = line.get("event")
        if event == "coup.result":
            punter, banker = line.get("punter") or {}, line.get("banker") or {}
            row = {
                "shoe": line.get("shoe"),
                "coup": line.get("coup"),
                "time": iso(record.wall_ns),
                "punter_cards": " ".join(map(_text, punter.get("cards", []))),
                "banker_cards": " ".join(map(_text, banker.get("cards", []))),
                "punter_total": punter.get("total"),
                "banker_total": banker.get("total"),
                "outcome": line.get("outcome"),
                "irregularities": " ".join(map(_text, line.get("irregularities", []))),
                "resolved_by": self._pending.pop(where, []),
                "last_coup": "true" if line.get("last_coup") else "false",
                "ledger_index": record.idx,
            }
            self._by_coup[where] = row
            self.rows.append(row)
        elif event == "irregularity.resolved":
            entry = ":".join(_text(line.get(k)) for k in ("code", "how", "by"))
            row = self._by_coup.get(where)
            (row["resolved_by"] if row is not None else self._pending[where]).append(entry)

    def text(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(COUPS_HEADER)
        for row in self.rows:
            values = dict(row, resolved_by=" ".join(row["resolved_by"]))
            writer.writerow(["" if values[k] is None else values[k] for k in COUPS_HEADER])
        return out.getvalue()


# ---- export --------------------------------------------------------------------------------


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


def _manifest_bytes(manifest: dict[str, Any]) -> bytes:
    return (json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


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
        data = _manifest_bytes(manifest)
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


def exports_dir(state_dir: Path) -> Path:
    """Where each export's signed manifest is kept: what `audit prune` may rely on."""
    return state_dir / "audit" / "exports"


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


def recorded_exports(state_dir: Path) -> list[Path]:
    """The kept manifests, oldest records first."""
    home = exports_dir(state_dir)
    if not home.is_dir():
        return []
    return sorted(p for p in home.iterdir() if p.is_dir() and not p.name.startswith("."))


# ---- verify an export ------------------------------------------------------------------------


class _EventsCheck:
    """events.jsonl, line by line, against the manifest: what it holds, or VerifyFailed."""

    def __init__(self, manifest: dict[str, Any]):
        self.first, self.last = manifest["records"]["first"], manifest["records"]["last"]
        self.chain = Chain(Start(self.first, manifest["chain"]["prev"]), None)
        self.count = 0
        self.counts: Counter[str] = Counter()
        self.coups = CoupsTable()
        self.digest = hashlib.sha256()

    def read(self, path: Path) -> _EventsCheck:
        with path.open("rb") as f:
            for raw in f:
                self.digest.update(raw)
                self.line(raw)
        n = self.count
        if n < self.last - self.first + 1:
            after = f"after record {self.first + n - 1}" if n else "empty"
            raise VerifyFailed(f"record {self.first + n} ({EVENTS} line {n + 1}): missing: the "
                               f"file ends {after}, the manifest's last record is {self.last} "
                               "(deleted)")
        return self

    def line(self, raw: bytes) -> None:
        self.count = n = self.count + 1
        expected = self.first + n - 1
        where = f"{EVENTS} line {n}"
        if not raw.endswith(b"\n"):
            raise VerifyFailed(f"{where}: not ended by a newline (edited)")
        try:
            text = raw[:-1].decode()
            obj = json.loads(text)
        except ValueError as e:
            raise VerifyFailed(f"record {expected}? ({where}): not a JSON record ({e})") from e
        if not isinstance(obj, dict) or sorted(obj) != sorted(RECORD_FIELDS):
            raise VerifyFailed(f"record {expected}? ({where}): not a ledger record")
        idx = obj["idx"]
        if expected > self.last:
            raise VerifyFailed(f"{where}: record {idx} is beyond the manifest's last record "
                               f"{self.last} (inserted)")
        if not isinstance(idx, int) or idx != expected:
            raise VerifyFailed(f"record {expected} ({where}): expected here, found record "
                               f"{idx} instead (deleted, inserted or reordered)")
        if canonical(obj) != text:
            raise VerifyFailed(f"record {idx} ({where}): not in the canonical encoding (edited)")
        try:
            record = Record(**obj)
            self.chain.follow(record)
        except (TypeError, AttributeError, ValueError) as e:
            raise VerifyFailed(f"record {idx} ({where}): malformed ({e})") from e
        except LedgerCorrupt as e:
            raise VerifyFailed(f"record {e.index} ({where}): {e.why}") from e
        self.counts[record.kind] += 1
        self.coups.feed(record)


def _first_difference(expected: bytes, found: bytes) -> tuple[int, str, str]:
    want, got = expected.decode().split("\n"), found.decode(errors="replace").split("\n")
    for i in range(max(len(want), len(got))):
        a = want[i] if i < len(want) else "<none>"
        b = got[i] if i < len(got) else "<none>"
        if a != b:
            return i + 1, a, b
    return len(want), "", ""


def _check_manifest(manifest: Any) -> None:
    try:
        ok = (manifest["format"] == FORMAT
              and isinstance(manifest["records"]["first"], int)
              and isinstance(manifest["records"]["last"], int)
              and isinstance(manifest["chain"]["prev"], str)
              and isinstance(manifest["chain"]["last"], str)
              and set(manifest["files"]) == set(DATA_FILES)
              and isinstance(manifest["counts"], dict))
    except (KeyError, TypeError):
        ok = False
    if not ok:
        raise VerifyFailed(f"{MANIFEST}: not a {FORMAT} manifest")


def verify_export(outdir: Path, public_key: Path | None = None) -> str:
    """Check an export; return a one-line summary, or VerifyFailed naming the first bad thing."""
    if not outdir.is_dir():
        raise AuditError(f"{outdir}: no such export directory")
    for name in EXPORT_FILES:
        if not (outdir / name).is_file():
            raise VerifyFailed(f"{name}: missing from the export")
    key_path = public_key or outdir / PUBLIC_KEY
    try:
        pub = keys.load_public_pem(key_path.read_bytes(), str(key_path))
        included = keys.load_public_pem((outdir / PUBLIC_KEY).read_bytes(), PUBLIC_KEY)
    except OSError as e:
        raise AuditError(f"{key_path}: {e.strerror or e}") from e
    except keys.KeyProblem as e:
        raise VerifyFailed(str(e)) from e
    kid = keys.key_id(pub)
    source = ("the key given with --public-key" if public_key else
              f"the {PUBLIC_KEY} in the export: compare this key id with the key lodged")
    data = (outdir / MANIFEST).read_bytes()
    signature = (outdir / SIGNATURE).read_bytes()
    if len(signature) != 64 or not keys.verify_signature(pub, signature, data):
        raise VerifyFailed(f"{MANIFEST}/{SIGNATURE}: the signature does not verify with key id "
                           f"{kid} ({source}): the manifest or its signature was changed, "
                           "or another key signed it")
    try:
        manifest = json.loads(data)
    except ValueError as e:
        raise VerifyFailed(f"{MANIFEST}: not JSON ({e})") from e
    _check_manifest(manifest)
    if manifest.get("key_id") != kid:
        raise VerifyFailed(f"{MANIFEST}: names key id {manifest.get('key_id')}, "
                           f"signed with {kid}")
    if keys.key_id(included) != kid:
        raise VerifyFailed(f"{PUBLIC_KEY}: key id {keys.key_id(included)} is not the signing "
                           f"key {kid} (replaced)")
    files = manifest["files"]
    if manifest.get("sha256sum") != [f"{files[name]}  {name}" for name in DATA_FILES]:
        raise VerifyFailed(f"{MANIFEST}: its sha256sum lines disagree with its files")

    events = _EventsCheck(manifest).read(outdir / EVENTS)
    last = manifest["records"]["last"]
    if events.chain.prev != manifest["chain"]["last"]:
        raise VerifyFailed(f"record {last} ({EVENTS} line {events.count}): its hash is not the "
                           "manifest's last hash")
    if dict(events.counts) != manifest["counts"]:
        raise VerifyFailed(f"{EVENTS}: counts per kind {dict(events.counts)} differ from the "
                           f"manifest's {manifest['counts']}")
    if events.digest.hexdigest() != files[EVENTS]:
        raise VerifyFailed(f"{EVENTS}: SHA-256 {events.digest.hexdigest()} is not the manifest's "
                           f"{files[EVENTS]} though every record chains: a `mac` field (which "
                           "only the ledger key checks) was changed")
    rebuilt = events.coups.text().encode()
    found = (outdir / COUPS).read_bytes()
    if found != rebuilt:
        line, want, got = _first_difference(rebuilt, found)
        raise VerifyFailed(f"{COUPS} line {line}: differs from the coups in {EVENTS} "
                           f"(expected {want!r}, found {got!r})")
    if hashlib.sha256(found).hexdigest() != files[COUPS]:
        raise VerifyFailed(f"{COUPS}: SHA-256 is not the manifest's {files[COUPS]}")
    if manifest.get("coups") != len(events.coups.rows):
        raise VerifyFailed(f"{MANIFEST}: says {manifest.get('coups')} coups, "
                           f"{EVENTS} has {len(events.coups.rows)}")
    first = manifest["records"]["first"]
    return (f"export intact: records {first}..{last} ({events.count}), "
            f"{len(events.coups.rows)} coups, table {manifest.get('table')}, chain "
            f"{manifest['chain']['prev'][:12]}..{events.chain.prev[:12]}, signed by key id "
            f"{kid} ({source})")


# ---- verify the live ledger -------------------------------------------------------------------


def _verify_own_export(outdir: Path, known: dict[str, Path]) -> dict[str, Any]:
    """Verify an export with this table's own public key (current or rotated out)."""
    try:
        kid = json.loads((outdir / MANIFEST).read_bytes()).get("key_id")
    except (OSError, ValueError, AttributeError):
        kid = None
    if kid not in known:
        raise VerifyFailed(f"{outdir}/{MANIFEST}: not signed by one of this table's keys "
                           f"(key id {kid}; the table has {', '.join(sorted(known)) or 'none'})")
    try:
        verify_export(outdir, known[kid])
    except VerifyFailed as e:
        raise VerifyFailed(f"export {outdir}: {e}") from e
    manifest: dict[str, Any] = json.loads((outdir / MANIFEST).read_bytes())
    return manifest


def check_against(reader: LedgerReader, manifest: dict[str, Any], name: str) -> bool:
    """Does the ledger still hold the last record this export signed? True if it does, False
    if that record lies in the pruned past; VerifyFailed if it was truncated or rewritten."""
    start = reader.start()
    tail = reader.last_index()
    last, last_hash = manifest["records"]["last"], manifest["chain"]["last"]
    if last > tail:
        raise VerifyFailed(f"ledger {reader.path}: record {tail + 1}: missing: the export "
                           f"{name} holds records up to {last} (truncated)")
    if last >= start.first_idx:
        row = reader.db.execute("SELECT hash FROM records WHERE idx = ?", (last,)).fetchone()
        held = row[0]
    elif last == start.first_idx - 1:
        held = start.first_prev
    else:
        return False
    if held != last_hash:
        raise VerifyFailed(f"ledger {reader.path}: record {last}: not the record the export "
                           f"{name} signed (rewritten)")
    return True


def verify_ledger(state_dir: Path, against: list[Path] | None = None) -> str:
    """Check the retained ledger (chain and seals) and, for each export given, that the ledger
    still holds what it signed (which catches a truncated tail)."""
    reader = LedgerReader(state_dir)
    before = 0
    try:
        reader.db.execute("BEGIN")
        try:
            count = sum(1 for _ in reader.checked())
        except VerifyFailed as e:
            raise VerifyFailed(f"ledger {reader.path}: {e}") from e
        first = reader.start().first_idx
        known = keys.public_keys(state_dir)
        for outdir in against or []:
            manifest = _verify_own_export(outdir, known)
            before += not check_against(reader, manifest, str(outdir))
        reader.db.execute("COMMIT")
    finally:
        reader.close()
    anchored = f", consistent with {len(against)} export(s)" if against else ""
    if before:
        anchored += f" ({before} of them before the retained records, not comparable)"
    span = f"records {first}..{first + count - 1}" if first > 1 else f"{count} records"
    return f"ledger intact: {span}, chain and seals good{anchored} ({reader.path})"


# ---- command line ----------------------------------------------------------------------------


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
    ex.add_argument("--out", type=Path, required=True, help="a new or empty directory")
    ex.add_argument("--from", dest="start", type=parse_time, metavar="T",
                    help="first time (ISO 8601, UTC if no zone), inclusive")
    ex.add_argument("--to", dest="end", type=parse_time, metavar="T",
                    help="last time (ISO 8601, UTC if no zone), exclusive")
    ve = sub.add_parser("verify", help="verify an export, or the live ledger",
                        description="Verify an export directory (signature, files, chain, "
                                    "coups), or with --state-dir the live ledger (chain and "
                                    "HMAC seals).")
    ve.add_argument("export", nargs="?", type=Path, metavar="OUTDIR", help="an export")
    ve.add_argument("--public-key", type=Path, metavar="PEM",
                    help="the public key lodged for the table (default: the export's own)")
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
    from shoe_daemon.audit import retention
    from shoe_daemon.service import config

    state_dir, keep_days = args.state_dir, args.keep_days
    if args.config is not None:
        try:
            settings = config.load(argparse.Namespace(config=args.config, state_dir=state_dir))
        except config.ConfigError as e:
            raise AuditError(str(e)) from e
        state_dir = settings.state_dir
        keep_days = settings.retention_days if keep_days is None else keep_days
    if state_dir is None or keep_days is None:
        raise AuditError("give --config, or --state-dir with --keep-days")
    if keep_days == 0:
        print("retention_days is 0: records are kept for ever, nothing pruned")
        return 0
    if args.dry_run:
        chosen = retention.plan(state_dir, keep_days)
        removed = 0
    else:
        chosen, removed = retention.prune(state_dir, keep_days)
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
            print(verify_export(args.export, args.public_key))
        else:
            if args.public_key:
                raise AuditError("--public-key goes with an export directory")
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
    """`python -m shoe_daemon.audit.export audit ...`: the same commands without the main CLI."""
    parser = argparse.ArgumentParser(prog="shoe-daemon")
    add_audit_parser(parser.add_subparsers(dest="command", required=True))
    return run_audit(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
