"""A shoe the test writes frame by frame into a real pseudo terminal, with the real daemon
process on the other side: the test knows to the millisecond when each frame went out (the
race of a stake with `BTN,DEAL`, the bench). The daemon's ACKs and lamps are read and
dropped so that the line never fills."""

from __future__ import annotations

import contextlib
import os
import secrets
import select
import threading
import time
import tty
from pathlib import Path

from drivers.framing import encode
from drivers.messages import Hello, Message
from drivers.records import next_seq
from hil.script import parse_script


class PtyShoe:
    def __init__(self, workdir: Path) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        (workdir / "shoe").symlink_to(os.ttyname(self.slave))
        self.seq = 0
        self._stop = threading.Event()
        self._drain = threading.Thread(target=self._read, daemon=True)
        self._drain.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if ready:
                try:
                    os.read(self.master, 65536)
                except OSError:
                    return

    def send(self, script: str | list[Message]) -> float:
        """Write the frames; the time (perf_counter) right after the last byte went out."""
        messages = parse_script(script) if isinstance(script, str) else script
        data = b""
        for message in messages:
            if isinstance(message, Hello):
                self.seq = 0
            data += encode(self.seq, message)
            self.seq = next_seq(self.seq)
        os.write(self.master, data)
        return time.perf_counter()

    def hello(self) -> float:
        return self.send(f"HELLO:{secrets.token_hex(4)}")

    def close(self) -> None:
        self._stop.set()
        self._drain.join(2)
        for fd in (self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)


def wait_for_log(workdir: Path, event: str, count: int = 1, timeout: float = 30.0) -> None:
    """Until the daemon's log (JSON lines) holds `event` `count` times."""
    path = workdir / "daemon.log"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().count(f'"{event}"') >= count:
            return
        time.sleep(0.02)
    raise AssertionError(f"the daemon did not log {event} {count} times")
