"""The host's end of the shoe line: bytes in, each frame delivered once and in order to an
application, ACKs once the application has kept the frames, the shoe's lamp, a raw capture.

Modelled on pyserial's `serial.threaded`: bytes read from the transport are handed to a
protocol object (here the link: decoder and go-back-N delivery), which hands what they mean
to the application above it (`Application`, the service's table). The link knows nothing
of the game; the application knows nothing of bytes, sequence numbers or ACKs. One thread
calls `serve()` (or `receive()`, for bytes from a capture), so a frame's effects happen in
one order.

A frame is acknowledged only after the application's `commit()` said it is kept, so the
shoe resends whatever was not. A `HELLO` is settled at once, before the frames after it
are played (protocol 1.1, docs/transports.md): a 1.1 shoe sends nothing else until its
HELLO is acknowledged. A link without state (nothing kept yet) waits to sync with the shoe
before it takes any frame (drivers/sync.py): meanwhile it acknowledges nothing, shows the
lamp red and says so once in the log.
"""

from __future__ import annotations

import time
from typing import Any, BinaryIO, Protocol

import structlog

from drivers.delivery import UNSYNCED, Receiver, Verdict
from drivers.framing import Frame, FrameDecoder, SequenceNumbers, encode
from drivers.messages import Ack, Hello, Lamp
from drivers.transport import Transport

STATS_EVERY = 60.0  # s between line-statistics log lines (when something changed)


class Application(Protocol):
    """What the link hands the shoe's frames to, and asks before acknowledging them."""

    @property
    def lamp(self) -> str:
        """The colour the shoe's lamp should show now."""
        ...

    def frame_received(self, frame: Frame, kind: str) -> None:
        """One frame accepted in order (`kind` is delivery's: accepted, reset or sync)."""

    def commit(self) -> bool:
        """Keep the frames received since the last commit; True once they are kept (and may
        be acknowledged), False if they could not be: they count as never received."""
        ...

    def acknowledged(self) -> None:
        """The kept frames' ACKs are on the line: what may wait for them goes on."""

    def idle(self) -> None:
        """A read brought nothing: time for deferred work."""

    def rewind(self) -> Receiver | None:
        """After a failed commit: go back to what is kept and say where delivery resumes,
        or None if that cannot be known yet (the bytes are dropped, the shoe resends)."""
        ...


class ShoeLink:
    """Decoder, delivery, ACKs and lamp between one transport and one application.

    `transport` may be None (a capture replayed: nothing to answer); `capture` gets every
    byte read, as it came.
    """

    def __init__(self, app: Application, transport: Transport | None = None, *,
                 capture: BinaryIO | None = None, log: Any = None) -> None:
        self.app = app
        self.transport = transport
        self.capture = capture
        self.log = log if log is not None else structlog.get_logger("drivers.link")
        self.decoder = FrameDecoder()
        self.receiver = Receiver()
        self.host_seq = SequenceNumbers()
        self.lamp_sent: str | None = None
        self._behind = False  # a commit failed: delivery must rewind before taking frames
        self._waiting_said = False  # "waiting to sync" logged, "synced" not yet
        self._capture_down = False
        self._stats_at = time.monotonic()
        self._stats_last: tuple[int, ...] = ()

    # ---- the line ----------------------------------------------------------------------------

    def resume(self, receiver: Receiver) -> None:
        """Deliver from here on as `receiver` says (the application's kept frames)."""
        self.receiver = receiver
        self._behind = False
        if receiver.synced:  # what `replay --resume` needs to play this run's capture
            self.log.info("line.resumed", after=receiver.last_in_order, boot_id=receiver.boot_id)

    @property
    def lamp(self) -> str:
        """The shoe's lamp: red while the link waits to sync (nothing the shoe sends is
        recorded meanwhile), else the application's."""
        return "RED" if self.receiver.waiting else self.app.lamp

    def connected(self) -> None:
        """The transport was (re)opened: the shoe learns the lamp again."""
        self.lamp_sent = None

    def serve(self, timeout: float) -> None:
        """One turn: the lamp if it changed, then whatever one read brings (TransportLost if
        the line went away)."""
        assert self.transport is not None
        self.send_lamp()
        data = self.transport.read(timeout)
        if data:
            self.receive(data)
        else:
            self.app.idle()
        self.log_stats()

    def receive(self, data: bytes) -> None:
        """Bytes from the shoe: captured, decoded, delivered, settled."""
        if self.capture is not None:
            self._capture(data)
        if self._behind:
            receiver = self.app.rewind()
            if receiver is None:
                return  # the application cannot take frames yet: acknowledge nothing
            self.resume(receiver)
        receive, deliver = self.receiver.receive, self.app.frame_received
        acks: list[int] = []
        for frame in self.decoder.feed(data):
            verdict = receive(frame)
            if verdict.kind == UNSYNCED or self._waiting_said:
                self._say_sync(frame, verdict)
            if verdict.accepted:
                deliver(frame, verdict.kind)
            if verdict.ack is not None:
                acks.append(verdict.ack)
            if type(frame.message) is Hello:
                if not self._settle(acks):
                    return
                acks = []
        self._settle(acks)

    def _settle(self, acks: list[int]) -> bool:
        """Commit, then acknowledge, then the lamp; nothing acknowledged if the commit fails."""
        if not self.app.commit():
            self._behind = True
            self.send_lamp()
            return False
        if self.transport is not None:
            for ack in acks:
                self.transport.write(encode(self.host_seq.next(), Ack(ack)))
        self.send_lamp()
        self.app.acknowledged()
        return True

    def _say_sync(self, frame: Frame, verdict: Verdict) -> None:
        """Once when the link starts waiting to sync, once when it synced."""
        if verdict.kind == UNSYNCED and not self._waiting_said:
            self._waiting_said = True
            self.log.warning("line.waiting_to_sync", seq=frame.seq,
                             detail="no state to resume from: acknowledging nothing until "
                                    "the shoe's numbering is known")
        elif verdict.accepted:
            self._waiting_said = False
            self.log.info("line.synced", seq=frame.seq, at=verdict.kind,
                          unsynced=self.receiver.stats.unsynced)

    def send_lamp(self) -> None:
        """The lamp to the shoe, when it changed."""
        lamp = self.lamp
        if lamp != self.lamp_sent and self.transport is not None:
            self.transport.write(encode(self.host_seq.next(), Lamp(lamp)))
            self.lamp_sent = lamp

    def _capture(self, data: bytes) -> None:
        """Keep the raw line for replay; it is a diagnostic copy, so a full disk only warns."""
        assert self.capture is not None
        try:
            self.capture.write(data)
            self.capture.flush()
        except OSError as e:
            if not self._capture_down:
                self.log.warning("capture.write_failed", error=str(e))
            self._capture_down = True
        else:
            self._capture_down = False

    # ---- counters -----------------------------------------------------------------------------

    def log_stats(self, force: bool = False) -> None:
        """`line.stats` every STATS_EVERY s when a count changed (and when forced)."""
        now = time.monotonic()
        if not force and now - self._stats_at < STATS_EVERY:
            return
        self._stats_at = now
        d, r = self.decoder.stats, self.receiver.stats
        counts = (d.frames, d.noise_bytes, d.bad_crc, d.overlong, d.unparsable, d.truncated,
                  r.duplicates, r.gaps, r.resets, r.unsynced, r.syncs)
        if counts == self._stats_last and not force:
            return
        self._stats_last = counts
        self.log.info("line.stats", frames=d.frames, noise_bytes=d.noise_bytes,
                      bad_crc=d.bad_crc, overlong=d.overlong, unparsable=d.unparsable,
                      truncated=d.truncated, duplicates=r.duplicates, gaps=r.gaps,
                      resets=r.resets, unsynced=r.unsynced, syncs=r.syncs)
