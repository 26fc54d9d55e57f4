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
- The file is watched: one stat after each commit. SQLite goes on writing to a file deleted
  under it, and everything would be gone at the next start; so a ledger whose file was
  deleted is copied back to its path from the open connection (which still holds every
  record), checked, reopened, and says so in a record of its own (`ledger.put_back`), before
  the commit that found it returns. A file replaced by another is never overwritten: the
  daemon's own ledger is kept beside it and every write is refused until an operator acts.
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
from shoe_daemon.audit.keys import fsync_path

T = TypeVar("T")
GENESIS = "0" * 64
SCHEMA_VERSION = 1
PRUNED = "ledger.pruned"  # the record `audit prune` leaves: where the retained chain starts
PUT_BACK = "ledger.put_back"  # the record a ledger whose file was deleted leaves, put back
LOST = "ledger.lost"  # the first record of a ledger begun after the table's last was lost
FileId = tuple[int, int]  # (st_dev, st_ino): which file a path names

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


def load_key(path: Path) -> bytes:
    """The HMAC key, made on first use, readable by the daemon's user alone (0600)."""
    try:
        return bytes.fromhex(path.read_text().strip())
    except FileNotFoundError:
        return new_key_file(path)


def new_key_file(path: Path) -> bytes:
    """A new random 32-byte key in hex at `path`, made only if no file is there (O_EXCL),
    readable by its owner alone (0600), on disk before it is used."""
    key = secrets.token_bytes(32)
    _write_key(path, key)
    return key


def _write_key(path: Path, key: bytes) -> None:
    """`key` in hex at `path`, only if no file is there (O_EXCL), 0600, on disk."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(key.hex() + "\n")
        f.flush()
        os.fsync(f.fileno())


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


def file_id(path: Path) -> FileId | None:
    """Which file `path` names now (None: none). While a connection holds its file open the
    file cannot be freed, so its (device, inode) cannot name another file meanwhile."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino


class Ledger:
    """Append-only, chained, sealed records. `append_many` is one durable transaction.

    `lost` says why every write is refused, while the ledger's file is not at its path (it
    was replaced, or it could not be put back); None while all is well. `log` (the daemon's)
    is told when the file was put back, replaced or lost.
    """

    _file: FileId | None = None  # the file this connection has open (None: not watched)
    lost: str | None = None

    def __init__(self, state_dir: Path, key: bytes | None = None, log: Any = None):
        state_dir.mkdir(parents=True, exist_ok=True)
        self.log = log
        self.path = state_dir / "ledger.sqlite3"
        self.key_path = state_dir / "ledger.key"
        self.key = key if key is not None else load_key(self.key_path)
        self.boot = uuid.uuid4().hex[:16]  # this process: monotonic times compare within it
        self.db = self._open()
        self._file = file_id(self.path)

    def _open(self) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.executescript(_SCHEMA)
            db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        except sqlite3.Error as e:
            raise LedgerError(f"{self.path}: {e}") from e
        return db

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
        """`work` in one write transaction, the file in its place before and after."""
        if self.lost is not None:
            self._keep_file()  # tried again at each write until it is in place
            if self.lost is not None:
                raise LedgerError(self.lost)
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
        self._keep_file()
        return done

    # ---- the file under the ledger --------------------------------------------------------

    def _keep_file(self) -> None:
        """One stat: the file this connection writes must be the one at the path. Deleted, it
        is put back from this connection before anyone is told the records are kept; replaced,
        it is left alone, the ledger kept beside it, and writes refused (`lost`)."""
        if self._file is None:
            return
        now = file_id(self.path)
        if now == self._file:
            self.lost = None
            return
        said = self.lost
        try:
            if now is None:
                self._put_back()
                self.lost = None
                self._say("warning", "ledger.put_back", path=str(self.path))
            elif self.lost is None:
                kept = self._keep_beside()
                self.lost = (f"{self.path} was replaced by another file while the daemon ran: "
                             f"it is left as it is, the daemon's own ledger is kept in {kept}; "
                             "stop the daemon and put the right ledger in place")
        except (OSError, sqlite3.Error, LedgerError) as e:
            self.lost = f"{self.path} was deleted while the daemon ran and cannot be put back: {e}"
        if self.lost is not None and self.lost != said:
            self._say("error", "ledger.lost", error=self.lost)

    def _say(self, level: str, event: str, **fields: Any) -> None:
        if self.log is not None:
            getattr(self.log, level)(event, **fields)

    def _put_back(self) -> None:
        """The open ledger (every record is still in it) copied to a new file beside the path,
        checked, then linked at the path; the connection moves to it, and a `ledger.put_back`
        record says what happened. The deleted file's `-wal` and `-shm` names are cleared
        first: SQLite would take a leftover `-wal` for the new file's (a corrupt ledger)."""
        count, tail = self._tail_count(self.db)
        copy = self._copy_beside(f".{self.path.name}.put-back")
        if file_id(self.path) is not None:
            copy.unlink()
            raise LedgerError(f"a file appeared at {self.path} while the ledger was put back")
        for leftover in ("-wal", "-shm"):
            Path(f"{self.path}{leftover}").unlink(missing_ok=True)
        os.link(copy, self.path)  # never over a file: FileExistsError if one appeared
        copy.unlink()
        fsync_path(self.path.parent)
        old, gone = self.db, self._file
        self.db = self._open()
        self._file = file_id(self.path)
        old.close()  # SQLite checkpoints nothing into a moved file, nor deletes by its name
        if self._tail_count(self.db) != (count, tail):
            raise LedgerError(f"{self.path}: the ledger put back does not hold what it held")
        if not self.key_path.exists():  # deleted with it (`rm ledger.*`): the seals need it
            _write_key(self.key_path, self.key)
        record = {"records": count, "last": tail[0], "hash": tail[1],
                  "deleted": {"device": gone[0], "inode": gone[1]} if gone else None,
                  "detail": "the ledger's file was deleted while the daemon ran; it was put "
                            "back from the ledger the daemon held open, checked and reopened"}
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self._insert([(PUT_BACK, record)])
            self.db.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            raise

    def _keep_beside(self) -> Path:
        """The open ledger copied beside the file that replaced it, named by the time, out of
        the way of a `rm ledger.sqlite3*`."""
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        return self._copy_beside(f"ledger-kept-{stamp}.sqlite3")  # no `ledger.*` globs it

    def _copy_beside(self, name: str) -> Path:
        """The whole open ledger, copied page by page into `name` in the ledger's folder,
        on disk, and checked to hold exactly what the open one holds."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        copy = self.path.with_name(name)
        for stale in (copy, Path(f"{copy}-journal")):
            stale.unlink(missing_ok=True)
        target = sqlite3.connect(copy)
        try:
            self.db.backup(target)
            check = target.execute("PRAGMA quick_check").fetchone()[0]
            same = self._tail_count(target) == self._tail_count(self.db)
        finally:
            target.close()
        if check != "ok" or not same:
            copy.unlink(missing_ok=True)
            raise LedgerError(f"the copy of the ledger in {copy} does not check ({check})")
        fsync_path(copy)
        fsync_path(copy.parent)
        return copy

    @staticmethod
    def _tail_count(db: sqlite3.Connection) -> tuple[int, tuple[int, str]]:
        count = db.execute("SELECT COUNT(*) FROM records").fetchone()[0]
        row = db.execute("SELECT idx, hash FROM records ORDER BY idx DESC LIMIT 1").fetchone()
        return count, (row[0], row[1]) if row else (0, GENESIS)

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
        """Where the retained chain begins, and what the records it no longer holds carried
        on: record 1 and nothing, as the latest `ledger.pruned` says, or as the `ledger.lost`
        a ledger begun after the table's last one was lost starts with (what the lost one
        had published, from the results file)."""
        row = self.db.execute("SELECT idx, kind, body FROM records WHERE kind IN (?, ?) "
                              "ORDER BY idx DESC LIMIT 1", (PRUNED, LOST)).fetchone()
        if row is None:
            return Start()
        try:
            body = json.loads(row[2])
            carry = body.get("carry", {})
            shoes, results, boot = carry.get("shoes", 0), carry.get("results", 0), \
                carry.get("boot_id")
            if row[1] == LOST:
                return Start(shoes=shoes, results=results, boot_id=boot)
            return Start(body["first_idx"], body["first_prev"], row[0], shoes, results, boot)
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise LedgerCorrupt(row[0], f"unreadable ({e}): the latest {row[1]} record, which "
                                "says where the retained chain starts") from e

    def checked(self, last: int | None = None) -> Iterator[Record]:
        """The retained records up to `last` (all if None), each checked by `Chain` before it
        is yielded; LedgerCorrupt names the first bad one. The daemon's check at start, and
        every audit that reads the ledger, walk the ledger here."""
        try:
            chain = Chain(self.start(), self.key)
        except sqlite3.Error as e:
            raise LedgerError(f"{self.path}: cannot read the ledger ({e})") from e
        rows = self.records()
        while last is None or chain.expected <= last:
            try:
                record = next(rows)
            except StopIteration:
                return
            except (sqlite3.Error, ValueError, TypeError) as e:
                raise LedgerCorrupt(chain.expected, f"unreadable ({e})") from e
            chain.follow(record)
            yield record

    def verify(self) -> int:
        """Check the retained chain and every seal; the number of records, or LedgerCorrupt."""
        return sum(1 for _ in self.checked())


class Chain:
    """The one check of a chain of records: each record's index is the next, its `prev` the
    hash before it, its `hash` over that and its content, its `mac` the seal of its hash
    (when the key is known). The ledger's walk and the export's events.jsonl both use it."""

    def __init__(self, start: Start, key: bytes | None):
        self.start = start
        self.key = key
        self.expected = start.first_idx
        self.prev = start.first_prev

    def follow(self, record: Record) -> None:
        """Accept `record` as the next link, or raise LedgerCorrupt saying why not."""
        if record.idx < self.start.first_idx:
            raise LedgerCorrupt(record.idx, f"before record {self.start.first_idx}, where the "
                                            "retained ledger starts (inserted)")
        if record.idx != self.expected:
            raise LedgerCorrupt(self.expected, self._missing(record.idx))
        if record.prev != self.prev:
            raise LedgerCorrupt(record.idx, "its prev does not match the previous record's "
                                            "hash (deleted, inserted or reordered)")
        if chain_hash(self.prev, record.content()) != record.hash:
            raise LedgerCorrupt(record.idx, "its content does not match its hash (modified)")
        if self.key is not None and not hmac.compare_digest(seal(self.key, record.hash),
                                                            record.mac):
            raise LedgerCorrupt(record.idx, "its seal does not match (rewritten without the "
                                            "ledger key)")
        self.prev, self.expected = record.hash, self.expected + 1

    def _missing(self, found: int) -> str:
        if self.expected != self.start.first_idx:
            return f"missing (found index {found} next)"
        said = (f"the {PRUNED} record {self.start.pruned_at} says it starts at "
                f"{self.start.first_idx}" if self.start.pruned_at
                else f"no {PRUNED} record says any were removed")
        return f"missing: the ledger starts at record {found} but {said} (deleted)"
