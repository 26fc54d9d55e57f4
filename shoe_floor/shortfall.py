"""A table short at the pit: records its signed head says the broker has acknowledged, which
the store does not hold (docs/floor.md, "The head compared").

The broker acknowledges a table's record once a subscriber will get it. When that subscriber
is not the collector (mosquitto 2.0 drops a persistent session's shared subscription when it
restarts, and another records subscriber, a surveillance feed, may be there meanwhile), the
table's cursor moves past the record and nothing ever brings it to the store but the
collector asking for it. So the collector compares each head the table signs (at every
(re)connect of its own, the retained one; then each heartbeat) with the store's tip, and a
shortfall goes through these steps, one table at a time:

    seen      a head says the broker acknowledged records through `through`, and the
              store's tip is below it
    asked     every live member of the collector's group has written all the broker gave
              it before the head arrived (shoe_floor.group), and the store still lacks
              them: the table is asked to resend from the tip, and again every `every`
    alarmed   `grace` seconds after the first ask, still short: a `short` alarm
    (closed)  the store holds them: said in the log, and with a `repaired` alarm when a
              `short` one was raised

Records the broker handed to this collector or to another member are written before the
group is clear, so a shortfall that is only records in flight closes unasked.
"""

from __future__ import annotations

from dataclasses import dataclass

ASK, ALARM, CLOSED, REPAIRED = "ask", "alarm", "closed", "repaired"


@dataclass
class Shortfall:
    start: int      # the first record the store lacked when the head was seen
    through: int    # the head's `acked`: the broker acknowledged every record through it
    seen: float     # monotonic, when the head was taken
    seen_ns: int    # wall clock, for the group's clear times
    asked_at: float | None = None  # the first resend asked
    again_at: float = 0.0  # the last one
    alarmed: bool = False

    def due(self, have: int, now: float, clear: bool, grace: float,
            every: float) -> str | None:
        """What to do now that the store's tip is `have` (`clear`: the group is clear past
        the head), if anything: ASK, ALARM, CLOSED (nothing was missing) or REPAIRED."""
        if have >= self.through:
            return REPAIRED if self.asked_at is not None else CLOSED
        if self.asked_at is None:
            return ASK if clear else None
        if not self.alarmed and now - self.asked_at >= grace:
            return ALARM
        return ASK if now - self.again_at >= every else None

    def asked(self, now: float) -> None:
        if self.asked_at is None:
            self.asked_at = now
        self.again_at = now


def noted(short: Shortfall | None, acked: int, have: int, now: float,
          now_ns: int) -> Shortfall | None:
    """The table's shortfall after a head saying `acked`, the store's tip being `have`: a
    new one, or the one already open (kept as it is: its ask brings everything after the
    tip), or None when nothing is missing."""
    if short is not None:
        return short
    if acked <= have:
        return None
    return Shortfall(have + 1, acked, now, now_ns)
