"""What a collector can vouch for to the others of its group: a time T such that every
records message the broker gave it before T is written (its `clear` time).

Why it is needed: with an MQTT 5 shared subscription, mosquitto hands each message to one
member of the group when the message is published (round robin), into that member's own
queue; it never moves it to another member. Each collector works through its own queue at
its own pace, so during a drain one collector can be seconds ahead of another, and the
records it holds for a table wait (`pending`) for records that are in the other's queue.
That is a gap to the first collector, but not a missing record; and the member that notices
a gap may see it through records another member left in `pending`, the missing ones being in
its own queue. A missing record is one no member still holds: a collector therefore raises a
gap (and asks the table to resend) only once every live member of its group, itself included,
is clear past the moment the gap was seen (Collector._ask_resends; the members' times are in
the store's `collectors` table).

How a collector knows its clear time, with no guess about timing: a barrier. The broker
handles one client's packets in order, and while handling a PUBACK it moves the next queued
messages into the freed window and queues them to the client. So the collector sends an
UNSUBSCRIBE (of a filter it never subscribed to: it changes nothing) after its
acknowledgements, noting the time T it sent it; the broker's UNSUBACK comes after every
message it sent before handling the UNSUBSCRIBE. At the UNSUBACK the collector counts what
the broker had in flight to it then: the messages received so far less those it had
acknowledged when it sent the barrier. Fewer than the window (receive maximum) means the
broker had nothing more queued for it: every message it was given before T has arrived, and
once those are written, T is clear. A full window says nothing; the next barrier will tell.
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
    """One collector's clear time, from its barriers. Messages are counted in arrival order
    (1, 2, ...) and written and acknowledged in that order."""

    def __init__(self, receive_maximum: int):
        self.receive_maximum = receive_maximum
        self.clear_ns = 0
        self._out: tuple[int, int, int] | None = None  # the barrier out: (mid, sent ns, acked)
        self._candidates: collections.deque[tuple[int, int]] = collections.deque()  # (ns, n)

    @property
    def waiting(self) -> bool:
        """A barrier is out, its answer not yet taken."""
        return self._out is not None

    def sent(self, mid: int, wall_ns: int, acked: int) -> None:
        """A barrier sent at `wall_ns` (taken before sending), `acked` messages acknowledged
        before it."""
        self._out = (mid, wall_ns, acked)

    def answered(self, mid: int, arrived: int, written: int) -> None:
        """The broker answered barrier `mid` after the `arrived`-th message; `written`
        messages are written and acknowledged now."""
        if self._out is None or self._out[0] != mid:
            return  # an answer to a barrier of an earlier connection
        _, sent_ns, acked = self._out
        self._out = None
        if arrived - acked < self.receive_maximum:  # room: nothing more was queued for it
            self._candidates.append((sent_ns, arrived))
        self.written(written)

    def written(self, written: int) -> None:
        """The first `written` messages are written and acknowledged."""
        while self._candidates and self._candidates[0][1] <= written:
            self.clear_ns = max(self.clear_ns, self._candidates.popleft()[0])

    def reconnected(self) -> None:
        """A new connection: the barrier out and what it promised no longer count."""
        self._out = None
        self._candidates.clear()


def behind(members: list[Member], seen_ns: int, now_ns: int, stale_ns: int,
           skew_ns: int) -> list[Member]:
    """The live members (written within `stale_ns`) not yet clear past `seen_ns` (plus the
    clocks' `skew_ns`): they may still hold the records of a gap seen then."""
    return [m for m in members if now_ns - m.at <= stale_ns and m.clear < seen_ns + skew_ns]
