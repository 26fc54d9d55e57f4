"""The shoe on an RS-232 / USB-serial line (or a USB CDC-ACM shoe, which is driven as one).

Modelled on pyserial's `serial.threaded` reader loop, except that the daemon's own loop calls
`read()`: the port is opened non-blocking and `read()` waits in poll() on the descriptor, so
it returns the moment any byte arrives (the latency budget from a frame's last byte to its
result is a few ms) and the CPU sleeps while the line is quiet.

Every way a line dies is reported as `TransportLost` and the port is closed, so the caller's
only recovery is `open()` again later: an unplugged USB-serial adapter (EIO, or a descriptor
that polls readable but reads nothing), a pseudo terminal whose master side closed (hangup),
the device node gone, a write that the line does not take within `write_timeout`.
"""

from __future__ import annotations

import contextlib
import errno
import math
import select

import serial

from drivers.transport import Settings, Transport, TransportLost, register

MIN_BAUDRATE = 9600  # docs/shoe-line-protocol.md, "Physical defaults"
MAX_BAUDRATE = 921600
READ_CHUNK = 4096  # more than the shoe can send between two reads; one read drains it all

_DEAD = select.POLLHUP | select.POLLERR | select.POLLNVAL


class SerialTransport(Transport):
    """8N1, no flow control, exclusive: a second daemon on the same port is refused."""

    def __init__(self, port: str, baudrate: int = 115200, *, write_timeout: float = 1.0) -> None:
        if isinstance(baudrate, bool) or not isinstance(baudrate, int):
            raise ValueError(f"baud rate must be an integer, not {baudrate!r}")
        if not MIN_BAUDRATE <= baudrate <= MAX_BAUDRATE:
            raise ValueError(
                f"baud rate {baudrate} out of range {MIN_BAUDRATE}..{MAX_BAUDRATE}")
        if write_timeout <= 0:
            raise ValueError("write_timeout must be positive: a stuck line must not block")
        self.port = port
        self.baudrate = baudrate
        self.write_timeout = write_timeout
        self.name = f"serial:{port}@{baudrate}"
        self._ser: serial.Serial | None = None
        self._poll: select.poll | None = None

    @property
    def is_open(self) -> bool:
        return self._ser is not None

    @property
    def where(self) -> str:
        return self.port

    def open(self) -> None:
        """Open the port 8N1; TransportLost (with the reason) if it cannot be had now."""
        self.close()
        try:
            # exclusive=True takes flock(LOCK_EX|LOCK_NB) on the descriptor. It works on a
            # pty as on a tty, is advisory (only other pyserial/flock users see it) and dies
            # with the descriptor, so a crashed daemon never leaves the port locked. It is
            # not TIOCEXCL, which would lock out even root and outlive a sloppy close.
            ser = serial.Serial(
                port=self.port,
                baudrate=self.baudrate,
                bytesize=serial.EIGHTBITS,
                parity=serial.PARITY_NONE,
                stopbits=serial.STOPBITS_ONE,
                timeout=0,  # non-blocking reads: the waiting is done in poll() below
                write_timeout=self.write_timeout,
                xonxoff=False,
                rtscts=False,
                dsrdtr=False,
                exclusive=True,
            )
        except (serial.SerialException, OSError, ValueError) as e:
            raise TransportLost(self._open_error(e)) from e
        poller = select.poll()
        poller.register(ser.fileno(), select.POLLIN | select.POLLPRI)
        self._ser, self._poll = ser, poller

    def read(self, timeout: float) -> bytes:
        """Whatever bytes are there, waiting at most `timeout` s for the first one; b"" if none."""
        ser, poller = self._ser, self._poll
        if ser is None or poller is None:
            raise TransportLost(f"{self.name}: not open")
        try:
            events = poller.poll(max(0, math.ceil(timeout * 1000)))
        except InterruptedError:  # pragma: no cover - PEP 475 retries; kept for clarity
            return b""
        if not events:
            return b""
        flags = events[0][1]
        try:
            # pyserial's own read: one select and one os.read with timeout=0, and it turns
            # "readable but nothing there" (an unplugged adapter) into SerialException.
            data = ser.read(READ_CHUNK)
        except (serial.SerialException, OSError) as e:
            self.close()
            raise TransportLost(f"{self.name}: {_reason(e)}") from e
        if data:
            return data
        if flags & _DEAD:
            # Hung up with nothing buffered (a pty whose master closed can poll HUP alone).
            self.close()
            raise TransportLost(f"{self.name}: line hung up")
        return b""  # spurious wakeup (e.g. POLLPRI with no data)

    def write(self, data: bytes) -> None:
        """Send all of `data`; a line that takes none of it for `write_timeout` s is lost."""
        ser = self._ser
        if ser is None:
            raise TransportLost(f"{self.name}: not open")
        if not data:
            return
        try:
            ser.write(data)
        except serial.SerialTimeoutException as e:
            self.close()
            raise TransportLost(
                f"{self.name}: write timed out after {self.write_timeout} s") from e
        except (serial.SerialException, OSError) as e:
            self.close()
            raise TransportLost(f"{self.name}: {_reason(e)}") from e

    def close(self) -> None:
        """Close the port; a no-op when it is not open."""
        ser, self._ser, self._poll = self._ser, None, None
        if ser is not None:
            with contextlib.suppress(OSError):  # a dead (unplugged) descriptor still closes
                ser.close()

    def _open_error(self, e: BaseException) -> str:
        code = getattr(e, "errno", None)
        text = str(e)
        if code in (errno.ENOENT, errno.ENODEV, errno.ENXIO):
            return f"{self.port}: no such device"
        if code in (errno.EACCES, errno.EPERM):
            return f"{self.port}: permission denied (is the daemon's user in the dialout group?)"
        if "exclusively lock" in text or code in (errno.EAGAIN, errno.EBUSY):
            return f"{self.port}: busy, another process holds it"
        return f"{self.port}: cannot open: {text}"


def _reason(e: BaseException) -> str:
    """A short reason for a lost line: the errno name where there is one."""
    code = getattr(e, "errno", None)
    if code is None and isinstance(e.__context__, OSError):
        code = e.__context__.errno
    text = str(e)
    if code == errno.EIO or "Errno 5]" in text:
        return "I/O error (device unplugged?)"
    if "returned no data" in text:
        return "device disconnected (readable but no data)"
    return text


def from_settings(settings: Settings) -> SerialTransport:
    """The `serial` transport: settings `port` and `baud`."""
    return SerialTransport(settings["port"], settings["baud"])


register("serial", from_settings)
