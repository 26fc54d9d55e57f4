"""The shoe on a USB vendor interface: its byte stream over a bulk IN and a bulk OUT endpoint.

Driven through pyusb, with libusb by default or any pyusb backend passed in (the simulated
shoe of `hil.usb_device` in tests and hardware-in-the-loop runs).

`read()` asks for one max-size packet (`wMaxPacketSize`, 64 bytes at full speed) per
transfer: a transfer completes when the device sends a packet shorter than the request or
fills it, so asking for exactly one packet means every packet is handed over the moment it
arrives, whereas a larger request could sit on a run of full packets until its timeout.
libusb waits in the kernel meanwhile, so a quiet shoe costs no CPU.

A device that has gone away (ENODEV, EIO, a stalled pipe, anything but a timeout) is
reported as `TransportLost` and released; `open()` later finds it again, replugged or not.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import math
from typing import Any

import usb.core
import usb.util

from drivers.transport import Settings, Transport, TransportLost, register

_TIMEOUT_ERRNOS = (errno.ETIMEDOUT, errno.EINTR)


class UsbTransport(Transport):
    """One interface of one device, found by vendor/product id (and serial number if given)."""

    def __init__(
        self,
        vendor_id: int,
        product_id: int,
        interface: int = 0,
        endpoint_in: int = 0x81,
        endpoint_out: int = 0x01,
        serial_number: str | None = None,
        backend: Any = None,
        *,
        write_timeout: float = 1.0,
    ) -> None:
        if not endpoint_in & usb.util.ENDPOINT_IN:
            raise ValueError(f"endpoint_in {endpoint_in:#04x} is not an IN address (0x80 bit)")
        if endpoint_out & usb.util.ENDPOINT_IN:
            raise ValueError(f"endpoint_out {endpoint_out:#04x} is not an OUT address")
        if write_timeout <= 0:
            raise ValueError("write_timeout must be positive: a stuck device must not block")
        self.vendor_id = vendor_id
        self.product_id = product_id
        self.interface = interface
        self.endpoint_in = endpoint_in
        self.endpoint_out = endpoint_out
        self.serial_number = serial_number
        self.backend = backend
        self.write_timeout = write_timeout
        ident = f"{vendor_id:04x}:{product_id:04x}"
        if serial_number:
            ident += f"/{serial_number}"
        self.name = f"usb:{ident}#{interface}"
        self._dev: usb.core.Device | None = None
        self._packet = 64
        self.detached_kernel_driver = False  # whether the last open() had to detach one

    @property
    def is_open(self) -> bool:
        return self._dev is not None

    def open(self) -> None:
        """Find, claim and check the interface; TransportLost (with the reason) if not now."""
        self.close()
        dev = self._find()
        try:
            self._claim(dev)
        except BaseException:
            _dispose(dev)
            raise
        self._dev = dev

    def read(self, timeout: float) -> bytes:
        """One packet as soon as it arrives, waiting at most `timeout` s; b"" if none."""
        dev = self._dev
        if dev is None:
            raise TransportLost(f"{self.name}: not open")
        try:
            data = dev.read(self.endpoint_in, self._packet, _ms(timeout))
        except usb.core.USBTimeoutError:
            return b""
        except usb.core.USBError as e:
            if e.errno in _TIMEOUT_ERRNOS:  # libusb0/openusb report timeouts this way
                return b""
            self.close()
            raise TransportLost(f"{self.name}: read: {_reason(e)}") from e
        return data.tobytes()

    def write(self, data: bytes) -> None:
        """Send all of `data` on the OUT endpoint; a device that takes nothing in
        `write_timeout` s is lost."""
        dev = self._dev
        if dev is None:
            raise TransportLost(f"{self.name}: not open")
        view = memoryview(data)
        timeout = _ms(self.write_timeout)
        while view:
            try:
                n = dev.write(self.endpoint_out, view, timeout)
            except usb.core.USBError as e:
                self.close()
                if isinstance(e, usb.core.USBTimeoutError) or e.errno == errno.ETIMEDOUT:
                    raise TransportLost(
                        f"{self.name}: write timed out after {self.write_timeout} s") from e
                raise TransportLost(f"{self.name}: write: {_reason(e)}") from e
            if n <= 0:
                self.close()
                raise TransportLost(f"{self.name}: write: device took no data")
            view = view[n:]

    def close(self) -> None:
        """Release the interface and the handle; a no-op when not open."""
        dev, self._dev = self._dev, None
        if dev is not None:
            # a gone device cannot be released; disposing frees our side anyway
            with contextlib.suppress(usb.core.USBError, ValueError):
                usb.util.release_interface(dev, self.interface)
            _dispose(dev)

    # ---- open() in steps --------------------------------------------------------------------

    def _find(self) -> usb.core.Device:
        match: dict[str, Any] = {"idVendor": self.vendor_id, "idProduct": self.product_id}
        if self.serial_number:
            # pyusb compares it after vid/pid, reading the string descriptor only then
            match["serial_number"] = self.serial_number
        try:
            dev = usb.core.find(backend=self.backend, **match)
        except usb.core.NoBackendError as e:
            raise TransportLost(f"{self.name}: no USB backend (is libusb-1.0 installed?)") from e
        except (usb.core.USBError, OSError) as e:
            raise TransportLost(f"{self.name}: enumeration failed: {_reason(e)}") from e
        if dev is None:
            raise TransportLost(f"{self.name}: no such device")
        return dev

    def _claim(self, dev: usb.core.Device) -> None:
        try:
            self.detached_kernel_driver = False
            try:
                if dev.is_kernel_driver_active(self.interface):
                    dev.detach_kernel_driver(self.interface)
                    self.detached_kernel_driver = True
            except NotImplementedError:
                pass  # not Linux: there is no kernel driver to detach
            try:
                cfg = dev.get_active_configuration()
            except usb.core.USBError:
                # unconfigured; do not set it otherwise, which would reset a configured device
                dev.set_configuration()
                cfg = dev.get_active_configuration()
            usb.util.claim_interface(dev, self.interface)
            intf = usb.util.find_descriptor(cfg, bInterfaceNumber=self.interface)
        except usb.core.USBError as e:
            raise TransportLost(f"{self.name}: cannot claim interface: {_reason(e)}") from e
        if intf is None:
            raise TransportLost(f"{self.name}: device has no interface {self.interface}")
        ep_in = usb.util.find_descriptor(intf, bEndpointAddress=self.endpoint_in)
        ep_out = usb.util.find_descriptor(intf, bEndpointAddress=self.endpoint_out)
        for address, ep in ((self.endpoint_in, ep_in), (self.endpoint_out, ep_out)):
            if ep is None:
                raise TransportLost(f"{self.name}: interface has no endpoint {address:#04x}")
            if usb.util.endpoint_type(ep.bmAttributes) != usb.util.ENDPOINT_TYPE_BULK:
                raise TransportLost(f"{self.name}: endpoint {address:#04x} is not bulk")
        self._packet = int(ep_in.wMaxPacketSize) or 64


def _ms(timeout_s: float) -> int:
    """Seconds to libusb milliseconds, at least 1: libusb takes 0 as 'wait for ever'."""
    return max(1, math.ceil(timeout_s * 1000))


def _dispose(dev: usb.core.Device) -> None:
    # closing a gone device's handle can fail; the handle is dropped regardless
    with contextlib.suppress(usb.core.USBError):
        usb.util.dispose_resources(dev)


def _reason(e: BaseException) -> str:
    code = getattr(e, "errno", None)
    if code == errno.ENODEV:
        return "device gone (unplugged?)"
    if code in (errno.EACCES, errno.EPERM):
        return "permission denied (is there a udev rule giving the daemon's user the device?)"
    if code == errno.EBUSY:
        return "busy: another process or a kernel driver holds the interface"
    if code == errno.EPIPE:
        return "endpoint stalled"
    if code == errno.EIO:
        return "I/O error"
    return str(e)


def from_settings(settings: Settings) -> UsbTransport:
    """The `usb` transport: settings `usb_vendor`, `usb_product`, `usb_interface`,
    `usb_endpoint_in`, `usb_endpoint_out`, `usb_serial` (empty: the first device found) and
    `usb_backend` (`module:callable` returning a pyusb backend; empty: libusb)."""
    backend = None
    if settings.get("usb_backend"):
        module, _, name = settings["usb_backend"].partition(":")
        backend = getattr(importlib.import_module(module), name)()
    return UsbTransport(
        settings["usb_vendor"],
        settings["usb_product"],
        interface=settings["usb_interface"],
        endpoint_in=settings["usb_endpoint_in"],
        endpoint_out=settings["usb_endpoint_out"],
        serial_number=settings.get("usb_serial") or None,
        backend=backend,
    )


register("usb", from_settings)
