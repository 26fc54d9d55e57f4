"""Raw shoe-to-host captures, with the line faults a real shoe and cable produce.

A capture file is the raw shoe-to-host byte stream (shoe-line-protocol.md, "Delivery"). It may
hold noise, damaged frames and retransmissions, and replaying it through a receiver that
accepts only the next expected number yields every frame exactly once, in order.

`write_capture` numbers the messages as a shoe would (+1 per frame, 65535 wraps to 0, a
`HELLO` after the first restarts at 0 as a reboot would), frames them with
`drivers.framing.encode`, and plays out the shoe's side of go-back-N with faults injected:

- noise: printable bytes and `\\r\\n` between frames (sometimes a stray `$`), which can never
  form a valid frame (no `*` in noise, so no CRC field);
- damage: a copy of the frame with one byte changed (never to `$` or `*`; a CRC digit only to
  another upper-case hex digit, so CRC-16 always catches it), then the good copy, as the
  shoe's resend would bring it;
- duplicate: after a frame, the shoe goes back up to 15 frames and sends them again;
- drop_then_resend: a frame is lost (and sometimes the next few with it), the frames after it
  may still arrive (the receiver drops them as a gap), then the shoe resends from the lost one.

Retransmissions never reach back across a `HELLO`: a rebooted shoe has forgotten what the old
boot had not had acknowledged.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from drivers.framing import FrameDecoder, encode
from drivers.messages import SEQ_MODULUS, Hello, Message
from drivers.records import next_seq

WINDOW = 16  # the shoe keeps up to 16 unacknowledged frames
MAX_FAULT_PROBABILITY = 0.9  # each fault must leave a frame a chance to get through

_NOISE_ALPHABET = bytes(b for b in range(0x20, 0x7F) if b not in b"$*")
_BODY_REPLACEMENTS = bytes(b for b in range(0x20, 0x7F) if b not in b"$*")
_HEX_DIGITS = b"0123456789ABCDEF"


@dataclass
class Faults:
    """Probabilities, per frame, of each kind of fault."""

    noise: float = 0
    damage: float = 0
    duplicate: float = 0
    drop_then_resend: float = 0

    def __post_init__(self) -> None:
        for name in ("noise", "damage", "duplicate", "drop_then_resend"):
            value = getattr(self, name)
            if not 0 <= value <= 1:
                raise ValueError(f"Faults.{name} must lie between 0 and 1, not {value}")

    @classmethod
    def all(cls, p: float) -> Faults:
        """Every kind of fault at the same probability."""
        return cls(noise=p, damage=p, duplicate=p, drop_then_resend=p)


def number(messages: Iterable[Message], start_seq: int = 0) -> list[tuple[int, Message]]:
    """The shoe's numbering: from `start_seq`, +1 a frame, wrapping; a later HELLO restarts at 0."""
    numbered: list[tuple[int, Message]] = []
    seq = start_seq % SEQ_MODULUS
    for i, message in enumerate(messages):
        if i and isinstance(message, Hello):
            seq = 0
        numbered.append((seq, message))
        seq = next_seq(seq)
    return numbered


def clean_capture(messages: Iterable[Message], start_seq: int = 0) -> bytes:
    """The capture of a perfect line: every frame once, nothing else."""
    return b"".join(encode(seq, message) for seq, message in number(messages, start_seq))


def write_capture(messages: Iterable[Message], faults: Faults | None = None,
                  seed: int = 0, start_seq: int = 0) -> bytes:
    """The raw byte stream a shoe sends for `messages`, with `faults` injected (seeded)."""
    numbered = number(messages, start_seq)
    frames = [encode(seq, message) for seq, message in numbered]
    if faults is None or not frames:
        return b"".join(frames)
    rng = random.Random(seed)
    out = bytearray()
    # Boot segments: retransmissions stay inside the boot that sent the frames.
    starts = [i for i, (_, m) in enumerate(numbered) if i == 0 or isinstance(m, Hello)]
    bounds = [*starts[1:], len(frames)]
    for start, end in zip(starts, bounds, strict=True):
        _play_segment(frames, start, end, faults, rng, out)
    return bytes(out)


def _p(value: float) -> float:
    return min(value, MAX_FAULT_PROBABILITY)


def _play_segment(frames: list[bytes], start: int, end: int, faults: Faults,
                  rng: random.Random, out: bytearray) -> None:
    """Send frames[start:end] as a go-back-N shoe on a faulty line would."""
    p_noise, p_damage = _p(faults.noise), _p(faults.damage)
    p_dup, p_drop = _p(faults.duplicate), _p(faults.drop_then_resend)
    i = start
    front = start  # the first frame the receiver does not have yet
    while i < end:
        if p_noise and rng.random() < p_noise:
            out += noise(rng)
        if i == front and p_drop and rng.random() < p_drop:
            # Lost on the line: this frame and perhaps the next few. Later frames of the
            # window may still arrive (gaps, dropped by the receiver) unless the lost frame is
            # a HELLO, whose successors a receiver of the old boot could mistake for its own.
            lost = rng.randint(1, 4)
            arriving = 0 if i == start else rng.randint(0, 3)
            for j in range(i + lost, min(i + lost + arriving, end, i + WINDOW)):
                out += frames[j]
            continue  # the timeout: go back to the lost frame
        if p_damage and rng.random() < p_damage:
            out += damage(frames[i], rng)
        out += frames[i]
        if i == front:
            front += 1
            if p_dup and rng.random() < p_dup:
                # No ACK got back in time: the whole window is sent again from its oldest.
                i -= rng.randint(0, min(WINDOW - 1, i - start))
                continue
        i += 1


def noise(rng: random.Random) -> bytes:
    """Bytes that can never make a frame (no `*`), sometimes a false start `$`."""
    n = rng.randint(1, 40)
    chunk = bytearray(rng.choice(_NOISE_ALPHABET) for _ in range(n))
    if rng.random() < 0.3:
        chunk[rng.randrange(n)] = ord("$")  # a false start: the next real `$` resynchronises
    if rng.random() < 0.5:
        chunk += b"\r\n"
    return bytes(chunk)


def damage(frame: bytes, rng: random.Random) -> bytes:
    """The frame with one byte changed so that the CRC (or the trailer) always rejects it."""
    star = frame.index(b"*")
    damaged = bytearray(frame)
    pos = rng.randrange(1, star + 5)  # a body byte or a CRC digit (not `$`, `*`, `\r\n`)
    if pos == star:
        pos = star + 1
    alphabet = _HEX_DIGITS if pos > star else _BODY_REPLACEMENTS
    old = damaged[pos]
    damaged[pos] = rng.choice([b for b in alphabet if b != old])
    return bytes(damaged)


def read_capture(path: str | Path) -> bytes:
    return Path(path).read_bytes()


def save_capture(path: str | Path, data: bytes) -> Path:
    path = Path(path)
    path.write_bytes(data)
    return path


def in_order(data: bytes, start_seq: int = 0) -> list[Message]:
    """The messages a next-expected-number receiver takes from `data` (a reference receiver).

    A HELLO with a boot id not seen before resets the expected number to 0 (shoe-line-protocol
    "Delivery"); anything else is taken only if it carries the next expected number.
    """
    expected = start_seq % SEQ_MODULUS
    boots: set[str] = set()
    taken: list[Message] = []
    for frame in FrameDecoder().feed(data):
        message = frame.message
        if isinstance(message, Hello) and message.boot_id not in boots:
            boots.add(message.boot_id)
            expected = 0
        if frame.seq != expected:
            continue
        taken.append(message)
        expected = next_seq(expected)
    return taken
