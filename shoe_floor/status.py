"""Whether a table's status message (`state`, `online`, `head`) is its own and its latest: the
one check the collector and the pit's page both make before they keep or show one
(docs/floor.md, "The status messages").

The table signs each with its key over a statement of the message's kind, its table, its
stamp and its payload (shoe_daemon.floor.signing); stamps only move forward (shoe_daemon.
floor.stamps). Checked in this order, the first failure named (the kinds are shoe_floor.
chain's):
1. it carries a signature (`unsigned`);
2. made with a key lodged for this table (`unknown-key`);
3. that verifies over the statement of this kind, table, stamp and payload
   (`bad-signature`);
4. its payload is one of its kind: `online` or `offline`, a head report (`malformed`);
5. its stamp is newer than the newest of its kind accepted for the table, and not older than
   what the table's latest head names as current: its last state, its connection's online
   word (`stale`: an old genuine message replayed, or held back and let go).
The same message again (the newest accepted's stamp and payload: a retained copy delivered
at a reconnect) is `Repeated`: nothing new, and no alarm. An older one that comes as the
broker's retained copy at a subscription is `Outdated`: not shown, and no alarm either, for
a broker restarted from a save older than what it last delivered keeps older copies (the
page and the collector subscribe to the heads first, so that a page started afresh knows
which view and word are current before the broker's copies of them come).

What the check keeps is in memory: a process started afresh accepts a table's first genuine
message of each kind that its latest head (if it has one) does not rule out.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from shoe_daemon.audit.keys import verify_signature
from shoe_daemon.floor import topics
from shoe_daemon.floor.head import Head, parse_head
from shoe_daemon.floor.signing import Stamp, read_status_signature, status_statement
from shoe_floor import chain
from shoe_floor.signature import lodged_key
from shoe_floor.table_keys import LodgedKeys

WORDS = (b"online", b"offline")  # what an `online` message may say


@dataclass(frozen=True)
class Accepted:
    stamp: Stamp
    head: Head | None = None  # the report, for a head


@dataclass(frozen=True)
class Repeated:
    """The newest accepted message of its kind, again."""

    stamp: Stamp
    head: Head | None = None


@dataclass(frozen=True)
class Outdated:
    """Older than the table's newest, as the broker's retained copy: nothing to show."""

    stamp: Stamp
    why: str


@dataclass(frozen=True)
class Refused:
    kind: str
    detail: str
    key_id: str | None = None  # the key the message names, when it names one


Verdict = Accepted | Repeated | Outdated | Refused


@dataclass
class _Table:
    newest: dict[str, tuple[Stamp, bytes]] = field(default_factory=dict)  # leaf -> stamp, digest
    head: Head | None = None  # the newest accepted head


class StatusCheck:
    """The newest accepted stamp of each kind, per table, and the check of the next one."""

    def __init__(self, lodged: LodgedKeys):
        self.lodged = lodged
        self._tables: dict[str, _Table] = {}

    def check(self, table: str, leaf: str, payload: bytes,
              properties: list[tuple[str, str]] | None, retained: bool = False) -> Verdict:
        """`retained`: the broker's copy, delivered at a subscription."""
        what = f"{leaf} message"
        sig = read_status_signature(properties)
        if isinstance(sig, str):
            return Refused(chain.UNSIGNED, (
                f"{what}: not signed ({sig}): not shown (a table signs every status message "
                "with its key; a broker login alone does not make one the table's)"))
        public = lodged_key(table, sig.key_id, self.lodged)
        if isinstance(public, str):
            return Refused(chain.UNKNOWN_KEY, f"{what} stamped {sig.stamp.text()}: {public}: "
                                              "not shown", sig.key_id)
        if not verify_signature(public, sig.signature,
                                status_statement(leaf, table, sig.stamp, payload)):
            return Refused(chain.BAD_SIGNATURE, (
                f"{what} stamped {sig.stamp.text()}: the signature does not verify with "
                f"{table}'s key {sig.key_id} over a {leaf} of {table} (changed after signing, "
                "signed for another kind or table, or forged): not shown"))
        head = parse_head(payload) if leaf == topics.HEAD else None
        if (leaf == topics.HEAD and head is None) or (
                leaf == topics.ONLINE and payload not in WORDS):
            return Refused(chain.MALFORMED, (
                f"{what} stamped {sig.stamp.text()}: signed by {table}, yet not a "
                f"{'head report' if leaf == topics.HEAD else 'word online or offline'}: "
                "not shown"))
        known = self._tables.setdefault(table, _Table())
        digest = hashlib.sha256(payload).digest()
        newest = known.newest.get(leaf)
        if newest == (sig.stamp, digest):
            return Repeated(sig.stamp, head)
        why = self._older(known, leaf, sig.stamp, newest)
        if why and retained:
            return Outdated(sig.stamp, why)
        if why:
            return Refused(chain.STALE, (
                f"{what} stamped {sig.stamp.text()}: signed by {table}, but {why}: not shown "
                "(an old message of the table's replayed, or held back and let go)"))
        known.newest[leaf] = (sig.stamp, digest)
        if head is not None:
            known.head = head
        return Accepted(sig.stamp, head)

    @staticmethod
    def _older(known: _Table, leaf: str, stamp: Stamp,
               newest: tuple[Stamp, bytes] | None) -> str | None:
        """Why a message stamped `stamp` is not the table's latest of its kind (None: it
        may be)."""
        if newest is not None and stamp <= newest[0]:
            return f"not newer than the {leaf} accepted before ({newest[0].text()})"
        head = known.head
        current = None if head is None else {topics.STATE: head.state,
                                             topics.ONLINE: head.online}.get(leaf)
        if current is not None and stamp < current:
            return (f"older than the {leaf} its latest head names as current "
                    f"({current.text()})")
        return None

    def head(self, table: str) -> Head | None:
        """The table's newest accepted head."""
        known = self._tables.get(table)
        return None if known is None else known.head
