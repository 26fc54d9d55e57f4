"""The ledger seen as the link's outbox: committed records after an index, read-only.

Its own SQLite connection, opened read-only, so the link can never write the ledger nor
hold its write lock; WAL mode lets it read while the table commits. It depends only on the
record's fields, not on the audit package's readers.

It follows the ledger's path (audit/follow.py): a ledger put back after its file was deleted
is read on from where it was. A file at the path that does not hold the last record the
outbox gave out is not this ledger (it was replaced: the table refuses to write meanwhile,
docs/audit.md): the outbox gives out nothing more of it (`foreign` says why), so the link
never signs another file's records as the table's.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from shoe_daemon.audit.follow import LedgerFollower
from shoe_daemon.audit.ledger import Record, canonical

_FIELDS = "idx, wall_ns, mono_ns, boot, kind, body, prev, hash, mac"


class Outbox:
    def __init__(self, state_dir: Path):
        self._follow = LedgerFollower(state_dir)
        self.path = self._follow.path
        self.foreign: str | None = None  # why the file at the path is not this ledger
        self._seen: tuple[int, str] | None = None  # the last record given out
        self._moves = 0
        self._bounds = (0, 0)

    def _conn(self) -> sqlite3.Connection | None:
        """The connection, opened once the table has made its ledger; None while the file at
        the path is not this ledger."""
        db = self._follow.conn()
        if db is not None and self._follow.reopened != self._moves:
            self._moves = self._follow.reopened
            seen = self._seen
            if seen is not None and self._hash_in(db, seen[0]) != seen[1]:
                self.foreign = (f"{self.path} no longer holds record {seen[0]} as it was "
                                "sent: another file took the ledger's place")
        return None if self.foreign else db

    def close(self) -> None:
        self._follow.close()

    def after(self, start: int, limit: int) -> list[Record]:
        """Up to `limit` committed records from index `start` on, in order."""
        db = self._conn()
        if db is None:
            return []
        rows = db.execute(f"SELECT {_FIELDS} FROM records WHERE idx >= ? ORDER BY idx LIMIT ?",
                          (start, limit)).fetchall()
        records = [Record(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), r[6], r[7], r[8])
                   for r in rows]
        if records:
            self._seen = (records[-1].idx, records[-1].hash)
            first, last = self._bounds
            self._bounds = (first or records[0].idx, max(last, records[-1].idx))
        return records

    def bounds(self) -> tuple[int, int]:
        """The first and last index the ledger holds ((0, 0) when it holds none); while the
        path holds another file, the last bounds this ledger had."""
        db = self._conn()
        if db is None:
            return self._bounds if self.foreign else (0, 0)
        first, last = db.execute("SELECT MIN(idx), MAX(idx) FROM records").fetchone()
        self._bounds = (first or 0), (last or 0)
        return self._bounds

    def hash_of(self, idx: int) -> str | None:
        db = self._conn()
        return None if db is None else self._hash_in(db, idx)

    @staticmethod
    def _hash_in(db: sqlite3.Connection, idx: int) -> str | None:
        row = db.execute("SELECT hash FROM records WHERE idx = ?", (idx,)).fetchone()
        return row[0] if row else None


def message(record: Record) -> bytes:
    """A record on the wire: every field, so the collector can check the chain link."""
    return canonical(record.as_dict()).encode()


def pack(records: list[Record], limit: int) -> tuple[list[Record], bytes]:
    """One MQTT message: the longest prefix of `records` (one at least) whose payload fits
    `limit` bytes, and that payload. One record goes as its JSON object, as a table without
    a backlog always sends; several consecutive ones (a backlog) as a JSON array of them in
    index order, so the pit pays one message's receive cost for all of them."""
    parts = [message(records[0])]
    size = len(parts[0]) + 2
    for record in records[1:]:
        text = message(record)
        if size + len(text) + 1 > limit:
            break
        parts.append(text)
        size += len(text) + 1
    if len(parts) == 1:
        return records[:1], parts[0]
    return records[:len(parts)], b"[" + b",".join(parts) + b"]"
