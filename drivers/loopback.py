"""An in-process shoe line, as python-can's `virtual` interface: the host's end is a
`Transport`, the other end is whoever plays the shoe in the same process (a test, mostly).

No device and no timing of its own: bytes written at one end are at the other at once. Reads
wait on a condition, so the shoe may be played from another thread as well as between two
calls of the link. Lines are named: a service built from settings with `transport =
"loopback"` takes the line its `port` setting names, the one `line(name)` gives the test.
"""

from __future__ import annotations

import itertools
import threading

from drivers.transport import Settings, Transport, TransportLost, register


class LoopbackLine:
    """One line, both directions; the shoe's end is `send`, `receive`, `unplug`, `replug`."""

    def __init__(self, name: str = "loopback") -> None:
        self.name = name
        self._cond = threading.Condition()
        self._to_host = bytearray()
        self._to_shoe = bytearray()
        self._plugged = True
        self._plugging = 0  # counts unplugs: a host end opened before the last one is dead

    @property
    def plugged(self) -> bool:
        return self._plugged

    def send(self, data: bytes) -> None:
        """Bytes from the shoe to the host; lost while the cable is out."""
        with self._cond:
            if self._plugged:
                self._to_host += data
                self._cond.notify_all()

    def receive(self, timeout: float = 0.0) -> bytes:
        """Everything the host wrote since the last call, waiting up to `timeout` s for some."""
        with self._cond:
            self._cond.wait_for(lambda: self._to_shoe, timeout)
            data = bytes(self._to_shoe)
            self._to_shoe.clear()
            return data

    def unplug(self) -> None:
        """Cable out: the host's end is lost (its next read or write says so), bytes dropped."""
        with self._cond:
            self._plugged = False
            self._plugging += 1
            self._to_host.clear()
            self._to_shoe.clear()
            self._cond.notify_all()

    def replug(self) -> None:
        """Cable back in: the host may open the line again."""
        with self._cond:
            self._plugged = True


class LoopbackTransport(Transport):
    """The host's end of a `LoopbackLine`."""

    def __init__(self, line: LoopbackLine) -> None:
        self.line = line
        self.name = f"loopback:{line.name}"
        self._plugging: int | None = None  # the line's unplug count when opened; None: closed

    @property
    def is_open(self) -> bool:
        return self._plugging is not None

    def open(self) -> None:
        line = self.line
        with line._cond:
            if not line._plugged:
                raise TransportLost(f"{self.name}: no such device")
            self._plugging = line._plugging

    def read(self, timeout: float) -> bytes:
        line = self.line
        with line._cond:
            line._cond.wait_for(lambda: line._to_host or self._lost(), max(timeout, 0.0))
            self._check()
            data = bytes(line._to_host)
            line._to_host.clear()
            return data

    def write(self, data: bytes) -> None:
        line = self.line
        with line._cond:
            self._check()
            line._to_shoe += data
            line._cond.notify_all()

    def close(self) -> None:
        self._plugging = None

    def _lost(self) -> bool:
        return self._plugging is None or self._plugging != self.line._plugging

    def _check(self) -> None:
        if self._plugging is None:
            raise TransportLost(f"{self.name}: not open")
        if self._lost():
            self._plugging = None
            raise TransportLost(f"{self.name}: unplugged")


_lines: dict[str, LoopbackLine] = {}
_lines_lock = threading.Lock()
_unnamed = itertools.count(1)


def line(name: str) -> LoopbackLine:
    """The line called `name`, made on first use."""
    with _lines_lock:
        return _lines.setdefault(name, LoopbackLine(name))


def pair(name: str | None = None) -> tuple[LoopbackTransport, LoopbackLine]:
    """A host transport and the line it is on (a fresh name unless one is given)."""
    found = line(name if name is not None else f"loopback-{next(_unnamed)}")
    return LoopbackTransport(found), found


def from_settings(settings: Settings) -> LoopbackTransport:
    """The `loopback` transport: the line named by the `port` setting."""
    return LoopbackTransport(line(str(settings["port"])))


register("loopback", from_settings)
