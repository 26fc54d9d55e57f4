"""The table's head report: its ledger's last committed record and the broker's cursor, so
that the pit can count what the table has committed and not yet got to the floor.

Retained on `{prefix}/{table}/head`, QoS 1, as canonical JSON:
`{"acked":1200,"head":1234,"wall_ns":1767225600000000000}`: `head` the ledger's last
committed index, `acked` the link's cursor (the broker has acknowledged every record
through it), `wall_ns` the table's wall clock when it said so. `head - acked` is the
table's own backlog, the count `shoe-daemon status` says is "to send".

The pit already knows the head from the records it receives while the link keeps up, so a
report goes only when it says what the records cannot (`HeadReports`):
- first thing after every (re)connect: what piled up while the link was away;
- while a backlog has lasted `every` seconds, when it changed, at most once per `every`;
- once more when a backlog reported has drained, so the pit sees zero;
- at a stop, when a backlog is left or one reported has drained since.
A table keeping up (each record acknowledged within milliseconds of its commit) sends one
report per connection.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Head:
    head: int     # the ledger's last committed record index (0: an empty ledger)
    acked: int    # the broker has acknowledged every record through this index
    wall_ns: int  # the table's wall clock at the report

    @property
    def backlog(self) -> int:
        """Committed records the broker had not acknowledged, as the table said."""
        return max(0, self.head - self.acked)

    def payload(self) -> bytes:
        return json.dumps({"acked": self.acked, "head": self.head, "wall_ns": self.wall_ns},
                          sort_keys=True, separators=(",", ":")).encode()


def parse_head(payload: bytes) -> Head | None:
    """A head report as published, or None for anything else (an empty retained message
    clears the topic)."""
    try:
        data = json.loads(payload)
        fields = [data["head"], data["acked"], data["wall_ns"]]
    except (ValueError, TypeError, KeyError):
        return None
    if not all(type(v) is int and v >= 0 for v in fields):
        return None
    return Head(*fields)


class HeadReports:
    """When the link should report its head; the link's own thread asks (`due`) at each look
    at the ledger and says what it published (`sent`). No clock of its own: `now` is the
    link's monotonic time."""

    def __init__(self, every: float = 1.0):
        self.every = every
        self.refused = False  # the broker's ACL predates the topic: report no more
        self._connected = False  # a (re)connect not yet reported
        self._behind_since: float | None = None
        self._said: tuple[int, int] | None = None  # (head, acked) last published
        self._said_at = -math.inf

    def reconnected(self) -> None:
        self._connected = True

    def due(self, head: int, acked: int, now: float, final: bool = False) -> bool:
        if self.refused:
            return False
        behind = head > acked
        if not behind:
            self._behind_since = None
        elif self._behind_since is None:
            self._behind_since = now
        if self._connected:
            return True
        if (head, acked) == self._said:
            return False
        said_behind = self._said is not None and self._said[0] > self._said[1]
        if final:
            return behind or said_behind
        if now - self._said_at < self.every:
            return False
        lasting = self._behind_since is not None and now - self._behind_since >= self.every
        return lasting or (said_behind and not behind)

    def sent(self, head: int, acked: int, now: float) -> None:
        self._said, self._said_at, self._connected = (head, acked), now, False
