"""`shoe-daemon replay`: a raw shoe capture through the same decode, delivery and coup
machine the live daemon uses, with the decided coups printed as JSON Lines.

Like gpsd's regression logs, a capture is the exact byte stream the shoe sent, noise,
damaged frames and retransmissions included; replaying it must yield each frame once.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from drivers.delivery import Receiver
from drivers.framing import FrameDecoder
from shoe_daemon.game.coup import BETWEEN_COUPS, CoupMachine
from shoe_daemon.game.houses import get_profile

CHUNK = 65536


@dataclass
class ReplayOutcome:
    lines: list[dict[str, Any]] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)
    final_state: str = ""


def replay_bytes(data: bytes, profile: str) -> ReplayOutcome:
    """Decode, deliver in order and play a whole capture; return every published line."""
    machine = CoupMachine(get_profile(profile))
    decoder = FrameDecoder()
    receiver = Receiver()
    lines: list[dict[str, Any]] = []
    handle, receive, publish = machine.handle, receiver.receive, lines.extend
    for start in range(0, len(data), CHUNK):
        for frame in decoder.feed(data[start : start + CHUNK]):
            if receive(frame).accepted:
                publish(handle(frame.message))
    d, r = decoder.stats, receiver.stats
    stats = {
        "frames": d.frames,
        "accepted": r.accepted,
        "noise_bytes": d.noise_bytes,
        "bad_crc": d.bad_crc,
        "overlong": d.overlong,
        "unparsable": d.unparsable,
        "truncated": d.truncated,
        "duplicates": r.duplicates,
        "gaps": r.gaps,
        "resets": r.resets,
    }
    return ReplayOutcome(lines=lines, stats=stats, final_state=machine.state)


def run(profile: str, capture: Path, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    data = capture.read_bytes()
    outcome = replay_bytes(data, profile)
    for line in outcome.lines:
        out.write(json.dumps(line) + "\n")
    err.write(" ".join(f"{k}={v}" for k, v in outcome.stats.items()) + "\n")
    if outcome.final_state not in BETWEEN_COUPS:
        err.write(f"capture ended with a coup not decided (state {outcome.final_state})\n")
    return 0
