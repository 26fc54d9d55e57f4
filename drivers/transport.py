"""One transport interface, many drivers, chosen by name (as python-can's `BusABC` and its
interface table): the link never knows whether the shoe's bytes come over a serial line, a
USB vendor interface or the in-process loopback the tests use.

Each driver module registers its factory under its name when imported. The built-in names
are known here without importing their modules, so validating a setting never loads pyusb,
and only the transport a service uses is imported.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any


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

    @property
    def where(self) -> str:
        """Where the shoe is awaited, for a person reading the status ("/dev/shoe")."""
        return self.name


Settings = Mapping[str, Any]
"""The service's settings by name (`port`, `baud`, `usb_vendor`, ...); each driver reads its own."""

TransportFactory = Callable[[Settings], Transport]

BUILTIN: dict[str, str] = {
    "serial": "drivers.serial_transport",
    "usb": "drivers.usb_transport",
    "loopback": "drivers.loopback",
}
"""Built-in transport names and the module that registers each."""

_factories: dict[str, TransportFactory] = {}


def register(name: str, factory: TransportFactory) -> None:
    """Make `factory` the transport called `name`; a name is taken once, by one module."""
    known = _factories.get(name)
    if known is not None and known.__module__ != factory.__module__:
        raise ValueError(f"transport {name!r} is already registered by {known.__module__}")
    _factories[name] = factory


def names() -> tuple[str, ...]:
    """Every transport name a setting may give, sorted."""
    return tuple(sorted(BUILTIN.keys() | _factories.keys()))


def make_transport(name: str, settings: Settings) -> Transport:
    """The transport registered as `name`, built from the settings; ValueError if unknown.

    A driver's own refusal (a bad baud rate, a missing USB backend) is its ValueError,
    ImportError or AttributeError, raised as it is.
    """
    if name not in _factories and name in BUILTIN:
        importlib.import_module(BUILTIN[name])
    factory = _factories.get(name)
    if factory is None:
        raise ValueError(f"no transport {name!r}; known: {', '.join(names())}")
    return factory(settings)
