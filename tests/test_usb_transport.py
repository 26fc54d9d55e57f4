"""UsbTransport through pyusb's real core on the simulated shoe of `hil.usb_device`.

Nothing of pyusb is mocked: find, descriptors, string descriptors, claiming, bulk transfers
all run as on libusb; only the device below the backend interface is simulated.
"""

from __future__ import annotations

import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import usb.core
import usb.util

from drivers.transport import TransportLost
from drivers.usb_transport import UsbTransport
from hil.usb_device import (
    MAX_PACKET,
    PipeLink,
    SimulatedShoeBackend,
    SocketLink,
    from_environment,
)

VID, PID = 0x1209, 0x5348
FRAME = b"$3,CARD,9C,D*FBAD\r\n"
ACK = b"$0,ACK,3*1234\r\n"
PATIENCE = 5.0  # s: how long a test waits for something that should happen at once


@pytest.fixture
def link() -> PipeLink:
    return PipeLink()


@pytest.fixture
def backend(link: PipeLink) -> SimulatedShoeBackend:
    return SimulatedShoeBackend(VID, PID, "SIM0001", link=link)


@pytest.fixture
def transport(backend: SimulatedShoeBackend) -> Iterator[UsbTransport]:
    t = UsbTransport(VID, PID, backend=backend)
    t.open()
    yield t
    t.close()


def read_exactly(t: UsbTransport, n: int) -> bytes:
    got = b""
    deadline = time.monotonic() + PATIENCE
    while len(got) < n and time.monotonic() < deadline:
        got += t.read(0.5)
    return got


# ---- the simulated device as pyusb sees it ----------------------------------------------------


def test_pyusb_core_sees_one_vendor_interface(backend: SimulatedShoeBackend) -> None:
    devices = list(usb.core.find(find_all=True, backend=backend))
    assert len(devices) == 1
    dev = devices[0]
    assert (dev.idVendor, dev.idProduct) == (VID, PID)
    assert dev.serial_number == "SIM0001"
    assert dev.product and dev.manufacturer
    intf = dev.get_active_configuration()[(0, 0)]
    assert intf.bInterfaceClass == 0xFF
    eps = {ep.bEndpointAddress: ep for ep in intf}
    assert set(eps) == {0x81, 0x01}
    for ep in eps.values():
        assert usb.util.endpoint_type(ep.bmAttributes) == usb.util.ENDPOINT_TYPE_BULK
        assert ep.wMaxPacketSize == 64
    usb.util.dispose_resources(dev)


# ---- UsbTransport on PipeLink ---------------------------------------------------------------


def test_bytes_both_ways(link: PipeLink, transport: UsbTransport) -> None:
    link.shoe_send(FRAME)
    assert read_exactly(transport, len(FRAME)) == FRAME
    transport.write(ACK)
    assert link.shoe_receive(PATIENCE) == ACK


def test_long_stream_arrives_whole_one_packet_per_read(
    link: PipeLink, transport: UsbTransport,
) -> None:
    stream = FRAME * 20
    link.shoe_send(stream)
    chunks = []
    while sum(map(len, chunks)) < len(stream):
        chunk = transport.read(PATIENCE)
        assert 0 < len(chunk) <= MAX_PACKET
        chunks.append(chunk)
    assert b"".join(chunks) == stream


def test_read_wakes_when_bytes_arrive(link: PipeLink, transport: UsbTransport) -> None:
    threading.Timer(0.05, link.shoe_send, (FRAME,)).start()
    assert read_exactly(transport, len(FRAME)) == FRAME


def test_timeout_returns_nothing(transport: UsbTransport) -> None:
    assert transport.read(0.02) == b""
    assert transport.read(0) == b""  # not libusb's "0 = for ever"
    assert transport.is_open


def test_idle_read_does_not_spin(transport: UsbTransport) -> None:
    cpu = time.thread_time()
    assert transport.read(0.3) == b""
    assert time.thread_time() - cpu < 0.1


def test_device_absent_at_open() -> None:
    t = UsbTransport(VID, PID, backend=SimulatedShoeBackend(link=PipeLink(plugged=False)))
    with pytest.raises(TransportLost, match="no such device"):
        t.open()
    assert not t.is_open


def test_wrong_vendor_id_finds_nothing(backend: SimulatedShoeBackend) -> None:
    with pytest.raises(TransportLost, match="no such device"):
        UsbTransport(0x0403, PID, backend=backend).open()


def test_serial_number_picks_the_shoe(backend: SimulatedShoeBackend) -> None:
    with pytest.raises(TransportLost, match="no such device"):
        UsbTransport(VID, PID, serial_number="SN9999", backend=backend).open()
    t = UsbTransport(VID, PID, serial_number="SIM0001", backend=backend)
    t.open()
    assert t.is_open and t.name == "usb:1209:5348/SIM0001#0"
    t.close()


def test_unplug_mid_read_then_replug(link: PipeLink, transport: UsbTransport) -> None:
    threading.Timer(0.05, link.unplug).start()
    started = time.monotonic()
    with pytest.raises(TransportLost, match="gone"):
        transport.read(30.0)
    assert time.monotonic() - started < 15.0  # woke on the unplug, not on the timeout
    assert not transport.is_open
    with pytest.raises(TransportLost, match="no such device"):
        transport.open()
    link.replug()
    transport.open()
    link.shoe_send(FRAME)
    assert read_exactly(transport, len(FRAME)) == FRAME
    transport.write(ACK)
    assert link.shoe_receive(PATIENCE) == ACK


def test_quick_replug_kills_the_old_handle(link: PipeLink, transport: UsbTransport) -> None:
    link.unplug()
    link.replug()  # between two reads: the old handle must not carry on silently
    link.shoe_send(FRAME)  # sent to the new attachment
    with pytest.raises(TransportLost, match="gone"):
        transport.read(PATIENCE)
    transport.open()
    assert read_exactly(transport, len(FRAME)) == FRAME  # delivered there, not lost


def test_write_to_unplugged_device(link: PipeLink, transport: UsbTransport) -> None:
    link.unplug()
    with pytest.raises(TransportLost):
        transport.write(ACK)
    assert not transport.is_open


def test_write_to_a_device_that_takes_nothing_times_out() -> None:
    link = PipeLink(capacity=16)  # the shoe never drains its OUT FIFO
    t = UsbTransport(VID, PID, backend=SimulatedShoeBackend(link=link), write_timeout=0.05)
    t.open()
    t.write(b"x" * 16)
    with pytest.raises(TransportLost, match="timed out"):
        t.write(b"y")


def test_kernel_driver_is_detached(link: PipeLink) -> None:
    t = UsbTransport(VID, PID, backend=SimulatedShoeBackend(link=link, kernel_driver=True))
    t.open()
    assert t.detached_kernel_driver
    link.shoe_send(FRAME)
    assert read_exactly(t, len(FRAME)) == FRAME
    t.close()


def test_unconfigured_device_is_configured(link: PipeLink) -> None:
    t = UsbTransport(VID, PID, backend=SimulatedShoeBackend(link=link, configured=False))
    t.open()
    t.write(ACK)
    assert link.shoe_receive(PATIENCE) == ACK
    t.close()


def test_interface_is_exclusive_until_closed(
    backend: SimulatedShoeBackend, transport: UsbTransport,
) -> None:
    other = UsbTransport(VID, PID, backend=backend)
    with pytest.raises(TransportLost, match="busy"):
        other.open()
    transport.close()
    other.open()
    other.close()


def test_missing_endpoint_is_reported(backend: SimulatedShoeBackend) -> None:
    with pytest.raises(TransportLost, match="0x82"):
        UsbTransport(VID, PID, endpoint_in=0x82, backend=backend).open()


def test_endpoint_directions_are_checked() -> None:
    with pytest.raises(ValueError):
        UsbTransport(VID, PID, endpoint_in=0x01)
    with pytest.raises(ValueError):
        UsbTransport(VID, PID, endpoint_out=0x81)


def test_close_is_idempotent(backend: SimulatedShoeBackend) -> None:
    t = UsbTransport(VID, PID, backend=backend)
    t.close()
    t.open()
    t.close()
    t.close()
    with pytest.raises(TransportLost, match="not open"):
        t.read(0.01)


# ---- SocketLink, as in hardware-in-the-loop runs ----------------------------------------------


@pytest.fixture
def sock_path() -> Iterator[Path]:
    # AF_UNIX paths are short (108 bytes); pytest's tmp_path can be longer
    with tempfile.TemporaryDirectory(prefix="shoe") as d:
        yield Path(d) / "usb.sock"


def _listen(path: Path) -> socket.socket:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    server.settimeout(PATIENCE)
    return server


def test_socket_link_end_to_end_with_reconnect(sock_path: Path) -> None:
    server = _listen(sock_path)
    link = SocketLink(sock_path)
    t = UsbTransport(VID, PID, backend=SimulatedShoeBackend(link=link))
    try:
        t.open()  # enumeration connects
        shoe, _ = server.accept()
        shoe.settimeout(PATIENCE)
        shoe.sendall(FRAME)
        assert read_exactly(t, len(FRAME)) == FRAME
        t.write(ACK)
        assert shoe.recv(100) == ACK

        shoe.close()  # the simulated shoe drops the line: an unplug
        with pytest.raises(TransportLost):
            t.read(PATIENCE)

        t.open()  # the next enumeration reconnects: a replug
        shoe, _ = server.accept()
        shoe.settimeout(PATIENCE)
        shoe.sendall(FRAME)
        assert read_exactly(t, len(FRAME)) == FRAME

        t.close()
        shoe.close()  # dropped while the daemon was not reading: seen at enumeration
        t.open()
        shoe, _ = server.accept()
        shoe.settimeout(PATIENCE)
        t.write(ACK)
        assert shoe.recv(100) == ACK
        shoe.close()

        server.close()
        sock_path.unlink()  # the shoe program is gone altogether
        with pytest.raises(TransportLost):
            t.read(PATIENCE)
        with pytest.raises(TransportLost, match="no such device"):
            t.open()
    finally:
        t.close()
        link.close()
        server.close()


def test_from_environment(monkeypatch: pytest.MonkeyPatch, sock_path: Path) -> None:
    monkeypatch.setenv("SHOE_SIM_USB_SOCKET", str(sock_path))
    monkeypatch.setenv("SHOE_SIM_USB_IDS", "abcd:0012")
    backend = from_environment()
    assert (backend.vendor_id, backend.product_id) == (0xABCD, 0x0012)
    assert isinstance(backend.link, SocketLink)
    with pytest.raises(TransportLost, match="no such device"):  # nobody serves yet
        UsbTransport(0xABCD, 0x0012, backend=backend).open()
    monkeypatch.delenv("SHOE_SIM_USB_SOCKET")
    with pytest.raises(RuntimeError, match="SHOE_SIM_USB_SOCKET"):
        from_environment()


def test_socket_path_too_long_is_refused_not_silently_absent() -> None:
    with pytest.raises(ValueError, match="longer"):
        SocketLink("/tmp/" + "x" * 200)
