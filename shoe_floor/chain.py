"""Each table's chain, checked as its records arrive at the pit.

The table's ledger links every record to the one before it: `hash` is SHA-256 over the
previous record's hash and the record's canonical content (shoe_daemon.audit.ledger). The
collector checks that link for every record, with the same `chain_hash`, so a record edited
on the way, one removed, one slipped in or one out of its place is seen and named.

The chain hash is public, so a link alone does not say who made a record: each records
message is also signed with the table's Ed25519 key, and a message is checked whole before
its records reach this chain (shoe_floor.signature). What is left here is the table's own
records in their order. The table's HMAC seal (`mac`) needs its secret ledger key, which the
collector does not hold; it is stored for `shoe-daemon audit verify`. See docs/floor.md.

MQTT may deliver out of order (retries, several collectors sharing a table's stream): a record
ahead of the chain waits (the store's `pending`) until the records before it arrive; only a
chain that stays broken is a gap, repaired by asking the table to resend.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from shoe_daemon.audit.ledger import GENESIS, PRUNED, Record, chain_hash

# Alarm kinds: what was seen, in the pit's words.
MALFORMED = "malformed"   # not a ledger record at all
EDITED = "edited"         # its content does not match its own hash: changed after sealing
BROKEN = "broken-link"    # its prev is not the previous record's hash: reordered, inserted,
                          # a record before it deleted, or forged
CONFLICT = "conflict"     # a second, different record for an index already taken
GAP = "gap"               # records missing after the last verified one: resend asked
UNANCHORED = "unanchored" # a table's first records do not start its chain: resend asked
# A records message refused whole, none of its records stored (shoe_floor.signature):
UNSIGNED = "unsigned"     # no signature: not the table's (a forger with its broker login)
UNKNOWN_KEY = "unknown-key"  # signed with a key not lodged for this table: another table's,
                          # a forger's, or the table's new key not lodged yet
BAD_SIGNATURE = "bad-signature"  # the signature does not verify: changed after signing
SIGNED_OTHER = "signed-other"  # a genuine signature over another record than the message's
                          # last: taken from another message
SPLICED = "spliced"       # its records are not consecutive and linked: one inserted,
                          # removed, replaced or reordered inside the message
# A status message (state, online, head) refused (shoe_floor.status): `unsigned`,
# `unknown-key`, `bad-signature` and `malformed` as above, or
STALE = "stale"           # older than the table's newest accepted: an old one replayed
# What the table's signed head says the store lacks (shoe_floor.collector):
SHORT = "short"           # records the broker acknowledged to the table have not reached the
                          # store within the grace after a resend was asked
REPAIRED = "repaired"     # ... and have since: how long it took
# What a table's own records say (shoe_floor.collector):
LOCKOUT = "lockout"       # a `console.lockout` record: a person's sign-in locked or slowed
KINDS = (MALFORMED, EDITED, BROKEN, CONFLICT, GAP, UNANCHORED, UNSIGNED, UNKNOWN_KEY,
         BAD_SIGNATURE, SIGNED_OTHER, SPLICED, STALE, SHORT, REPAIRED, LOCKOUT)
# Kinds that mean something was refused (the pit shows them red); a gap is repaired.
SERIOUS = (EDITED, BROKEN, CONFLICT, MALFORMED, UNSIGNED, UNKNOWN_KEY, BAD_SIGNATURE,
           SIGNED_OTHER, SPLICED, STALE)


@dataclass(frozen=True)
class Tip:
    """The last verified record of a table's chain (idx 0 and GENESIS: the chain's start)."""

    idx: int
    hash: str


@dataclass(frozen=True)
class Rejected:
    record: Record
    kind: str
    why: str


@dataclass
class Advance:
    tip: Tip | None
    accepted: list[Record] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    waiting: list[Record] = field(default_factory=list)
    stuck: bool = False  # the chain stopped at a record that did not link

    @property
    def missing(self) -> int | None:
        """The index to ask the table for: the chain waits for it (a gap, a refused record,
        or an unknown table whose start has not been seen)."""
        if self.tip is None:
            return 1 if self.waiting else None
        return self.tip.idx + 1 if self.waiting or self.stuck else None


def parse_message(payload: bytes) -> list[Record | str]:
    """Each record a message carries, or why it is not one: one record is a JSON object,
    several consecutive ones a JSON array of them (shoe_daemon.floor.outbox.pack)."""
    try:
        d: Any = json.loads(payload)
    except ValueError as e:
        return [f"not a ledger record: {e!r}"]
    if isinstance(d, list) and d:
        return [_record(item) for item in d]
    return [_record(d)]


def _record(d: Any) -> Record | str:
    try:
        record = Record(d["idx"], d["wall_ns"], d["mono_ns"], d["boot"], d["kind"], d["body"],
                        d["prev"], d["hash"], d["mac"])
    except (ValueError, KeyError, TypeError) as e:
        return f"not a ledger record: {e!r}"
    typed = (isinstance(record.idx, int) and record.idx > 0 and isinstance(record.wall_ns, int)
             and isinstance(record.mono_ns, int) and isinstance(record.body, dict)
             and all(isinstance(v, str) for v in (record.boot, record.kind, record.prev,
                                                  record.hash, record.mac)))
    return record if typed else "not a ledger record: a field has the wrong type"


def self_check(record: Record) -> str | None:
    """Why a record is not what it says it is, on its own (None if it is)."""
    if chain_hash(record.prev, record.content()) != record.hash:
        return f"record {record.idx}: its content does not match its hash (edited)"
    return None


def anchor(candidates: dict[int, list[Record]]) -> Tip | None:
    """Where an unknown table's chain starts: record 1 after GENESIS, or a retained chain
    vouched for by a `ledger.pruned` record (its first_idx and first_prev)."""
    if not candidates:
        return None
    first = min(candidates)
    if first == 1:
        return Tip(0, GENESIS)
    prevs = {r.prev for r in candidates[first]}
    for records in candidates.values():
        for r in records:
            if (r.kind == PRUNED and r.body.get("first_idx") == first
                    and r.body.get("first_prev") in prevs):
                return Tip(first - 1, r.body["first_prev"])
    return None


def advance(tip: Tip | None, candidates: Iterable[Record]) -> Advance:
    """Verify forward from `tip` through whatever candidates link to it, in index order.
    Candidates at or below the tip must have been taken out (duplicates) by the caller."""
    by_idx: dict[int, list[Record]] = {}
    for r in candidates:
        same = by_idx.setdefault(r.idx, [])
        if all(o.hash != r.hash for o in same):
            same.append(r)
    if tip is None:
        tip = anchor(by_idx)
        if tip is None:
            return Advance(None, waiting=[r for rs in by_idx.values() for r in rs])
    out = Advance(tip)
    n = tip.idx + 1
    while n in by_idx:
        here = by_idx.pop(n)
        linked = [r for r in here if r.prev == tip.hash]
        for r in here:
            if r not in linked:
                out.rejected.append(Rejected(r, BROKEN, (
                    f"record {n}: its prev {r.prev[:16]} is not record {n - 1}'s hash "
                    f"{tip.hash[:16]} (reordered, inserted, deleted before it, or forged)")))
        if not linked:
            out.stuck = True
            break
        chosen = linked[0]
        for r in linked[1:]:
            out.rejected.append(Rejected(r, CONFLICT, (
                f"record {n}: two records link to record {n - 1}: {chosen.hash[:16]} "
                f"taken, {r.hash[:16]} refused (one is forged; check the table's ledger)")))
        out.accepted.append(chosen)
        tip = Tip(n, chosen.hash)
        n += 1
    out.tip = tip
    out.waiting = sorted((r for rs in by_idx.values() for r in rs if r.idx > tip.idx),
                         key=lambda r: r.idx)
    return out
