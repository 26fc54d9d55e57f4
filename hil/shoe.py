"""The simulated card shoe: `python -m hil.shoe`, the shoe side of the Shoe Line Protocol.

It deals whole shoes with `hil.dealer` (ground truth included) and plays them to a real host
over a pseudo terminal (a symlink such as /dev/shoe points at it, as udev would make) or over
a Unix stream socket that the simulated USB device (hil/usb_device.py) connects to. It speaks
the protocol exactly as a shoe does: HELLO first, its own numbering, up to 16 frames not yet
acknowledged, and 300 ms after the last ACK that made progress, everything unacknowledged
again from the oldest (go-back-N). It reads the host's ACK and LAMP frames. After a HELLO it
sends nothing new until that HELLO is acknowledged, so the host cannot take the new boot's
frames for the old stream's (protocol 1.1; `--proto 1.0` does not wait). While idle it sends
HB at least once a second. On a pty, what it writes while no host has the port open is lost,
as on a real line; `--deal-at-power-up` starts the croupier before any host answers.
With `--deal-button PATH` the croupier waits before each coup's `BTN,DEAL` for a press on
the shoe's DEAL button, a FIFO (hil/deal_button.py).

Every byte written to the line goes to --capture (faults and resends included: replaying it
with `shoe-daemon replay` gives the same results); the croupier's coup.result lines go to
--truth. See docs/simulated-shoe.md.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import random
import select
import signal
import socket
import sys
import time
import tty
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from drivers.framing import FrameDecoder, encode
from drivers.messages import (
    HOST_TO_SHOE,
    SEQ_MODULUS,
    Ack,
    Button,
    Heartbeat,
    Hello,
    Lamp,
    Message,
)
from hil import faults as line
from hil.deal_button import DealButton
from hil.dealer import FIRMWARE, MODEL, SERIAL, GameFaults, Session, boot_id_for, deal_shoes
from shoe_daemon.game.houses import PROFILES

WINDOW = 16  # frames not yet acknowledged, at most
RESEND_AFTER = 0.300  # s after the last ACK progress: go back to the oldest
HEARTBEAT_EVERY = 1.0  # s without a new frame
UNPLUG_SECONDS = 0.5  # how long the cable stays out
REBOOT_SECONDS = 0.3  # how long a reboot takes (the shoe hears nothing meanwhile)
DEFAULT_GIVE_UP = 30.0  # s without ACK progress while frames wait: the host is not there
READ_CHUNK = 4096
HOST_LOOK_EVERY = 0.02  # s between looks for a host opening the pty, while none has it open

EXIT_DONE = 0
EXIT_NO_HOST = 3


class LinkDown(Exception):
    """The other end went away (the host closed the USB socket)."""


# -- links ------------------------------------------------------------------------------------


class PtyLink:
    """A pseudo terminal; the host opens the slave through a symlink (like udev's /dev/shoe).

    Like a real line, it carries bytes only while the host has the port open: what the shoe
    writes meanwhile is lost, and the host hears from the moment it opened. (A pty would
    keep those bytes for the next opener, so the link drops them itself.) The shoe holds no
    slave descriptor of its own, so it sees whether the host has the port open: the master
    hangs up (POLLHUP) while no slave is open. The slave is left raw until the host sets its
    own mode, as pyserial does on open.
    """

    def __init__(self, link: Path) -> None:
        self.link = link
        self.master = -1
        self.path = ""
        self.lost = 0  # bytes written while the host did not have the port open
        self._poll = select.poll()

    @property
    def up(self) -> bool:
        return self.master >= 0

    @property
    def listening(self) -> bool:
        """The host has the port open: bytes written now reach it."""
        if self.master < 0:
            return False
        return not any(events & select.POLLHUP for _, events in self._poll.poll(0))

    def open(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        path = os.ttyname(slave)
        os.close(slave)
        os.set_blocking(master, False)
        self._poll = select.poll()
        self._poll.register(master, select.POLLIN)
        self.master, self.path = master, path
        tmp = self.link.with_name(f".{self.link.name}.{os.getpid()}.tmp")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        os.symlink(self.path, tmp)
        os.replace(tmp, self.link)  # atomic: the link never points nowhere while up

    def unplug(self) -> None:
        """The cable is pulled: the link disappears and the host's port hangs up."""
        self._remove_link()
        if self.master >= 0:
            with contextlib.suppress(OSError):
                os.close(self.master)
        self.master = -1

    def _remove_link(self) -> None:
        with contextlib.suppress(OSError):
            if os.readlink(self.link) == self.path:
                self.link.unlink()

    close = unplug

    def poll_accept(self) -> bool:
        return False  # a serial shoe is not told the host opened the port

    def drop_client(self) -> None:
        """Never called: a pty does not tell the shoe that the host closed its end."""

    def read_fds(self) -> list[int]:
        return [self.master] if self.listening else []

    def write_fd(self) -> int:
        return self.master

    def read(self) -> bytes:
        try:
            return os.read(self.master, READ_CHUNK)
        except BlockingIOError:
            return b""
        except OSError as e:
            if e.errno == errno.EIO:  # no slave open: nothing can have been written
                return b""
            raise

    def write(self, data: bytes) -> int:
        if not self.listening:
            self.lost += len(data)  # on the line, and nobody there to hear it
            return len(data)
        try:
            return os.write(self.master, data)
        except BlockingIOError:
            return 0

    def describe(self, boot_id: str) -> dict[str, Any]:
        return {"pty": self.path, "link": str(self.link), "boot_id": boot_id}


class UsbSocketLink:
    """A Unix stream socket carrying the bulk endpoints' bytes; one client at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.server: socket.socket | None = None
        self.client: socket.socket | None = None
        self.accepting = True

    @property
    def up(self) -> bool:
        return self.client is not None

    def open(self) -> None:
        if self.server is None:
            if self.path.is_socket():
                self.path.unlink()
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.bind(str(self.path))
            server.listen(1)
            server.setblocking(False)
            self.server = server
        self.accepting = True

    def poll_accept(self) -> bool:
        """Take a waiting client; True if one just connected."""
        if self.client is not None or not self.accepting or self.server is None:
            return False
        try:
            client, _ = self.server.accept()
        except (BlockingIOError, InterruptedError):
            return False
        client.setblocking(False)
        self.client = client
        return True

    def unplug(self) -> None:
        """The device goes away: the client's socket is closed; no new client for now."""
        self.drop_client()
        self.accepting = False

    def drop_client(self) -> None:
        if self.client is not None:
            with contextlib.suppress(OSError):
                self.client.close()
        self.client = None

    def close(self) -> None:
        """The device goes away for good: no new client first, so a host that sees its
        connection end cannot connect again to a shoe that is gone."""
        if self.server is not None:
            self.server.close()
            self.server = None
            with contextlib.suppress(OSError):
                self.path.unlink()
        self.drop_client()

    def read_fds(self) -> list[int]:
        if self.client is not None:
            return [self.client.fileno()]
        if self.accepting and self.server is not None:
            return [self.server.fileno()]
        return []

    def write_fd(self) -> int:
        return self.client.fileno() if self.client is not None else -1

    def read(self) -> bytes:
        assert self.client is not None
        try:
            data = self.client.recv(READ_CHUNK)
        except (BlockingIOError, InterruptedError):
            return b""
        except OSError as e:
            raise LinkDown(str(e)) from e
        if not data:
            raise LinkDown("the host closed the socket")
        return data

    def write(self, data: bytes) -> int:
        assert self.client is not None
        try:
            return self.client.send(data)
        except (BlockingIOError, InterruptedError):
            return 0
        except OSError as e:
            raise LinkDown(str(e)) from e

    def describe(self, boot_id: str) -> dict[str, Any]:
        return {"usb_socket": str(self.path), "boot_id": boot_id}


Link = PtyLink | UsbSocketLink


# -- the shoe ----------------------------------------------------------------------------------


@dataclass(eq=False)
class Entry:
    """A numbered frame the host has not acknowledged yet."""

    seq: int
    message: Message
    frame: bytes
    sent: bool = False  # went out at least once, whole or not
    intact: bool = False  # went out whole at least once: the host may have it


@dataclass
class Stats:
    frames: int = 0  # new frames numbered
    transmissions: int = 0
    resends: int = 0  # go-back-N rounds
    acks: int = 0
    acks_ignored: int = 0
    lamps: int = 0
    unplugs: int = 0
    reboots: int = 0
    bytes: int = 0


class Shoe:
    """The shoe's side of the line as an event loop: select on the link, timers, no busy wait."""

    def __init__(self, session: Session, link: Link, *, line_faults: line.LineFaults,
                 seed: int, capture: BinaryIO, lamp_log: TextIO | None = None,
                 pace: tuple[float, float] = (0.0, 0.0), baud: int | None = None,
                 linger: float = 0.5, give_up: float = DEFAULT_GIVE_UP,
                 log: TextIO = sys.stderr, stakes_pause: float = 0.0, proto: str = "1.1",
                 deal_at_power_up: bool = False, deal_button: DealButton | None = None) -> None:
        self.messages = session.messages
        self.waits_for_hello = proto != "1.0"  # protocol 1.1: nothing after a HELLO until its ACK
        self.stakes_pause = stakes_pause  # the croupier waits for the stakes before a DEAL
        self.button = deal_button  # with it, each BTN,DEAL waits for a press
        self.presses = 0  # presses not yet used by a BTN,DEAL
        self.coups_begun = 0  # BTN,DEALs dealt
        self.told_waiting = False  # the log said the shoe waits for this coup's press
        self.link = link
        self.faults = line_faults
        self.rng = random.Random(f"hil.shoe line {seed}")
        self.capture = capture
        self.lamp_log = lamp_log
        self.pace = pace
        self.byte_time = 10.0 / baud if baud else 0.0
        self.linger = linger
        self.give_up = give_up
        self.log = log
        self.stats = Stats()
        first = self.messages[0]
        self.boot_id = first.boot_id if isinstance(first, Hello) else boot_id_for(seed)
        self.boots = {self.boot_id.lower()}

        self.window: list[Entry] = []
        self.next_send = 0  # index in window of the next frame to transmit this round
        self.send_first: Entry | None = None  # a reconnect HELLO goes out before the resends
        self.next_seq = 0
        self.backlog: deque[Message] = deque()  # happened, not yet numbered
        self.dealt = 0  # croupier's messages moved to the backlog
        self.pace_from: float | None = None  # the croupier starts once the HELLO is acked
        self.next_due = 0.0
        self.outbuf = bytearray()
        self.line_free_at = 0.0
        self.decoder = FrameDecoder(HOST_TO_SHOE)

        self.start = time.monotonic()
        if deal_at_power_up:  # the croupier began dealing whether or not a host listens
            self.pace_from = self.next_due = self.start
        self.boot_start = self.start
        self.last_progress = self.start
        self.timer: float | None = None  # the resend timer, running since
        self.last_new = self.start  # when the last new frame was numbered
        self.last_uptime = 0
        self.boot_acked = 0  # frames acknowledged in this boot

        # Fault schedules: croupier message indices at which to unplug / reboot.
        count = len(self.messages)
        self.unplug_at = self._points(line_faults.unplug, count)
        self.reboot_at = self._points(line_faults.reboot, count)
        self.phase = "normal"  # normal, pre_reboot, rebooting, unplugged
        self.phase_until = 0.0
        self.prefix = 0  # pre_reboot: frames at the front the host may have
        self.done_at: float | None = None
        self.stopping = False
        self.wakeup = -1  # read end of the signal wake-up pipe, if any
        self.ever_connected = link.up

    def _points(self, n: int, count: int) -> list[int]:
        if n <= 0 or count < 3:
            return []
        return sorted(self.rng.randint(2, count - 1) for _ in range(n))

    def say(self, text: str) -> None:
        elapsed = time.monotonic() - self.start
        self.log.write(f"hil.shoe {elapsed:8.3f} {text}\n")
        self.log.flush()

    # -- the loop -----------------------------------------------------------------------------

    def run(self) -> int:
        while not self.stopping:
            now = time.monotonic()
            self._step(now)
            if self.done_at is not None and now >= self.done_at + self.linger:
                self.say(f"done: every frame acknowledged; {self._summary()}")
                return EXIT_DONE
            if self.window and now - self.last_progress >= self.give_up:
                self.say(f"no ACK progress for {self.give_up:.0f} s with {len(self.window)} "
                         f"frames waiting (oldest seq {self.window[0].seq}): "
                         f"is the host reading the line? {self._summary()}")
                return EXIT_NO_HOST
            self._wait(self._timeout(time.monotonic()))
        self.say(f"terminated; {self._summary()}")
        return EXIT_DONE

    def _summary(self) -> str:
        s = self.stats
        lost = self.link.lost if isinstance(self.link, PtyLink) else 0
        return (f"frames={s.frames} transmissions={s.transmissions} resends={s.resends} "
                f"acks={s.acks} acks_ignored={s.acks_ignored} lamps={s.lamps} "
                f"unplugs={s.unplugs} reboots={s.reboots} bytes={s.bytes} "
                f"unheard_bytes={lost}")

    def _step(self, now: float) -> None:
        if self.phase == "unplugged":
            if now < self.phase_until:
                return
            self._replug(now)
        if self.phase == "rebooting":
            if now < self.phase_until:
                return
            self._boot(now)
        if self.link.poll_accept():
            self._connected(now)
        self._pace(now)
        self._admit(now)
        if self.phase == "pre_reboot" and self.prefix == 0 and not self.outbuf:
            self._reboot(now)
            return
        if not self.link.up:
            return
        if (self.timer is not None and now - self.timer >= RESEND_AFTER and not self.outbuf
                and self.window):
            self.next_send = 0  # go-back-N: everything unacknowledged, from the oldest
            self.timer = now
            self.stats.resends += 1
        self._finish_check(now)
        if not self.outbuf:
            self._transmit_next(now)

    def _timeout(self, now: float) -> float:
        deadlines = [now + 1.0]
        if not self.outbuf and self.link.up and self._to_send():
            return 0.0
        if self.phase in ("unplugged", "rebooting"):
            deadlines.append(self.phase_until)
        if self.timer is not None and self.window and not self.outbuf:
            deadlines.append(self.timer + RESEND_AFTER)
        if (self.pace_from is not None and self.dealt < len(self.messages)
                and not self._held_for_button()):
            deadlines.append(self.next_due)
        if self.outbuf and self.line_free_at > now:
            deadlines.append(self.line_free_at)  # else: select waits for the link
        if self._may_admit_heartbeat():
            deadlines.append(self.last_new + HEARTBEAT_EVERY)
        if self.done_at is not None:
            deadlines.append(self.done_at + self.linger)
        if self.window:
            deadlines.append(self.last_progress + self.give_up)
        return max(0.0, min(deadlines) - now)

    def _wait(self, timeout: float) -> None:
        if isinstance(self.link, PtyLink) and not self.link.listening:
            timeout = min(timeout, HOST_LOOK_EVERY)  # a host opening the port cannot be heard
        rfds = [] if self.phase == "unplugged" else self.link.read_fds()
        if self.wakeup >= 0:
            rfds.append(self.wakeup)
        if self.button is not None:
            rfds.append(self.button.fileno())
        wfds = []
        if self.outbuf and self.link.up and time.monotonic() >= self.line_free_at:
            wfds = [self.link.write_fd()]
        try:
            readable, writable, _ = select.select(rfds, wfds, [], timeout)
        except InterruptedError:
            return
        now = time.monotonic()
        if self.wakeup in readable:
            with contextlib.suppress(OSError):
                os.read(self.wakeup, 512)  # a signal came: the loop checks `stopping`
        if self.button is not None and self.button.fileno() in readable:
            self.presses += self.button.presses()
        if writable:
            self._write(now)
        own = {self.wakeup, self.button.fileno() if self.button is not None else -1}
        if self.link.up and any(fd not in own for fd in readable):
            self._read(now)

    # -- writing ------------------------------------------------------------------------------

    def _write(self, now: float) -> None:
        chunk = bytes(self.outbuf)
        try:
            n = self.link.write(chunk)
        except LinkDown as e:
            self._host_gone(str(e))
            return
        if n <= 0:
            return
        self.capture.write(chunk[:n])
        self.stats.bytes += n
        del self.outbuf[:n]
        if self.byte_time:
            self.line_free_at = max(now, self.line_free_at) + n * self.byte_time

    def _to_send(self) -> bool:
        if self.phase not in ("normal", "pre_reboot"):
            return False
        limit = self.prefix if self.phase == "pre_reboot" else len(self.window)
        return self.send_first is not None or self.next_send < limit

    def _transmit_next(self, now: float) -> None:
        entry = None
        if self.send_first is not None:
            entry, self.send_first = self.send_first, None
            if entry not in self.window:
                entry = None
            else:
                self.next_send = 0  # then everything unacknowledged, from the oldest
        if entry is None:
            limit = self.prefix if self.phase == "pre_reboot" else len(self.window)
            if self.next_send >= limit:
                return
            entry = self.window[self.next_send]
            self.next_send += 1
        self._transmit(entry, now)

    def _transmit(self, entry: Entry, now: float) -> None:
        f, rng = self.faults, self.rng
        out = self.outbuf
        if f.noise and rng.random() < f.noise:
            out += line.noise(rng)
        entry.sent = True
        self.stats.transmissions += 1
        if f.drop and rng.random() < f.drop:
            pass  # lost on the line
        elif f.damage and rng.random() < f.damage:
            out += line.damage(entry.frame, rng)
        else:
            out += entry.frame
            entry.intact = True
            if f.duplicate and rng.random() < f.duplicate:
                out += entry.frame
        if self.timer is None:
            self.timer = now

    # -- reading ------------------------------------------------------------------------------

    def _read(self, now: float) -> None:
        try:
            data = self.link.read()
        except LinkDown as e:
            self._host_gone(str(e))
            return
        if not data or self.phase in ("rebooting", "unplugged"):
            return
        for frame in self.decoder.feed(data):
            message = frame.message
            if isinstance(message, Ack):
                self._on_ack(message.seq, now)
            elif isinstance(message, Lamp):
                self._on_lamp(message.colour)

    def _on_ack(self, seq: int, now: float) -> None:
        if self.faults.lost_ack and self.rng.random() < self.faults.lost_ack:
            self.stats.acks_ignored += 1
            return
        self.stats.acks += 1
        if not self.window:
            return
        covered = (seq - self.window[0].seq) % SEQ_MODULUS
        if covered >= len(self.window) or not self.window[covered].sent:
            return  # an old number again (no progress), or not one of ours
        done = covered + 1
        for entry in self.window[:done]:
            if isinstance(entry.message, Hello) and self.pace_from is None:
                self.pace_from = now
                self.next_due = now
        del self.window[:done]
        self.boot_acked += done
        self.next_send = max(0, self.next_send - done)
        if self.phase == "pre_reboot":
            self.prefix = max(0, self.prefix - done)
        self.last_progress = now
        self.timer = now if self.window else None

    def _on_lamp(self, colour: str) -> None:
        self.stats.lamps += 1
        if self.lamp_log is not None:
            self.lamp_log.write(f"{time.time():.6f} {colour}\n")  # unix time, colour
            self.lamp_log.flush()

    # -- frames -------------------------------------------------------------------------------

    def _pace(self, now: float) -> None:
        """Move what the croupier has done by now into the backlog."""
        messages = self.messages
        if self.dealt == 0 and messages:
            self.backlog.append(messages[0])  # HELLO: at power-up
            self.dealt = 1
        if self.pace_from is None:
            return
        lo, hi = self.pace
        while self.dealt < len(messages) and now >= self.next_due:
            if self._held_for_button():
                if not self.told_waiting:
                    self.told_waiting = True
                    self.say(f"waiting for the DEAL button: coup {self.coups_begun + 1}")
                return
            if is_deal(messages[self.dealt]):
                self.coups_begun += 1
                if self.button is not None:
                    self.presses -= 1
                    if self.told_waiting:  # he waited: his pace runs again from the press
                        self.told_waiting = False
                        self.next_due = now
            self.backlog.append(messages[self.dealt])
            self.dealt += 1
            if hi > 0:
                self.next_due += lo if hi == lo else self.rng.uniform(lo, hi)
            if self.stakes_pause and self.dealt < len(messages) and is_deal(messages[self.dealt]):
                self.next_due = max(self.next_due, now) + self.stakes_pause

    def _held_for_button(self) -> bool:
        """The next thing the croupier does is a BTN,DEAL, and nobody pressed for it yet."""
        return (self.button is not None and self.presses == 0
                and self.dealt < len(self.messages) and is_deal(self.messages[self.dealt]))

    def _awaiting_hello(self) -> bool:
        return self.waits_for_hello and any(isinstance(e.message, Hello) for e in self.window)

    def _may_admit_heartbeat(self) -> bool:
        return (self.phase == "normal" and self.link.up and not self.backlog
                and len(self.window) < WINDOW and not self._awaiting_hello()
                and self.pace_from is not None)

    def _admit(self, now: float) -> None:
        if self.phase != "normal":
            return
        while True:
            if self._fault_due(now):
                return
            if not self.backlog or len(self.window) >= WINDOW or self._awaiting_hello():
                break
            self._number(self.backlog.popleft(), now)
        if self._may_admit_heartbeat() and now - self.last_new >= HEARTBEAT_EVERY:
            self._number(Heartbeat(self._uptime(now)), now)

    def _fault_due(self, now: float) -> bool:
        """Unplug or reboot when the croupier's messages numbered so far reach its point."""
        numbered = self.dealt - len(self.backlog)
        if self.unplug_at and numbered >= self.unplug_at[0]:
            self.unplug_at.pop(0)
            self._unplug(now)
            return True
        if self.reboot_at and numbered >= self.reboot_at[0]:
            # Not before two frames of this boot were acknowledged, so that no stale ACK of
            # this boot (always a number above 0 then) can pass for the next boot's HELLO's.
            if self.boot_acked >= 2:
                self.reboot_at.pop(0)
                self._pre_reboot(now)
                return True
            if not self.window and not self.backlog:
                self._number(Heartbeat(self._uptime(now)), now)  # something to acknowledge
        return False

    def _uptime(self, now: float) -> int:
        self.last_uptime = max(self.last_uptime, int(now - self.boot_start))
        return self.last_uptime

    def _number(self, message: Message, now: float) -> Entry:
        seq = self.next_seq
        self.next_seq = (seq + 1) % SEQ_MODULUS
        entry = Entry(seq, message, encode(seq, message))
        self.window.append(entry)
        self.stats.frames += 1
        self.last_new = now
        return entry

    def _finish_check(self, now: float) -> None:
        if self.done_at is not None:
            return
        if (self.phase == "normal" and self.dealt == len(self.messages) and not self.backlog
                and not self.window and not self.outbuf and self.pace_from is not None
                and not self.unplug_at and not self.reboot_at):
            self.done_at = now
            if self.linger > 0:
                self._number(Heartbeat(self._uptime(now)), now)

    # -- unplug, reboot, reconnect --------------------------------------------------------------

    def _unplug(self, now: float) -> None:
        self.stats.unplugs += 1
        self.say(f"unplug: cable out for {UNPLUG_SECONDS} s, {len(self.window)} frames "
                 "unacknowledged")
        self.link.unplug()
        self.outbuf.clear()
        self.phase = "unplugged"
        self.phase_until = now + UNPLUG_SECONDS

    def _replug(self, now: float) -> None:
        self.phase = "normal"
        self.link.open()
        self.say("replug" + (f": {self.link.path}" if isinstance(self.link, PtyLink) else ""))
        if self.link.up:
            self._connected(now)

    def _connected(self, now: float) -> None:
        """The line is there again: HELLO (same boot), then the unacknowledged frames."""
        self.decoder = FrameDecoder(HOST_TO_SHOE)
        self.outbuf.clear()
        if not self.ever_connected:
            self.ever_connected = True  # the first connection: the session's own HELLO
            self.say("host connected")
            return
        hello = Hello(1, MODEL, SERIAL, FIRMWARE, self.boot_id)
        # A frame more than the window in this one case: the HELLO must come first.
        entry = self._number(hello, now)
        self.send_first = entry
        self.next_send = 0
        self.timer = now
        self.last_progress = max(self.last_progress, now)

    def _host_gone(self, why: str) -> None:
        self.say(f"host went away: {why}")
        self.link.drop_client()
        self.outbuf.clear()

    def _pre_reboot(self, now: float) -> None:
        """See through what the host may already have; keep what it cannot have."""
        self.phase = "pre_reboot"
        self.prefix = next((i for i, e in enumerate(self.window) if not e.intact),
                           len(self.window))
        self.next_send = min(self.next_send, self.prefix)
        self.say(f"reboot coming: {self.prefix} frames on the line to see acknowledged, "
                 f"{len(self.window) - self.prefix} kept for the next boot")

    def _reboot(self, now: float) -> None:
        kept = [e.message for e in self.window if not isinstance(e.message, Hello)]
        self.backlog.extendleft(reversed(kept))
        self.window.clear()
        self.next_send = 0
        self.send_first = None
        self.timer = None
        self.outbuf.clear()
        self.stats.reboots += 1
        self.phase = "rebooting"
        self.phase_until = now + REBOOT_SECONDS
        self.say(f"reboot: {len(kept)} unacknowledged frames kept in non-volatile memory")

    def _boot(self, now: float) -> None:
        while True:
            boot_id = f"{self.rng.getrandbits(32):08x}"
            if boot_id.lower() not in self.boots:
                break
        self.boots.add(boot_id)
        self.boot_id = boot_id
        self.boot_start = now
        self.last_uptime = 0
        self.boot_acked = 0
        self.next_seq = 0
        self.decoder = FrameDecoder(HOST_TO_SHOE)
        self.phase = "normal"
        self._number(Hello(1, MODEL, SERIAL, FIRMWARE, boot_id), now)
        self.last_progress = max(self.last_progress, now)
        self.say(f"booted: boot_id {boot_id}")


# -- command line -------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m hil.shoe",
        description="A simulated card shoe on a pty or a USB socket, with ground truth.")
    p.add_argument("--profile", required=True, choices=sorted(PROFILES))
    p.add_argument("--shoes", type=int, default=1)
    p.add_argument("--script", type=Path, default=None, metavar="FILE",
                   help="play this script (hil/script.py notation) after the HELLO instead of "
                        "dealt shoes; the truth is what the coup machine makes of it")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--packs", type=int, default=None)
    p.add_argument("--banco-solo", type=float, default=0.0, metavar="P",
                   help="chance per coup of a banco solo, its sides freed with BTN,FREE "
                        "(protocol 1.1; Chemin de Fer houses that bind by default, 003)")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--pty-link", type=Path, help="symlink to maintain to the pty's slave")
    where.add_argument("--usb-socket", type=Path, help="Unix socket for the simulated USB device")
    p.add_argument("--capture", type=Path, required=True)
    p.add_argument("--truth", type=Path, required=True)
    pace = p.add_mutually_exclusive_group()
    pace.add_argument("--pace", type=float, default=0.0, metavar="SECONDS")
    pace.add_argument("--pace-range", type=float, nargs=2, metavar=("LO", "HI"))
    p.add_argument("--baud", type=int, default=None)
    p.add_argument("--fault", action="append", default=[], metavar="NAME[=VALUE]")
    p.add_argument("--lamp-log", type=Path, default=None)
    p.add_argument("--linger", type=float, default=0.5, metavar="SECONDS")
    p.add_argument("--stakes-pause", type=float, default=0.0, metavar="SECONDS",
                   help="the croupier waits this long for the stakes before each BTN,DEAL "
                        "(the console's money tests)")
    p.add_argument("--deal-button", type=Path, default=None, metavar="PATH",
                   help="make a FIFO at PATH: before each BTN,DEAL the croupier waits for a "
                        "line written there (one line, one press, one coup)")
    p.add_argument("--proto", choices=("1.0", "1.1"), default="1.1",
                   help="the protocol version the shoe speaks: a 1.0 shoe does not wait for "
                        "its HELLO's acknowledgement before sending more (default 1.1)")
    p.add_argument("--deal-at-power-up", action="store_true",
                   help="the croupier begins dealing when the shoe powers up, whether or not "
                        "a host listens (default: once the first HELLO is acknowledged)")
    p.add_argument("--give-up", type=float, default=DEFAULT_GIVE_UP, metavar="SECONDS",
                   help="exit 3 after this long without ACK progress (default 30)")
    return p


def is_deal(message: Message) -> bool:
    return isinstance(message, Button) and message.name == "DEAL"


def script_session(profile: str, script: str, seed: int) -> Session:
    """A scripted session: the HELLO, then the script's messages as written; the truth is
    what a coup machine makes of them with the shoe's own ways out (no console)."""
    from hil.script import parse_script
    from shoe_daemon.game.coup import CoupMachine
    from shoe_daemon.game.houses import get_profile

    messages: list[Message] = [Hello(1, MODEL, SERIAL, FIRMWARE, boot_id_for(seed))]
    messages += parse_script(script)
    machine = CoupMachine(get_profile(profile))
    results = [line for m in messages for line in machine.handle(m)
               if line["event"] == "coup.result"]
    return Session(messages, results)


def session_for(profile: str, shoes: int, seed: int, packs: int | None,
                game_faults: GameFaults | None, banco_solo: float = 0) -> Session:
    """The croupier's session the shoe plays (tests call this to know what to expect)."""
    return deal_shoes(profile, shoes, seed, packs=packs, faults=game_faults or None,
                      banco_solo=banco_solo)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        line_faults, game_faults = line.parse_faults(args.fault)
    except ValueError as e:
        parser.error(str(e))
    if args.shoes < 0:
        parser.error("--shoes must not be negative")
    if args.pace < 0 or (args.pace_range and not 0 <= args.pace_range[0] <= args.pace_range[1]):
        parser.error("pace must be 0 or more, and LO <= HI")
    if args.baud is not None and args.baud <= 0:
        parser.error("--baud must be positive")
    pace = tuple(args.pace_range) if args.pace_range else (args.pace, args.pace)
    try:
        if args.script is not None:
            session = script_session(args.profile, args.script.read_text(), args.seed)
        else:
            session = session_for(args.profile, args.shoes, args.seed, args.packs, game_faults,
                                  args.banco_solo)
    except (ValueError, OSError) as e:
        parser.error(str(e))
    with args.truth.open("w") as truth:
        for result in session.results:
            truth.write(json.dumps(result) + "\n")

    link: Link
    if args.pty_link is not None:
        if args.pty_link.exists() and not args.pty_link.is_symlink():
            parser.error(f"{args.pty_link} exists and is not a symlink")
        link = PtyLink(args.pty_link)
    else:
        if args.usb_socket.exists() and not args.usb_socket.is_socket():
            parser.error(f"{args.usb_socket} exists and is not a socket")
        link = UsbSocketLink(args.usb_socket)

    try:
        button = DealButton(args.deal_button) if args.deal_button is not None else None
    except (ValueError, OSError) as e:
        parser.error(f"--deal-button: {e}")

    shoe: Shoe | None = None
    stop = [False]

    def terminate(signum: int, frame: object) -> None:
        stop[0] = True
        if shoe is not None:
            shoe.stopping = True

    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGINT, terminate)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    lamp_log = args.lamp_log.open("a") if args.lamp_log else None
    try:
        with args.capture.open("wb") as capture:
            try:
                link.open()
            except OSError as e:
                sys.stderr.write(f"hil.shoe: cannot open the line: {e}\n")
                return 1
            boot_id = session.messages[0].boot_id  # type: ignore[union-attr]
            announced = link.describe(boot_id)
            if button is not None:
                announced["deal_button"] = str(button.path)
            sys.stdout.write(json.dumps(announced) + "\n")
            sys.stdout.flush()
            shoe = Shoe(session, link, line_faults=line_faults, seed=args.seed,
                        capture=capture, lamp_log=lamp_log, pace=pace, baud=args.baud,
                        linger=args.linger, give_up=args.give_up,
                        stakes_pause=args.stakes_pause, proto=args.proto,
                        deal_at_power_up=args.deal_at_power_up, deal_button=button)
            shoe.wakeup = wake_r
            shoe.stopping = stop[0]
            return shoe.run()
    finally:
        link.close()
        if button is not None:
            button.close()
        signal.set_wakeup_fd(-1)
        os.close(wake_r)
        os.close(wake_w)
        if lamp_log is not None:
            lamp_log.close()


if __name__ == "__main__":
    sys.exit(main())
