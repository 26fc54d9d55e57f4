"""Where a host without state joins the shoe's numbering (docs/shoe-line-protocol.md, "The
host without state").

An ACK is cumulative: acknowledging a frame acknowledges every frame before it. So a host
with no record of the shoe's numbering (a new install, a lost ledger) must not take the first
frame it happens to hear: the frames before it may never have reached anybody (a 1.0 shoe
deals without waiting for its HELLO's ACK, and what it sent before the port was opened is
gone). It listens, acknowledging nothing, until it knows where the shoe's window begins.

A `HELLO` numbered 0 opens a boot, and nothing of that boot came before it: delivery
(drivers/delivery.py) starts there at once. Otherwise the go-back-N resend tells, and that is
this watch's part. While nobody acknowledges, the shoe's oldest unacknowledged frame cannot
move, and every resend round starts there. A round start is a frame numbered at or below the
frame heard just before it, with not a byte dropped between them (`Frame.adjacent`): a frame
damaged at the head of a round leaves its bytes on the line, so the frame after it never
counts as a start. When ROUNDS round starts were heard at one number, with no lower number
heard since the first of them, that number is the window's start. A frame sent twice in a
row, or a round whose head vanished, starts a "round" above it, which the next round's
lower start forgets. Only a head that vanished without a trace in ROUNDS rounds, with no
intact copy of it heard between them, could mislead it.

Numbers are compared on the ring (65535 wraps to 0), relative to the first frame heard; one
more than SPAN away is not of the window heard so far (another boot, a window that moved):
the watch starts again from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from drivers.framing import Frame
from drivers.messages import SEQ_MODULUS

ROUNDS = 3  # resend rounds that must start at one number, nothing lower heard between
SPAN = 64  # numbers either side of the first frame heard that can belong to one window


@dataclass(slots=True, eq=False)
class SyncWatch:
    """What a host without state has heard of one boot's numbering; `hear` each frame until
    it says the frame just heard starts the shoe's window. A HELLO of another boot needs a
    new watch: its numbers say nothing of this one's."""

    heard: int = 0  # frames heard while watching
    _base: int | None = None  # the first frame's number: positions are relative to it
    _previous: int | None = None  # the position of the frame heard last
    # Round starts heard at each position, since the first of them, with nothing lower heard.
    _starts: dict[int, int] = field(default_factory=dict)

    def hear(self, frame: Frame) -> bool:
        """One frame heard; True if the shoe's window starts at this very frame."""
        self.heard += 1
        position = self._position(frame.seq)
        starts = self._starts
        for above in [p for p in starts if p > position]:
            del starts[above]  # a lower number was heard: the window does not start there
        previous, self._previous = self._previous, position
        if not frame.adjacent or previous is None or position > previous:
            return False
        starts[position] = starts.get(position, 0) + 1
        return starts[position] >= ROUNDS

    def _position(self, seq: int) -> int:
        if self._base is None:
            self._base = seq
        offset = (seq - self._base) % SEQ_MODULUS
        position = offset - SEQ_MODULUS if offset >= SEQ_MODULUS // 2 else offset
        if abs(position) > SPAN:
            self._restart()
            self._base, position = seq, 0
        return position

    def _restart(self) -> None:
        self._base = self._previous = None
        self._starts.clear()
