"""The display's HTTP server: one table's public view, on the shared SSE server (`sse`).

The table's loop only hands over an immutable snapshot (`publish(bytes)`) and goes on; each
display gets the full state first, then the changes, each whole, as an `event: state`.

At most one state goes to the screens every `MIN_INTERVAL` (20 ms, 50 a second: more than a
60 Hz screen can show one by one): a state published sooner waits for the rest of the
interval, and one published while another waits replaces it, so the screens always get the
latest state at once or within 20 ms. A burst of changes (a resent backlog, a shoe at line
rate) thus costs the screens' thread, which shares the interpreter with the table's loop, at
most 50 fan-outs a second, whatever the number of changes (docs/display.md, "One view a
batch").
"""

from __future__ import annotations

import threading
from importlib import resources
from pathlib import Path
from typing import Any

from shoe_daemon.display.sse import SseServer

QUEUE_SIZE = 32  # snapshots a client may lag behind before it is dropped
MIN_INTERVAL = 0.02  # s between two states sent to the screens
STATIC = Path(str(resources.files("shoe_daemon.display") / "static"))


def _event(state: bytes) -> bytes:
    return b"event: state\ndata: " + state + b"\n\n"


class DisplayServer(SseServer):
    """Serves the page, the snapshot and the stream of one table's public view."""

    STATIC = STATIC
    NAME = "display"

    def __init__(self, host: str, port: int, initial: bytes, queue_size: int = QUEUE_SIZE,
                 log: Any = None, min_interval: float = MIN_INTERVAL) -> None:
        super().__init__(host, port, queue_size, log)
        self.min_interval = min_interval
        self._state = initial
        self._lock = threading.Lock()
        self._pending: bytes | None = None  # the latest state not yet sent
        self._scheduled = False  # a send of `_pending` is scheduled on the server's loop
        self._sent_at = float("-inf")  # the server loop's time of the last send
        self.sent = 0  # states sent to the screens, since start

    def publish(self, state: bytes) -> None:
        """A new committed snapshot for every display; never blocks the caller."""
        with self._lock:
            self._pending = state
            if self._scheduled:
                return  # the send already scheduled takes this state instead
            self._scheduled = True
        self.call_soon(self._send_soon)

    def snapshot(self) -> bytes:
        pending = self._pending
        return self._state if pending is None else pending

    def first_event(self) -> bytes:
        return _event(self.snapshot())

    def _send_soon(self) -> None:
        assert self._loop is not None
        wait = self._sent_at + self.min_interval - self._loop.time()
        if wait > 0:
            self._loop.call_later(wait, self._send)
        else:
            self._send()

    def _send(self) -> None:
        assert self._loop is not None
        with self._lock:
            state, self._pending, self._scheduled = self._pending, None, False
        if state is None:
            return
        self._sent_at = self._loop.time()
        self._state = state
        self.sent += 1
        self.fan_out(_event(state))
