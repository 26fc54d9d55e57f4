"""A table's directory name, wherever the floor files something per table (the export's
subdirectories, the lodged table keys): one directory per table, and never one for two,
whatever file system it is copied to (a regulator may open an export on a file system that
ignores case, or on Windows).

A name that is a portable file name as it is (lowercase letters, digits, `.` and `-`, at most
64, not a name Windows reserves) is its own directory. Any other name (a topic segment may
hold anything but / + #) goes under `_<its letters>-<digest>`: a leading `_`, which no name
of the first kind has, so the two kinds never meet; then what of the name is readable,
lowercased; then the first 16 hex digits of SHA-256 over the name, which tells apart the
names whose readable part is the same (`T1` and `t1` and `T 1` are three directories).

Before issue 19 a name of the second kind went under `table-<digest>`, which a table may be
called too, and `T1` under `T1`: `legacy_directory_for` gives that old name, so that a pit
deployed before can say which directory to move (shoe_floor.table_keys), never silently
read another table's.
"""

from __future__ import annotations

import hashlib
import re

_SAFE = re.compile(r"^[a-z0-9](?:[a-z0-9.-]{0,62}[a-z0-9])?$")
_RESERVED = re.compile(r"^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$")
_LEGACY_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
READABLE = 24  # characters of the name kept in the directory of an unsafe name, at most


def _digest(table: str) -> str:
    return hashlib.sha256(table.encode()).hexdigest()[:16]


def directory_for(table: str) -> str:
    if _SAFE.match(table) and not _RESERVED.match(table):
        return table
    readable = re.sub(r"[^a-z0-9]+", "-", table.lower()).strip("-")[:READABLE].strip("-")
    return f"_{readable}-{_digest(table)}" if readable else f"_{_digest(table)}"


def legacy_directory_for(table: str) -> str:
    """The directory shoe-floor gave the table before issue 19 (the same as now for most)."""
    if _LEGACY_SAFE.match(table):
        return table
    return "table-" + _digest(table)
