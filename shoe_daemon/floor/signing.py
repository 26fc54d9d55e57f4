"""Every records message signed with the table's Ed25519 key, so the pit can tell the table's
records from a forger's, even a forger holding the table's broker login (docs/floor.md,
"The signature").

One signature a message. It covers a statement naming the table and the message's last
record (its index and hash): each record's hash chains every record before it, so once the
collector has checked that the message's records are consecutive and link to one another,
that one signature vouches for all of them. The statement, byte for byte:

    shoe-floor records v1\\n<idx>\\n<hash>\\n<table>

(ASCII; `idx` in decimal, `hash` 64 lowercase hex digits, then the table's broker username in
UTF-8, last and without a trailing newline, so that no two statements are the same bytes).
The signature and what it covers travel as MQTT 5 user properties of the PUBLISH, so the
payload stays the records alone:

    key-id     the signing key's id (first 16 hex of SHA-256 over the raw public key)
    signed     "<idx> <hash>": the record the statement names
    signature  the raw 64-byte Ed25519 signature, in hex

The key is the table's own signing key (shoe_daemon.audit.keys, `STATE_DIR/keys/current`),
the one its exports are signed with and whose public half the casino lodges.

The table's status messages (`state`, `online` and its last will, `head`) are signed with the
same key over statements of their own, one tag per kind so that no statement of one kind
passes for another, each binding the payload (its SHA-256) to the table and to a stamp that
only moves forward (shoe_daemon.floor.stamps), so the pit can refuse an old genuine one
replayed:

    shoe-floor <state|online|head> v1\n<epoch>\n<n>\n<sha256 of the payload>\n<table>

    key-id     as above
    stamp      "<epoch> <n>": the stamp the statement names
    signature  as above
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from shoe_daemon.audit import keys
from shoe_daemon.audit.table_signatures import RecordSignature, statement
from shoe_daemon.floor import topics
from shoe_daemon.floor.config import FloorConfigError

__all__ = ["STATUS_TAGS", "Signature", "Signer", "Stamp", "StatusSignature", "parse_stamp",
           "read_signature", "read_status_signature", "statement", "status_statement"]
KEY_ID, SIGNED, SIGNATURE = "key-id", "signed", "signature"  # the user properties' names
STAMP = "stamp"  # a status message's user property: "<epoch> <n>"
STATUS_TAGS = {topics.STATE: b"shoe-floor state v1", topics.ONLINE: b"shoe-floor online v1",
               topics.HEAD: b"shoe-floor head v1"}
_HASH = re.compile(r"^[0-9a-f]{64}$")
_KEY_ID = re.compile(r"^[0-9a-f]{16}$")
_SIG = re.compile(r"^[0-9a-f]{128}$")


@dataclass(frozen=True)
class Signature(RecordSignature):
    """A records message's signature, as its user properties carry it; the record it names
    (`idx`, `hash`) is the message's last, if genuine. The statement and the signature's
    shape are the audit's (shoe_daemon.audit.table_signatures): a floor export carries it."""

    def properties(self) -> list[tuple[str, str]]:
        return [(KEY_ID, self.key_id), (SIGNED, f"{self.idx} {self.hash}"),
                (SIGNATURE, self.signature.hex())]


class Stamp(NamedTuple):
    """Where a status message stands among its table's: a later one has a greater stamp
    (tuples compare in order: the epoch, then the count)."""

    epoch: int  # the link's start (shoe_daemon.floor.stamps): greater at every start
    n: int      # the status messages the link signed since that start, this one included

    def text(self) -> str:
        return f"{self.epoch} {self.n}"


def _whole(text: str) -> int | None:
    """A decimal number as a stamp or an index writes it (no sign, no leading zero)."""
    if text.isascii() and text.isdigit() and (text == "0" or text[0] != "0"):
        return int(text)
    return None


def parse_stamp(text: str) -> Stamp | None:
    epoch, _, n = text.partition(" ")
    e, c = _whole(epoch), _whole(n)
    return None if e is None or c is None else Stamp(e, c)


def status_statement(leaf: str, table: str, stamp: Stamp, payload: bytes) -> bytes:
    """The bytes a status message's signature covers (`leaf`: state, online or head)."""
    return b"\n".join([STATUS_TAGS[leaf], str(stamp.epoch).encode(), str(stamp.n).encode(),
                       hashlib.sha256(payload).hexdigest().encode(), table.encode()])


@dataclass(frozen=True)
class StatusSignature:
    """A status message's signature, as its user properties carry it."""

    key_id: str
    stamp: Stamp
    signature: bytes

    def properties(self) -> list[tuple[str, str]]:
        return [(KEY_ID, self.key_id), (STAMP, self.stamp.text()),
                (SIGNATURE, self.signature.hex())]


def _properties(pairs: list[tuple[str, str]] | None, middle: str
                ) -> tuple[str, str, bytes] | str:
    """The key id, the `middle` property and the signature bytes, or why they are not."""
    found = dict(pairs or ())
    missing = [name for name in (KEY_ID, middle, SIGNATURE) if name not in found]
    if missing:
        return f"no {', no '.join(missing)} property"
    if not _KEY_ID.match(found[KEY_ID]):
        return f"key-id {found[KEY_ID][:40]!r} is not 16 hex digits"
    if not _SIG.match(found[SIGNATURE]):
        return "signature is not 128 hex digits"
    return found[KEY_ID], found[middle], bytes.fromhex(found[SIGNATURE])


def read_signature(pairs: list[tuple[str, str]] | None) -> Signature | str:
    """The signature a records message's user properties carry, or why there is none."""
    found = _properties(pairs, SIGNED)
    if isinstance(found, str):
        return found
    key_id, signed, sig = found
    idx, _, digest = signed.partition(" ")
    number = _whole(idx)
    if not number or not _HASH.match(digest):
        return f"signed {signed[:90]!r} is not '<idx> <hash>'"
    return Signature(key_id, number, digest, sig)


def read_status_signature(pairs: list[tuple[str, str]] | None) -> StatusSignature | str:
    """The signature a status message's user properties carry, or why there is none."""
    found = _properties(pairs, STAMP)
    if isinstance(found, str):
        return found
    key_id, text, sig = found
    stamp = parse_stamp(text)
    if stamp is None:
        return f"stamp {text[:90]!r} is not '<epoch> <n>'"
    return StatusSignature(key_id, stamp, sig)


class Signer:
    """The table's current signing key, taken again when `keys/current` changes (a
    `rotate-key` while the daemon runs): one stat of that file a look, in the link's thread."""

    def __init__(self, state_dir: Path):
        self.state_dir = state_dir
        self._current = keys.keys_dir(state_dir) / keys.CURRENT
        self._seen: tuple[int, int, int] | None = None
        self.key = self._load()

    def _stamp(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self._current)
        except OSError:
            return None
        return st.st_ino, st.st_mtime_ns, st.st_size

    def _load(self) -> keys.TableKey:
        self._seen = self._stamp()
        try:
            return keys.load_current(self.state_dir)
        except keys.KeyProblem as e:
            raise FloorConfigError(
                f"floor: the link signs every records message with the table's signing key, "
                f"and cannot: {e}") from e

    def refresh(self) -> str | None:
        """Take the current key again if `keys/current` changed; its new id, if it did.
        FloorConfigError if the new current key cannot be read: the old one is kept, and
        tried again when the file changes again."""
        if self._stamp() == self._seen:
            return None
        before = self.key.key_id
        self.key = self._load()
        return self.key.key_id if self.key.key_id != before else None

    def sign(self, table: str, idx: int, digest: str) -> Signature:
        key = self.key
        return Signature(key.key_id, idx, digest,
                         key.private.sign(statement(table, idx, digest)))

    def sign_status(self, leaf: str, table: str, stamp: Stamp,
                    payload: bytes) -> StatusSignature:
        key = self.key
        return StatusSignature(key.key_id, stamp,
                               key.private.sign(status_statement(leaf, table, stamp, payload)))
