"""The display's HTTP server: one table's public view, on the shared SSE server (`sse`).

The table's loop only hands over an immutable snapshot (`publish(bytes)`) and goes on; each
display gets the full state first, then every change, each whole, as an `event: state`.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from shoe_daemon.display.sse import SseServer

QUEUE_SIZE = 32  # snapshots a client may lag behind before it is dropped
STATIC = Path(str(resources.files("shoe_daemon.display") / "static"))


def _event(state: bytes) -> bytes:
    return b"event: state\ndata: " + state + b"\n\n"


class DisplayServer(SseServer):
    """Serves the page, the snapshot and the stream of one table's public view."""

    STATIC = STATIC
    NAME = "display"

    def __init__(self, host: str, port: int, initial: bytes, queue_size: int = QUEUE_SIZE,
                 log: Any = None) -> None:
        super().__init__(host, port, queue_size, log)
        self._state = initial

    def publish(self, state: bytes) -> None:
        """A new committed snapshot for every display; never blocks the caller."""
        self.call_soon(self._fan_out_state, state)

    def snapshot(self) -> bytes:
        return self._state

    def first_event(self) -> bytes:
        return _event(self._state)

    def _fan_out_state(self, state: bytes) -> None:
        self._state = state
        self.fan_out(_event(state))
