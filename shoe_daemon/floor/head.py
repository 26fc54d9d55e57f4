"""The table's head report: its ledger's last committed record and the broker's cursor, so
that the pit can count what the table has committed and not yet got to the floor; and the
table's heartbeat, by which the pit knows it is alive.

Retained on `{prefix}/{table}/head`, QoS 1, as canonical JSON, signed as every status
message is (shoe_daemon.floor.signing):
`{"acked":1200,"every_ms":5000,"head":1234,"online":[E,3],"state":[E,41],"wall_ns":...}`:
`head` the ledger's last committed index, `acked` the link's cursor (the broker has
acknowledged every record through it), `wall_ns` the table's wall clock when it said so,
`every_ms` the longest the link goes without a report while connected, `online` the stamp of
this connection's `online` word and `state` the stamp of the last `state` the link published
(null before the first), so that the pit can tell an old word or view from the current one.
`head - acked` is the table's own backlog, the count `shoe-daemon status` says is "to send".

A report goes (`HeadReports`):
- first thing after every (re)connect: what piled up while the link was away;
- while a backlog has lasted `every` seconds, when it changed, at most once per `every`;
- once more when a backlog reported has drained, so the pit sees zero;
- at a stop, when a backlog is left or one reported has drained since;
- and `beat` seconds after the last one otherwise: the heartbeat, one small retained
  message every few seconds, by which the pit shows the table alive (docs/floor.md). A
  record on its way to the broker delays it, a second at most, so that it does not report
  a backlog of one that is gone a millisecond later (and then that it has drained).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from shoe_daemon.floor.signing import Stamp


@dataclass(frozen=True)
class Head:
    head: int     # the ledger's last committed record index (0: an empty ledger)
    acked: int    # the broker has acknowledged every record through this index
    wall_ns: int  # the table's wall clock at the report
    every_ms: int = 5000  # the heartbeat: a report at least this often while connected
    online: Stamp | None = None  # the stamp of this connection's `online` word
    state: Stamp | None = None   # the stamp of the last `state` published (None: none yet)

    @property
    def backlog(self) -> int:
        """Committed records the broker had not acknowledged, as the table said."""
        return max(0, self.head - self.acked)

    def payload(self) -> bytes:
        return json.dumps({"acked": self.acked, "every_ms": self.every_ms, "head": self.head,
                           "online": _pair(self.online), "state": _pair(self.state),
                           "wall_ns": self.wall_ns},
                          sort_keys=True, separators=(",", ":")).encode()


def _pair(stamp: Stamp | None) -> list[int] | None:
    return None if stamp is None else [stamp.epoch, stamp.n]


def _stamp(value: Any) -> Stamp | None:
    """A stamp as the report writes it (None for null); ValueError for anything else."""
    if value is None:
        return None
    if (isinstance(value, list) and len(value) == 2
            and all(type(v) is int and v >= 0 for v in value)):
        return Stamp(*value)
    raise ValueError(f"not a stamp: {value!r}")


def parse_head(payload: bytes) -> Head | None:
    """A head report as published, or None for anything else (an empty retained message
    clears the topic)."""
    try:
        data = json.loads(payload)
        fields = [data["head"], data["acked"], data["wall_ns"], data["every_ms"]]
        online, state = _stamp(data["online"]), _stamp(data["state"])
    except (ValueError, TypeError, KeyError):
        return None
    if not all(type(v) is int and v >= 0 for v in fields) or fields[3] == 0:
        return None
    return Head(*fields, online, state)


class HeadReports:
    """When the link should report its head; the link's own thread asks (`due`) at each look
    at the ledger and says what it published (`sent`). No clock of its own: `now` is the
    link's monotonic time."""

    def __init__(self, every: float = 1.0, beat: float = 5.0):
        self.every = every
        self.beat = beat  # s: the heartbeat, a report at least this often
        self.refused = False  # the broker's ACL predates the topic: report no more
        self._connected = False  # a (re)connect not yet reported
        self._behind_since: float | None = None
        self._said: tuple[int, int] | None = None  # (head, acked) last published
        self._said_at = -math.inf

    def reconnected(self) -> None:
        self._connected = True

    @property
    def first(self) -> bool:
        """The next report is the first since a (re)connect."""
        return self._connected

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
        if not final and now - self._said_at >= self.beat and (
                not behind or now - self._said_at >= self.beat + self.every):
            return True  # the heartbeat; a record on its way delays it (a second at most)
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
