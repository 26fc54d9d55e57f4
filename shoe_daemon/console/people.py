"""The people of one table: who may sign in at the croupier's console, whose badge the
shoe's `BTN,KEY` may present, and with which role. Their secrets are hashed at rest.

The same file, key and hashes keep the pit's people (shoe_floor/pit/people.py): a people
file takes its owner's roles (`roles`, a StrEnum: the console's `Role` by default), so a
pit boss is never a croupier at a table, nor the other way round.

The file (`STATE_DIR/people.json`, or the `people` setting) is JSON, written only by
`shoe-daemon people` (shoe_daemon/console/people_commands.py); the table-local secret that keys
its hashes is `STATE_DIR/people.key` (32 random bytes, mode 0600, made on first use). Why
each secret is hashed as it is (docs/console.md, "People and their secrets"):

- **A badge** is presented alone (the shoe's `KEY`, the console's badge reader): it must be
  found at one touch. Its record is `HMAC-SHA256(key, "badge" 0 badge)`, so a touch is one
  HMAC and one lookup. A salted KDF per person would need one slow run per person per touch;
  an unkeyed hash of a badge id (often a short number) is undone by counting. Without the
  table's key the file tells nothing of the badges, and a copied file does not work at
  another table.
- **A PIN** is entered after choosing one's name, so one KDF run per sign-in:
  `scrypt(HMAC-SHA256(key, "pin" 0 id 0 PIN), salt, n=2**14, r=8, p=1)` with a salt of 16
  random bytes per person. scrypt makes each guess slow and memory-bound; the keyed HMAC
  inside makes the file alone useless for trying the few PINs there are. Online guessing is
  met by the console's rate limit (shoe_daemon/console/sessions.py).

Nothing here ever writes, logs or returns a secret in clear.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import os
import re
import secrets
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from shoe_daemon.audit.ledger import new_key_file

PEOPLE_FILE = "people.json"
KEY_FILE = "people.key"
VERSION = 1
ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,31}$")
PIN = re.compile(r"^[0-9]{4,12}$")
BADGE_MAX = 64
NAME_MAX = 80
SCRYPT = {"n": 2**14, "r": 8, "p": 1}  # 16 MiB, tens of ms a run: per sign-in, not per touch
SCRYPT_MAXMEM = 64 * 2**20



class Role(StrEnum):
    """Who a person is at the table; a supervisor is the inspector."""

    CROUPIER = "croupier"
    SUPERVISOR = "supervisor"


Roles = type[StrEnum]  # the roles one people file takes (its owner's)


class PeopleError(ValueError):
    """The people file or a person's details are not what they must be; says which."""


def check_id(text: object) -> str:
    if not isinstance(text, str) or not ID.match(text):
        raise PeopleError(f"person id {text!r}: 1 to 32 of a-z 0-9 . _ -, starting with a "
                          "letter or digit")
    return text


def check_badge(text: object) -> str:
    """A badge as the shoe's KEY carries it: printable ASCII without , $ * (the protocol)."""
    if (not isinstance(text, str) or not 1 <= len(text) <= BADGE_MAX or not text.isascii()
            or not text.isprintable() or any(c in ",$*" for c in text)):
        raise PeopleError(f"a badge is 1 to {BADGE_MAX} printable ASCII characters without "
                          ", $ or *")
    return text


def check_pin(text: object) -> str:
    if not isinstance(text, str) or not PIN.match(text):
        raise PeopleError("a PIN is 4 to 12 digits")
    return text


def check_name(text: object) -> str:
    if (not isinstance(text, str) or not 1 <= len(text.strip()) <= NAME_MAX
            or not text.isprintable()):
        raise PeopleError(f"a name is 1 to {NAME_MAX} printable characters")
    return text.strip()


# ---- the table's key and the hashes ----------------------------------------------------------


def load_key(path: Path, create: bool = False) -> bytes:
    """The table-local secret; made (0600) when `create` and missing."""
    try:
        return bytes.fromhex(path.read_text().strip())
    except FileNotFoundError:
        if not create:
            raise PeopleError(f"{path}: no people key (made by the first `people add`)") from None
    except (OSError, ValueError) as e:
        raise PeopleError(f"{path}: cannot read the people key ({e})") from e
    return new_key_file(path)


def badge_digest(key: bytes, badge: str) -> str:
    return hmac.new(key, b"badge\0" + badge.encode(), hashlib.sha256).hexdigest()


def _pin_input(key: bytes, person: str, pin: str) -> bytes:
    return hmac.new(key, b"pin\0" + person.encode() + b"\0" + pin.encode(),
                    hashlib.sha256).digest()


@dataclass(frozen=True)
class PinHash:
    salt: str  # base64
    hash: str  # base64
    n: int = SCRYPT["n"]
    r: int = SCRYPT["r"]
    p: int = SCRYPT["p"]

    @classmethod
    def make(cls, key: bytes, person: str, pin: str) -> PinHash:
        salt = secrets.token_bytes(16)
        digest = hashlib.scrypt(_pin_input(key, person, check_pin(pin)), salt=salt,
                                maxmem=SCRYPT_MAXMEM, dklen=32, **SCRYPT)
        return cls(base64.b64encode(salt).decode(), base64.b64encode(digest).decode())

    def matches(self, key: bytes, person: str, pin: str) -> bool:
        digest = hashlib.scrypt(_pin_input(key, person, pin),
                                salt=base64.b64decode(self.salt), n=self.n, r=self.r, p=self.p,
                                maxmem=SCRYPT_MAXMEM, dklen=32)
        return hmac.compare_digest(digest, base64.b64decode(self.hash))


def burn_pin(key: bytes) -> None:
    """A PIN check's cost for a person who does not exist: the answer takes as long."""
    PinHash("AAAAAAAAAAAAAAAAAAAAAA==", "").matches(key, "-", "0000")


# ---- people and the roster ----------------------------------------------------------------------


@dataclass(frozen=True)
class Person:
    id: str
    name: str
    role: StrEnum  # one of its file's roles
    badge: str | None = None  # HMAC of the badge
    pin: PinHash | None = None

    def public(self) -> dict[str, Any]:
        """What may be shown or recorded of a person: never a secret, nor its hash."""
        return {"id": self.id, "name": self.name, "role": self.role.value}

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "role": self.role.value, "badge": self.badge,
                "pin": None if self.pin is None else self.pin.__dict__}


@dataclass(frozen=True)
class Roster:
    """The people as loaded: an immutable snapshot, safe to share between threads."""

    people: tuple[Person, ...] = ()
    key: bytes = field(default=b"", repr=False)
    digest: str = ""  # SHA-256 of the file as read: which roster a decision was made with
    _by_id: Mapping[str, Person] = field(default_factory=dict, repr=False)
    _by_badge: Mapping[str, Person] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, people: Iterable[Person], key: bytes, digest: str = "") -> Roster:
        people = tuple(people)
        by_id: dict[str, Person] = {}
        by_badge: dict[str, Person] = {}
        for person in people:
            if person.id in by_id:
                raise PeopleError(f"person {person.id!r} is listed twice")
            by_id[person.id] = person
            if person.badge is not None:
                if person.badge in by_badge:
                    raise PeopleError(f"{person.id!r} and {by_badge[person.badge].id!r} have "
                                      "the same badge")
                by_badge[person.badge] = person
        return cls(people, key, digest, by_id, by_badge)

    def get(self, person: str) -> Person | None:
        return self._by_id.get(person)

    def by_badge(self, badge: str) -> Person | None:
        """The person whose badge this is: one HMAC, one lookup."""
        if not self.key:
            return None
        return self._by_badge.get(badge_digest(self.key, badge))

    def check_pin(self, person: str, pin: str) -> Person | None:
        """The person if this is their PIN (a slow KDF run: call it off the event loop)."""
        found = self._by_id.get(person)
        if found is None or found.pin is None or not PIN.match(pin):
            burn_pin(self.key or b"-")
            return None
        return found if found.pin.matches(self.key, found.id, pin) else None

    # ---- editing (the CLI) ------------------------------------------------------------------

    def with_person(self, person: Person) -> Roster:
        kept = [p for p in self.people if p.id != person.id]
        return Roster.of([*kept, person], self.key)

    def without(self, person: str) -> Roster:
        if person not in self._by_id:
            raise PeopleError(f"no person {person!r}")
        return Roster.of([p for p in self.people if p.id != person], self.key)

    def badge_for(self, person: str, badge: str | None) -> Roster:
        """That person's badge set (None: removed); refused if another person has it."""
        found = self._require(person)
        digest = None if badge is None else badge_digest(self.key, check_badge(badge))
        other = self._by_badge.get(digest or "")
        if other is not None and other.id != person:
            raise PeopleError(f"that badge is {other.id!r}'s already")
        return self.with_person(replace(found, badge=digest))

    def pin_for(self, person: str, pin: str | None) -> Roster:
        found = self._require(person)
        hashed = None if pin is None else PinHash.make(self.key, person, pin)
        return self.with_person(replace(found, pin=hashed))

    def _require(self, person: str) -> Person:
        found = self._by_id.get(person)
        if found is None:
            raise PeopleError(f"no person {person!r}")
        return found


def _person(entry: object, where: str, roles: Roles) -> Person:
    if not isinstance(entry, dict):
        raise PeopleError(f"{where}: each person is an object")
    unknown = set(entry) - {"id", "name", "role", "badge", "pin"}
    if unknown:
        raise PeopleError(f"{where}: unknown field {sorted(unknown)[0]!r}")
    pid = check_id(entry.get("id"))
    where = f"{where} ({pid})"
    try:
        role = roles(entry.get("role"))
    except ValueError:
        *others, last = (r.value for r in roles)
        raise PeopleError(f"{where}: role must be {', '.join(others)} or {last}") from None
    badge, pin = entry.get("badge"), entry.get("pin")
    if badge is not None and (not isinstance(badge, str) or not re.fullmatch(r"[0-9a-f]{64}",
                                                                             badge)):
        raise PeopleError(f"{where}: badge is not a badge's hash")
    pin_hash = None
    if pin is not None:
        try:
            pin_hash = PinHash(**pin)
            base64.b64decode(pin_hash.salt, validate=True)
            base64.b64decode(pin_hash.hash, validate=True)
            costs = (pin_hash.n, pin_hash.r, pin_hash.p)
            if not all(type(c) is int for c in costs) or not (
                    2**10 <= pin_hash.n <= 2**20 and pin_hash.n & (pin_hash.n - 1) == 0
                    and 1 <= pin_hash.r <= 32 and 1 <= pin_hash.p <= 16):
                raise ValueError("scrypt costs out of bounds")
        except (TypeError, ValueError) as e:
            raise PeopleError(f"{where}: pin is not a PIN's hash ({e})") from None
    try:
        name = check_name(entry.get("name"))
    except PeopleError as e:
        raise PeopleError(f"{where}: {e}") from None
    return Person(pid, name, role, badge, pin_hash)


def parse(data: bytes, key: bytes, where: str = PEOPLE_FILE, roles: Roles = Role) -> Roster:
    try:
        doc = json.loads(data)
    except ValueError as e:
        raise PeopleError(f"{where}: not JSON ({e})") from None
    if not isinstance(doc, dict) or doc.get("version") != VERSION or not isinstance(
            doc.get("people"), list):
        raise PeopleError(f"{where}: expected {{\"version\": {VERSION}, \"people\": [...]}}")
    people = [_person(entry, f"{where}: person {i + 1}", roles)
              for i, entry in enumerate(doc["people"])]
    try:
        return Roster.of(people, key, hashlib.sha256(data).hexdigest())
    except PeopleError as e:
        raise PeopleError(f"{where}: {e}") from None


class PeopleFile:
    """The people file and its key. `roster()` reloads it when it changed on disk (the CLI
    may edit it while the daemon runs); a file that became unreadable keeps the last good
    roster and says so once (`error`). `roles`: the roles its people may have."""

    def __init__(self, path: Path, key_path: Path, roles: Roles = Role) -> None:
        self.path = path
        self.key_path = key_path
        self.roles = roles
        self.error = ""
        self._lock = threading.Lock()
        self._stat: tuple[int, int, int] | None = None
        self._roster = Roster()

    def load(self, create_key: bool = False) -> Roster:
        """Read the file now (no file: nobody); PeopleError if it is wrong."""
        key = load_key(self.key_path, create=create_key) if (
            create_key or self.path.exists()) else b""
        try:
            data = self.path.read_bytes()
            stat = os.stat(self.path)
        except FileNotFoundError:
            roster, stat_key = Roster.of((), key), None
        except OSError as e:
            raise PeopleError(f"{self.path}: {e.strerror or e}") from e
        else:
            roster = parse(data, key, str(self.path), self.roles)
            stat_key = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        with self._lock:
            self._roster, self._stat, self.error = roster, stat_key, ""
        return roster

    def roster(self) -> Roster:
        """The current roster, reloaded if the file changed (a stat per call)."""
        try:
            stat = os.stat(self.path)
            now: tuple[int, int, int] | None = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        except FileNotFoundError:
            now = None
        except OSError:
            now = self._stat
        if now != self._stat:
            try:
                self.load()
            except PeopleError as e:
                with self._lock:
                    self._stat, self.error = now, str(e)
        return self._roster

    def save(self, roster: Roster) -> None:
        """Write atomically (0600): a reader sees the old file or the new, never half."""
        doc = {"version": VERSION, "people": [p.as_json() for p in roster.people]}
        data = (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode()
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
        dirfd = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(dirfd)
        finally:
            os.close(dirfd)


def people_paths(state_dir: Path, people: str = "") -> PeopleFile:
    """The file a configuration names (`people`, default STATE_DIR/people.json) and the key
    beside the state (STATE_DIR/people.key)."""
    return PeopleFile(Path(people) if people else state_dir / PEOPLE_FILE, state_dir / KEY_FILE)
