"""The link's durable cursor: the highest ledger record the broker has acknowledged.

Written with fsync (file, then directory) through a rename, so after a power loss the
cursor is the old value or the new one, never a torn one; an old value only means records
are sent again, which the collector drops. The record's hash is kept beside its index so a
cursor that belongs to another ledger (a state directory wiped and begun anew) is noticed
and not trusted: trusting it would skip the new ledger's first records.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from shoe_daemon.floor.outbox import Outbox

CURSOR = Path("floor") / "acked"


@dataclass(frozen=True)
class Cursor:
    idx: int = 0
    hash: str = ""


def cursor_path(state_dir: Path) -> Path:
    return state_dir / CURSOR


def read_cursor(state_dir: Path) -> Cursor:
    try:
        data = json.loads(cursor_path(state_dir).read_text())
        return Cursor(int(data["idx"]), str(data["hash"]))
    except FileNotFoundError:
        return Cursor()
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{cursor_path(state_dir)}: not a floor cursor ({e})") from e


def write_cursor(state_dir: Path, cursor: Cursor) -> None:
    write_durably(cursor_path(state_dir), json.dumps({"idx": cursor.idx, "hash": cursor.hash}))


def write_durably(path: Path, text: str) -> None:
    """One line of the link's state: the old text or the new after a power loss, never a
    torn one (fsync of the file, a rename, fsync of the directory)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w") as f:
        f.write(text + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def belongs(cursor: Cursor, outbox: Outbox) -> bool:
    """Whether `cursor` was written for this ledger: its record holds its hash, or was pruned
    after it was sent. A cursor of another ledger is not trusted: it would skip records."""
    first, last = outbox.bounds()
    if cursor.idx == 0 or first > cursor.idx:
        return True
    return cursor.idx <= last and outbox.hash_of(cursor.idx) == cursor.hash


def acked_index(state_dir: Path) -> int:
    """The highest record the floor's broker has acknowledged (0: none, or a cursor that is
    not this ledger's). `audit prune` keeps every record after it, so nothing leaves the
    table before it has reached the floor. ValueError if the cursor file is unreadable."""
    cursor = read_cursor(state_dir)
    outbox = Outbox(state_dir)
    try:
        return cursor.idx if belongs(cursor, outbox) else 0
    finally:
        outbox.close()


def backlog(state_dir: Path) -> int:
    """Committed records the broker has not acknowledged, read from the files alone (for
    `shoe-daemon status`, which must not disturb the daemon)."""
    outbox = Outbox(state_dir)
    try:
        first, last = outbox.bounds()
    finally:
        outbox.close()
    return max(0, last - max(acked_index(state_dir), first - 1))
