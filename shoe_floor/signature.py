"""Whether a records message is the table's own: its one signature, and the records it
vouches for (docs/floor.md, "The signature").

The table signs a statement naming itself and the message's last record (idx and hash:
shoe_daemon.floor.signing). That record's hash chains every record before it, so the one
signature vouches for each record of the message once the message is shown to be one
unbroken piece of chain: consecutive indexes, each record's `prev` the hash of the one
before, each record's own content matching its hash. A message that fails any of it is
refused whole: none of its records is stored, and the chain waits at a gap that the
table's genuine records (its resend) fill.

Checked in this order, the first failure named (the kinds are shoe_floor.chain's):
1. every item is a ledger record (`malformed`);
2. it carries a signature (`unsigned`);
3. made with a key lodged for this table (`unknown-key`);
4. that verifies over the statement it names (`bad-signature`);
5. the statement names the message's last record (`signed-other`);
6. the records are consecutive and each links to the one before (`spliced`);
7. each record's content matches its hash (`edited`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from shoe_daemon.audit.keys import verify_signature
from shoe_daemon.audit.ledger import Record
from shoe_daemon.audit.table_signatures import statement
from shoe_daemon.floor.signing import Signature, read_signature
from shoe_floor import chain
from shoe_floor.table_keys import LodgedKeys


@dataclass(frozen=True)
class Refusal:
    """Why a records message was refused whole: an alarm's kind, record and detail."""

    kind: str
    idx: int | None
    detail: str
    key_id: str | None = None  # the key the message names, when it names one
    record: Record | None = None  # the one record at fault, when it is one of several


def _span(records: list[Record]) -> str:
    if len(records) == 1:
        return f"record {records[0].idx}"
    return f"records {records[0].idx}..{records[-1].idx} ({len(records)} in one message)"


def check_message(table: str, parsed: list[Record | str],
                  properties: list[tuple[str, str]] | None,
                  lodged: LodgedKeys) -> Refusal | Signature:
    """The table's signature that vouches for the message if it is the table's own and
    whole (the store keeps it: what proves its records at export), else why it is refused."""
    for n, item in enumerate(parsed, 1):
        if isinstance(item, str):
            where = f"item {n} of {len(parsed)}: " if len(parsed) > 1 else ""
            return Refusal(chain.MALFORMED, None, f"{where}{item}; the message refused")
    records: list[Record] = [r for r in parsed if not isinstance(r, str)]
    last = records[-1]
    span = _span(records)
    sig = read_signature(properties)
    if isinstance(sig, str):
        return Refusal(chain.UNSIGNED, last.idx, (
            f"{span}: not signed ({sig}): refused, none stored (a table signs every "
            "message with its key; a login alone does not make a record the table's)"))
    refusal = _check_signature(table, sig, last, span, lodged)
    if refusal is not None:
        return refusal
    for before, record in pairwise(records):
        if record.idx != before.idx + 1:
            return Refusal(chain.SPLICED, record.idx, (
                f"{span}: record {record.idx} follows record {before.idx} inside the "
                "message (a record inserted, removed or reordered in it): refused, none "
                "stored"), sig.key_id, record)
        if record.prev != before.hash:
            return Refusal(chain.SPLICED, record.idx, (
                f"{span}: record {record.idx}'s prev {record.prev[:16]} is not record "
                f"{before.idx}'s hash {before.hash[:16]} inside the message (a record "
                "replaced in it): refused, none stored"), sig.key_id, record)
    for record in records:
        why = chain.self_check(record)
        if why:
            return Refusal(chain.EDITED, record.idx, (
                f"{why}; the message ({span}) refused, none stored"), sig.key_id, record)
    return sig


def lodged_key(table: str, key_id: str, lodged: LodgedKeys) -> Ed25519PublicKey | str:
    """The key `key_id` lodged for `table`, or why there is none, in words: whose key it is
    if it is lodged for another table, or how to lodge it."""
    public = lodged.key(table, key_id)
    owner = lodged.owner(key_id) if public is None else None
    if public is None and owner == lodged.directory(table).name:
        public = lodged.key(table, key_id, force=True)  # lodged this very moment
    if public is not None:
        return public
    moved = lodged.legacy(table)
    whose = (f"; that key is lodged for table {owner!r}" if owner is not None and moved is None
             else f"; {lodged.move_words(table)}" if moved is not None
             else "; lodge the table's key (`shoe-floor lodge-key`) if it is its own")
    ids = ", ".join(lodged.ids(table)) or "none"
    return f"signed with key {key_id}, which is not lodged for {table} (lodged: {ids}){whose}"


def _check_signature(table: str, sig: Signature, last: Record, span: str,
                     lodged: LodgedKeys) -> Refusal | None:
    public = lodged_key(table, sig.key_id, lodged)
    if isinstance(public, str):
        return Refusal(chain.UNKNOWN_KEY, last.idx, f"{span}: {public}: refused, none stored",
                       sig.key_id)
    if not verify_signature(public, sig.signature, statement(table, sig.idx, sig.hash)):
        return Refusal(chain.BAD_SIGNATURE, last.idx, (
            f"{span}: the signature does not verify with {table}'s key {sig.key_id} over "
            f"record {sig.idx} {sig.hash[:16]} (changed after signing, or forged): refused, "
            "none stored"), sig.key_id)
    if (sig.idx, sig.hash) != (last.idx, last.hash):
        return Refusal(chain.SIGNED_OTHER, last.idx, (
            f"{span}: {table}'s key {sig.key_id} signed record {sig.idx} {sig.hash[:16]}, "
            f"not the message's last record {last.idx} {last.hash[:16]} (a genuine signature "
            "taken from another message): refused, none stored"), sig.key_id)
    return None
