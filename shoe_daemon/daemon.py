"""`shoe-daemon run`: the live service. One loop reads the shoe, decodes and delivers frames
in order, acknowledges them, plays them through the coup machine, publishes what it
decides, and drives the shoe's lamp.

Like pyserial's `serial.threaded`, bytes go from a reader to a protocol object; here the
loop is single-threaded so that a frame's effects (result, ACK, lamp) happen in order and a
hung loop is one thing a watchdog can see.
"""

from __future__ import annotations

import importlib
import json
import signal
import threading
import time
from pathlib import Path
from typing import Any, TextIO

import structlog

from drivers.delivery import RESET, Receiver
from drivers.framing import FrameDecoder, SequenceNumbers, encode
from drivers.messages import Ack, Fault, Hello, Lamp
from drivers.transport import Transport, TransportLost
from shoe_daemon import __version__
from shoe_daemon.config import Config
from shoe_daemon.coup import CoupMachine
from shoe_daemon.profiles import get_profile

READ_TIMEOUT = 0.1  # s: how long one read may wait; bounds the reaction to SIGTERM
STATS_EVERY = 60.0  # s between line-statistics log lines (when something changed)


def make_transport(config: Config) -> Transport:
    if config.transport == "usb":
        from drivers.usb_transport import UsbTransport

        backend = None
        if config.usb_backend:
            module, _, name = config.usb_backend.partition(":")
            backend = getattr(importlib.import_module(module), name)()
        return UsbTransport(
            config.usb_vendor,
            config.usb_product,
            interface=config.usb_interface,
            endpoint_in=config.usb_endpoint_in,
            endpoint_out=config.usb_endpoint_out,
            serial_number=config.usb_serial or None,
            backend=backend,
        )
    from drivers.serial_transport import SerialTransport

    return SerialTransport(config.port, config.baud)


class Daemon:
    def __init__(self, config: Config, transport: Transport, results: TextIO) -> None:
        self.config = config
        self.transport = transport
        self.results = results
        self.log = structlog.get_logger("shoe_daemon").bind(table=config.table)
        self.machine = CoupMachine(get_profile(config.profile), emit=self._publish)
        self.decoder = FrameDecoder()
        self.receiver = Receiver()
        self.host_seq = SequenceNumbers()
        self.frame: int | None = None  # seq of the frame being played, for the log
        self.lamp_sent: str | None = None
        self.boot_id: str | None = None
        self.stop_event = threading.Event()
        captures = config.state_dir / "captures"
        captures.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        self.capture_path: Path = captures / f"{stamp}.cap"
        self.capture = self.capture_path.open("ab")
        self._stats_at = time.monotonic()
        self._stats_last: tuple[int, ...] = ()

    # ---- life cycle ----------------------------------------------------------------------

    def stop(self, *_: Any) -> None:
        self.stop_event.set()

    def install_signal_handlers(self) -> None:
        signal.signal(signal.SIGTERM, self.stop)
        signal.signal(signal.SIGINT, self.stop)

    def run(self) -> int:
        self.log.info(
            "daemon.start",
            version=__version__,
            profile=self.config.profile,
            transport=self.transport.name,
            capture=str(self.capture_path),
        )
        wait = self.config.reconnect_min
        down_since: float | None = None
        try:
            while not self.stop_event.is_set():
                if not self.transport.is_open:
                    try:
                        self.transport.open()
                    except TransportLost as e:
                        if down_since is None:
                            down_since = time.monotonic()
                            self.log.warning("shoe.unavailable", error=str(e), retry_in=wait)
                        self.stop_event.wait(wait)
                        wait = min(wait * 2, self.config.reconnect_max)
                        continue
                    outage = None if down_since is None else time.monotonic() - down_since
                    self.log.info("shoe.connected", transport=self.transport.name,
                                  after_s=None if outage is None else round(outage, 3))
                    wait, down_since = self.config.reconnect_min, None
                    self.lamp_sent = None
                try:
                    self._send_lamp()  # the shoe learns the state at once; it can vanish here too
                    self._serve_once()
                except TransportLost as e:
                    self.log.warning("shoe.lost", error=str(e), **self._where())
                    self.transport.close()
                    down_since = time.monotonic()
        except Exception:
            # Unexpected: say so with the traceback, exit non-zero, let systemd restart us.
            self.log.exception("daemon.crash", **self._where())
            return 1
        finally:
            self.transport.close()
            self._log_stats(force=True)
            self.capture.close()
            self.results.flush()
            self.log.info("daemon.stop", **self._where())
        return 0

    # ---- the loop's body -------------------------------------------------------------------

    def _serve_once(self) -> None:
        data = self.transport.read(READ_TIMEOUT)
        if data:
            self.capture.write(data)
            for frame in self.decoder.feed(data):
                verdict = self.receiver.receive(frame)
                if verdict.accepted:
                    self.frame = frame.seq
                    self._note(frame.message, verdict.kind)
                    self.machine.handle(frame.message)
                if verdict.ack is not None:
                    self.transport.write(encode(self.host_seq.next(), Ack(verdict.ack)))
            self._send_lamp()
            self.capture.flush()
        self._log_stats()

    def _note(self, message: object, kind: str) -> None:
        if isinstance(message, Hello):
            rebooted = kind == RESET and self.boot_id not in (None, message.boot_id)
            self.boot_id = message.boot_id
            (self.log.warning if rebooted else self.log.info)(
                "shoe.reboot" if rebooted else "shoe.hello",
                model=message.model, serial=message.serial, firmware=message.firmware,
                boot_id=message.boot_id, **self._where())
        elif isinstance(message, Fault):
            self.log.warning("shoe.fault", code=message.code, on=message.on, **self._where())

    def _send_lamp(self) -> None:
        lamp = self.machine.lamp
        if lamp != self.lamp_sent:
            self.transport.write(encode(self.host_seq.next(), Lamp(lamp)))
            self.lamp_sent = lamp

    def _publish(self, line: dict[str, Any]) -> None:
        """A validated result or irregularity: to the results file, then the log."""
        self.results.write(json.dumps(line) + "\n")
        self.results.flush()
        event = line["event"]
        where = {"shoe": line["shoe"], "coup": line["coup"], "frame": self.frame}
        if event == "coup.result":
            self.log.info(event, outcome=line["outcome"], **where)
        elif event == "irregularity":
            self.log.warning(event, code=line["code"], rule=line["rule"], hold=line["hold"],
                             detail=line["detail"], **where)
        else:
            self.log.info(event, code=line["code"], how=line["how"], by=line["by"], **where)

    def _where(self) -> dict[str, Any]:
        shoe = self.machine.shoe.number if self.machine.shoe else None
        coup = self.machine.coup.number if self.machine.coup else None
        return {"shoe": shoe, "coup": coup, "frame": self.frame}

    def _log_stats(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._stats_at < STATS_EVERY:
            return
        self._stats_at = now
        d, r = self.decoder.stats, self.receiver.stats
        counts = (d.frames, d.noise_bytes, d.bad_crc, d.overlong, d.unparsable, d.truncated,
                  r.duplicates, r.gaps, r.resets)
        if counts == self._stats_last and not force:
            return
        self._stats_last = counts
        self.log.info("line.stats", frames=d.frames, noise_bytes=d.noise_bytes,
                      bad_crc=d.bad_crc, overlong=d.overlong, unparsable=d.unparsable,
                      truncated=d.truncated, duplicates=r.duplicates, gaps=r.gaps,
                      resets=r.resets)
