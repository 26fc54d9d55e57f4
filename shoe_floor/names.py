"""A table's directory name, wherever the floor files something per table (the export's
subdirectories, the lodged table keys): its name, or a digest of it where the name is not a
safe file name (a topic segment may hold anything but / + #)."""

from __future__ import annotations

import hashlib
import re

_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def directory_for(table: str) -> str:
    if _SAFE.match(table):
        return table
    return "table-" + hashlib.sha256(table.encode()).hexdigest()[:16]
