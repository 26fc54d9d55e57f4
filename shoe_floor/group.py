"""What a collector can vouch for to the others of its group: a time T such that every
records message the broker gave it before T is written (its `clear` time).

Why it is needed: with an MQTT 5 shared subscription, mosquitto hands each message to one
member of the group when the message is published (round robin), into that member's own
queue; it never moves it to another member. Each collector works through its own queue at
its own pace, so during a drain one collector can be seconds ahead of another, and the
records it holds for a table wait (`pending`) for records that are in the other's queue.
That is a gap to the first collector, but not a missing record. A missing record is one no
member still holds: a collector therefore raises a gap (and asks the table to resend) only
once every other live member of its group is clear past the moment the gap was seen
(Collector._ask_resends; the members' times are in the store's `collectors` table).

How a collector knows its clear time: the broker sends a member its queued messages as soon
as the member has room in its window (receive maximum). If, at a look, the messages held
(received, not yet acknowledged) plus those acknowledged in the last `refill` seconds are
fewer than the window, the broker's queue for this member was empty `refill` seconds ago:
every message it was given before then has arrived, and once the ones held now are written
and acknowledged, that moment is clear. A member with a full window (a backlog at the broker)
is not clear past the point its writing has reached, however far that is behind.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass


@dataclass(frozen=True)
class Member:
    """Another collector of the group, as it last wrote itself to the store (Unix ns)."""

    client_id: str
    at: int      # when it wrote this
    clear: int   # every message the broker gave it before this is written


class Clearance:
    """One collector's clear time. Called from the writer's thread only; the arrival
    sequence numbers come from the network thread (one writer each)."""

    def __init__(self, receive_maximum: int, refill: float = 0.1):
        self.receive_maximum = receive_maximum
        self.refill = refill  # s: more than the broker's round trip to refill a window
        self.clear_ns = 0
        self._since: float | None = None  # monotonic: connected since (None: not connected)
        self._acks: collections.deque[tuple[float, int]] = collections.deque()  # (when, n)
        self._candidates: collections.deque[tuple[int, int]] = collections.deque()  # (ns, seq)

    def connected(self, mono: float) -> None:
        self._since = mono

    def disconnected(self) -> None:
        self._since = None
        self._candidates.clear()

    def look(self, mono: float, wall_ns: int, held: int, arrived: int, written: int) -> None:
        """A look from the writer: `held` messages received and not acknowledged, `arrived`
        the sequence number of the last message received, `written` the last one written and
        acknowledged (messages are written in arrival order)."""
        while self._acks and mono - self._acks[0][0] > self.refill:
            self._acks.popleft()
        recent = sum(n for _, n in self._acks)
        if (held + recent < self.receive_maximum and self._since is not None
                and mono - self._since >= self.refill):
            stamp = (wall_ns - int(self.refill * 1e9), arrived)
            if self._candidates and self._candidates[-1][1] == arrived:
                self._candidates[-1] = stamp  # nothing new arrived: the later promise holds
            else:
                self._candidates.append(stamp)
        self._settle(written)

    def acked(self, mono: float, count: int, written: int) -> None:
        """`count` messages acknowledged, through sequence number `written`."""
        if count:
            self._acks.append((mono, count))
        self._settle(written)

    def _settle(self, written: int) -> None:
        while self._candidates and self._candidates[0][1] <= written:
            self.clear_ns = max(self.clear_ns, self._candidates.popleft()[0])


def behind(members: list[Member], seen_ns: int, now_ns: int, stale_ns: int,
           skew_ns: int) -> list[Member]:
    """The live members (written within `stale_ns`) not yet clear past `seen_ns` (plus the
    clocks' `skew_ns`): they may still hold the records of a gap seen then."""
    return [m for m in members if now_ns - m.at <= stale_ns and m.clear < seen_ns + skew_ns]
