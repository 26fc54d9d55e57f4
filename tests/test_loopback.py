"""The transport registry and the loopback transport: names a setting may give, the
drivers that register themselves, and the in-process line the fast tests play the shoe on."""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from drivers import loopback, transport
from drivers.loopback import LoopbackTransport
from drivers.serial_transport import SerialTransport
from drivers.transport import Transport, TransportLost, make_transport, register
from shoe_daemon.service import config
from shoe_daemon.service.check_config import check

ROOT = Path(__file__).resolve().parent.parent


def settings(**given: object) -> dict[str, object]:
    return {s.name: s.default for s in config.SETTINGS} | given


def test_the_built_in_transports_are_known_by_name():
    assert {"serial", "usb", "loopback"} <= set(transport.names())
    assert list(transport.names()) == sorted(transport.names())


def test_each_name_builds_its_driver_from_the_settings():
    serial = make_transport("serial", settings(port="/dev/ttyS9", baud=9600))
    assert isinstance(serial, SerialTransport) and serial.name == "serial:/dev/ttyS9@9600"
    assert serial.where == "/dev/ttyS9"
    usb = make_transport("usb", settings(usb_serial="SN1"))
    assert usb.name == "usb:1209:5348/SN1#0" and usb.where == usb.name
    loop = make_transport("loopback", settings(port="registry-test"))
    assert isinstance(loop, LoopbackTransport) and loop.line is loopback.line("registry-test")


def test_a_driver_refuses_its_own_bad_settings():
    with pytest.raises(ValueError, match="baud rate"):
        make_transport("serial", settings(baud=300))
    with pytest.raises(ValueError, match=r"no transport 'carrier-pigeon'; known: .*serial"):
        make_transport("carrier-pigeon", settings())


def test_naming_a_transport_loads_no_driver():
    """Validating `transport = "serial"` must not import pyusb (nor the serial driver)."""
    code = ("import sys; from drivers import transport; from shoe_daemon.service import config; "
            "assert 'usb' in transport.names(); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('usb', 'serial') "
            "or m.endswith(('_transport', 'loopback'))))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout


class _Tin(Transport):
    """Two tin cans and a string: a transport registered at run time."""

    name = "tin-can"

    def open(self) -> None: ...

    def read(self, timeout: float) -> bytes:
        return b""

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


def test_a_transport_registered_later_is_a_valid_setting_and_others_cannot_take_its_name():
    with pytest.raises(config.ConfigError, match="setting 'transport': 'tin-can' is not one"):
        config.load(_args("--transport", "tin-can"))
    register("tin-can", lambda s: _Tin())
    assert config.load(_args("--transport", "tin-can")).transport == "tin-can"
    assert isinstance(make_transport("tin-can", settings()), _Tin)

    def impostor(s: object) -> Transport:
        return _Tin()

    impostor.__module__ = "somewhere.else"
    with pytest.raises(ValueError, match="already registered"):
        register("tin-can", impostor)


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    config.add_arguments(parser)
    return parser.parse_args(["--profile", "baden", "--state-dir", "/x", "--results", "-", *argv])


def test_loopback_carries_bytes_both_ways():
    host, line = loopback.pair()
    host.open()
    line.send(b"$0,HB,1*")
    line.send(b"XXXX\r\n")
    assert host.read(0) == b"$0,HB,1*XXXX\r\n"
    assert host.read(0.01) == b""
    host.write(b"ack")
    host.write(b"!")
    assert line.receive() == b"ack!" and line.receive() == b""


def test_a_read_waits_for_bytes_from_another_thread():
    host, line = loopback.pair()
    host.open()
    timer = threading.Timer(0.05, line.send, (b"late",))
    timer.start()
    try:
        assert host.read(10.0) == b"late"
    finally:
        timer.cancel()


def test_unplug_loses_the_line_until_replugged():
    host, line = loopback.pair()
    host.open()
    line.unplug()
    line.send(b"into the void")
    with pytest.raises(TransportLost, match="unplugged"):
        host.read(0)
    assert not host.is_open
    with pytest.raises(TransportLost, match="no such device"):
        host.open()
    line.replug()
    host.open()
    assert host.read(0) == b""  # what was sent with the cable out is gone
    line.unplug()
    with pytest.raises(TransportLost):
        host.write(b"x")
    with pytest.raises(TransportLost, match="not open"):
        host.read(0)


def test_check_config_says_a_loopback_is_for_tests():
    found = check(config.load(_args("--transport", "loopback", "--port", "t1")))
    assert "shoe: in-process loopback line 't1' (tests only: no shoe can reach it)" in found.lines
