"""The host's side of go-back-N delivery (docs/shoe-line-protocol.md, "Delivery").

A plain object with no I/O, so the same rules serve the live line and capture
replay: each frame is accepted exactly once, in order, and every verdict says
what to acknowledge so the shoe knows where to resend from.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from drivers.framing import Frame
from drivers.messages import SEQ_MODULUS, Hello
from drivers.records import next_seq

ACCEPTED = "accepted"
DUPLICATE = "duplicate"
GAP = "gap"
RESET = "reset"
SYNC = "sync"

_HALF = SEQ_MODULUS // 2


@dataclass(slots=True)
class DeliveryStats:
    """Counts of verdicts; `accepted` counts every frame delivered, resets and syncs included.

    `resets` counts numbering restarts (a HELLO with a new boot_id), even the rare
    one whose HELLO was then dropped because it did not carry seq 0.
    """

    accepted: int = 0
    duplicates: int = 0
    gaps: int = 0
    resets: int = 0
    syncs: int = 0


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether to deliver the frame, and the cumulative ACK to send (None: send none yet)."""

    accepted: bool
    ack: int | None
    kind: str


@dataclass(slots=True, eq=False)
class Receiver:
    """Accepts only the next expected seq; older is a duplicate, newer a gap.

    Distances are taken modulo 65536, so numbering wraps at 65535 -> 0: a seq up to
    half the ring ahead of `expected` is a gap, anything else is behind (a duplicate).

    `expected=None` means the host has no state (it started while the shoe was
    mid-shoe): the first frame is accepted whatever its seq (kind "sync"). The shoe
    sends HELLO only on power-up or reconnect, so without this a restarted host
    would never accept anything until the shoe rebooted.
    """

    expected: int | None = None
    boot_id: str | None = None
    last_in_order: int | None = None  # given when resuming: what a resent copy re-ACKs
    stats: DeliveryStats = field(default_factory=DeliveryStats, init=False)
    _seen_boots: set[str] = field(default_factory=set, init=False, repr=False)

    def __post_init__(self) -> None:
        expected = self.expected
        if expected is not None and (type(expected) is not int or not 0 <= expected < SEQ_MODULUS):
            raise ValueError(f"expected must be None or 0 to {SEQ_MODULUS - 1}, got {expected!r}")
        if self.boot_id is not None:
            self._seen_boots.add(self.boot_id.lower())

    @classmethod
    def resuming(cls, last_seq: int, boot_id: str | None) -> Receiver:
        """Delivery picking up after `last_seq`, the last frame kept (a restart, a rollback).

        That frame may have been kept but never acknowledged (the host stopped in between):
        a resent copy is a duplicate and is acknowledged again, or the shoe resends it for ever.
        """
        return cls(expected=next_seq(last_seq), boot_id=boot_id, last_in_order=last_seq)

    def receive(self, frame: Frame) -> Verdict:
        """Judge one decoded frame; only frames with `accepted` go on to the application."""
        seq = frame.seq
        message = frame.message
        restarted = False
        if isinstance(message, Hello):
            boot = message.boot_id.lower()  # hex: case does not make another boot
            if boot not in self._seen_boots:
                self._seen_boots.add(boot)
                self.boot_id = message.boot_id
                self.expected = 0
                self.last_in_order = None
                self.stats.resets += 1
                restarted = True
        expected = self.expected
        if expected is None:
            self.stats.syncs += 1
            return self._accept(seq, SYNC)
        distance = (seq - expected) % SEQ_MODULUS
        if distance == 0:
            return self._accept(seq, RESET if restarted else ACCEPTED)
        if distance < _HALF:
            self.stats.gaps += 1
            return Verdict(False, self.last_in_order, GAP)
        self.stats.duplicates += 1
        return Verdict(False, self.last_in_order, DUPLICATE)

    def _accept(self, seq: int, kind: str) -> Verdict:
        self.expected = (seq + 1) % SEQ_MODULUS
        self.last_in_order = seq
        self.stats.accepted += 1
        return Verdict(True, seq, kind)
