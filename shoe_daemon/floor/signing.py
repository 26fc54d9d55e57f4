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
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from shoe_daemon.audit import keys
from shoe_daemon.audit.table_signatures import RecordSignature, statement
from shoe_daemon.floor.config import FloorConfigError

__all__ = ["Signature", "Signer", "read_signature", "statement"]
KEY_ID, SIGNED, SIGNATURE = "key-id", "signed", "signature"  # the user properties' names
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


def read_signature(pairs: list[tuple[str, str]] | None) -> Signature | str:
    """The signature a message's user properties carry, or why there is none to check."""
    found = dict(pairs or ())
    missing = [name for name in (KEY_ID, SIGNED, SIGNATURE) if name not in found]
    if missing:
        return f"no {', no '.join(missing)} property"
    key_id, signed, sig = found[KEY_ID], found[SIGNED], found[SIGNATURE]
    idx, _, digest = signed.partition(" ")
    if not _KEY_ID.match(key_id):
        return f"key-id {key_id[:40]!r} is not 16 hex digits"
    if not (idx.isascii() and idx.isdigit() and idx[0] != "0" and _HASH.match(digest)):
        return f"signed {signed[:90]!r} is not '<idx> <hash>'"
    if not _SIG.match(sig):
        return "signature is not 128 hex digits"
    return Signature(key_id, int(idx), digest, bytes.fromhex(sig))


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
