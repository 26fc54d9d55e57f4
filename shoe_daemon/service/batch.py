"""The table's order of events, as the state it keeps between them (docs/architecture.md,
"The table's order of events"): the batch in flight, what the display has yet to take, and
the game against the ledger. service/table.py moves them, one method a transition; these
types hold the state and say its invariants.

A batch of frames (and, as a batch of its own, a console action) goes

    played ──commit──> committed ──acknowledged──> shown
       └─── refused ──> dropped, and the game is AHEAD of the ledger until it is rebuilt

- played: the game moved; the frames' records, the lines they decided and the money's
  records wait in the `Batch`. Nothing of them has left the table.
- committed: the backlog, then the batch, in one ledger transaction; then, and only then,
  the lines are published (results file, journal), the KEY decisions go to the console file,
  the console's positions move on, and the lines and money wait for the display (`Unshown`).
- acknowledged: the link's ACKs and lamp are on the line; the console's state, then the
  display takes the whole batch, one view (the shoe never waits for a screen).
- refused: the ledger would not take it. Nothing is published or acknowledged; the game,
  which played it, is `AHEAD` until rebuilt from the ledger (the link rewinds and the shoe
  resends; an action's refusal rebuilds at once).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

Item = tuple[str, dict[str, Any]]  # a ledger record to be: its kind and body
Line = dict[str, Any]  # a published line (coup.result, irregularity, ...)


@dataclass(frozen=True)
class KeyDecision:
    """A shoe's KEY as it was decided when played; it goes to the console file once its
    frame is committed."""

    frame: int  # its frame's place among the batch's, from 0
    seq: int
    decision: dict[str, Any]


@dataclass
class Batch:
    """Played, not committed: the frames played since the last commit and what they decided,
    in their order. A commit takes it whole (`taken`); a refused commit drops it whole.

    Invariant: empty between two turns of the shoe's link (each turn ends with a commit that
    takes or drops it), so a console action never shares a transaction with frames.
    """

    records: list[Item] = field(default_factory=list)  # frame, its lines, its money's, ...
    lines: list[Line] = field(default_factory=list)  # to publish once committed
    keys: list[KeyDecision] = field(default_factory=list)
    frames: int = 0  # frames played in it: the console's positions move by them
    last_seq: int | None = None  # the last of them

    @property
    def empty(self) -> bool:
        """Nothing for the ledger (a table without one keeps no records, only lines)."""
        return not self.records

    def played(self, seq: int, records: list[Item], lines: list[Line],
               decision: dict[str, Any] | None = None) -> None:
        """One frame played: its records (none without a ledger) and lines join the batch,
        after those of the frames before it; a KEY's decision with its place."""
        if decision is not None:
            self.keys.append(KeyDecision(self.frames, seq, decision))
        self.records += records
        self.lines += lines
        self.frames += 1
        self.last_seq = seq

    def taken(self) -> Batch:
        """The batch as played, handed over whole; this one starts afresh."""
        whole = Batch(self.records, self.lines, self.keys, self.frames, self.last_seq)
        self.records, self.lines, self.keys = [], [], []
        self.frames, self.last_seq = 0, None
        return whole


@dataclass
class Unshown:
    """Committed (or, for `view`, played), not yet taken by the display, which takes it all
    after the link's ACKs: one view for the batch."""

    lines: list[Line] = field(default_factory=list)  # committed lines for the display
    money: bool = False  # committed money records the display has not shown
    view: bool = False  # the game moved since the display's last view

    def committed(self, lines: list[Line], money: bool) -> None:
        self.lines += lines
        self.money = self.money or money

    def taken_lines(self) -> list[Line]:
        lines, self.lines = self.lines, []
        return lines


class Standing(Enum):
    """The game against the ledger."""

    IN_STEP = "in step"  # the game is what the ledger's records make it
    AHEAD = "ahead"  # it played what the ledger refused: nothing played on it is committed,
    #                  and it is rebuilt from the ledger before anything else is taken
