"""systemd's service notification protocol (sd_notify), with the standard library alone.

Under `Type=notify` systemd hands the service `$NOTIFY_SOCKET`, a unix datagram socket
(abstract when it starts with `@`), and, with `WatchdogSec=`, `$WATCHDOG_USEC` (and
`$WATCHDOG_PID`). The service sends newline-separated `KEY=value` assignments:
`READY=1` once it serves, `STATUS=...` for `systemctl status`, `WATCHDOG=1` at least once
per interval (else systemd kills and restarts it), `STOPPING=1` when it shuts down.

The daemon calls `tick()` from its main loop itself, never from a thread: a hung loop then
stops the pings and the watchdog does its job. Without `$NOTIFY_SOCKET` (a terminal, the
tests) every call does nothing. A failed send is not fatal: the service keeps running.

The socket is non-blocking: a send to a reader that is slow (systemd busy, the socket's
queue of a few datagrams full) would otherwise block, and with it the loop that must ping.
What cannot go now stays pending, merged with what comes next (the latest STATUS wins), and
goes with the next call, one beat of the loop later.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Mapping


def socket_address(name: str) -> str:
    """`@name` is Linux's abstract namespace, written with a leading NUL byte."""
    return "\0" + name[1:] if name.startswith("@") else name


class Notifier:
    """Sends READY, STATUS, WATCHDOG and STOPPING to systemd, if it is listening."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        self.address = env.get("NOTIFY_SOCKET") or None
        self.watchdog_interval = self._watchdog_interval(env)
        self.status_text: str | None = None
        self.ready_sent = False
        self.pings = 0
        self.errors = 0
        self._pending: dict[str, str] = {}
        self._last_ping = 0.0
        self._sock: socket.socket | None = None
        if self.address:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.setblocking(False)

    @staticmethod
    def _watchdog_interval(env: Mapping[str, str]) -> float | None:
        """Seconds between required pings, or None when no watchdog is asked for us."""
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        if not usec.isdigit() or int(usec) == 0:
            return None
        if pid and pid != str(os.getpid()):
            return None  # meant for another process (a wrapper that exec'd us would match)
        return int(usec) / 1_000_000

    @property
    def enabled(self) -> bool:
        return self._sock is not None

    @property
    def ping_every(self) -> float | None:
        """Half the watchdog interval, as sd_watchdog_enabled(3) advises."""
        return None if self.watchdog_interval is None else self.watchdog_interval / 2

    def send(self, **fields: str) -> bool:
        """Queue KEY=value assignments and send all that are pending, in one datagram.

        True once sent; False if nobody listens, or if the socket is full (they stay
        pending for the next call)."""
        if self._sock is None or self.address is None:
            return False
        self._pending.update(fields)
        text = "\n".join(f"{key}={value}" for key, value in self._pending.items())
        try:
            self._sock.sendto(text.encode(), socket_address(self.address))
        except BlockingIOError:
            return False
        except OSError:
            self.errors += 1
            self._pending.clear()  # no listener (yet): nothing to keep for it
            return False
        if "READY" in self._pending:
            self.ready_sent = True
        if "WATCHDOG" in self._pending:
            self.pings += 1
        self._pending.clear()
        return True

    def ready(self, status: str) -> None:
        self.status_text = status
        self.send(READY="1", STATUS=status)

    def status(self, text: str) -> None:
        """Sent only when it changes: `systemctl status` shows the latest line."""
        if text != self.status_text:
            self.status_text = text
            self.send(STATUS=text)
        elif self._pending:
            self.send()

    def tick(self, now: float | None = None) -> None:
        """WATCHDOG=1 when half the interval has passed since the last ping."""
        every = self.ping_every
        if every is None or self._sock is None:
            return
        now = time.monotonic() if now is None else now
        if now - self._last_ping >= every:
            self._last_ping = now
            self.send(WATCHDOG="1")
        elif self._pending:
            self.send()

    def stopping(self, status: str) -> None:
        self.status_text = status
        self.send(STOPPING="1", STATUS=status)

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
