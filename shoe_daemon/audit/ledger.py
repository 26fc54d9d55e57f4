"""The audit ledger: every event at the table, append-only, chained and sealed, in SQLite.

Why this shape (docs/audit.md has the whole argument):
- SQLite in WAL mode with `synchronous=FULL`: a committed record survives power loss.
- Triggers refuse UPDATE and DELETE, and an INSERT whose index is not the next one, so the
  index is gap-free and the table append-only even for a careless operator with `sqlite3`.
- Each record's `hash` is SHA-256 over the previous record's hash and the record's canonical
  encoding: a modified, deleted, inserted or reordered record breaks the chain after it.
- Each hash is sealed with HMAC-SHA256 under a key only the daemon can read: whoever edits
  the database file cannot rebuild a valid chain without the key. Exports are additionally
  signed with the table's Ed25519 key so a regulator needs no secret (shoe_daemon.audit.export).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from drivers.records import hello_boot_id, opens_shoe

T = TypeVar("T")
GENESIS = "0" * 64
SCHEMA_VERSION = 1
PRUNED = "ledger.pruned"  # the record `audit prune` leaves: where the retained chain starts

_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    idx     INTEGER PRIMARY KEY,
    wall_ns INTEGER NOT NULL,
    mono_ns INTEGER NOT NULL,
    boot    TEXT    NOT NULL,
    kind    TEXT    NOT NULL,
    body    TEXT    NOT NULL,
    prev    TEXT    NOT NULL,
    hash    TEXT    NOT NULL,
    mac     TEXT    NOT NULL
);
CREATE TRIGGER IF NOT EXISTS records_append_only_update BEFORE UPDATE ON records
BEGIN SELECT RAISE(ABORT, 'the audit ledger is append-only: UPDATE refused'); END;
%(no_delete)s;
CREATE TRIGGER IF NOT EXISTS records_gap_free BEFORE INSERT ON records
WHEN NEW.idx IS NOT (SELECT COALESCE(MAX(idx), 0) + 1 FROM records)
BEGIN SELECT RAISE(ABORT, 'the audit ledger index must be gap-free'); END;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_NO_DELETE = """CREATE TRIGGER IF NOT EXISTS records_append_only_delete BEFORE DELETE ON records
BEGIN SELECT RAISE(ABORT, 'the audit ledger is append-only: DELETE refused'); END"""
_SCHEMA = _SCHEMA % {"no_delete": _NO_DELETE}


class LedgerError(Exception):
    """The ledger cannot be written (disk full, read-only, I/O error) or read."""


class LedgerCorrupt(LedgerError):
    """Verification failed; `index` names the first bad record."""

    def __init__(self, index: int, why: str):
        super().__init__(f"record {index}: {why}")
        self.index = index
        self.why = why


def canonical(value: Any) -> str:
    """One byte-exact JSON text per value: sorted keys, no spaces, UTF-8 as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class Record:
    idx: int
    wall_ns: int
    mono_ns: int
    boot: str
    kind: str
    body: dict[str, Any]
    prev: str
    hash: str
    mac: str

    def content(self) -> str:
        return canonical({"idx": self.idx, "wall_ns": self.wall_ns, "mono_ns": self.mono_ns,
                          "boot": self.boot, "kind": self.kind, "body": self.body})

    def as_dict(self) -> dict[str, Any]:
        return {"idx": self.idx, "wall_ns": self.wall_ns, "mono_ns": self.mono_ns,
                "boot": self.boot, "kind": self.kind, "body": self.body, "prev": self.prev,
                "hash": self.hash, "mac": self.mac}


def chain_hash(prev: str, content: str) -> str:
    return hashlib.sha256(f"{prev}\n{content}".encode()).hexdigest()


def seal(key: bytes, digest: str) -> str:
    return hmac.new(key, digest.encode(), hashlib.sha256).hexdigest()


def check_record(record: Record, prev: str, key: bytes | None) -> str | None:
    """Why this record does not follow `prev` (None if it does)."""
    if record.prev != prev:
        return "its prev does not match the previous record's hash (deleted, inserted or reordered)"
    if chain_hash(prev, record.content()) != record.hash:
        return "its content does not match its hash (modified)"
    if key is not None and not hmac.compare_digest(seal(key, record.hash), record.mac):
        return "its seal does not match (rewritten without the ledger key)"
    return None


def load_key(path: Path) -> bytes:
    """The HMAC key, made on first use, readable by the daemon's user alone (0600)."""
    try:
        return bytes.fromhex(path.read_text().strip())
    except FileNotFoundError:
        pass
    key = secrets.token_bytes(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(key.hex() + "\n")
        f.flush()
        os.fsync(f.fileno())
    return key


@dataclass(frozen=True, slots=True)
class Start:
    """The retained chain's first index and the hash before it, and what the pruned records
    carried that the daemon needs to go on: shoes dealt, results published, the shoe's boot."""

    first_idx: int = 1
    first_prev: str = GENESIS
    pruned_at: int | None = None  # the ledger.pruned record that says so
    shoes: int = 0
    results: int = 0
    boot_id: str | None = None


class Ledger:
    """Append-only, chained, sealed records. `append_many` is one durable transaction."""

    def __init__(self, state_dir: Path, key: bytes | None = None):
        state_dir.mkdir(parents=True, exist_ok=True)
        self.path = state_dir / "ledger.sqlite3"
        self.key = key if key is not None else load_key(state_dir / "ledger.key")
        self.boot = uuid.uuid4().hex[:16]  # this process: monotonic times compare within it
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(_SCHEMA)
            self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)",
                            (str(SCHEMA_VERSION),))
        except sqlite3.Error as e:
            raise LedgerError(f"{self.path}: {e}") from e

    def close(self) -> None:
        self.db.close()

    def append(self, kind: str, body: dict[str, Any]) -> Record:
        return self.append_many([(kind, body)])[-1]

    def append_many(self, items: Iterable[tuple[str, dict[str, Any]]]) -> list[Record]:
        """Commit all or none; on failure the ledger is as before and LedgerError is raised."""
        items = list(items)
        if not items:
            return []
        return self._transaction(lambda: self._insert(items))

    def remove_before(self, first: int, note: dict[str, Any]) -> Record:
        """Delete records before `first` and append the `ledger.pruned` record saying so, in
        one transaction. Only `audit prune` calls this, after checking exports cover them."""

        def prune() -> Record:
            start = self.start()
            if not start.first_idx < first <= self._tail()[0]:
                raise LedgerError(f"cannot prune before {first}: the ledger holds records "
                                  f"{start.first_idx}..{self._tail()[0]}")
            shoes, results, boot = start.shoes, start.results, start.boot_id
            for record in self.records(start.first_idx, ("frame", "result")):
                if record.idx >= first:
                    break
                if record.kind == "result":
                    results += 1
                elif opens_shoe(record.body):
                    shoes += 1
                else:
                    boot = hello_boot_id(record.body) or boot
            prev = self.db.execute("SELECT hash FROM records WHERE idx = ?",
                                   (first - 1,)).fetchone()[0]
            self.db.execute("DROP TRIGGER records_append_only_delete")
            self.db.execute("DELETE FROM records WHERE idx < ?", (first,))
            self.db.execute(_NO_DELETE)
            body = {"first_idx": first, "first_prev": prev,
                    "removed": [start.first_idx, first - 1],
                    "carry": {"shoes": shoes, "results": results, "boot_id": boot}, **note}
            return self._insert([(PRUNED, body)])[0]

        return self._transaction(prune)

    def _transaction(self, work: Callable[[], T]) -> T:
        try:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                done = work()
                self.db.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
                raise
        except sqlite3.Error as e:
            raise LedgerError(f"{self.path}: {e}") from e
        return done

    def _tail(self) -> tuple[int, str]:
        row = self.db.execute("SELECT idx, hash FROM records ORDER BY idx DESC LIMIT 1")
        tail = row.fetchone()
        return (tail[0], tail[1]) if tail else (0, GENESIS)

    def _insert(self, items: list[tuple[str, dict[str, Any]]]) -> list[Record]:
        """Chain and insert, inside a write transaction. The tail is read here, not cached:
        `audit prune` appends its record from another process."""
        idx, prev = self._tail()
        records: list[Record] = []
        wall, mono = time.time_ns(), time.monotonic_ns()
        for kind, body in items:
            idx += 1
            partial = Record(idx, wall, mono, self.boot, kind, body, prev, "", "")
            digest = chain_hash(prev, partial.content())
            records.append(Record(idx, wall, mono, self.boot, kind, body, prev, digest,
                                  seal(self.key, digest)))
            prev = digest
        self.db.executemany(
            "INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?)",
            [(r.idx, r.wall_ns, r.mono_ns, r.boot, r.kind, canonical(r.body), r.prev,
              r.hash, r.mac) for r in records],
        )
        return records

    def records(self, start: int = 1, kinds: tuple[str, ...] | None = None) -> Iterator[Record]:
        sql = "SELECT * FROM records WHERE idx >= ?"
        args: list[Any] = [start]
        if kinds:
            sql += f" AND kind IN ({','.join('?' * len(kinds))})"
            args += kinds
        for row in self.db.execute(sql + " ORDER BY idx", args):
            yield Record(row[0], row[1], row[2], row[3], row[4], json.loads(row[5]), row[6],
                         row[7], row[8])

    def start(self) -> Start:
        """Where the retained chain begins: record 1, or as the latest `ledger.pruned` says."""
        row = self.db.execute("SELECT idx, body FROM records WHERE kind = ? "
                              "ORDER BY idx DESC LIMIT 1", (PRUNED,)).fetchone()
        if row is None:
            return Start()
        body = json.loads(row[1])
        carry = body.get("carry", {})
        return Start(body["first_idx"], body["first_prev"], row[0], carry.get("shoes", 0),
                     carry.get("results", 0), carry.get("boot_id"))

    def verify(self) -> int:
        """Check the retained chain and every seal; the number of records, or LedgerCorrupt."""
        start = self.start()
        first = self.db.execute("SELECT MIN(idx) FROM records").fetchone()[0]
        if first is not None and first != start.first_idx:
            raise LedgerCorrupt(start.first_idx, _start_mismatch(first, start))
        return verify_records(self.records(), self.key, start.first_prev, start.first_idx)


def _start_mismatch(first: int, start: Start) -> str:
    said = (f"the ledger.pruned record {start.pruned_at} says it starts at {start.first_idx}"
            if start.pruned_at else "no ledger.pruned record says any were removed")
    return f"missing: the ledger starts at record {first} but {said} (deleted)"


def verify_records(records: Iterable[Record], key: bytes | None, prev: str = GENESIS,
                   first: int = 1) -> int:
    expected = first
    count = 0
    for record in records:
        if record.idx != expected:
            raise LedgerCorrupt(expected, f"missing (found index {record.idx} next)")
        why = check_record(record, prev, key)
        if why:
            raise LedgerCorrupt(record.idx, why)
        prev, expected, count = record.hash, expected + 1, count + 1
    return count
