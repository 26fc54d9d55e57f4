"""`shoe-daemon audit verify`: an export checked as the regulator would (signature, files,
the chain in events.jsonl, coups.csv and settlements.csv rebuilt, the money by the house's
rules), and the live ledger (chain and seals, the money, and that it still holds what each
export given signed).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from shoe_daemon.audit import keys
from shoe_daemon.audit.coups import CoupsTable
from shoe_daemon.audit.layout import (
    COUPS,
    EVENTS,
    EXPORT_FILES,
    MANIFEST,
    PUBLIC_KEY,
    RECORD_FIELDS,
    SETTLEMENTS,
    SIGNATURE,
    SIGNATURES,
    TABLE_KEYS,
    TAIL,
    check_manifest,
    data_files,
)
from shoe_daemon.audit.ledger import Chain, LedgerCorrupt, LedgerError, Record, Start, canonical
from shoe_daemon.audit.money_check import MoneyCheck
from shoe_daemon.audit.reader import AuditError, LedgerReader, VerifyFailed
from shoe_daemon.audit.settlements import SettlementsTable
from shoe_daemon.audit.table_signatures import RecordSignature, read_keys_file, read_line


def _record_line(raw: bytes, expected: int, last: int, where: str, chain: Chain) -> Record:
    """The record a line of events.jsonl (or tail.jsonl) holds, expected to be record
    `expected` of a file ending at `last`, followed on `chain`; or VerifyFailed."""
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
    if expected > last:
        raise VerifyFailed(f"{where}: record {idx} is beyond the manifest's last record "
                           f"{last} (inserted)")
    if not isinstance(idx, int) or idx != expected:
        raise VerifyFailed(f"record {expected} ({where}): expected here, found record "
                           f"{idx} instead (deleted, inserted or reordered)")
    if canonical(obj) != text:
        raise VerifyFailed(f"record {idx} ({where}): not in the canonical encoding (edited)")
    try:
        record = Record(**obj)
        chain.follow(record)
    except (TypeError, AttributeError, ValueError) as e:
        raise VerifyFailed(f"record {idx} ({where}): malformed ({e})") from e
    except LedgerCorrupt as e:
        raise VerifyFailed(f"record {e.index} ({where}): {e.why}") from e
    return record


class _EventsCheck:
    """events.jsonl, line by line, against the manifest: what it holds, or VerifyFailed."""

    def __init__(self, manifest: dict[str, Any]):
        self.first, self.last = manifest["records"]["first"], manifest["records"]["last"]
        self.chain = Chain(Start(self.first, manifest["chain"]["prev"]), None)
        self.count = 0
        self.counts: Counter[str] = Counter()
        self.coups = CoupsTable()
        self.settlements = SettlementsTable()
        first = self.first
        self.money = MoneyCheck(from_start=first == 1, profile=manifest.get("profile"),
                                where=lambda idx: f"record {idx} ({EVENTS} line "
                                                  f"{idx - first + 1})")
        self.digest = hashlib.sha256()
        # Each record's hash, for the table's signatures over them (a floor export's).
        self.hashes: list[str] | None = [] if SIGNATURES in data_files(manifest) else None

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
        record = _record_line(raw, self.first + n - 1, self.last, f"{EVENTS} line {n}",
                              self.chain)
        if self.hashes is not None:
            self.hashes.append(record.hash)
        self.counts[record.kind] += 1
        self.coups.feed(record)
        self.settlements.feed(record)
        self.money.feed(record)


def _first_difference(expected: bytes, found: bytes) -> tuple[int, str, str]:
    want, got = expected.decode().split("\n"), found.decode(errors="replace").split("\n")
    for i in range(max(len(want), len(got))):
        a = want[i] if i < len(want) else "<none>"
        b = got[i] if i < len(got) else "<none>"
        if a != b:
            return i + 1, a, b
    return len(want), "", ""


def public_key_at(path: Path, where: str | None = None) -> Ed25519PublicKey:
    """The Ed25519 public key in the PEM file `path` (named `where` in a failure): AuditError
    if it cannot be read, VerifyFailed if it is not such a key."""
    try:
        return keys.load_public_pem(path.read_bytes(), where or str(path))
    except OSError as e:
        raise AuditError(f"{path}: {e.strerror or e}") from e
    except keys.KeyProblem as e:
        raise VerifyFailed(str(e)) from e


def verify_export(outdir: Path, public_key: Path | None = None,
                  table_keys: dict[str, Ed25519PublicKey] | None = None,
                  floor_alone: bool = False) -> str:
    """Check an export; return a one-line summary, or VerifyFailed naming the first bad thing.
    For a floor export's table directory: `table_keys`, the keys lodged for the table (by key
    id), each key its table signatures use must be one of them; `floor_alone`, accept one
    without table signatures (made before the floor kept them), vouched for by the floor's
    key alone."""
    if not outdir.is_dir():
        raise AuditError(f"{outdir}: no such export directory")
    for name in EXPORT_FILES:  # settlements.csv: once the manifest's format says it has one
        if name != SETTLEMENTS and not (outdir / name).is_file():
            raise VerifyFailed(f"{name}: missing from the export")
    key_path = public_key or outdir / PUBLIC_KEY
    pub = public_key_at(key_path)
    included = public_key_at(outdir / PUBLIC_KEY, PUBLIC_KEY)
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
    check_manifest(manifest)
    if manifest.get("key_id") != kid:
        raise VerifyFailed(f"{MANIFEST}: names key id {manifest.get('key_id')}, "
                           f"signed with {kid}")
    if keys.key_id(included) != kid:
        raise VerifyFailed(f"{PUBLIC_KEY}: key id {keys.key_id(included)} is not the signing "
                           f"key {kid} (replaced)")
    files = manifest["files"]
    if manifest.get("sha256sum") != [f"{files[name]}  {name}" for name in data_files(manifest)]:
        raise VerifyFailed(f"{MANIFEST}: its sha256sum lines disagree with its files")
    for name in data_files(manifest):
        if not (outdir / name).is_file():
            raise VerifyFailed(f"{name}: missing from the export")

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
    if SETTLEMENTS in files:
        _same_file(outdir, SETTLEMENTS, events.settlements.text().encode(), files)
        said = {"coups": events.settlements.settlements, "lines": len(events.settlements.rows)}
        if manifest.get("settlements") != said:
            raise VerifyFailed(f"{MANIFEST}: says settlements {manifest.get('settlements')}, "
                               f"{EVENTS} has {said}")
    signed = (_table_signatures(outdir, manifest, events, table_keys)
              if SIGNATURES in files else _floor_alone(manifest, floor_alone))
    money = events.money.finish()
    first = manifest["records"]["first"]
    return (f"export intact: records {first}..{last} ({events.count}), "
            f"{len(events.coups.rows)} coups, table {manifest.get('table')}, chain "
            f"{manifest['chain']['prev'][:12]}..{events.chain.prev[:12]}, signed by key id "
            f"{kid} ({source}){signed}; {money.text()}")


def _floor_alone(manifest: dict[str, Any], accepted: bool) -> str:
    """A floor export's table directory without the tables' signatures: made before the floor
    kept them, or made so by whoever holds the floor's key. Refused unless `accepted`."""
    if "floor" not in manifest:
        return ""
    if not accepted:
        raise VerifyFailed(f"{MANIFEST}: a floor export without the table's signatures "
                           f"(format {manifest['format']}): its records are vouched for by "
                           "the floor's key alone, not proven the table's (made before the "
                           "floor kept them, or by whoever holds the floor's key); "
                           "--without-table-signatures accepts it as that")
    return ("; a floor export without the table's signatures (made before the floor kept "
            "them): its records are vouched for by the floor's key alone")


def _file(outdir: Path, name: str, files: dict[str, str]) -> bytes:
    data = (outdir / name).read_bytes()
    if hashlib.sha256(data).hexdigest() != files[name]:
        raise VerifyFailed(f"{name}: SHA-256 is not the manifest's {files[name]}")
    return data


def _table_signatures(outdir: Path, manifest: dict[str, Any], events: _EventsCheck,
                      lodged: dict[str, Ed25519PublicKey] | None) -> str:
    """A floor export's table directory: every record of events.jsonl proven its table's by
    the nearest table signature at or after it (signatures.jsonl, checked with the keys of
    table-keys.json: the lodged ones, if given) and the chain between (events.jsonl, then
    tail.jsonl up to the record signed)."""
    files, said = manifest["files"], manifest["floor"]["table_signatures"]
    table = manifest["floor"]["table_id"]
    first, last = events.first, events.last
    assert events.hashes is not None
    public = read_keys_file(_file(outdir, TABLE_KEYS, files), TABLE_KEYS)
    if sorted(public) != said.get("key_ids"):
        raise VerifyFailed(f"{TABLE_KEYS}: holds key ids {sorted(public)}, the manifest names "
                           f"{said.get('key_ids')}")
    for kid, key in public.items():
        if lodged is not None and (kid not in lodged or keys.public_pem(lodged[kid])
                                   != keys.public_pem(key)):
            raise VerifyFailed(f"{TABLE_KEYS}: key id {kid} is not one of the keys lodged for "
                               f"table {table} ({', '.join(sorted(lodged)) or 'none'} given): "
                               "its signatures are not the table's")
    through = said.get("covered_through")
    if not isinstance(through, int) or through < last:
        raise VerifyFailed(f"{MANIFEST}: its table signatures cover through {through!r}, not "
                           f"the range's last record {last}")
    tail = _file(outdir, TAIL, files).splitlines(keepends=True)
    chain = Chain(Start(last + 1, events.chain.prev), None)
    for n, raw in enumerate(tail, 1):
        events.hashes.append(_record_line(raw, last + n, through, f"{TAIL} line {n}",
                                          chain).hash)
    if last + len(tail) != through:
        raise VerifyFailed(f"record {last + len(tail) + 1} ({TAIL} line {len(tail) + 1}): "
                           f"missing: the manifest's tail runs to record {through} (deleted)")

    def where(idx: int) -> str:
        return (f"{EVENTS} line {idx - first + 1}" if idx <= last
                else f"{TAIL} line {idx - last}")

    signed: list[RecordSignature] = []
    for n, raw in enumerate(_file(outdir, SIGNATURES, files).splitlines(keepends=True), 1):
        line = f"{SIGNATURES} line {n}"
        sig = read_line(raw, line)
        if signed and (sig.idx, sig.key_id) <= (signed[-1].idx, signed[-1].key_id):
            raise VerifyFailed(f"{line}: record {sig.idx} after record {signed[-1].idx} "
                               "(reordered or repeated)")
        if not first <= sig.idx <= through:
            raise VerifyFailed(f"{line}: record {sig.idx} is not one of records {first}.."
                               f"{through} the export holds")
        held = events.hashes[sig.idx - first]
        if sig.hash != held:
            low = signed[-1].idx + 1 if signed else first
            span = f"record {low}" if low == sig.idx else f"one of records {low}..{sig.idx}"
            raise VerifyFailed(f"record {sig.idx} ({where(sig.idx)}): its hash {held[:16]} is "
                               f"not the one table {table} signed, {sig.hash[:16]} ({line}): "
                               f"{span} is not the table's")
        if sig.key_id not in public:
            raise VerifyFailed(f"{line}: key id {sig.key_id} is not in {TABLE_KEYS}")
        if not sig.verifies(public[sig.key_id], table):
            raise VerifyFailed(f"record {sig.idx} ({where(sig.idx)}): table {table}'s signature "
                               f"({line}) does not verify with its key {sig.key_id}: changed, "
                               "or not the table's")
        signed.append(sig)
    if len(signed) != said.get("count"):
        raise VerifyFailed(f"{SIGNATURES}: {len(signed)} signatures, the manifest says "
                           f"{said.get('count')}")
    below = [s.idx for s in signed if s.idx <= last]
    if not signed or signed[-1].idx < last:
        unproven = (below[-1] + 1) if below else first
        raise VerifyFailed(f"record {unproven} ({where(unproven)}): no signature of table "
                           f"{table} covers it (none at or after it)")
    if any(s.idx != through for s in signed if s.idx > last) or signed[-1].idx != through:
        raise VerifyFailed(f"{TAIL}: runs past the first signature after the range, or stops "
                           f"short of it (it ends at record {through})")
    kids = ", ".join(sorted(public))
    lodged_said = ("the keys lodged, given" if lodged is not None
                   else "compare them with the keys lodged for the table")
    past = f", {through - last} record(s) past the range in {TAIL}" if through > last else ""
    return (f"; every record signed by table {table}: {len(signed)} signature(s), the last "
            f"over record {through}{past}, key id(s) {kids} ({lodged_said})")


def _same_file(outdir: Path, name: str, rebuilt: bytes, files: dict[str, str]) -> None:
    """A file rebuilt from events.jsonl is the exported one, byte for byte, and hashed so."""
    found = (outdir / name).read_bytes()
    if found != rebuilt:
        line, want, got = _first_difference(rebuilt, found)
        raise VerifyFailed(f"{name} line {line}: differs from the records in {EVENTS} "
                           f"(expected {want!r}, found {got!r})")
    if hashlib.sha256(found).hexdigest() != files[name]:
        raise VerifyFailed(f"{name}: SHA-256 is not the manifest's {files[name]}")


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
    """Check the retained ledger (chain and seals, then the money) and, for each export given,
    that the ledger still holds what it signed (which catches a truncated tail)."""
    reader = LedgerReader(state_dir)
    before = 0
    try:
        reader.db.execute("BEGIN")
        try:
            try:
                first = reader.start().first_idx
            except LedgerError as e:
                raise VerifyFailed(str(e)) from e
            money = MoneyCheck(from_start=first == 1)
            count = 0
            for record in reader.checked():
                money.feed(record)
                count += 1
            summary = money.finish()
        except VerifyFailed as e:
            raise VerifyFailed(f"ledger {reader.path}: {e}") from e
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
    return (f"ledger intact: {span}, chain and seals good{anchored}; {summary.text()} "
            f"({reader.path})")
