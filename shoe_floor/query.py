"""What the pit's page and the regulator's export read from the collector's store.

The collector writes the store (shoe_floor.store); these are its readers, on a connection of
their own, never writing. The same SQL runs on PostgreSQL and SQLite (`Store.q` swaps the
placeholders). `snapshot()` gives one consistent view of the store while the collector goes
on writing: a read transaction on SQLite (WAL), REPEATABLE READ, READ ONLY on PostgreSQL.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from shoe_daemon.audit.ledger import GENESIS, PRUNED, Record
from shoe_daemon.audit.table_signatures import RecordSignature
from shoe_floor.store import Store

_FIELDS = "idx, wall_ns, mono_ns, boot, kind, body, prev, hash, mac"
CHUNK = 5000  # records read per query when walking a table's chain


@dataclass(frozen=True)
class TableRow:
    """One table as the store has it: its verified tip, when the tip record was stored (the
    collector's clock), the records waiting behind a gap, and its last online word."""

    table: str
    tip: int
    tip_at: int | None
    head: int  # the highest index received: the tip, or the last record waiting behind a gap
    waiting: int  # records received ahead of a missing one
    online: str | None
    online_at: int | None


@dataclass(frozen=True)
class AlarmCount:
    kind: str
    count: int
    last_at: int
    last_idx: int | None


def rows(store: Store, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    return list(store.db.execute(store.q(sql), args).fetchall())


@contextlib.contextmanager
def snapshot(store: Store) -> Iterator[Store]:
    """One consistent, read-only view of the store for the duration of the block."""
    if store.postgres:
        with store.db.transaction():
            store.db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield store
        return
    store.db.execute("BEGIN")
    try:
        yield store
    finally:
        store.db.execute("COMMIT")


def _record(row: tuple[Any, ...]) -> Record:
    return Record(row[0], row[1], row[2], row[3], row[4], json.loads(row[5]), row[6], row[7],
                  row[8])


# For the page.

def tables(store: Store) -> list[TableRow]:
    """Every table the collector has heard of, with its tip and what waits behind a gap."""
    waiting = {t: (high, n) for t, high, n in rows(
        store, "SELECT table_id, MAX(idx), COUNT(*) FROM pending GROUP BY table_id")}
    found = []
    for table, tip, tip_at, online, online_at in rows(
            store, "SELECT t.table_id, t.tip_idx, r.received_at, t.online, t.online_at "
                   "FROM tables t LEFT JOIN records r "
                   "ON r.table_id = t.table_id AND r.idx = t.tip_idx ORDER BY t.table_id"):
        high, n = waiting.get(table, (0, 0))
        found.append(TableRow(table, tip, tip_at, max(tip, high), n, online, online_at))
    return found


def online_word(store: Store, table: str) -> str | None:
    """The table's newest checked online word (`online`, `offline`), None if none yet."""
    found = rows(store, "SELECT online FROM tables WHERE table_id = ?", (table,))
    return found[0][0] if found else None


def alarm_counts(store: Store, since_ns: int) -> dict[str, list[AlarmCount]]:
    """Each table's floor alarms raised since `since_ns`, by kind, with the latest of each."""
    found: dict[str, list[AlarmCount]] = {}
    latest = {(t, k): idx for t, k, idx in rows(
        store, "SELECT a.table_id, a.kind, a.idx FROM alarms a WHERE a.id = (SELECT MAX(b.id) "
               "FROM alarms b WHERE b.table_id = a.table_id AND b.kind = a.kind) "
               "AND a.raised_at >= ?", (since_ns,))}
    for table, kind, count, last_at in rows(
            store, "SELECT table_id, kind, COUNT(*), MAX(raised_at) FROM alarms "
                   "WHERE raised_at >= ? GROUP BY table_id, kind ORDER BY table_id, kind",
            (since_ns,)):
        found.setdefault(table, []).append(AlarmCount(kind, count, last_at,
                                                      latest.get((table, kind))))
    return found


def alarmed_lately(store: Store, table: str, kind: str, said: str, since_ns: int) -> bool:
    """Whether an alarm of this kind naming no record, its detail starting with `said`, was
    raised for the table since `since_ns`, by any collector of the group."""
    return bool(rows(store, "SELECT 1 FROM alarms WHERE table_id = ? AND kind = ? AND idx IS "
                            "NULL AND substr(detail, 1, ?) = ? AND raised_at >= ? LIMIT 1",
                     (table, kind, len(said), said, since_ns)))


def hold_raised(store: Store, table: str, code: str, shoe: int | None, coup: int | None,
                look_back: int = 500) -> int | None:
    """When the open hold was raised: the wall time of the table's latest `irregularity`
    line with this code (and shoe and coup) that holds play, among its last results."""
    for (wall_ns, body) in rows(
            store, "SELECT wall_ns, body FROM records WHERE table_id = ? AND kind = 'result' "
                   "ORDER BY idx DESC LIMIT ?", (table, look_back)):
        line = json.loads(body).get("line") or {}
        if (line.get("event") == "irregularity" and line.get("code") == code
                and line.get("hold") and (shoe is None or line.get("shoe") == shoe)
                and (coup is None or line.get("coup") == coup)):
            return int(wall_ns)
    return None


# For the export.

def table_ids(store: Store) -> list[str]:
    """Tables with at least one verified record."""
    return [t for (t,) in rows(store, "SELECT table_id FROM tables WHERE tip_hash IS NOT NULL "
                                      "ORDER BY table_id")]


def stored_span(store: Store, table: str) -> tuple[int, int] | None:
    """The first and last index of the table's verified chain in the store."""
    low, high = rows(store, "SELECT MIN(idx), MAX(idx) FROM records WHERE table_id = ?",
                     (table,))[0]
    return None if low is None else (low, high)


def time_span(store: Store, table: str, start_ns: int | None,
              end_ns: int | None) -> tuple[int, int] | None:
    """The contiguous index range of the table's records in [start_ns, end_ns), as the
    table's own export takes it: from the first record at or after the start to the last
    before the end, with every record in between."""
    first = rows(store, "SELECT MIN(idx) FROM records WHERE table_id = ? AND wall_ns >= ?",
                 (table, start_ns if start_ns is not None else -(2**63)))[0][0]
    last = rows(store, "SELECT MAX(idx) FROM records WHERE table_id = ? AND wall_ns < ?",
                (table, end_ns if end_ns is not None else 2**63 - 1))[0][0]
    if first is None or last is None or first > last:
        return None
    return first, last


def records(store: Store, table: str, low: int, high: int) -> Iterator[Record]:
    """The table's stored records from `low` to `high`, in order, a chunk per query."""
    while low <= high:
        top = min(high, low + CHUNK - 1)
        chunk = rows(store, f"SELECT {_FIELDS} FROM records WHERE table_id = ? AND idx "
                            "BETWEEN ? AND ? ORDER BY idx", (table, low, top))
        if not chunk:
            return
        for row in chunk:
            yield _record(row)
        low = chunk[-1][0] + 1


def chain_start(store: Store, table: str, first: int) -> str | None:
    """The hash before the table's first stored record: GENESIS for record 1, else what a
    stored `ledger.pruned` record vouches for (the table pruned before the floor saw it);
    None when nothing does."""
    if first == 1:
        return GENESIS
    for (body,) in rows(store, "SELECT body FROM records WHERE table_id = ? AND kind = ?",
                        (table, PRUNED)):
        said = json.loads(body)
        if said.get("first_idx") == first and isinstance(said.get("first_prev"), str):
            return str(said["first_prev"])
    return None


def alarms_in(store: Store, table: str, low: int, high: int, start_ns: int,
              end_ns: int) -> list[dict[str, Any]]:
    """The table's floor alarms about records `low`..`high`, and those naming no record
    (a malformed message) raised between `start_ns` and `end_ns`."""
    found = rows(store, "SELECT idx, kind, detail, raised_at FROM alarms WHERE table_id = ? "
                        "AND ((idx BETWEEN ? AND ?) OR (idx IS NULL AND raised_at BETWEEN ? "
                        "AND ?)) ORDER BY id", (table, low, high, start_ns, end_ns))
    return [{"idx": idx, "kind": kind, "detail": detail, "raised_at": raised_at}
            for idx, kind, detail, raised_at in found]


def keeps_signatures(store: Store) -> bool:
    """Whether the store has its `signatures` table (a store made before it gains it when an
    upgraded collector starts: readers never make the schema)."""
    if store.postgres:
        return rows(store, "SELECT to_regclass('signatures') IS NOT NULL")[0][0] is True
    return bool(rows(store, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                            "name = 'signatures'"))


def signatures(store: Store, table: str, low: int,
               high: int) -> list[tuple[RecordSignature, str | None]]:
    """The table's kept signatures over records `low`..`high`, in index (then key id) order,
    each with the hash of the record the store holds at that index (None: none)."""
    found = rows(store, "SELECT s.key_id, s.idx, s.hash, s.signature, r.hash FROM signatures s "
                        "LEFT JOIN records r ON r.table_id = s.table_id AND r.idx = s.idx "
                        "WHERE s.table_id = ? AND s.idx BETWEEN ? AND ? ORDER BY s.idx, s.key_id",
                 (table, low, high))
    return [(RecordSignature(kid, idx, digest, _bytes(sig)), held)
            for kid, idx, digest, sig, held in found]


def _bytes(text: str) -> bytes:
    """A kept signature's bytes; none (it verifies nothing) if it is not hex."""
    try:
        return bytes.fromhex(text)
    except (TypeError, ValueError):
        return b""


def waiting_from(store: Store, table: str) -> int | None:
    """The lowest index waiting behind a gap (records received that do not link yet)."""
    low = rows(store, "SELECT MIN(idx) FROM pending WHERE table_id = ?", (table,))[0][0]
    return None if low is None else int(low)
