"""The ledger seen as the link's outbox: committed records after an index, read-only.

Its own SQLite connection, opened read-only, so the link can never write the ledger nor
hold its write lock; WAL mode lets it read while the table commits. It depends only on the
record's fields, not on the audit package's readers.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from shoe_daemon.audit.ledger import Record, canonical

LEDGER = "ledger.sqlite3"
_FIELDS = "idx, wall_ns, mono_ns, boot, kind, body, prev, hash, mac"


class Outbox:
    def __init__(self, state_dir: Path):
        self.path = state_dir / LEDGER
        self._db: sqlite3.Connection | None = None

    def _conn(self) -> sqlite3.Connection | None:
        """The connection, opened once the table has made its ledger."""
        if self._db is None and self.path.exists():
            self._db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True,
                                       check_same_thread=False, timeout=5.0)
        return self._db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def after(self, start: int, limit: int) -> list[Record]:
        """Up to `limit` committed records from index `start` on, in order."""
        db = self._conn()
        if db is None:
            return []
        rows = db.execute(f"SELECT {_FIELDS} FROM records WHERE idx >= ? ORDER BY idx LIMIT ?",
                          (start, limit)).fetchall()
        return [Record(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), r[6], r[7], r[8])
                for r in rows]

    def bounds(self) -> tuple[int, int]:
        """The first and last index the ledger holds ((0, 0) when it holds none)."""
        db = self._conn()
        if db is None:
            return 0, 0
        first, last = db.execute("SELECT MIN(idx), MAX(idx) FROM records").fetchone()
        return (first or 0), (last or 0)

    def hash_of(self, idx: int) -> str | None:
        db = self._conn()
        if db is None:
            return None
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
