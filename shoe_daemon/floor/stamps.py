"""The link's stamps: where each of its status messages (`state`, `online`, `head`) stands
among the table's, so that the pit can refuse an old genuine one replayed by whoever holds
the table's broker login (docs/floor.md, "The status messages").

A stamp is (epoch, n). `n` counts the status messages the link has signed since it started,
in memory. `epoch` is the link's start: at each start the greater of the last start's epoch
plus one and the wall clock in nanoseconds, kept in `STATE_DIR/floor/epoch` (fsync, rename)
before the first message goes. So a stamp is greater than every stamp before it, across
restarts, crashes and power losses, whatever the clock does while the file is kept; and a
state directory begun anew starts from the wall clock, past the old epochs unless the clock
is behind the old table's.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from shoe_daemon.floor.cursor import write_durably
from shoe_daemon.floor.signing import Stamp

EPOCH = Path("floor") / "epoch"


def last_epoch(state_dir: Path) -> int:
    """The epoch of the link's last start (0: none, or a file that is not one)."""
    try:
        return int((state_dir / EPOCH).read_text().strip())
    except (OSError, ValueError):
        return 0


def next_epoch(state_dir: Path) -> int:
    """This start's epoch, written before it is used. OSError if it cannot be written: the
    caller decides (the link goes on with it, and says so)."""
    epoch = max(last_epoch(state_dir) + 1, time.time_ns())
    write_durably(state_dir / EPOCH, str(epoch))
    return epoch


class Stamps:
    """The stamps of one start of the link, handed out in order to the link's two threads
    (paho's signs the will and the online word at each connect, the link's the rest)."""

    def __init__(self, epoch: int):
        self.epoch = epoch
        self._n = 0
        self._lock = threading.Lock()

    def next(self) -> Stamp:
        with self._lock:
            self._n += 1
            return Stamp(self.epoch, self._n)
