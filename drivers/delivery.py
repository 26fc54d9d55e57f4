"""The host's side of go-back-N delivery (docs/shoe-line-protocol.md, "Delivery").

A plain object with no I/O, so the same rules serve the live line and capture
replay: each frame is accepted exactly once, in order, and every verdict says
what to acknowledge so the shoe knows where to resend from. A host without state
acknowledges nothing until it knows where the shoe's numbering stands (drivers/sync.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from drivers.framing import Frame
from drivers.messages import SEQ_MODULUS, Hello
from drivers.records import next_seq
from drivers.sync import SyncWatch

ACCEPTED = "accepted"
DUPLICATE = "duplicate"
GAP = "gap"
RESET = "reset"
SYNC = "sync"
UNSYNCED = "unsynced"

_HALF = SEQ_MODULUS // 2


@dataclass(slots=True)
class DeliveryStats:
    """Counts of verdicts; `accepted` counts every frame delivered, resets and syncs included.

    `resets` counts numbering restarts (a HELLO with a new boot_id), even one that did not
    carry seq 0 and so left the host to find the numbering again. `unsynced` counts frames
    heard while the host did not know where the shoe's numbering stood, `syncs` the times it
    then found it at the start of the shoe's resend window.
    """

    accepted: int = 0
    duplicates: int = 0
    gaps: int = 0
    resets: int = 0
    syncs: int = 0
    unsynced: int = 0


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

    `expected=None`: the host is not in step with the shoe's numbering (it has no state, or
    a HELLO of a boot it never saw came after that boot's first frame). It then delivers and
    acknowledges nothing (kind "unsynced") until it knows where the shoe's window starts
    (drivers/sync.py): at a HELLO numbered 0 (kind "reset"), or at the frame the shoe's
    resend rounds start from (kind "sync"). An ACK acknowledges every frame before it too,
    so taking any other frame would acknowledge frames nobody heard.
    """

    expected: int | None = None
    boot_id: str | None = None
    last_in_order: int | None = None  # given when resuming: what a resent copy re-ACKs
    stats: DeliveryStats = field(default_factory=DeliveryStats, init=False)
    watch: SyncWatch | None = field(default=None, init=False)  # while not in step
    _seen_boots: set[str] = field(default_factory=set, init=False, repr=False)

    def __post_init__(self) -> None:
        expected = self.expected
        if expected is not None and (type(expected) is not int or not 0 <= expected < SEQ_MODULUS):
            raise ValueError(f"expected must be None or 0 to {SEQ_MODULUS - 1}, got {expected!r}")
        if self.boot_id is not None:
            self._seen_boots.add(self.boot_id.lower())
        if expected is None:
            self.watch = SyncWatch()

    @classmethod
    def resuming(cls, last_seq: int, boot_id: str | None) -> Receiver:
        """Delivery picking up after `last_seq`, the last frame kept (a restart, a rollback).

        That frame may have been kept but never acknowledged (the host stopped in between):
        a resent copy is a duplicate and is acknowledged again, or the shoe resends it for ever.
        """
        return cls(expected=next_seq(last_seq), boot_id=boot_id, last_in_order=last_seq)

    @property
    def synced(self) -> bool:
        """In step with the shoe's numbering: each frame is judged against `expected`."""
        return self.expected is not None

    @property
    def waiting(self) -> bool:
        """Frames were heard that could not be taken: the host waits to sync with the shoe."""
        return self.watch is not None and self.watch.heard > 0

    def receive(self, frame: Frame) -> Verdict:
        """Judge one decoded frame; only frames with `accepted` go on to the application."""
        seq = frame.seq
        message = frame.message
        restarted = False
        if isinstance(message, Hello):
            restarted = self._hello(seq, message)
        expected = self.expected
        if expected is None:
            assert self.watch is not None
            if not self.watch.hear(frame):
                self.stats.unsynced += 1
                return Verdict(False, None, UNSYNCED)
            self.watch = None
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

    def _hello(self, seq: int, hello: Hello) -> bool:
        """A HELLO: True if it restarts the numbering at 0 (a boot's first frame).

        A boot never seen before restarts it where its HELLO is numbered 0, as does the
        first frame of the boot the host waits to sync with. Another boot's HELLO numbered
        past 0 (its first frame went by unheard) leaves the host to find the numbering."""
        boot = hello.boot_id.lower()  # hex: case does not make another boot
        new = boot not in self._seen_boots
        if new:
            self._seen_boots.add(boot)
            self.stats.resets += 1
        waited_for = self.expected is None and boot == (self.boot_id or "").lower()
        if seq == 0 and (new or waited_for):
            self.boot_id = hello.boot_id
            self.expected, self.last_in_order, self.watch = 0, None, None
            return True
        if new:
            self.boot_id = hello.boot_id
            self.expected, self.last_in_order, self.watch = None, None, SyncWatch()
        return False

    def _accept(self, seq: int, kind: str) -> Verdict:
        self.expected = (seq + 1) % SEQ_MODULUS
        self.last_in_order = seq
        self.stats.accepted += 1
        return Verdict(True, seq, kind)
