"""The simulated shoe's DEAL button: a FIFO a person or a test writes a line into.

The shoe (`python -m hil.shoe --deal-button PATH`) makes the FIFO and holds it open for
reading and writing, so that it never sees an end of file between presses; each line written
there is one press. `press_deal(path)` is the test's (and the demo's) finger on the button.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path


class DealButton:
    """The FIFO at `path`, made at start and removed at the end; counts whole lines."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._partial = b""  # a line being written, not yet ended
        with contextlib.suppress(FileNotFoundError):
            if not stat.S_ISFIFO(path.lstat().st_mode):
                raise ValueError(f"{path} exists and is not a FIFO")
            path.unlink()  # a button left behind by a shoe that was killed
        os.mkfifo(path, 0o600)
        # Read and write: no end of file when a presser closes its end (Linux's FIFO rule).
        self.fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)

    def fileno(self) -> int:
        return self.fd

    def presses(self) -> int:
        """The presses (whole lines) written since the last call."""
        data = b""
        while True:
            try:
                chunk = os.read(self.fd, 4096)
            except BlockingIOError:
                break
            if not chunk:
                break
            data += chunk
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        return len(lines)

    def close(self) -> None:
        os.close(self.fd)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


def press_deal(path: Path | str) -> None:
    """Press the shoe's DEAL button once: one line into its FIFO. A clear error when no
    shoe has the button (nothing at `path`, not a FIFO, or the shoe is gone)."""
    path = Path(path)
    try:
        if not stat.S_ISFIFO(path.stat().st_mode):
            raise RuntimeError(f"{path} is not a shoe's DEAL button (not a FIFO)")
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise RuntimeError(f"no DEAL button at {path}: is the shoe running?") from None
    except OSError as e:
        if e.errno == errno.ENXIO:  # a FIFO nobody reads: the shoe that made it is gone
            raise RuntimeError(f"no shoe holds the DEAL button at {path}") from None
        raise
    try:
        os.write(fd, b"\n")
    finally:
        os.close(fd)
