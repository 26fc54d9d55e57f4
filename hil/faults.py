"""The simulated shoe's fault switches (`python -m hil.shoe --fault NAME[=VALUE]`).

Line faults act on the live byte stream and never change what the host must decide:
- `noise=P`: random printable bytes (never `*`, sometimes a stray `$`) before a frame;
- `damage=P`: a frame goes out with one byte changed (CRC-16 always catches it);
- `drop=P`: a frame is not sent at all;
- `duplicate=P`: a frame is sent twice in a row;
- `lost_ack=P`: an ACK from the host is ignored;
- `unplug=N`: N times, the cable is pulled for about half a second;
- `reboot=N`: N times, the shoe reboots (a new boot id, numbering from 0).
Each P is per frame sent (per ACK received for `lost_ack`) and at most 0.9, so every frame
still gets through in the end.

Game faults are passed to the croupier (`hil.dealer.GameFaults`), which knows what the host
must make of them: `face_up`, `unreadable`, `wrong_order`, `extra_card`, `jam` (per coup),
`foreign_card`, `short_last_coup` (per shoe); and the integrity faults `false_shuffle`
(the fraction of the previous shoe a shoe keeps in slugs) and `stacked` (per shoe: a
prearranged shoe), which `all` leaves off.

`all` switches on a mix of everything; later switches override earlier ones, so
`--fault all --fault drop=0` is everything but dropped frames.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields

# The bytes of the noise and damage faults: made where captures are written, re-exported so
# the shoe applies exactly the same faults to its live line (`line.noise`, `line.damage`).
from hil.capture import damage as damage
from hil.capture import noise as noise
from hil.dealer import GameFaults

MAX_LINE_PROBABILITY = 0.9


@dataclass
class LineFaults:
    noise: float = 0
    damage: float = 0
    drop: float = 0
    duplicate: float = 0
    lost_ack: float = 0
    unplug: int = 0
    reboot: int = 0

    def __post_init__(self) -> None:
        for name in PROBABILITIES:
            value = getattr(self, name)
            if not 0 <= value <= MAX_LINE_PROBABILITY:
                raise ValueError(
                    f"{name} must lie between 0 and {MAX_LINE_PROBABILITY}, not {value}")
        for name in COUNTS:
            value = getattr(self, name)
            if type(value) is not int or value < 0:
                raise ValueError(f"{name} must be a count (0, 1, 2, ...), not {value!r}")

    def __bool__(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))


PROBABILITIES = ("noise", "damage", "drop", "duplicate", "lost_ack")
COUNTS = ("unplug", "reboot")
GAME = GameFaults.names()

# A bare `--fault NAME` switches it on at this value.
DEFAULTS: dict[str, float] = {
    "noise": 0.05, "damage": 0.02, "drop": 0.02, "duplicate": 0.02, "lost_ack": 0.1,
    "unplug": 1, "reboot": 1,
    "face_up": 0.05, "unreadable": 0.05, "wrong_order": 0.05, "extra_card": 0.1, "jam": 0.05,
    "foreign_card": 0.5, "short_last_coup": 0.5,
    "false_shuffle": 0.2, "stacked": 1.0,
}
# `--fault all`: a sensible mix of everything.
ALL: dict[str, float] = {
    "noise": 0.02, "damage": 0.01, "drop": 0.01, "duplicate": 0.02, "lost_ack": 0.05,
    "unplug": 1, "reboot": 1,
    "face_up": 0.03, "unreadable": 0.03, "wrong_order": 0.03, "extra_card": 0.05,
    "jam": 0.03, "foreign_card": 0.5, "short_last_coup": 0.5,
}
NAMES = (*PROBABILITIES, *COUNTS, *GAME)


def parse_faults(specs: Iterable[str]) -> tuple[LineFaults, GameFaults]:
    """`["all", "drop=0.05", "unplug"]` -> the line faults and the game faults."""
    values: dict[str, float] = {}
    for spec in specs:
        name, sep, text = spec.partition("=")
        name = name.strip().replace("-", "_")
        if name == "all":
            if sep:
                raise ValueError("--fault all takes no value")
            values.update(ALL)
            continue
        if name not in NAMES:
            raise ValueError(f"unknown fault {name!r}; known: all, {', '.join(NAMES)}")
        if not sep:
            values[name] = DEFAULTS[name]
            continue
        try:
            value = int(text) if name in COUNTS else float(text)
        except ValueError:
            kind = "a count" if name in COUNTS else "a probability"
            raise ValueError(f"--fault {name}= needs {kind}, not {text!r}") from None
        values[name] = value
    line = LineFaults(**{k: v for k, v in values.items() if k in PROBABILITIES or k in COUNTS})
    game = GameFaults(**{k: v for k, v in values.items() if k in GAME})
    return line, game

