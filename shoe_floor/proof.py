"""What proves, at export, that the records the store holds are their table's, whoever has
written the database since the collector stored them: the table's signatures the collector
kept (the store's `signatures`), checked against the keys lodged for the table.

A signature names one record (index and hash) and, through the chain, proves that record and
every one before it: a record is proven by the nearest kept signature at or after it whose
hash is the stored record's, and the chain between (which the export walks, recomputing each
hash from its record's content). So a range of a table's records is proven by the first
good signature at or after its last record; every signature kept over the range's records
is checked too, and a kept signature that does not verify with the table's lodged key, or is
another table's, means the store was written behind the collector's back: refused, named.
Records that no good signature covers are refused, named, with what the store shows about
why (shoe_daemon.audit.table_signatures has the statement; docs/floor.md, "The regulator's
export").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from shoe_daemon.audit.reader import VerifyFailed
from shoe_daemon.audit.table_signatures import RecordSignature
from shoe_floor import query
from shoe_floor.store import Store
from shoe_floor.table_keys import LodgedKeys

WINDOW = 5000  # record indexes whose kept signatures are read in one query


@dataclass
class Proof:
    """A range's proof: the good signatures over its records and up to `through`, the record
    the first one at or after its last names, and the lodged keys they verify with."""

    through: int
    signatures: list[RecordSignature] = field(default_factory=list)
    keys: dict[str, Ed25519PublicKey] = field(default_factory=dict)


def prove(store: Store, table: str, first: int, last: int, tip: int,
          lodged: LodgedKeys) -> Proof:
    """The proof of the table's stored records `first`..`last` (the store's verified tip at
    `tip`), or VerifyFailed naming the first record that is not proven or the kept signature
    that is not the table's."""
    good: list[RecordSignature] = []
    public: dict[str, Ed25519PublicKey] = {}
    other: list[tuple[RecordSignature, str | None]] = []  # good, over another record
    unlodged: set[str] = set()
    through: int | None = None
    low = first
    while low <= tip and through is None:
        high = min(tip, low + WINDOW - 1)
        for sig, held in query.signatures(store, table, low, high):
            if through is not None and sig.idx > through:
                break
            key = _lodged_key(table, sig, lodged)
            if key is None:
                unlodged.add(sig.key_id)
                continue
            if sig.hash != held:
                other.append((sig, held))
                continue
            good.append(sig)
            public[sig.key_id] = key
            if sig.idx >= last and through is None:
                through = sig.idx  # the nearest good one at or after the range's end
        low = high + 1
    if through is None:
        below = [s.idx for s in good if s.idx <= last]
        unproven = below[-1] + 1 if below else first
        raise VerifyFailed(f"record {unproven}: no signature of table {table} covers it "
                           f"(records {unproven}..{last} of the range): "
                           f"{_why(unproven, other, unlodged)}")
    return Proof(through, good, public)


def _lodged_key(table: str, sig: RecordSignature,
                lodged: LodgedKeys) -> Ed25519PublicKey | None:
    """The table's lodged key that made this kept signature; None if its key is not lodged
    (anywhere: a key removed from table_keys is no longer trusted). VerifyFailed if it is
    another table's key, or does not verify: the collector keeps neither."""
    key = lodged.key(table, sig.key_id)
    if key is None:
        owner = lodged.owner(sig.key_id)
        if owner is not None and owner != lodged.directory(table).name:
            raise VerifyFailed(f"record {sig.idx}: the signature kept for it is by key "
                               f"{sig.key_id}, lodged for table {owner!r}, not for {table!r} "
                               "(the store's signatures changed after collection)")
        return None
    if not sig.verifies(key, table):
        raise VerifyFailed(f"record {sig.idx}: the signature kept for it does not verify with "
                           f"{table}'s key {sig.key_id} over record {sig.idx} "
                           f"{sig.hash[:16]} (the store's signatures changed after "
                           "collection)")
    return key


def _why(unproven: int, other: list[tuple[RecordSignature, str | None]],
         unlodged: set[str]) -> str:
    """What the store shows about why records from `unproven` on are not covered."""
    later = [(s, held) for s, held in other if s.idx >= unproven]
    if later:
        sig, held = later[0]
        holds = f"holds {held[:16]}" if held is not None else "holds no record there"
        span = (f"record {unproven}" if sig.idx == unproven
                else f"one of records {unproven}..{sig.idx}")
        return (f"the table signed record {sig.idx} as {sig.hash[:16]}, the store {holds}: "
                f"{span} was changed after collection, every later hash recomputed")
    if unlodged:
        return (f"signed with key(s) {', '.join(sorted(unlodged))}, no longer lodged for the "
                "table (removed from table_keys)")
    return ("the store keeps no signature of the table at or after it: stored before the "
            "floor kept the tables' signatures (an upgrade: the table's next message proves "
            "them), or signatures deleted from the store since")
