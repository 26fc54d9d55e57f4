"""The tables' public keys at the pit, as the casino lodged them: `[collector] table_keys`.

Layout: `DIR/<table>/*.pub.pem`, every key the table has had (its `keygen`, each
`rotate-key`), the same public keys the casino lodges with the regulator. `<table>` is the
table's broker username, or `_<name>-<digest>` where that is not a portable file name
(shoe_floor.names: one directory per table). `shoe-floor lodge-key TABLE FILE` checks a key
and files it as `<key id>.pub.pem`; any `*.pub.pem` put there by hand counts as well.

A pit deployed before issue 19 may hold a table's keys under the name it had then
(`table-<digest>`, which a table may also be called, or `T1` for `T1`). Nothing reads them
there: the table's messages are refused as `unknown-key` with the move to make in words,
`lodge-key` refuses that table until it is made, and the collector and the page say at start
which directories are of the old kind (`old_directories`).

The collector reads a table's directory when it first needs it, and again when a message
names a key id it does not hold and the directory changed (one stat a message; else at most
once a `recheck` seconds), and looks every `recheck` seconds whether it changed (a key
removed): lodging a key, or removing one that must no longer be trusted, needs no restart.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from shoe_daemon.audit import keys
from shoe_daemon.floor.topics import check_name
from shoe_floor.names import directory_for, legacy_directory_for

SUFFIX = ".pub.pem"


@dataclass
class _Lodged:
    keys: dict[str, Ed25519PublicKey] = field(default_factory=dict)
    mtime: int | None = None   # the directory's, when read (None: no directory)
    read_at: float = float("-inf")


def _mtime(path: Path) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def read_dir(directory: Path, warn: Callable[[str], None] | None = None
             ) -> dict[str, Ed25519PublicKey]:
    """The Ed25519 public keys of a table's directory, by key id; a file that is not one is
    said (`warn`) and left out."""
    found: dict[str, Ed25519PublicKey] = {}
    for path in sorted(directory.glob(f"*{SUFFIX}")):
        try:
            public = keys.load_public_pem(path.read_bytes(), str(path))
        except (OSError, keys.KeyProblem) as e:
            if warn is not None:
                warn(f"{path}: {e}")
            continue
        found[keys.key_id(public)] = public
    return found


class LodgedKeys:
    """Each table's lodged keys, read lazily and again when needed (rate-limited)."""

    def __init__(self, root: Path, recheck: float = 1.0,
                 warn: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.root = root
        self.recheck = recheck
        self.warn = warn
        self.clock = clock
        self._tables: dict[str, _Lodged] = {}
        self._owners: dict[str, str] = {}   # key id -> directory, over every table
        self._owners_at = float("-inf")

    def directory(self, table: str) -> Path:
        return self.root / directory_for(table)

    def legacy(self, table: str) -> Path | None:
        """The directory a pit deployed before issue 19 gave the table, when it is there
        and the table's own is not: its keys must be moved (`move_words`), never read there
        (it may be another table's: one named `table-<digest>`)."""
        return _legacy(self.root, table)

    def move_words(self, table: str) -> str:
        """What to do about the table's old directory, in words."""
        old, new = self.root / legacy_directory_for(table), self.directory(table)
        words = (f"its keys are in {old}, where shoe-floor before issue 19 filed table "
                 f"{table!r}; move them to where they are read now: mv {old} {new}")
        if old.name.startswith("table-") and old.name != table:
            words += f" (unless {old} is the directory of a table named {old.name!r})"
        return words

    def _read(self, table: str, now: float) -> _Lodged:
        directory = self.directory(table)
        mtime = _mtime(directory)
        entry = _Lodged(read_dir(directory, self.warn) if mtime is not None else {}, mtime, now)
        self._tables[table] = entry
        return entry

    def _fresh(self, table: str, wanted: str | None = None, force: bool = False) -> _Lodged:
        """The table's keys, read again when a key id is wanted that they lack and the
        directory changed (one stat), or when `recheck` seconds passed since the last
        reading; else looked at (one stat) every `recheck` seconds for keys removed."""
        now = self.clock()
        entry = self._tables.get(table)
        if entry is None or force:
            return self._read(table, now)
        due = now - entry.read_at >= self.recheck
        if wanted is not None and wanted not in entry.keys:
            if due or _mtime(self.directory(table)) != entry.mtime:
                return self._read(table, now)
            return entry
        if due:
            if _mtime(self.directory(table)) != entry.mtime:
                return self._read(table, now)
            entry.read_at = now  # looked: unchanged
        return entry

    def key(self, table: str, key_id: str, force: bool = False) -> Ed25519PublicKey | None:
        """The table's lodged key with this id, or None (`force`: read the directory now)."""
        return self._fresh(table, key_id, force).keys.get(key_id)

    def ids(self, table: str) -> list[str]:
        """The key ids lodged for the table (as last read)."""
        return sorted(self._fresh(table).keys)

    def owner(self, key_id: str) -> str | None:
        """The directory (a table's name) where this key id is lodged, over every table:
        for an alarm to say whose key signed a message. The whole tree is read at most once a
        `recheck` seconds."""
        now = self.clock()
        if key_id not in self._owners and now - self._owners_at >= self.recheck:
            self._owners = {}
            for directory in sorted(p for p in self.root.glob("*") if p.is_dir()):
                for kid in read_dir(directory):
                    self._owners.setdefault(kid, directory.name)
            self._owners_at = now
        return self._owners.get(key_id)


def _legacy(root: Path, table: str) -> Path | None:
    old, new = root / legacy_directory_for(table), root / directory_for(table)
    if old == new or new.is_dir() or not old.is_dir():
        return None
    return old


def old_directories(root: Path) -> list[Path]:
    """Directories under `root` that shoe-floor before issue 19 made and that no table's name
    gives now (a name with capitals, say): each must be moved (`LodgedKeys.move_words`).
    A `table-<digest>` directory cannot be told from a table of that name: the table's own
    messages say it (`LodgedKeys.legacy`)."""
    return [p for p in sorted(root.glob("*"))
            if p.is_dir() and not p.name.startswith((".", "_")) and directory_for(p.name) != p.name]


class LodgeRefused(Exception):
    """The key cannot be lodged for that table; the message says why."""


def lodge(root: Path, table: str, pem: bytes, where: str) -> tuple[str, Path, bool]:
    """File the public key `pem` (read from `where`) as one of `table`'s keys: its key id,
    the file, and whether it is new (False: that key was lodged for the table already).
    A key lodged for another table is refused: a key signs for one table only."""
    why = check_name(table)
    if why:
        raise LodgeRefused(f"table {table!r} {why}")
    try:
        public = keys.load_public_pem(pem, where)
    except keys.KeyProblem as e:
        raise LodgeRefused(str(e)) from e
    kid = keys.key_id(public)
    mine = directory_for(table)
    if _legacy(root, table) is not None:
        raise LodgeRefused(f"table {table!r}: {LodgedKeys(root).move_words(table)}; then lodge")
    owner = LodgedKeys(root, recheck=0.0).owner(kid)
    if owner is not None and owner != mine:
        raise LodgeRefused(f"key id {kid} is lodged for table {owner!r} already: a table's "
                           "key signs for that table alone")
    directory = root / mine
    for known, path in _by_id(directory).items():
        if known == kid:
            return kid, path, False
    directory.mkdir(mode=0o755, parents=True, exist_ok=True)
    path = directory / f"{kid}{SUFFIX}"
    tmp = directory / f".{kid}.tmp"
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    with os.fdopen(fd, "wb") as f:
        f.write(keys.public_pem(public))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    keys.fsync_path(directory)
    return kid, path, True


def _by_id(directory: Path) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in sorted(directory.glob(f"*{SUFFIX}")):
        try:
            out[keys.key_id(keys.load_public_pem(path.read_bytes(), str(path)))] = path
        except (OSError, keys.KeyProblem):
            continue
    return out
