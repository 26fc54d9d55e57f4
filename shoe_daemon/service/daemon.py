"""`shoe-daemon run`: the live service. One loop reads the shoe, decodes and delivers frames
in order, plays them through the coup machine, commits frames and what they decided to the
audit ledger, and only then acknowledges, publishes and drives the shoe's lamp.

Like pyserial's `serial.threaded`, bytes go from a reader to a protocol object; here the
loop is single-threaded so that a frame's effects happen in one order and a hung loop is
one thing a watchdog can see.

Crash safety (docs/audit.md): the ledger is the truth. A frame is acknowledged only once it
is committed, so the shoe resends whatever a crash lost. On start the coup machine is
rebuilt by playing the ledger's frames again, delivery resumes after the last recorded
frame, and the results file gets exactly the recorded lines it is missing.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import structlog

from drivers.delivery import RESET, Receiver
from drivers.framing import FrameDecoder, SequenceNumbers, encode
from drivers.messages import Ack, Button, Fault, Hello, Lamp
from drivers.records import frame_body, frame_message, hello_boot_id, next_seq, opens_shoe
from drivers.transport import Transport, TransportLost
from shoe_daemon import __version__
from shoe_daemon.audit.ledger import Ledger, LedgerError
from shoe_daemon.display import TableDisplay
from shoe_daemon.game.coup import BETWEEN_COUPS, CoupMachine
from shoe_daemon.game.houses import get_profile
from shoe_daemon.service.config import Config
from shoe_daemon.service.notify import Notifier
from shoe_daemon.service.status import StatusReporter

READ_TIMEOUT = 0.1  # s: how long one read may wait; bounds the reaction to SIGTERM
STATS_EVERY = 60.0  # s between line-statistics log lines (when something changed)
CLOCK_STEP_NS = 1_000_000_000  # wall clock moving 1 s off the monotonic clock is a step


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


def code_sha256() -> str:
    """A hash of the installed code (shoe_daemon and drivers), recorded at every start."""
    digest = hashlib.sha256()
    for package in ("shoe_daemon", "drivers"):
        root = Path(importlib.import_module(package).__file__ or "").parent
        for path in sorted(root.rglob("*.py")):
            digest.update(f"{package}/{path.relative_to(root)}\n".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


class Daemon:
    def __init__(self, config: Config, transport: Transport, ledger: Ledger | None = None,
                 results: TextIO | None = None,
                 display: Callable[[bytes], None] | None = None) -> None:
        self.config = config
        self.transport = transport
        self.log = structlog.get_logger("shoe_daemon").bind(table=config.table)
        self.ledger = ledger or Ledger(config.state_dir)
        self.machine = CoupMachine(get_profile(config.profile))
        # The table display gets committed state only: each frame's view is staged and shown
        # after its batch's commit, or after a rebuild from the ledger.
        self.display = TableDisplay(config.table, display) if display is not None else None
        self.decoder = FrameDecoder()
        self.receiver = Receiver()
        self.host_seq = SequenceNumbers()
        self.frame: int | None = None  # seq of the frame being played, for the log
        self.lamp_sent: str | None = None
        self.boot_id: str | None = None
        self.stop_event = threading.Event()
        self._backlog: list[tuple[str, dict[str, Any]]] = []  # records not yet committed
        self._ledger_down = False
        self._ledger_error = ""
        self._capture_down = False
        self._stale = False  # the machine ran ahead of a failed commit: rebuild before playing
        self._clock_offset = time.time_ns() - time.monotonic_ns()
        captures = config.state_dir / "captures"
        captures.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        self.capture_path: Path = captures / f"{stamp}-{os.getpid()}.cap"
        self.capture = self.capture_path.open("ab")
        self._stats_at = time.monotonic()
        self._stats_last: tuple[int, ...] = ()
        self.results = results if results is not None else self._open_results()
        self.notifier = Notifier()
        self.reporter = StatusReporter(self, self.notifier)

    # ---- start: the ledger is the truth --------------------------------------------------

    def _open_results(self) -> TextIO:
        if self.config.results == "-":
            return sys.stdout
        return open(self.config.results, "a+", encoding="utf-8")

    def restore(self) -> None:
        """Verify the ledger, rebuild the coup machine and delivery, complete the results file."""
        count = self.ledger.verify()
        self._rebuild()
        self._show()
        republished = self._complete_results()
        self.log.info("ledger.restored", records=count, state=self.machine.state,
                      republished=republished, **self._where())
        if self.machine.state not in BETWEEN_COUPS:
            self._backlog.append(("restore", {"state": self.machine.state, **self._where()}))

    def _rebuild(self) -> None:
        """Machine and delivery as the ledger has them: its frames since the last BTN,SHOE.

        Shoes and the shoe's boot id in records `audit prune` removed come from its record.
        """
        kept = self.ledger.start()
        shoes, start, last = kept.shoes, kept.first_idx, None
        for record in self.ledger.records(kinds=("frame",)):
            if opens_shoe(record.body):
                shoes, start = shoes + 1, record.idx
            last = record.body
        self.machine = CoupMachine(self.machine.profile)
        self.receiver = Receiver()
        self._stale = False
        if last is None:
            if self.display is not None:
                self.display.rebuild([])
            return
        frames = [frame_message(r.body) for r in self.ledger.records(start, ("frame",))]
        replayed = self.machine.restore(frames, max(shoes - 1, 0))
        recorded = [r.body["line"] for r in self.ledger.records(start, ("result",))]
        if self.display is not None:
            self.display.rebuild(recorded)
        if replayed != recorded:
            self.log.error("ledger.replay_mismatch", replayed=len(replayed),
                           recorded=len(recorded))
        boot = self._last_boot_id() or kept.boot_id
        # The last frame was committed but perhaps never acknowledged (killed in between):
        # a resent copy is a duplicate and must be acknowledged, or the shoe resends it for ever.
        self.receiver = Receiver(expected=next_seq(last["seq"]), boot_id=boot,
                                 last_in_order=last["seq"])
        self.boot_id = boot

    def _last_boot_id(self) -> str | None:
        boot = None
        for record in self.ledger.records(kinds=("frame",)):
            boot = hello_boot_id(record.body) or boot
        return boot

    def _complete_results(self) -> int:
        """Append the recorded lines the results file lacks (a crash between commit and write)."""
        if self.results is sys.stdout:
            return 0
        self.results.seek(0)
        text = self.results.read()
        if text and not text.endswith("\n"):  # torn by a crash mid-write: drop the tail
            whole = text[: text.rfind("\n") + 1]
            self.results.truncate(len(whole.encode()))
            text = whole
        have = text.count("\n") - self.ledger.start().results  # lines of pruned records
        missing = [r.body["line"] for r in self.ledger.records(kinds=("result",))][max(have, 0):]
        for line in missing:
            self.results.write(json.dumps(line) + "\n")
        self.results.flush()
        os.fsync(self.results.fileno())
        return len(missing)

    # ---- life cycle ----------------------------------------------------------------------

    def stop(self, *_: Any) -> None:
        self.stop_event.set()

    def install_signal_handlers(self) -> None:
        signal.signal(signal.SIGTERM, self.stop)
        signal.signal(signal.SIGINT, self.stop)

    def run(self) -> int:
        self.reporter.starting()
        try:
            self.restore()
            self._record("daemon.start", {
                "version": __version__, "code_sha256": code_sha256(), "table": self.config.table,
                "profile": self.config.profile, "config": self.config.as_dict(), "pid": os.getpid(),
            })
        except LedgerError as e:
            self.log.error("ledger.unusable", error=str(e))
            self.reporter.failed(f"audit ledger unusable: {e}")
            return 1
        self.log.info("daemon.start", version=__version__, profile=self.config.profile,
                      transport=self.transport.name, capture=str(self.capture_path))
        wait = self.config.reconnect_min
        down_since: float | None = None
        try:
            while not self.stop_event.is_set():
                self.reporter.beat()
                if not self.transport.is_open:
                    try:
                        self.transport.open()
                    except TransportLost as e:
                        if down_since is None:
                            down_since = time.monotonic()
                            self.log.warning("shoe.unavailable", error=str(e), retry_in=wait)
                            self._record("transport", {"event": "unavailable", "detail": str(e)})
                        self.reporter.ready()  # running: STATUS says it waits for the shoe
                        self._pause(wait)
                        wait = min(wait * 2, self.config.reconnect_max)
                        continue
                    outage = None if down_since is None else time.monotonic() - down_since
                    self.log.info("shoe.connected", transport=self.transport.name,
                                  after_s=None if outage is None else round(outage, 3))
                    self._record("transport", {"event": "connected",
                                               "detail": self.transport.name})
                    wait, down_since = self.config.reconnect_min, None
                    self.lamp_sent = None
                    self.reporter.ready()
                try:
                    self._send_lamp()  # the shoe learns the state at once; it can vanish here too
                    self._serve_once()
                except TransportLost as e:
                    self.log.warning("shoe.lost", error=str(e), **self._where())
                    self._record("transport", {"event": "lost", "detail": str(e)})
                    self.transport.close()
                    down_since = time.monotonic()
        except Exception:
            # Unexpected: say so with the traceback, exit non-zero, let systemd restart us.
            self.log.exception("daemon.crash", **self._where())
            return 1
        finally:
            self.reporter.stopping()
            self.transport.close()
            self._record("daemon.stop", self._where())
            self._log_stats(force=True)
            with contextlib.suppress(OSError):
                self.capture.close()
            self.results.flush()
            self.log.info("daemon.stop", **self._where())
        return 0

    def _pause(self, seconds: float) -> None:
        """Wait for the shoe's next reopen, still pinging the watchdog from this loop."""
        deadline = time.monotonic() + seconds
        while not self.stop_event.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self.stop_event.wait(min(left, self.reporter.slice))
            self.reporter.beat()

    # ---- the loop's body -------------------------------------------------------------------

    def _serve_once(self) -> None:
        data = self.transport.read(READ_TIMEOUT)
        if data:
            self._capture(data)
            if self._stale:
                try:
                    self._rebuild()
                except LedgerError:
                    return  # still unreadable: acknowledge nothing, the shoe keeps resending
            records: list[tuple[str, dict[str, Any]]] = []
            acks: list[int] = []
            for frame in self.decoder.feed(data):
                verdict = self.receiver.receive(frame)
                if verdict.accepted:
                    self.frame = frame.seq
                    self._note(frame.message, verdict.kind)
                    records.append(("frame", frame_body(frame.seq, frame.message)))
                    lines = self.machine.handle(frame.message)
                    records += [("result", {"line": line}) for line in lines]
                    self._stage(lines)
                if verdict.ack is not None:
                    acks.append(verdict.ack)
            self._check_clock()
            if records and not self._commit(records):
                if self.display is not None:
                    self.display.discard()  # the history goes back with the machine's rebuild
                self._send_lamp()
                return  # nothing acknowledged: the shoe resends once the ledger takes it
            for _, body in records:
                if "line" in body:
                    self._publish(body["line"])
            for ack in acks:
                self.transport.write(encode(self.host_seq.next(), Ack(ack)))
            self._send_lamp()
            self._flush()  # after the ACK: the shoe never waits for the screen
        elif self._backlog:
            self._commit([])
        self._log_stats()

    def _capture(self, data: bytes) -> None:
        """Keep the raw line for replay; it is a diagnostic copy, so a full disk only warns."""
        try:
            self.capture.write(data)
            self.capture.flush()
        except OSError as e:
            if not self._capture_down:
                self.log.warning("capture.write_failed", error=str(e))
            self._capture_down = True
        else:
            self._capture_down = False

    def _commit(self, records: list[tuple[str, dict[str, Any]]]) -> bool:
        """Records (with any backlog first) durably in the ledger, or roll the game back."""
        try:
            self.ledger.append_many(self._backlog + records)
        except LedgerError as e:
            if not self._ledger_down:
                self.log.error("ledger.write_failed", error=str(e), **self._where())
            self._ledger_down = True
            self._ledger_error = str(e.__cause__ or e)
            self._stale = self._stale or bool(records)  # the machine ran ahead of the ledger
            return False
        self._backlog.clear()
        if self._ledger_down:
            self._ledger_down = False
            self.log.info("ledger.recovered", **self._where())
        return True

    def _record(self, kind: str, body: dict[str, Any]) -> None:
        """An event with no frame behind it: committed now if the ledger takes it, else later."""
        self._backlog.append((kind, body))
        try:
            self.ledger.append_many(self._backlog)
            self._backlog.clear()
        except LedgerError as e:
            if not self._ledger_down:
                self.log.error("ledger.write_failed", error=str(e), **self._where())
            self._ledger_down = True
            self._ledger_error = str(e.__cause__ or e)

    def _check_clock(self) -> None:
        offset = time.time_ns() - time.monotonic_ns()
        if abs(offset - self._clock_offset) > CLOCK_STEP_NS:
            self._backlog.append(("clock.step", {"jump_ns": offset - self._clock_offset}))
            self.log.warning("clock.step", jump_s=round((offset - self._clock_offset) / 1e9, 3))
        self._clock_offset = offset

    def _note(self, message: object, kind: str) -> None:
        if isinstance(message, Hello):
            rebooted = kind == RESET and self.boot_id not in (None, message.boot_id)
            self.boot_id = message.boot_id
            if rebooted:
                self._backlog.append(("transport", {"event": "shoe.reboot",
                                                    "detail": message.boot_id}))
            (self.log.warning if rebooted else self.log.info)(
                "shoe.reboot" if rebooted else "shoe.hello",
                model=message.model, serial=message.serial, firmware=message.firmware,
                boot_id=message.boot_id, **self._where())
        elif isinstance(message, Fault):
            self.log.warning("shoe.fault", code=message.code, on=message.on, **self._where())
        elif isinstance(message, Button) and message.name == "KEY":
            self.log.info("supervisor.key", badge=message.arg, **self._where())

    def _send_lamp(self) -> None:
        lamp = "RED" if self._ledger_down else self.machine.lamp
        if lamp != self.lamp_sent:
            self.transport.write(encode(self.host_seq.next(), Lamp(lamp)))
            self.lamp_sent = lamp

    def _stage(self, lines: list[dict[str, Any]]) -> None:
        """The view after one frame, shown only once the batch is committed (`flush`)."""
        if self.display is None:
            return
        try:
            for line in lines:
                self.display.record(line)
            self.display.stage(self.machine)
        except Exception:
            self.log.exception("display.failed", **self._where())

    def _flush(self) -> None:
        """The committed batch's views to the display, one per change, in order."""
        if self.display is None:
            return
        try:
            self.display.flush()
        except Exception:
            self.log.exception("display.failed", **self._where())

    def _show(self) -> None:
        """The committed state to the table display (a snapshot handed over, never awaited).

        The screen is secondary to the table: a fault in building it is logged, never raised.
        """
        if self.display is None:
            return
        try:
            self.display.show(self.machine)
        except Exception:
            self.log.exception("display.failed", **self._where())

    def _publish(self, line: dict[str, Any]) -> None:
        """A recorded result or irregularity: to the results file, then the log."""
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
