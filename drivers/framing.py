"""Shoe Line Protocol framing: `$<body>*<CRC>\\r\\n` on a raw byte stream.

The decoder has to survive a noisy serial line and replay damaged capture files,
so it never raises: anything that is not an exact frame is dropped and counted
in DecoderStats, and it resynchronises on every `$`.
"""

from __future__ import annotations

import binascii
from collections.abc import Mapping
from dataclasses import dataclass, field

from drivers.messages import SEQ_MODULUS, SHOE_TO_HOST, Message, decimal, parse

MAX_FRAME_BYTES = 128
"""Longest frame, from `$` to `\\n` inclusive."""

_START = b"$"
_END = b"\n"
_TRAILER_BYTES = 7  # b"*XXXX\r\n"
_MIN_FRAME_BYTES = 1 + _TRAILER_BYTES
_STAR = ord("*")
_CR = ord("\r")
_UPPER_HEX = b"0123456789ABCDEF"
_BODY_BYTES = bytes(b for b in range(0x20, 0x7F) if b not in b"$*")


def crc16(body: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), the frame check; C speed via binascii."""
    return binascii.crc_hqx(body, 0xFFFF)


def encode(seq: int, message: Message) -> bytes:
    """One complete frame; refuses anything a conforming receiver would drop."""
    if type(seq) is not int or not 0 <= seq < SEQ_MODULUS:
        raise ValueError(f"seq must be 0 to {SEQ_MODULUS - 1}, got {seq!r}")
    fields = message.fields()
    if any("," in field for field in fields):
        raise ValueError(f"a field contains ',': {fields!r}")
    text = ",".join((str(seq), message.TYPE, *fields))
    if not text.isascii():
        raise ValueError(f"body is not ASCII: {text!r}")
    body = text.encode("ascii")
    if body.translate(None, _BODY_BYTES):
        raise ValueError(f"body holds bytes outside 0x20-0x7E or '$' '*': {text!r}")
    frame = b"$%s*%04X\r\n" % (body, crc16(body))
    if len(frame) > MAX_FRAME_BYTES:
        raise ValueError(f"frame is {len(frame)} bytes, more than {MAX_FRAME_BYTES}")
    return frame


@dataclass(frozen=True, slots=True)
class Frame:
    """A decoded frame; `raw` (from `$` to `\\n`) is kept for capture files and logs.

    `adjacent`: it began right where the previous frame the decoder passed ended, with not
    a byte dropped between them (no noise, no damaged frame): nothing can have been lost
    between the two. A host without state trusts only such a frame to start a resend round
    (drivers/sync.py). It is not part of a frame's equality.
    """

    seq: int
    message: Message
    raw: bytes
    adjacent: bool = field(default=False, compare=False)


@dataclass(slots=True)
class DecoderStats:
    """What the decoder dropped, by reason, so a bad line or shoe shows in the counters.

    - noise_bytes: bytes outside any frame (before a `$`, or after a frame's `\\n`).
    - truncated: a frame cut short, either abandoned because a new `$` began before
      its `\\n`, or ending in `\\n` without an exact `*XXXX\\r\\n` trailer (upper-case
      hex; lower case, a missing `\\r` or a short CRC all count here).
    - bad_crc: a well-formed trailer whose CRC does not match the body.
    - overlong: no `\\n` within MAX_FRAME_BYTES of the `$`; the rest of it, up to its
      `\\n` or the next `$`, is discarded as part of it, not counted as noise.
    - unparsable: CRC good but the body is not a valid message for this direction
      (seq not canonical decimal 0-65535, no TYPE, unknown TYPE, bad fields).
    """

    frames: int = 0
    noise_bytes: int = 0
    bad_crc: int = 0
    overlong: int = 0
    unparsable: int = 0
    truncated: int = 0


class FrameDecoder:
    """Incremental decoder: any chunking of the same bytes yields the same frames."""

    __slots__ = ("_adjacent", "_discarding", "_pending", "_registry", "stats")

    def __init__(self, registry: Mapping[str, type[Message]] = SHOE_TO_HOST) -> None:
        self.stats = DecoderStats()
        self._registry = registry
        # A frame begun (from its `$`) but not yet ended; always < MAX_FRAME_BYTES.
        self._pending = b""
        # Inside an over-long frame, until its `\n` or the next `$`.
        self._discarding = False
        # Nothing dropped since the last frame passed (False until the first one).
        self._adjacent = False

    def feed(self, data: bytes) -> list[Frame]:
        """Frames completed by `data`, in order; never raises."""
        data = bytes(data)
        if self._pending:
            buf = self._pending + data
            if len(buf) < MAX_FRAME_BYTES and _END not in data and _START not in data:
                self._pending = buf  # a frame still arriving: nothing to decide yet
                return []
        else:
            buf = data
        self._pending = b""
        stats = self.stats
        frames: list[Frame] = []
        end = len(buf)
        pos = 0
        discarding = self._discarding
        adjacent = self._adjacent
        while pos < end:
            if discarding:
                newline = buf.find(_END, pos)
                dollar = buf.find(_START, pos, newline if newline >= 0 else end)
                if dollar >= 0:
                    pos, discarding = dollar, False
                elif newline >= 0:
                    pos, discarding = newline + 1, False
                else:
                    pos = end
                continue
            start = buf.find(_START, pos)
            if start < 0:
                stats.noise_bytes += end - pos
                adjacent = False
                break
            if start > pos:
                stats.noise_bytes += start - pos
                adjacent = False
            limit = start + MAX_FRAME_BYTES
            newline = buf.find(_END, start + 1, limit)
            dollar = buf.find(_START, start + 1, newline if newline >= 0 else limit)
            if dollar >= 0:
                stats.truncated += 1
                pos, adjacent = dollar, False
            elif newline >= 0:
                pos = newline + 1
                frame = self._decode(buf[start:pos], adjacent)
                adjacent = frame is not None
                if frame is not None:
                    frames.append(frame)
            elif end >= limit:
                stats.overlong += 1
                pos, discarding, adjacent = limit, True, False
            else:
                self._pending = buf[start:]
                break
        self._adjacent = adjacent
        self._discarding = discarding
        return frames

    def _decode(self, raw: bytes, adjacent: bool) -> Frame | None:
        """Check one `$`...`\\n` candidate, trailer then CRC then body, counting the first fault."""
        stats = self.stats
        if (
            len(raw) < _MIN_FRAME_BYTES
            or raw[-7] != _STAR
            or raw[-2] != _CR
            or raw[-6:-2].translate(None, _UPPER_HEX)
        ):
            stats.truncated += 1
            return None
        body = raw[1:-7]
        if crc16(body) != int(raw[-6:-2], 16):
            stats.bad_crc += 1
            return None
        if body.translate(None, _BODY_BYTES):
            stats.unparsable += 1
            return None
        parts = body.decode("ascii").split(",")
        seq = decimal(parts[0]) if len(parts) >= 2 else None
        if seq is None or seq >= SEQ_MODULUS:
            stats.unparsable += 1
            return None
        try:
            message = parse(parts[1], parts[2:], self._registry)
        except ValueError:
            stats.unparsable += 1
            return None
        stats.frames += 1
        return Frame(seq, message, raw, adjacent)


class SequenceNumbers:
    """A sender's own numbering: +1 per new frame, 65535 wraps to 0.

    Only new frames draw a number; a retransmission reuses the one it got.
    """

    __slots__ = ("_next",)

    def __init__(self, start: int = 0) -> None:
        if type(start) is not int or not 0 <= start < SEQ_MODULUS:
            raise ValueError(f"start must be 0 to {SEQ_MODULUS - 1}, got {start!r}")
        self._next = start

    def next(self) -> int:
        seq = self._next
        self._next = (seq + 1) % SEQ_MODULUS
        return seq
