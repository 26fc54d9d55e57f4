"""Where the collector keeps the floor: PostgreSQL (psycopg 3), or SQLite for a one-machine
trial. One schema, the same SQL but for placeholders and a few types.

- `records`: every verified record, keyed by (table_id, idx), written with ON CONFLICT DO
  NOTHING so a record delivered twice is stored once. Only a record that links to the one
  before it is stored here, so `records` of a table is always an unbroken chain from its
  start to `tables.tip_idx`.
- `pending`: records that arrived ahead of a gap, waiting for the records before them.
- `signatures`: the table's signature of every records message the collector accepted,
  with the record it names (index and hash) and the key id: what proves, at export, that a
  stored record is the table's whoever wrote the database since. A record is proven by the
  nearest signature at or after it and the chain between (shoe_daemon.audit.table_signatures).
  Kept whatever became of the message's records (stored, waiting, or already stored: a
  duplicate or a resend), keyed by what it signs and the key, so a copy is kept once.
- `alarms`: what the chain check refused, named (shoe_floor.chain), with the message.
- `tables`: each table's verified tip, and its last retained state and online word.
- `collectors`: each collector's clear time, for the others of its group (shoe_floor.group).

Times are Unix nanoseconds (BIGINT), as in the table's ledger. A batch is one transaction;
the collector acknowledges its MQTT messages only after it commits. A batch's writes go in
a few statements whatever the number of tables in it (a backlog drains at tens of thousands
of records a second): the tables' tips locked in one, their pending records read in one,
the verified records copied in one (PostgreSQL: COPY into a staging table, then one INSERT
... ON CONFLICT DO NOTHING), the tips moved in one.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from shoe_daemon.audit.ledger import Record, canonical
from shoe_daemon.audit.table_signatures import RecordSignature
from shoe_floor.chain import Tip
from shoe_floor.group import Member

_COLUMNS = "table_id, idx, wall_ns, mono_ns, boot, kind, body, prev, hash, mac, received_at"
_RECORD = """(
    table_id TEXT NOT NULL, idx BIGINT NOT NULL, wall_ns BIGINT NOT NULL,
    mono_ns BIGINT NOT NULL, boot TEXT NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL,
    prev TEXT NOT NULL, hash TEXT NOT NULL, mac TEXT NOT NULL, received_at BIGINT NOT NULL,
    PRIMARY KEY (table_id, idx%s))"""
_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS records " + _RECORD % "",
    "CREATE TABLE IF NOT EXISTS pending " + _RECORD % ", hash",
    """CREATE TABLE IF NOT EXISTS tables (
    table_id TEXT PRIMARY KEY, tip_idx BIGINT NOT NULL DEFAULT 0, tip_hash TEXT,
    state %(blob)s, state_at BIGINT, online TEXT, online_at BIGINT)""",
    """CREATE TABLE IF NOT EXISTS alarms (
    id %(serial)s, table_id TEXT NOT NULL, idx BIGINT, kind TEXT NOT NULL,
    detail TEXT NOT NULL, payload TEXT, raised_at BIGINT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS collectors (
    client_id TEXT PRIMARY KEY, group_name TEXT NOT NULL, written_at BIGINT NOT NULL,
    clear_at BIGINT NOT NULL)""",
    # Added after the others: a store made before it gains it when the collector starts
    # (docs/floor.md, "The store"); the records it holds from before are proven once their
    # table's next signed message is stored.
    """CREATE TABLE IF NOT EXISTS signatures (
    table_id TEXT NOT NULL, idx BIGINT NOT NULL, hash TEXT NOT NULL, key_id TEXT NOT NULL,
    signature TEXT NOT NULL, received_at BIGINT NOT NULL,
    PRIMARY KEY (table_id, idx, hash, key_id))""",
]
_SIGNATURE_COLUMNS = "table_id, idx, hash, key_id, signature, received_at"
_SQLITE = {"blob": "BLOB", "serial": "INTEGER PRIMARY KEY AUTOINCREMENT"}
_POSTGRES = {"blob": "BYTEA", "serial": "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"}


def _row(table: str, r: Record, now: int) -> tuple[Any, ...]:
    return (table, r.idx, r.wall_ns, r.mono_ns, r.boot, r.kind, canonical(r.body), r.prev,
            r.hash, r.mac, now)


def _record(row: tuple[Any, ...]) -> Record:
    return Record(row[0], row[1], row[2], row[3], row[4], json.loads(row[5]), row[6], row[7],
                  row[8])


#: The advisory lock held while the schema is made (any constant the pit's database shares).
SCHEMA_LOCK = 0x5F100D


class Store:
    """One connection, one writer; `batch()` is one transaction. Readers (the page, the
    export) open it with `create=False`: only the collector makes the schema."""

    def __init__(self, database: str, create: bool = True):
        self.database = database
        self.postgres = database.startswith(("postgresql://", "postgres://"))
        if self.postgres:
            import psycopg  # only the PostgreSQL store needs it: the `floor` extra

            self.db: Any = psycopg.connect(database, autocommit=True)
            self.p = "%s"
            ddl = _POSTGRES
        else:
            Path(database).parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(database, isolation_level=None, timeout=30.0,
                                      check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.p = "?"
            ddl = _SQLITE
        if not create:
            return
        with self.batch():
            if self.postgres:  # collectors starting together on a new database: one makes
                # the schema, the others wait (CREATE ... IF NOT EXISTS races in PostgreSQL)
                self.db.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            for statement in _SCHEMA:
                self.db.execute(statement % ddl)
        if self.postgres:  # where a batch's records are copied before their one INSERT
            self.db.execute("CREATE TEMP TABLE staging (LIKE records) ON COMMIT DELETE ROWS")

    def close(self) -> None:
        self.db.close()

    def q(self, sql: str) -> str:
        return sql.replace("?", self.p)

    @contextlib.contextmanager
    def batch(self) -> Iterator[Store]:
        if self.postgres:
            with self.db.transaction():
                yield self
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def _all(self, sql: str, args: Iterable[Any] = ()) -> list[tuple[Any, ...]]:
        return list(self.db.execute(self.q(sql), tuple(args)).fetchall())

    def _many(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        if not rows:
            return
        if self.postgres:
            with self.db.cursor() as cur:
                cur.executemany(self.q(sql), rows)
        else:
            self.db.executemany(sql, rows)

    # Inside a batch.

    def lock_tips(self, tables: list[str]) -> dict[str, Tip | None]:
        """The tables' verified tips (None: not yet anchored), locked for this transaction in
        name order, so collectors sharing a PostgreSQL database never wait in a circle."""
        tables = sorted(tables)
        if self.postgres:
            self.db.execute("INSERT INTO tables (table_id) SELECT unnest(%s::text[]) "
                            "ON CONFLICT DO NOTHING", (tables,))
            rows = self._all("SELECT table_id, tip_idx, tip_hash FROM tables WHERE table_id = "
                             "ANY(?) ORDER BY table_id FOR UPDATE", (tables,))
        else:  # the whole file is this transaction's (BEGIN IMMEDIATE)
            self.db.executemany("INSERT INTO tables (table_id) VALUES (?) ON CONFLICT DO NOTHING",
                                [(t,) for t in tables])
            rows = self._all("SELECT table_id, tip_idx, tip_hash FROM tables WHERE table_id IN "
                             "(SELECT value FROM json_each(?))", (json.dumps(tables),))
        return {table: None if digest is None else Tip(idx, digest)
                for table, idx, digest in rows}

    def set_tips(self, tips: dict[str, Tip]) -> None:
        if not tips:
            return
        if self.postgres:
            names = sorted(tips)
            self.db.execute(
                "UPDATE tables t SET tip_idx = v.idx, tip_hash = v.hash FROM (SELECT "
                "unnest(%s::text[]) AS id, unnest(%s::bigint[]) AS idx, unnest(%s::text[]) AS "
                "hash) v WHERE t.table_id = v.id",
                (names, [tips[n].idx for n in names], [tips[n].hash for n in names]))
        else:
            self.db.executemany("UPDATE tables SET tip_idx = ?, tip_hash = ? WHERE table_id = ?",
                                [(tip.idx, tip.hash, table) for table, tip in tips.items()])

    def hashes(self, table: str, low: int, high: int) -> dict[int, str]:
        rows = self._all("SELECT idx, hash FROM records WHERE table_id = ? AND idx BETWEEN ? "
                         "AND ?", (table, low, high))
        return {idx: digest for idx, digest in rows}

    def pending(self, tables: list[str]) -> dict[str, list[Record]]:
        """The records waiting behind a gap, of each of `tables`, in index order."""
        if not tables:
            return {}
        where, names = (("= ANY(?)", tables) if self.postgres else
                        ("IN (SELECT value FROM json_each(?))", json.dumps(tables)))
        rows = self._all("SELECT table_id, idx, wall_ns, mono_ns, boot, kind, body, prev, hash, "
                         f"mac FROM pending WHERE table_id {where} ORDER BY table_id, idx",
                         (names,))
        out: dict[str, list[Record]] = {}
        for row in rows:
            out.setdefault(row[0], []).append(_record(row[1:]))
        return out

    def add_pending(self, table: str, records: list[Record], now: int) -> None:
        self._many(f"INSERT INTO pending ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?) "
                   "ON CONFLICT DO NOTHING", [_row(table, r, now) for r in records])

    def drop_pending(self, table: str, through: int, refused: list[Record]) -> None:
        """Forget pending records up to `through` (now verified) and the refused ones."""
        self.db.execute(self.q("DELETE FROM pending WHERE table_id = ? AND idx <= ?"),
                        (table, through))
        self._many("DELETE FROM pending WHERE table_id = ? AND idx = ? AND hash = ?",
                   [(table, r.idx, r.hash) for r in refused])

    def add_records(self, records: list[tuple[str, Record]], now: int) -> None:
        """Verified records of any tables, (table, record) each; one already stored is kept."""
        if not records:
            return
        rows = [_row(table, r, now) for table, r in records]
        if not self.postgres:
            self._many(f"INSERT INTO records ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?) "
                       "ON CONFLICT DO NOTHING", rows)
            return
        with self.db.cursor() as cur:
            with cur.copy(f"COPY staging ({_COLUMNS}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            cur.execute(f"INSERT INTO records ({_COLUMNS}) SELECT {_COLUMNS} FROM staging "
                        "ON CONFLICT DO NOTHING")  # emptied at commit; a second call in one
                                                   # batch would find its rows stored

    def add_signatures(self, signed: list[tuple[str, RecordSignature]], now: int) -> None:
        """The tables' signatures of the messages accepted, (table, signature) each, in one
        statement; one kept already is kept once."""
        if not signed:
            return
        rows = [(table, s.idx, s.hash, s.key_id, s.signature.hex(), now) for table, s in signed]
        if not self.postgres:
            self._many(f"INSERT INTO signatures ({_SIGNATURE_COLUMNS}) VALUES (?,?,?,?,?,?) "
                       "ON CONFLICT DO NOTHING", rows)
            return
        self.db.execute(
            f"INSERT INTO signatures ({_SIGNATURE_COLUMNS}) SELECT * FROM unnest(%s::text[], "
            "%s::bigint[], %s::text[], %s::text[], %s::text[], %s::bigint[]) "
            "ON CONFLICT DO NOTHING", [list(column) for column in zip(*rows, strict=True)])

    def alarm(self, table: str, idx: int | None, kind: str, detail: str, payload: str,
              now: int) -> None:
        self.db.execute(self.q("INSERT INTO alarms (table_id, idx, kind, detail, payload, "
                               "raised_at) VALUES (?,?,?,?,?,?)"),
                        (table, idx, kind, detail, payload, now))

    def set_member(self, client_id: str, group: str, now: int, clear: int) -> None:
        """This collector's clear time, for the others of its group."""
        self.db.execute(self.q(
            "INSERT INTO collectors (client_id, group_name, written_at, clear_at) VALUES "
            "(?,?,?,?) ON CONFLICT (client_id) DO UPDATE SET group_name = excluded.group_name, "
            "written_at = excluded.written_at, clear_at = excluded.clear_at"),
            (client_id, group, now, clear))

    def alarmed_since(self, table: str, idx: int, kind: str, since: int) -> bool:
        """Whether an alarm of this kind about this record was raised since `since` (by any
        collector: members of a group may each see the same gap)."""
        return bool(self._all("SELECT 1 FROM alarms WHERE table_id = ? AND idx = ? AND kind = ? "
                              "AND raised_at >= ? LIMIT 1", (table, idx, kind, since)))

    def set_state(self, table: str, state: bytes, now: int) -> None:
        """After `lock_tips` of the table in the same batch."""
        self.db.execute(self.q("UPDATE tables SET state = ?, state_at = ? WHERE table_id = ?"),
                        (state, now, table))

    def set_online(self, table: str, word: str, now: int) -> None:
        """After `lock_tips` of the table in the same batch."""
        self.db.execute(self.q("UPDATE tables SET online = ?, online_at = ? "
                               "WHERE table_id = ?"), (word, now, table))

    # Reading, for the collector's start, the page and the tests.

    def members(self, group: str, other_than: str) -> list[Member]:
        """The other collectors of a group, as each last wrote itself."""
        rows = self._all("SELECT client_id, written_at, clear_at FROM collectors WHERE "
                         "group_name = ? AND client_id <> ?", (group, other_than))
        return [Member(*row) for row in rows]

    def tips(self, tables: list[str]) -> dict[str, Tip | None]:
        """The tables' verified tips as committed now, in one query (None: not anchored; a
        table the store does not know is left out)."""
        if self.postgres:
            rows = self._all("SELECT table_id, tip_idx, tip_hash FROM tables WHERE table_id = "
                             "ANY(?)", (tables,))
        else:
            rows = self._all("SELECT table_id, tip_idx, tip_hash FROM tables WHERE table_id IN "
                             "(SELECT value FROM json_each(?))", (json.dumps(tables),))
        return {table: None if digest is None else Tip(idx, digest)
                for table, idx, digest in rows}

    def tip(self, table: str) -> Tip | None:
        """The table's verified tip as committed now (None: unknown or not anchored)."""
        rows = self._all("SELECT tip_idx, tip_hash FROM tables WHERE table_id = ?", (table,))
        return None if not rows or rows[0][1] is None else Tip(rows[0][0], rows[0][1])

    def gaps(self) -> dict[str, int]:
        """Tables with records waiting behind a gap: the index each waits for."""
        rows = self._all("SELECT t.table_id, t.tip_idx, t.tip_hash FROM tables t WHERE EXISTS "
                         "(SELECT 1 FROM pending p WHERE p.table_id = t.table_id)")
        return {table: (idx + 1 if digest is not None else 1) for table, idx, digest in rows}

    def records(self, table: str) -> list[Record]:
        rows = self._all("SELECT idx, wall_ns, mono_ns, boot, kind, body, prev, hash, mac "
                         "FROM records WHERE table_id = ? ORDER BY idx", (table,))
        return [_record(row) for row in rows]

    def alarms(self, table: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT table_id, idx, kind, detail, payload, raised_at FROM alarms"
        rows = self._all(sql + (" WHERE table_id = ?" if table else "") + " ORDER BY id",
                         (table,) if table else ())
        keys = ("table", "idx", "kind", "detail", "payload", "raised_at")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def tables(self) -> list[dict[str, Any]]:
        rows = self._all("SELECT table_id, tip_idx, tip_hash, state, online FROM tables "
                         "ORDER BY table_id")
        keys = ("table", "tip_idx", "tip_hash", "state", "online")
        return [dict(zip(keys, row, strict=True)) for row in rows]
