"""Logs as journald's structured fields, against a real unix datagram socket standing in for
`/run/systemd/journal/socket`, decoded with the native protocol's own rules."""

from __future__ import annotations

import io
import json
import os
import socket
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

from shoe_daemon.service import journal, logs


def decode(data: bytes) -> dict[str, str]:
    """The native protocol read back: KEY=value lines, or KEY, 64-bit LE length, value."""
    fields: dict[str, str] = {}
    i = 0
    while i < len(data):
        end = data.index(b"\n", i)
        line = data[i:end]
        if b"=" in line:
            key, value = line.split(b"=", 1)
            i = end + 1
        else:
            key = line
            (size,) = struct.unpack("<Q", data[end + 1:end + 9])
            value = data[end + 9:end + 9 + size]
            assert data[end + 9 + size:end + 10 + size] == b"\n"
            i = end + 10 + size
        fields[key.decode()] = value.decode()
    return fields


@pytest.fixture
def journald(tmp_path: Path) -> Iterator[tuple[Path, socket.socket]]:
    path = tmp_path / "journal.socket"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(2)
    yield path, sock
    sock.close()
    structlog.reset_defaults()


def test_each_log_key_is_a_field_and_a_traceback_survives(journald) -> None:
    path, sock = journald
    assert logs.configure("journal", io.StringIO(), journal_socket=path) == "journal"
    log = structlog.get_logger("shoe_daemon").bind(table="T1")
    log.warning("irregularity", shoe=3, coup=41, rule="003 p.2", detail=None)
    fields = decode(sock.recv(65536))
    assert fields["MESSAGE"] == "irregularity table=T1 shoe=3 coup=41 rule=003 p.2 detail=null"
    assert fields["PRIORITY"] == "4" and fields["SYSLOG_IDENTIFIER"] == "shoe-daemon"
    assert (fields["EVENT"], fields["TABLE"], fields["SHOE"], fields["COUP"]) == (
        "irregularity", "T1", "3", "41")
    assert "DETAIL" not in fields  # None is no value: absent, not the text "null"
    try:
        raise RuntimeError("the loop broke\nover two lines")
    except RuntimeError:
        log.exception("daemon.crash")
    fields = decode(sock.recv(65536))
    assert fields["PRIORITY"] == "3"
    assert "Traceback" in fields["EXCEPTION"] and "over two lines" in fields["EXCEPTION"]
    assert fields["MESSAGE"].startswith("daemon.crash table=T1\nTraceback")


def test_field_names_follow_journald_rules() -> None:
    assert journal.field_name("after_s") == "AFTER_S"
    assert journal.field_name("_SYSTEMD_UNIT") == "SYSTEMD_UNIT"  # no trusted fields
    assert journal.field_name("1st") == "F_1ST"
    assert journal.field_name("code-sha256") == "CODE_SHA256"


def test_auto_chooses_the_journal_only_on_systemds_own_stream(journald, tmp_path, monkeypatch):
    path, _sock = journald
    with (tmp_path / "stderr").open("w") as stream:
        st = os.fstat(stream.fileno())
        monkeypatch.setenv("JOURNAL_STREAM", f"{st.st_dev}:{st.st_ino}")
        assert logs.configure("auto", stream, journal_socket=path) == "journal"
        assert logs.configure("auto", stream, journal_socket=tmp_path / "absent") == "json"
        monkeypatch.setenv("JOURNAL_STREAM", f"{st.st_dev}:{st.st_ino + 1}")  # inherited
        assert logs.configure("auto", stream, journal_socket=path) == "json"


def test_a_refused_record_goes_to_stderr_instead(tmp_path) -> None:
    path = tmp_path / "journal.socket"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.close()  # the socket file stays, nobody listens: journald restarting
    stderr = io.StringIO()
    logs.configure("journal", stderr, journal_socket=path)
    try:
        structlog.get_logger().info("shoe.connected", transport="serial:/dev/shoe@115200")
    finally:
        structlog.reset_defaults()
    line = json.loads(stderr.getvalue())
    assert line["event"] == "shoe.connected" and line["transport"] == "serial:/dev/shoe@115200"
