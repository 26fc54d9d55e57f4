"""A table's own Ed25519 signatures over its records: what its floor link signs, what the
pit's store keeps, and what a floor export carries, so that the export proves each record
came from its table whoever could write the pit's database (docs/floor.md, "The signature"
and "The regulator's export"; docs/audit.md, "A floor export's table signatures").

The table signs a statement naming itself and one record, its index and hash (`statement`).
Each record's hash chains every record before it, so one signature proves the record it names
and every record before it, given their contents: a record is proven by the nearest signature
at or after it and the chain between. A floor export's table directory therefore carries,
beside the table's own files, the table's signatures over records of its range
(`signatures.jsonl`), the records after the range up to the first one signed
(`tail.jsonl`, empty when the range's last record is signed), and the table's public keys
that check them (`table-keys.json`), all in its signed manifest.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from shoe_daemon.audit import keys
from shoe_daemon.audit.ledger import canonical
from shoe_daemon.audit.reader import VerifyFailed

TAG = b"shoe-floor records v1"
_HEX = frozenset("0123456789abcdef")


def statement(table: str, idx: int, digest: str) -> bytes:
    """The bytes a table's signature over its record `idx` (of hash `digest`) covers:
    `shoe-floor records v1\\n<idx>\\n<hash>\\n<table>`, the table's name last and unterminated
    so that no two statements are the same bytes."""
    return b"\n".join([TAG, str(idx).encode(), digest.encode(), table.encode()])


def _hex(text: Any, length: int) -> bool:
    return isinstance(text, str) and len(text) == length and set(text) <= _HEX


@dataclass(frozen=True)
class RecordSignature:
    """The table's key id, the record its statement names (index and hash), the signature."""

    key_id: str
    idx: int
    hash: str
    signature: bytes

    def verifies(self, public: Ed25519PublicKey, table: str) -> bool:
        return keys.verify_signature(public, self.signature,
                                     statement(table, self.idx, self.hash))

    def line(self) -> bytes:
        """Its line of signatures.jsonl: canonical JSON, then a newline."""
        return (canonical({"hash": self.hash, "idx": self.idx, "key_id": self.key_id,
                           "signature": self.signature.hex()}) + "\n").encode()


def read_line(raw: bytes, where: str) -> RecordSignature:
    """A line of signatures.jsonl, or VerifyFailed naming `where`."""
    try:
        text = raw.decode()
        d = json.loads(text)
        ok = (isinstance(d, dict) and sorted(d) == ["hash", "idx", "key_id", "signature"]
              and type(d["idx"]) is int and d["idx"] > 0 and _hex(d["hash"], 64)
              and _hex(d["key_id"], 16) and _hex(d["signature"], 128))
    except ValueError:
        ok = False
    if not ok or not text.endswith("\n"):
        raise VerifyFailed(f"{where}: not a table signature line")
    signature = RecordSignature(d["key_id"], d["idx"], d["hash"], bytes.fromhex(d["signature"]))
    if signature.line() != raw:
        raise VerifyFailed(f"{where}: not in the canonical encoding (edited)")
    return signature


def keys_file(public: dict[str, Ed25519PublicKey]) -> bytes:
    """table-keys.json: each key id and its public key's PEM, as lodged."""
    return (canonical({kid: keys.public_pem(public[kid]).decode() for kid in sorted(public)})
            + "\n").encode()


def read_keys_file(data: bytes, where: str) -> dict[str, Ed25519PublicKey]:
    """The keys of table-keys.json by key id; VerifyFailed if one is not an Ed25519 key or
    not the key its id names."""
    try:
        named = json.loads(data)
    except ValueError as e:
        raise VerifyFailed(f"{where}: not JSON ({e})") from e
    if not isinstance(named, dict) or not all(isinstance(v, str) for v in named.values()):
        raise VerifyFailed(f"{where}: not a table of key ids and PEM public keys")
    found: dict[str, Ed25519PublicKey] = {}
    for kid, pem in named.items():
        try:
            public = keys.load_public_pem(pem.encode(), f"{where} {kid}")
        except keys.KeyProblem as e:
            raise VerifyFailed(str(e)) from e
        if keys.key_id(public) != kid:
            raise VerifyFailed(f"{where}: the key named {kid} is key id {keys.key_id(public)} "
                               "(replaced)")
        found[kid] = public
    return found
