"""A read-only connection to the live ledger that follows its path.

The table's loop is the ledger's only writer; the floor link and the odds monitor read it
beside it, each through a connection of its own. A connection reads the file it opened, not
the path: after the ledger's file was deleted and put back (docs/audit.md, "The ledger's
file"), a reader that kept its connection would read the deleted file, where nothing is
committed any more, for ever. So each look at the ledger checks (one stat) which file the path
names now, and opens the ledger again when it names another one.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from shoe_daemon.audit.ledger import FileId, file_id

LEDGER = "ledger.sqlite3"


class LedgerFollower:
    """`conn()` is the connection to whatever ledger file the path names now (None before the
    table made it); `reopened` counts the times it moved to another file."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / LEDGER
        self.reopened = 0
        self._db: sqlite3.Connection | None = None
        self._file: FileId | None = None

    def conn(self) -> sqlite3.Connection | None:
        now = file_id(self.path)
        if self._db is not None and now is not None and now != self._file:
            self.close()  # the path names another file: the ledger put back (or replaced)
            self.reopened += 1
        if self._db is None and now is not None:
            self._db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True,
                                       check_same_thread=False, timeout=5.0)
            self._file = now  # if it moved meanwhile, the next look opens it again
        return self._db

    def close(self) -> None:
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None
