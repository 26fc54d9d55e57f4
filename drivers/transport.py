"""One transport interface, many drivers (as python-can's BusABC): the daemon never knows
whether the shoe's bytes come over a serial line or a USB vendor interface."""

from __future__ import annotations

from abc import ABC, abstractmethod


class TransportLost(Exception):
    """The link went away: unplugged, EIO, the device node gone. Reopen later."""


class Transport(ABC):
    """A byte pipe to the shoe. Reads return as soon as any bytes are there."""

    name: str = "transport"

    @abstractmethod
    def open(self) -> None:
        """Open the link; raises TransportLost if the device is not there now."""

    @abstractmethod
    def read(self, timeout: float) -> bytes:
        """Bytes that arrived, waiting at most `timeout` s; b"" if none. TransportLost if gone."""

    @abstractmethod
    def write(self, data: bytes) -> None:
        """Send all of `data`; TransportLost if the link is gone."""

    @abstractmethod
    def close(self) -> None:
        """Release the device; safe to call twice or on a link that never opened."""

    @property
    def is_open(self) -> bool:
        return False
