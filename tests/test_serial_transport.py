"""SerialTransport against real pseudo terminals: the test holds the master side and plays
the shoe; closing the master is the cable being pulled."""

from __future__ import annotations

import os
import select
import threading
import time
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.serial_transport import SerialTransport
from drivers.transport import TransportLost

FRAME = b"$3,CARD,9C,D*FBAD\r\n"
PATIENCE = 5.0  # s: how long a test waits for something that should happen at once


class Pty:
    """One pseudo terminal; `path` is the slave the transport opens, `master` is the shoe."""

    def __init__(self) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.path = os.ttyname(self._slave)

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def receive(self, n: int) -> bytes:
        got = b""
        deadline = time.monotonic() + PATIENCE
        while len(got) < n and time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], deadline - time.monotonic())
            if ready:
                got += os.read(self.master, n - len(got))
        return got

    def unplug(self) -> None:
        if self.master >= 0:
            os.close(self.master)
            self.master = -1

    def close(self) -> None:
        self.unplug()
        if self._slave >= 0:
            os.close(self._slave)
            self._slave = -1


@pytest.fixture
def pty_() -> Iterator[Pty]:
    p = Pty()
    yield p
    p.close()


@pytest.fixture
def transport(pty_: Pty) -> Iterator[SerialTransport]:
    t = SerialTransport(pty_.path)
    t.open()
    yield t
    t.close()


def read_exactly(t: SerialTransport, n: int) -> bytes:
    got = b""
    deadline = time.monotonic() + PATIENCE
    while len(got) < n and time.monotonic() < deadline:
        got += t.read(0.5)
    return got


def test_bytes_both_ways(pty_: Pty, transport: SerialTransport) -> None:
    pty_.send(FRAME)
    assert read_exactly(transport, len(FRAME)) == FRAME
    transport.write(b"$0,ACK,3*1234\r\n")
    assert pty_.receive(15) == b"$0,ACK,3*1234\r\n"


def test_line_is_raw_8_bit_without_flow_control(pty_: Pty, transport: SerialTransport) -> None:
    every_byte = bytes(range(256))  # \r, \n, XON/XOFF, ^C, 0xFF: nothing translated or eaten
    pty_.send(every_byte)
    assert read_exactly(transport, 256) == every_byte
    transport.write(every_byte)
    assert pty_.receive(256) == every_byte


def test_read_returns_partial_data_without_waiting_for_more(
    pty_: Pty, transport: SerialTransport,
) -> None:
    pty_.send(b"$3,CA")
    started = time.monotonic()
    assert transport.read(30.0) == b"$3,CA"
    assert time.monotonic() - started < 15.0  # returned on the bytes, not on the timeout


def test_read_wakes_when_bytes_arrive(pty_: Pty, transport: SerialTransport) -> None:
    threading.Timer(0.05, pty_.send, (FRAME,)).start()
    assert read_exactly(transport, len(FRAME)) == FRAME


def test_timeout_returns_nothing(transport: SerialTransport) -> None:
    assert transport.read(0.02) == b""
    assert transport.read(0) == b""
    assert transport.is_open


def test_idle_read_does_not_spin(transport: SerialTransport) -> None:
    cpu = time.thread_time()
    assert transport.read(0.3) == b""
    assert time.thread_time() - cpu < 0.1


def test_missing_device_is_transport_lost(tmp_path: Path) -> None:
    t = SerialTransport(str(tmp_path / "shoe"))
    with pytest.raises(TransportLost, match="no such device"):
        t.open()
    assert not t.is_open


def test_unplug_shows_on_next_read(pty_: Pty, transport: SerialTransport) -> None:
    pty_.unplug()
    with pytest.raises(TransportLost):
        transport.read(PATIENCE)
    assert not transport.is_open
    with pytest.raises(TransportLost, match="not open"):
        transport.read(0.01)


def test_unplug_during_blocking_read(pty_: Pty, transport: SerialTransport) -> None:
    threading.Timer(0.05, pty_.unplug).start()
    started = time.monotonic()
    with pytest.raises(TransportLost):
        transport.read(30.0)
    assert time.monotonic() - started < 15.0  # woke on the hangup, not on the timeout


def test_unplug_shows_on_write(pty_: Pty, transport: SerialTransport) -> None:
    pty_.unplug()
    with pytest.raises(TransportLost):
        transport.write(b"$0,LAMP,GREEN*0000\r\n")
    assert not transport.is_open


def test_reopen_after_the_device_comes_back(tmp_path: Path) -> None:
    link = tmp_path / "shoe"  # as a udev rule's /dev/shoe symlink
    first = Pty()
    link.symlink_to(first.path)
    t = SerialTransport(str(link))
    try:
        t.open()
        first.unplug()
        with pytest.raises(TransportLost):
            t.read(PATIENCE)
        with pytest.raises(TransportLost):
            t.open()  # still gone
        second = Pty()
        try:
            tmp = tmp_path / "shoe.new"
            tmp.symlink_to(second.path)
            tmp.replace(link)  # the device node comes back under the same name
            t.open()
            second.send(FRAME)
            assert read_exactly(t, len(FRAME)) == FRAME
            t.write(b"hi")
            assert second.receive(2) == b"hi"
        finally:
            t.close()
            second.close()
    finally:
        first.close()


def test_port_is_exclusive(pty_: Pty, transport: SerialTransport) -> None:
    other = SerialTransport(pty_.path)
    with pytest.raises(TransportLost, match="busy"):
        other.open()
    transport.close()
    other.open()  # free again once the first let go
    other.close()


@pytest.mark.parametrize("rate", [0, 300, 9599, 921601, 1_000_000, True])
def test_bad_baudrate_is_refused(rate: int) -> None:
    with pytest.raises(ValueError, match="baud"):
        SerialTransport("/dev/shoe", rate)


@pytest.mark.parametrize("rate", [9600, 921600])
def test_limit_baudrates_open(pty_: Pty, rate: int) -> None:
    t = SerialTransport(pty_.path, rate)
    t.open()
    pty_.send(b"x")
    assert read_exactly(t, 1) == b"x"
    t.close()


def test_close_is_idempotent(pty_: Pty) -> None:
    t = SerialTransport(pty_.path)
    t.close()  # never opened
    t.open()
    t.close()
    t.close()
    assert not t.is_open
    with pytest.raises(TransportLost):
        t.write(b"x")


def test_name() -> None:
    assert SerialTransport("/dev/shoe").name == "serial:/dev/shoe@115200"
    assert SerialTransport("/dev/ttyUSB0", 9600).name == "serial:/dev/ttyUSB0@9600"
