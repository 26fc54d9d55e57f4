"""A simulated USB shoe behind pyusb's backend interface, for tests and hardware-in-the-loop.

`SimulatedShoeBackend` is a real `usb.backend.IBackend`: pyusb's core (`usb.core.find`,
`Device`, descriptors, claiming, bulk transfers, string descriptors) runs unmodified on top
of it, exactly as it runs on libusb, so the USB transport is exercised end to end with only
the silicon replaced. It presents one full-speed device: one configuration, one vendor-class
interface (0xFF) with a bulk IN endpoint 0x81 and a bulk OUT endpoint 0x01 of 64 bytes, and
manufacturer, product and serial-number strings.

Its data path is a `ByteLink`: IN data are the shoe's bytes, OUT data the host's. Two links:

- `PipeLink`, in memory, for a test to play the shoe (`shoe_send`, `shoe_receive`,
  `unplug`, `replug`);
- `SocketLink`, a client of a Unix stream socket on which the simulated shoe program
  (`--usb-socket PATH`) serves exactly the bytes a serial line would carry. A closed socket
  counts as an unplug; the next enumeration tries to connect again (a replug).

Failures look as libusb reports them: an unplugged device is not enumerated and any I/O on a
handle raises `usb.core.USBError` with errno ENODEV; a transfer that times out raises
`usb.core.USBTimeoutError`; a handle opened before a replug stays dead, as a replugged real
device gets a new address.

`from_environment()` builds a SocketLink backend from `SHOE_SIM_USB_SOCKET` so the real daemon
process can run against the simulated shoe (`usb_backend = "hil.usb_device:from_environment"`).
"""

from __future__ import annotations

import array
import contextlib
import errno
import os
import select
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from typing import Protocol

import usb.backend
import usb.core
import usb.util

DEFAULT_VENDOR_ID = 0x1209  # pid.codes
DEFAULT_PRODUCT_ID = 0x5348
DEFAULT_SERIAL = "SIM0001"
ENV_SOCKET = "SHOE_SIM_USB_SOCKET"
ENV_IDS = "SHOE_SIM_USB_IDS"
ENV_SERIAL = "SHOE_SIM_USB_SERIAL"

EP_IN = 0x81
EP_OUT = 0x01
MAX_PACKET = 64  # full-speed bulk
INTERFACE = 0
CONFIGURATION_VALUE = 1
LANGID_EN_US = 0x0409
MANUFACTURER = "shoe-daemon HIL"
PRODUCT = "Simulated card shoe"

# libusb's error codes, so backend_error_code reads as on real hardware
_LIBUSB_ERROR_IO = -1
_LIBUSB_ERROR_NO_DEVICE = -4
_LIBUSB_ERROR_NOT_FOUND = -5
_LIBUSB_ERROR_BUSY = -6
_LIBUSB_ERROR_TIMEOUT = -7
_LIBUSB_ERROR_PIPE = -9


class LinkDown(Exception):
    """The link's far end is gone (unplugged); the backend reports it as ENODEV."""


class ByteLink(Protocol):
    """The simulated device's data path: IN bytes come from `read`, OUT bytes go to `write`."""

    @property
    def generation(self) -> int:
        """Bumped on every (re)plug, so handles from before a replug stay dead."""
        ...

    @property
    def attached(self) -> bool:
        """Whether the device is attached now, as last seen (no side effects)."""
        ...

    def present(self) -> bool:
        """Whether the device is attached now; may try to (re)connect (enumeration)."""
        ...

    def read(self, size: int, timeout_s: float | None) -> bytes:
        """Up to `size` IN bytes as soon as any are there; b"" on timeout; LinkDown if gone."""
        ...

    def write(self, data: bytes, timeout_s: float | None = None) -> int:
        """Queue OUT bytes; returns how many were taken before the timeout; LinkDown if gone."""
        ...


def _usb_error(message: str, code: int, err: int) -> usb.core.USBError:
    return usb.core.USBError(message, code, err)


def _no_device() -> usb.core.USBError:
    return _usb_error("No such device (it may have been disconnected)",
                      _LIBUSB_ERROR_NO_DEVICE, errno.ENODEV)


def _timed_out() -> usb.core.USBTimeoutError:
    return usb.core.USBTimeoutError("Operation timed out", _LIBUSB_ERROR_TIMEOUT,
                                    errno.ETIMEDOUT)


def _deadline(timeout_s: float | None) -> float | None:
    return None if timeout_s is None else time.monotonic() + max(0.0, timeout_s)


def _left(deadline: float | None) -> float | None:
    return None if deadline is None else max(0.0, deadline - time.monotonic())


# ---- links ----------------------------------------------------------------------------------


class PipeLink:
    """In-memory link; the test plays the shoe. Bounded both ways, as a device's FIFOs are:
    a full IN buffer makes `shoe_send` wait, a full OUT buffer makes the host's bulk write
    time out (the device NAKs)."""

    def __init__(self, capacity: int = 65536, *, plugged: bool = True) -> None:
        self.capacity = capacity
        self._cond = threading.Condition()
        self._in = bytearray()  # shoe -> host
        self._out = bytearray()  # host -> shoe
        self._plugged = plugged
        self._generation = 1 if plugged else 0

    @property
    def generation(self) -> int:
        return self._generation

    @property
    def attached(self) -> bool:
        return self._plugged

    def present(self) -> bool:
        return self._plugged

    # host side (called by the backend)
    def read(self, size: int, timeout_s: float | None) -> bytes:
        deadline = _deadline(timeout_s)
        with self._cond:
            while True:
                if not self._plugged:
                    raise LinkDown("unplugged")
                if self._in:
                    data = bytes(self._in[:size])
                    del self._in[:size]
                    self._cond.notify_all()
                    return data
                left = _left(deadline)
                if left == 0:
                    return b""
                self._cond.wait(left)

    def write(self, data: bytes, timeout_s: float | None = None) -> int:
        deadline = _deadline(timeout_s)
        done = 0
        with self._cond:
            while done < len(data):
                if not self._plugged:
                    raise LinkDown("unplugged")
                room = self.capacity - len(self._out)
                if room > 0:
                    chunk = data[done:done + room]
                    self._out += chunk
                    done += len(chunk)
                    self._cond.notify_all()
                    continue
                left = _left(deadline)
                if left == 0:
                    break
                self._cond.wait(left)
        return done

    # shoe side (called by the test)
    def shoe_send(self, data: bytes, timeout: float = 1.0) -> None:
        """Queue bytes for the host to read; TimeoutError if the host does not drain them."""
        deadline = _deadline(timeout)
        view = memoryview(bytes(data))
        with self._cond:
            while view:
                if not self._plugged:
                    raise LinkDown("unplugged")
                room = self.capacity - len(self._in)
                if room > 0:
                    self._in += view[:room]
                    view = view[room:]
                    self._cond.notify_all()
                    continue
                left = _left(deadline)
                if left == 0:
                    raise TimeoutError("host is not reading")
                self._cond.wait(left)

    def shoe_receive(self, timeout: float = 1.0) -> bytes:
        """All bytes the host has written so far, waiting up to `timeout` s for the first."""
        deadline = _deadline(timeout)
        with self._cond:
            while not self._out:
                left = _left(deadline)
                if left == 0:
                    return b""
                self._cond.wait(left)
            data = bytes(self._out)
            self._out.clear()
            self._cond.notify_all()
            return data

    def unplug(self) -> None:
        """Pull the cable: pending bytes are lost and every waiter wakes to find it gone."""
        with self._cond:
            self._plugged = False
            self._in.clear()
            self._out.clear()
            self._cond.notify_all()

    def replug(self) -> None:
        """Plug it back in: a new attachment, so handles from before stay dead."""
        with self._cond:
            self._plugged = True
            self._generation += 1
            self._in.clear()
            self._out.clear()
            self._cond.notify_all()


class SocketLink:
    """Client of the simulated shoe's Unix stream socket (`--usb-socket PATH`).

    Connected means plugged. EOF or a socket error means unplugged; `present()` (called by
    each enumeration) connects again when the server is back. The socket is non-blocking and
    every wait is a select(), so a quiet link costs no CPU and no buffer grows in user space.
    """

    MAX_PATH = 107  # sun_path is 108 bytes with the NUL; longer would only ever "not connect"

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        if len(os.fsencode(self.path)) > self.MAX_PATH:
            raise ValueError(f"Unix socket path longer than {self.MAX_PATH} bytes: {self.path}")
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._generation = 0

    @property
    def generation(self) -> int:
        return self._generation

    @property
    def attached(self) -> bool:
        return self._sock is not None

    def present(self) -> bool:
        with self._lock:
            if self._sock is not None and not self._peer_closed(self._sock):
                return True
            self._drop_locked()
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(self.path)
            except OSError:
                sock.close()
                return False
            sock.setblocking(False)
            self._sock = sock
            self._generation += 1
            return True

    def read(self, size: int, timeout_s: float | None) -> bytes:
        sock = self._current()
        deadline = _deadline(timeout_s)
        while True:
            try:
                ready, _, _ = select.select([sock], [], [], _left(deadline))
            except (OSError, ValueError) as e:  # closed under us
                raise self._down(sock, f"select: {e}") from e
            if ready:
                try:
                    data = sock.recv(size)
                except BlockingIOError:
                    data = None
                except OSError as e:
                    raise self._down(sock, f"recv: {e}") from e
                if data == b"":
                    raise self._down(sock, "shoe closed the socket")
                if data:
                    return data
            if _left(deadline) == 0:
                return b""

    def write(self, data: bytes, timeout_s: float | None = None) -> int:
        sock = self._current()
        deadline = _deadline(timeout_s)
        view = memoryview(bytes(data))
        done = 0
        while done < len(view):
            try:
                done += sock.send(view[done:])
                continue
            except BlockingIOError:
                pass
            except OSError as e:
                raise self._down(sock, f"send: {e}") from e
            try:
                _, ready, _ = select.select([], [sock], [], _left(deadline))
            except (OSError, ValueError) as e:
                raise self._down(sock, f"select: {e}") from e
            if not ready:
                break
        return done

    def close(self) -> None:
        """Disconnect (the device looks unplugged until the next `present()`)."""
        with self._lock:
            self._drop_locked()

    def _current(self) -> socket.socket:
        sock = self._sock
        if sock is None:
            raise LinkDown("not connected")
        return sock

    def _down(self, sock: socket.socket, why: str) -> LinkDown:
        with self._lock:
            if self._sock is sock:
                self._drop_locked()
        return LinkDown(why)

    def _drop_locked(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(OSError):  # already disconnected
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    @staticmethod
    def _peer_closed(sock: socket.socket) -> bool:
        """EOF pending (server gone)? Peeks, so no data byte is consumed."""
        try:
            ready, _, _ = select.select([sock], [], [], 0)
            if not ready:
                return False
            return sock.recv(1, socket.MSG_PEEK) == b""
        except BlockingIOError:
            return False
        except (OSError, ValueError):
            return True


# ---- descriptors ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _DeviceDescriptor:
    idVendor: int
    idProduct: int
    bus: int = 1
    address: int = 1
    bLength: int = 18
    bDescriptorType: int = usb.util.DESC_TYPE_DEVICE
    bcdUSB: int = 0x0200
    bDeviceClass: int = 0x00  # class per interface
    bDeviceSubClass: int = 0
    bDeviceProtocol: int = 0
    bMaxPacketSize0: int = 64
    bcdDevice: int = 0x0100
    iManufacturer: int = 1
    iProduct: int = 2
    iSerialNumber: int = 3
    bNumConfigurations: int = 1
    port_number: int = 1
    port_numbers: tuple[int, ...] = (1,)
    speed: int = usb.util.SPEED_FULL

    def pack(self) -> bytes:
        return struct.pack(
            "<BBHBBBBHHHBBBB", self.bLength, self.bDescriptorType, self.bcdUSB,
            self.bDeviceClass, self.bDeviceSubClass, self.bDeviceProtocol, self.bMaxPacketSize0,
            self.idVendor, self.idProduct, self.bcdDevice, self.iManufacturer, self.iProduct,
            self.iSerialNumber, self.bNumConfigurations)


@dataclass(frozen=True)
class _ConfigurationDescriptor:
    bLength: int = 9
    bDescriptorType: int = usb.util.DESC_TYPE_CONFIG
    wTotalLength: int = 9 + 9 + 7 + 7
    bNumInterfaces: int = 1
    bConfigurationValue: int = CONFIGURATION_VALUE
    iConfiguration: int = 0
    bmAttributes: int = 0x80  # bus powered
    bMaxPower: int = 50  # 100 mA
    extra_descriptors: list[int] = field(default_factory=list)

    def pack(self) -> bytes:
        return struct.pack(
            "<BBHBBBBB", self.bLength, self.bDescriptorType, self.wTotalLength,
            self.bNumInterfaces, self.bConfigurationValue, self.iConfiguration,
            self.bmAttributes, self.bMaxPower)


@dataclass(frozen=True)
class _InterfaceDescriptor:
    bLength: int = 9
    bDescriptorType: int = usb.util.DESC_TYPE_INTERFACE
    bInterfaceNumber: int = INTERFACE
    bAlternateSetting: int = 0
    bNumEndpoints: int = 2
    bInterfaceClass: int = 0xFF  # vendor specific
    bInterfaceSubClass: int = 0
    bInterfaceProtocol: int = 0
    iInterface: int = 0
    extra_descriptors: list[int] = field(default_factory=list)

    def pack(self) -> bytes:
        return struct.pack(
            "<BBBBBBBBB", self.bLength, self.bDescriptorType, self.bInterfaceNumber,
            self.bAlternateSetting, self.bNumEndpoints, self.bInterfaceClass,
            self.bInterfaceSubClass, self.bInterfaceProtocol, self.iInterface)


@dataclass(frozen=True)
class _EndpointDescriptor:
    bEndpointAddress: int
    bLength: int = 7
    bDescriptorType: int = usb.util.DESC_TYPE_ENDPOINT
    bmAttributes: int = usb.util.ENDPOINT_TYPE_BULK
    wMaxPacketSize: int = MAX_PACKET
    bInterval: int = 0
    bRefresh: int = 0
    bSynchAddress: int = 0
    extra_descriptors: list[int] = field(default_factory=list)

    def pack(self) -> bytes:
        return struct.pack(
            "<BBBBHB", self.bLength, self.bDescriptorType, self.bEndpointAddress,
            self.bmAttributes, self.wMaxPacketSize, self.bInterval)


_CONFIG = _ConfigurationDescriptor()
_INTERFACE = _InterfaceDescriptor()
_ENDPOINTS = (_EndpointDescriptor(EP_IN), _EndpointDescriptor(EP_OUT))


@dataclass(frozen=True)
class _DeviceId:
    """What enumerate_devices yields: one attachment of the device."""

    generation: int


@dataclass(eq=False)
class _Handle:
    """What open_device returns: valid only for the attachment it was opened on."""

    generation: int
    claimed: set[int] = field(default_factory=set)
    closed: bool = False


# ---- the backend ----------------------------------------------------------------------------


class SimulatedShoeBackend(usb.backend.IBackend):
    """One simulated shoe for `usb.core.find(backend=...)`; I/O goes through `link`.

    `kernel_driver=True` simulates a kernel driver bound to the interface at every plug:
    claiming fails with EBUSY until `detach_kernel_driver`, as on Linux. `configured=False`
    presents the device unconfigured (bConfigurationValue 0) until `set_configuration`.
    """

    def __init__(
        self,
        vendor_id: int = DEFAULT_VENDOR_ID,
        product_id: int = DEFAULT_PRODUCT_ID,
        serial: str = DEFAULT_SERIAL,
        *,
        link: ByteLink,
        kernel_driver: bool = False,
        configured: bool = True,
    ) -> None:
        super().__init__()
        self.vendor_id = vendor_id
        self.product_id = product_id
        self.serial = serial
        self.link = link
        self._kernel_driver_at_plug = kernel_driver
        self._configured_at_plug = configured
        self._lock = threading.Lock()
        self._state_generation = -1
        self._kernel_driver = kernel_driver
        self._configuration = CONFIGURATION_VALUE if configured else 0
        self._claimed_by: _Handle | None = None
        self._descriptor = _DeviceDescriptor(vendor_id, product_id)
        self._strings = {1: MANUFACTURER, 2: PRODUCT, 3: serial}

    # -- enumeration and descriptors --

    def enumerate_devices(self) -> list[_DeviceId]:
        if not self.link.present():
            return []
        return [_DeviceId(self.link.generation)]

    def get_parent(self, dev: _DeviceId) -> None:
        return None  # on the root hub, as far as anyone can tell

    def get_device_descriptor(self, dev: _DeviceId) -> _DeviceDescriptor:
        return self._descriptor

    def get_configuration_descriptor(self, dev: _DeviceId, config: int) -> _ConfigurationDescriptor:
        if config != 0:
            raise IndexError(config)
        return _CONFIG

    def get_interface_descriptor(
        self, dev: _DeviceId, intf: int, alt: int, config: int,
    ) -> _InterfaceDescriptor:
        if (intf, alt, config) != (0, 0, 0):
            raise IndexError((intf, alt, config))
        return _INTERFACE

    def get_endpoint_descriptor(
        self, dev: _DeviceId, ep: int, intf: int, alt: int, config: int,
    ) -> _EndpointDescriptor:
        if (intf, alt, config) != (0, 0, 0) or not 0 <= ep < len(_ENDPOINTS):
            raise IndexError((ep, intf, alt, config))
        return _ENDPOINTS[ep]

    # -- handles, configuration, interfaces --

    def open_device(self, dev: _DeviceId) -> _Handle:
        with self._lock:
            self._check_attached(dev.generation)
            return _Handle(dev.generation)

    def close_device(self, dev_handle: _Handle) -> None:
        with self._lock:
            dev_handle.closed = True
            if self._claimed_by is dev_handle:
                self._claimed_by = None
            dev_handle.claimed.clear()

    def set_configuration(self, dev_handle: _Handle, config_value: int) -> None:
        with self._lock:
            self._check_handle(dev_handle)
            if config_value not in (0, CONFIGURATION_VALUE):
                raise _usb_error("Entity not found", _LIBUSB_ERROR_NOT_FOUND, errno.ENOENT)
            if self._claimed_by is not None and self._claimed_by is not dev_handle:
                raise _usb_error("Resource busy", _LIBUSB_ERROR_BUSY, errno.EBUSY)
            self._configuration = config_value

    def get_configuration(self, dev_handle: _Handle) -> int:
        with self._lock:
            self._check_handle(dev_handle)
            return self._configuration

    def set_interface_altsetting(self, dev_handle: _Handle, intf: int, altsetting: int) -> None:
        with self._lock:
            self._check_claimed(dev_handle, intf)
            if altsetting != 0:
                raise _usb_error("Entity not found", _LIBUSB_ERROR_NOT_FOUND, errno.ENOENT)

    def claim_interface(self, dev_handle: _Handle, intf: int) -> None:
        with self._lock:
            self._check_handle(dev_handle)
            if intf != INTERFACE or self._configuration != CONFIGURATION_VALUE:
                raise _usb_error("Entity not found", _LIBUSB_ERROR_NOT_FOUND, errno.ENOENT)
            if self._kernel_driver or (
                    self._claimed_by is not None and self._claimed_by is not dev_handle):
                raise _usb_error("Resource busy", _LIBUSB_ERROR_BUSY, errno.EBUSY)
            self._claimed_by = dev_handle
            dev_handle.claimed.add(intf)

    def release_interface(self, dev_handle: _Handle, intf: int) -> None:
        with self._lock:
            if intf not in dev_handle.claimed:
                raise _usb_error("Entity not found", _LIBUSB_ERROR_NOT_FOUND, errno.ENOENT)
            dev_handle.claimed.discard(intf)
            if self._claimed_by is dev_handle:
                self._claimed_by = None
            self._check_handle(dev_handle)  # releasing on a gone device reports ENODEV

    def is_kernel_driver_active(self, dev_handle: _Handle, intf: int) -> bool:
        with self._lock:
            self._check_handle(dev_handle)
            return intf == INTERFACE and self._kernel_driver

    def detach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        with self._lock:
            self._check_handle(dev_handle)
            if intf != INTERFACE or not self._kernel_driver:
                raise _usb_error("Entity not found", _LIBUSB_ERROR_NOT_FOUND, errno.ENOENT)
            self._kernel_driver = False

    def attach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        with self._lock:
            self._check_handle(dev_handle)
            if self._claimed_by is not None:
                raise _usb_error("Resource busy", _LIBUSB_ERROR_BUSY, errno.EBUSY)
            self._kernel_driver = True

    def clear_halt(self, dev_handle: _Handle, ep: int) -> None:
        with self._lock:
            self._check_handle(dev_handle)
            if ep not in (EP_IN, EP_OUT):
                raise _usb_error("Entity not found", _LIBUSB_ERROR_NOT_FOUND, errno.ENOENT)

    def reset_device(self, dev_handle: _Handle) -> None:
        with self._lock:
            self._check_handle(dev_handle)
            self._claimed_by = None
            dev_handle.claimed.clear()

    # -- transfers --

    def bulk_read(
        self, dev_handle: _Handle, ep: int, intf: int, buff: array.array, timeout: int,
    ) -> int:
        with self._lock:
            self._check_claimed(dev_handle, intf)
            if ep != EP_IN:
                raise _usb_error("Pipe error", _LIBUSB_ERROR_PIPE, errno.EPIPE)
        size = len(buff) * buff.itemsize
        try:
            # libusb: a timeout of 0 waits for ever; so does the simulated device
            data = self.link.read(size, None if timeout == 0 else timeout / 1000)
        except LinkDown as e:
            raise _no_device() from e
        if dev_handle.generation != self.link.generation:
            raise _no_device()  # unplugged and replugged while we waited
        if not data:
            raise _timed_out()
        memoryview(buff).cast("B")[:len(data)] = data
        return len(data)

    def bulk_write(
        self, dev_handle: _Handle, ep: int, intf: int, data: array.array, timeout: int,
    ) -> int:
        with self._lock:
            self._check_claimed(dev_handle, intf)
            if ep != EP_OUT:
                raise _usb_error("Pipe error", _LIBUSB_ERROR_PIPE, errno.EPIPE)
        payload = data.tobytes()
        try:
            done = self.link.write(payload, None if timeout == 0 else timeout / 1000)
        except LinkDown as e:
            raise _no_device() from e
        if done == 0 and payload:
            raise _timed_out()
        return done  # partial on timeout, as pyusb's libusb1 backend reports it

    def ctrl_transfer(
        self, dev_handle: _Handle, bmRequestType: int, bRequest: int, wValue: int,
        wIndex: int, data: array.array, timeout: int,
    ) -> int:
        """Standard GET_DESCRIPTOR and GET_STATUS; anything else stalls, as a simple device's."""
        with self._lock:
            self._check_handle(dev_handle)
        if bmRequestType == 0x80 and bRequest == 0x06:  # GET_DESCRIPTOR, device
            reply = self._descriptor_bytes(wValue >> 8, wValue & 0xFF, wIndex)
        elif bmRequestType == 0x80 and bRequest == 0x00:  # GET_STATUS
            reply = b"\x00\x00"
        else:
            raise _usb_error("Pipe error", _LIBUSB_ERROR_PIPE, errno.EPIPE)
        out = memoryview(data).cast("B")
        n = min(len(out), len(reply))
        out[:n] = reply[:n]
        return n

    # -- helpers --

    def _descriptor_bytes(self, kind: int, index: int, langid: int) -> bytes:
        if kind == usb.util.DESC_TYPE_DEVICE and index == 0:
            return self._descriptor.pack()
        if kind == usb.util.DESC_TYPE_CONFIG and index == 0:
            return _CONFIG.pack() + _INTERFACE.pack() + b"".join(e.pack() for e in _ENDPOINTS)
        if kind == usb.util.DESC_TYPE_STRING:
            if index == 0:
                return bytes((4, usb.util.DESC_TYPE_STRING)) + struct.pack("<H", LANGID_EN_US)
            text = self._strings.get(index)
            if text is not None and langid == LANGID_EN_US:
                body = text.encode("utf-16-le")
                return bytes((2 + len(body), usb.util.DESC_TYPE_STRING)) + body
        raise _usb_error("Pipe error", _LIBUSB_ERROR_PIPE, errno.EPIPE)

    def _check_attached(self, generation: int) -> None:
        """Raise ENODEV unless the attachment `generation` is the one plugged in now."""
        if generation != self.link.generation or not self.link.attached:
            raise _no_device()
        if self._state_generation != generation:
            # a new attachment: the device comes up as it does at power-on
            self._state_generation = generation
            self._kernel_driver = self._kernel_driver_at_plug
            self._configuration = CONFIGURATION_VALUE if self._configured_at_plug else 0
            self._claimed_by = None

    def _check_handle(self, dev_handle: _Handle) -> None:
        if dev_handle.closed:
            raise _usb_error("Input/output error", _LIBUSB_ERROR_IO, errno.EIO)
        self._check_attached(dev_handle.generation)

    def _check_claimed(self, dev_handle: _Handle, intf: int) -> None:
        self._check_handle(dev_handle)
        if intf not in dev_handle.claimed:
            # libusb would have claimed it implicitly on some platforms; pyusb always
            # claims first, so an unclaimed transfer here is a bug worth seeing
            raise _usb_error("Entity not found", _LIBUSB_ERROR_NOT_FOUND, errno.ENOENT)


# ---- for the daemon's `usb_backend` setting -------------------------------------------------


def _parse_ids(text: str) -> tuple[int, int]:
    vendor, sep, product = text.partition(":")
    if not sep:
        raise ValueError(f"{ENV_IDS} must look like 1209:5348, not {text!r}")
    return int(vendor, 16), int(product, 16)


def from_environment() -> SimulatedShoeBackend:
    """A SocketLink backend for the shoe served at $SHOE_SIM_USB_SOCKET.

    Optional: $SHOE_SIM_USB_IDS ("1209:5348", hex) and $SHOE_SIM_USB_SERIAL. Named by the
    daemon's `usb_backend = "hil.usb_device:from_environment"` in hardware-in-the-loop runs.
    """
    path = os.environ.get(ENV_SOCKET)
    if not path:
        raise RuntimeError(f"{ENV_SOCKET} is not set: where does the simulated shoe listen?")
    vendor, product = DEFAULT_VENDOR_ID, DEFAULT_PRODUCT_ID
    if ids := os.environ.get(ENV_IDS):
        vendor, product = _parse_ids(ids)
    serial = os.environ.get(ENV_SERIAL) or DEFAULT_SERIAL
    return SimulatedShoeBackend(vendor, product, serial, link=SocketLink(path))
