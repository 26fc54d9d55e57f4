"""Log records to journald as structured fields, with the standard library alone.

journald's native protocol (systemd.journal-fields(7), "Native Journal Protocol"): one unix
datagram per record to `/run/systemd/journal/socket`, each field `KEY=value\\n`, or, when the
value holds a newline (a traceback), `KEY\\n` + its length as 64-bit little endian + the
value + `\\n`. Field names are upper-case letters, digits and `_`, not starting with `_`.

So `journalctl -u shoe-daemon EVENT=coup.result TABLE=T1` finds the results of one table,
and `-o verbose` shows every field. systemd-python would do the same but needs compiling
against libsystemd; this is the whole protocol. A record the socket refuses (journald
restarting, a record too large) is written to stderr as a JSON line instead, which the
journal also collects under systemd: no record is lost for want of the socket.
"""

from __future__ import annotations

import json
import os
import re
import socket
import struct
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

SOCKET = Path("/run/systemd/journal/socket")
IDENTIFIER = "shoe-daemon"
PRIORITY = {"debug": 7, "info": 6, "warning": 4, "warn": 4, "error": 3, "exception": 3,
            "critical": 2, "fatal": 2}
_BAD = re.compile(r"[^A-Z0-9_]")


def field_name(key: str) -> str:
    """`coup`→`COUP`, `after_s`→`AFTER_S`; never a trusted `_FIELD`, never empty."""
    name = _BAD.sub("_", key.upper()).lstrip("_")[:64]
    return name if name and not name[0].isdigit() else f"F_{name}"[:64]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def encode(fields: Mapping[str, Any]) -> bytes:
    """One native-protocol datagram for these (already named) fields."""
    out = bytearray()
    for key, value in fields.items():
        data = _text(value).encode("utf-8", "replace")
        if b"\n" in data:
            out += key.encode() + b"\n" + struct.pack("<Q", len(data)) + data + b"\n"
        else:
            out += key.encode() + b"=" + data + b"\n"
    return bytes(out)


def record_fields(event: Mapping[str, Any], identifier: str = IDENTIFIER) -> dict[str, Any]:
    """A structlog event dict as journal fields: MESSAGE to read, the rest to search by."""
    level = str(event.get("level", "info"))
    name = str(event.get("event", ""))
    rest = {k: v for k, v in event.items() if k not in ("event", "level", "timestamp")}
    words = " ".join(f"{k}={_text(v)}" for k, v in rest.items() if k != "exception")
    message = f"{name} {words}".strip()
    if "exception" in rest:
        message += "\n" + str(rest["exception"])
    fields: dict[str, Any] = {"MESSAGE": message, "PRIORITY": PRIORITY.get(level, 6),
                              "SYSLOG_IDENTIFIER": identifier, "EVENT": name}
    for key, value in rest.items():
        name_ = field_name(key)
        if value is not None and name_ not in fields:
            fields[name_] = value
    return fields


def stream_is_journal(stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """systemd sets $JOURNAL_STREAM to the device:inode of the stream it connected."""
    value = (os.environ if environ is None else environ).get("JOURNAL_STREAM", "")
    dev, _, ino = value.partition(":")
    if not (dev.isdigit() and ino.isdigit()):
        return False
    try:
        st = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return (st.st_dev, st.st_ino) == (int(dev), int(ino))


class JournalWriter:
    """Sends each record to journald's socket; stderr's JSON line when it cannot."""

    def __init__(self, path: Path = SOCKET, fallback: TextIO | None = None) -> None:
        self.path = path
        self.fallback = fallback or sys.stderr
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
        self.failures = 0

    def send(self, event: Mapping[str, Any]) -> None:
        try:
            self.sock.sendto(encode(record_fields(event)), str(self.path))
        except OSError:
            self.failures += 1
            self.fallback.write(json.dumps(dict(event), default=str) + "\n")
            self.fallback.flush()


class JournalLogger:
    """A structlog logger: every level method takes the event dict as `event`."""

    def __init__(self, writer: JournalWriter) -> None:
        self.writer = writer

    def msg(self, event: Mapping[str, Any]) -> None:
        self.writer.send(event)

    log = debug = info = warning = warn = error = critical = exception = fatal = failure = msg


def as_event(_logger: Any, _method: str, event_dict: dict[str, Any]) -> dict[str, Any]:
    """structlog's last processor: hand the whole dict to JournalLogger.msg(event=...)."""
    return {"event": event_dict}
