"""`shoe-daemon audit prune`: remove ledger records past the retention period, never one
that was not exported.

The regulator sets how long a table keeps its records (`retention_days`); after that the
exports they hold are the record. Pruning removes the oldest records only when:
- the retained ledger verifies (chain and seals), so nothing rewritten is vouched for;
- each record to go is older than the period (the first record younger than the cut-off
  bounds the cut, so a clock step back cannot make a young record look old);
- signed exports kept in `STATE_DIR/audit/exports` cover every record to go without a hole,
  each verified with the table's own key and matching the ledger's hash where they end;
- the shoe in play, or the last one dealt, stays whole: the daemon rebuilds it at start;
- with a floor link, each record to go has been acknowledged by the floor's broker (the
  caller passes the link's cursor, `shoe_daemon.floor.acked_index`): the ledger is the
  link's outbox, and a record pruned unsent would never reach the floor.
The cut always keeps the newest record. Each step deletes at most `batch` records and
appends a `ledger.pruned` record in the same transaction (shoe_daemon.audit.ledger): where the
chain now starts, the hash before it, the exports relied on, and what the daemon carries on
from the removed records. The daemon may keep running: its commits wait for the lock.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from drivers.records import restore_point
from shoe_daemon.audit import keys
from shoe_daemon.audit.layout import MANIFEST, SIGNATURE, check_manifest, iso, recorded_exports
from shoe_daemon.audit.ledger import Ledger, LedgerError
from shoe_daemon.audit.reader import AuditError, LedgerReader, VerifyFailed
from shoe_daemon.audit.verify import check_against

DAY_NS = 86_400 * 10**9
BATCH = 20_000  # records per transaction: the daemon's commits wait at most this long


@dataclass
class Plan:
    """What a prune would remove, and what held it back."""

    first: int  # the oldest retained record now
    cut: int  # records first..cut-1 go
    last: int  # the newest record (always kept)
    bound: str  # which rule set the cut, in words
    exports: list[str] = field(default_factory=list)  # the kept manifests relied on

    @property
    def count(self) -> int:
        return max(self.cut - self.first, 0)


def plan(state_dir: Path, keep_days: int, now_ns: int | None = None,
         floor_acked: int | None = None) -> Plan:
    """Work out the cut from a read-only look at the ledger and the kept exports; with
    `floor_acked`, nothing after that record (the floor has not acknowledged it) goes."""
    if keep_days < 1:
        raise AuditError(f"retention of {keep_days} days: the period must be at least 1 day")
    cutoff = (time.time_ns() if now_ns is None else now_ns) - keep_days * DAY_NS
    reader = LedgerReader(state_dir)
    try:
        reader.db.execute("BEGIN")
        shoe_start = None
        try:
            for record in reader.checked():
                if record.kind == "frame" and restore_point(record.body):
                    shoe_start = record.idx
        except VerifyFailed as e:
            raise VerifyFailed(f"ledger {reader.path}: {e}; nothing pruned") from e
        first, last = reader.start().first_idx, reader.last_index()
        young = reader.db.execute("SELECT MIN(idx) FROM records WHERE wall_ns >= ?",
                                  (cutoff,)).fetchone()[0]
        covered, used = _coverage(state_dir, reader, first)
        reader.db.execute("COMMIT")
    finally:
        reader.close()
    bounds = [  # on a tie the first is named: the most useful to the operator
        (covered + 1, f"records after {covered} are in no kept export"
         if covered >= first else "no kept export covers the oldest records"),
        (young if young is not None else last + 1,
         f"records from {iso(cutoff)} on are within the {keep_days}-day period"),
        (shoe_start if shoe_start is not None else last + 1,
         f"the shoe in play (or last dealt) starts at record {shoe_start}"),
        (last, "the newest record is always kept"),
    ]
    if floor_acked is not None:
        bounds.append((floor_acked + 1, f"the floor's broker has acknowledged records up to "
                                        f"{floor_acked} only"))
    cut, bound = min(bounds, key=lambda b: b[0])
    return Plan(first, max(cut, first), last, bound, used)


def _coverage(state_dir: Path, reader: LedgerReader, first: int) -> tuple[int, list[str]]:
    """The last index such that kept, verified exports cover first..it without a hole."""
    known = keys.public_keys(state_dir)
    spans = []
    for kept in recorded_exports(state_dir):
        manifest = _kept_manifest(kept, known)
        if check_against(reader, manifest, str(kept)):
            r = manifest["records"]
            spans.append((r["first"], r["last"], kept.name))
    covered, used = first - 1, []
    for start, end, name in sorted(spans):
        if start <= covered + 1 < end + 1:
            covered = end
            used.append(name)
    return covered, used


def _kept_manifest(kept: Path, known: dict[str, Path]) -> dict:
    """A kept manifest whose signature verifies with one of this table's keys."""
    try:
        data = (kept / MANIFEST).read_bytes()
        signature = (kept / SIGNATURE).read_bytes()
        manifest = json.loads(data)
        kid = manifest.get("key_id")
    except (OSError, ValueError, AttributeError) as e:
        raise VerifyFailed(f"kept export {kept}: unreadable ({e})") from e
    if kid not in known:
        raise VerifyFailed(f"kept export {kept}: key id {kid} is not one of this table's keys")
    public = keys.load_public_pem(known[kid].read_bytes(), str(known[kid]))
    if not keys.verify_signature(public, signature, data):
        raise VerifyFailed(f"kept export {kept}: the signature does not verify (changed)")
    check_manifest(manifest)
    return manifest


def prune(state_dir: Path, keep_days: int, now_ns: int | None = None,
          batch: int = BATCH, floor_acked: int | None = None) -> tuple[Plan, int]:
    """Remove what `plan` allows, a batch per transaction; the plan and records removed."""
    chosen = plan(state_dir, keep_days, now_ns, floor_acked)
    if chosen.count == 0:
        return chosen, 0
    book = Ledger(state_dir)  # plan() refused a missing key, so none is made here
    removed = 0
    try:
        first = chosen.first
        while first < chosen.cut:
            step = min(first + batch, chosen.cut)
            book.remove_before(step, {
                "by": "shoe-daemon audit prune", "retention_days": keep_days,
                "exports": chosen.exports, "bound": chosen.bound,
            })
            removed += step - first
            first = step
    except LedgerError as e:
        raise AuditError(f"pruning stopped after {removed} records: {e}") from e
    finally:
        book.close()
    return chosen, removed

