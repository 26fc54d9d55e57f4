"""`shoe-daemon replay`: a raw shoe capture through the live service's own pieces, the shoe
link (decode, in-order delivery) and the table (the coup machine) with no transport and no
ledger, with the decided coups printed as JSON Lines.

Like gpsd's regression logs, a capture is the exact byte stream the shoe sent, noise,
damaged frames and retransmissions included; replaying it must yield each frame once.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from drivers.link import ShoeLink
from shoe_daemon.game.coup import BETWEEN_COUPS
from shoe_daemon.game.houses import get_profile
from shoe_daemon.service.table import Table

CHUNK = 65536


@dataclass
class ReplayOutcome:
    lines: list[dict[str, Any]] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)
    final_state: str = ""


def replay_bytes(data: bytes, profile: str) -> ReplayOutcome:
    """Decode, deliver in order and play a whole capture; return every published line."""
    table = Table(get_profile(profile))  # no ledger: it plays and publishes, keeps nothing
    link = ShoeLink(table)  # no transport: nothing to acknowledge
    receive = link.receive
    for start in range(0, len(data), CHUNK):
        receive(data[start : start + CHUNK])
    d, r = link.decoder.stats, link.receiver.stats
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
    return ReplayOutcome(lines=table.published, stats=stats, final_state=table.machine.state)


def run(profile: str, capture: Path, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    data = capture.read_bytes()
    outcome = replay_bytes(data, profile)
    for line in outcome.lines:
        out.write(json.dumps(line) + "\n")
    err.write(" ".join(f"{k}={v}" for k, v in outcome.stats.items()) + "\n")
    if outcome.final_state not in BETWEEN_COUPS:
        err.write(f"capture ended with a coup not decided (state {outcome.final_state})\n")
    return 0
