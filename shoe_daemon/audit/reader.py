"""The daemon's ledger as an audit reads it: read-only, and its failures as the audit's.

Every audit command (export, verify, prune) and `shoe-daemon status` read the ledger
through `LedgerReader`; what they find wrong is `VerifyFailed` (not intact, exit 1), what
keeps them from looking at all is `AuditError` (exit 2).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

from shoe_daemon.audit.ledger import Ledger, LedgerError, Record


class AuditError(Exception):
    """The audit cannot be done (no key, no ledger, bad arguments): exit 2."""


class VerifyFailed(AuditError):
    """The export or ledger is not intact; the message names the first bad record: exit 1."""


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
            self.db = sqlite3.connect(f"{self.path.absolute().as_uri()}?mode=ro", uri=True,
                                      isolation_level=None, check_same_thread=False)
            self.db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as e:
            raise AuditError(f"{self.path}: {e}") from e

    def made(self) -> bool:
        """Whether the ledger's records table is there: the daemon's first start makes the
        file a moment before its tables (`Ledger.__init__`)."""
        return self.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' "
                               "AND name = 'records'").fetchone() is not None

    def checked(self, last: int | None = None) -> Iterator[Record]:
        """`Ledger.checked`, its failures as VerifyFailed (an audit's "not intact", exit 1)."""
        try:
            yield from super().checked(last)
        except LedgerError as e:
            raise VerifyFailed(str(e)) from e

    def last_index(self) -> int:
        return self.db.execute("SELECT COALESCE(MAX(idx), 0) FROM records").fetchone()[0]
