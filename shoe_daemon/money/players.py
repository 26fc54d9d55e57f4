"""Who plays: a seated player by his place, an outsider by a label; the seating and the
order of priority around the table.

A player's key is his serialised form: "seat 3" or "outsider A", and every money record
names a player by it (issue 20): a stake's player, the banker and his partner, the suivi,
the bidders, the place in turn to take the bank and where it passes (`passes_to`), the
places that declined an offer. Ledgers written before named those last three by their
place's number (`passes_to: 2`); `place_of` reads both. A place itself (the seating's
`seat`, the banker in turn's `anchor` from which Prime is counted, a standing player's
`box`) is a number. Places are numbered from 1; the Prime order starts at the banker's
right, the next place up (000: "from place 1 to 2"; 003: "in aufsteigender
Platznummern-Folge, der Prime-Folge"), and wraps around.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from shoe_daemon.money.refusals import Refusal

_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._-]{0,23}")
_KEY = re.compile(r"seat ([1-9][0-9]?)|outsider (.+)")
MAX_PLACES = 16


@dataclass(frozen=True)
class Player:
    seat: int | None = None
    outsider: str | None = None

    def __post_init__(self) -> None:
        if (self.seat is None) == (self.outsider is None):
            raise ValueError("a player has a seat or an outsider's label, not both or neither")
        if self.seat is not None and (
            isinstance(self.seat, bool) or not isinstance(self.seat, int)
            or not 1 <= self.seat <= MAX_PLACES
        ):
            raise ValueError(f"a seat is a place number 1..{MAX_PLACES}, not {self.seat!r}")
        if self.outsider is not None and (
            not isinstance(self.outsider, str) or not _LABEL.fullmatch(self.outsider)
        ):
            raise ValueError(
                f"an outsider's label is 1 to 24 letters, digits, spaces, '.', '_' or '-', "
                f"starting with a letter or digit, not {self.outsider!r}"
            )

    @property
    def key(self) -> str:
        return f"seat {self.seat}" if self.seat is not None else f"outsider {self.outsider}"

    @property
    def seated(self) -> bool:
        return self.seat is not None

    def __str__(self) -> str:
        return self.key

    @classmethod
    def parse(cls, key: object) -> Player:
        """A player from his key; a Refusal (bad_request) says what is wrong."""
        match = _KEY.fullmatch(key) if isinstance(key, str) else None
        try:
            if match is None:
                raise ValueError(f"a player is 'seat N' or 'outsider LABEL', not {key!r}")
            if match.group(1) is not None:
                return cls(seat=int(match.group(1)))
            return cls(outsider=match.group(2))
        except ValueError as error:
            raise Refusal("bad_request", str(error), "the console's API") from None


def seat_key(place: int | None) -> str | None:
    """The key of the player at `place` ("seat 2"), None for none."""
    return None if place is None else Player(seat=place).key


def place_of(value: object) -> int | None:
    """The place a record names: a seated player's key ("seat 2"), or the number a ledger
    written before issue 20 recorded (2); None for none. ValueError for anything else."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return Player(seat=value).seat
    try:
        player = Player.parse(value)
    except Refusal as refusal:
        raise ValueError(refusal.reason) from None
    if player.seat is None:
        raise ValueError(f"{value!r} is not a seated player")
    return player.seat


def seat(number: int) -> Player:
    return Player(seat=number)


def outsider(label: str) -> Player:
    return Player(outsider=label)


@dataclass(frozen=True)
class Seating:
    """The places at the table and which are occupied."""

    places: int
    occupied: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        if isinstance(self.places, bool) or not isinstance(self.places, int) or not (
            2 <= self.places <= MAX_PLACES
        ):
            raise ValueError(f"a table has 2 to {MAX_PLACES} places, not {self.places!r}")
        object.__setattr__(self, "occupied", frozenset(self.occupied))
        bad = sorted(s for s in self.occupied if not (isinstance(s, int) and 1 <= s <= self.places))
        if bad:
            raise ValueError(f"places {bad} are not at a table of {self.places}")

    @classmethod
    def of(cls, places: int, occupied: Iterable[int]) -> Seating:
        return cls(places, frozenset(occupied))

    @property
    def full(self) -> bool:
        return len(self.occupied) == self.places

    def rotation(self, anchor: int | None) -> tuple[int, ...]:
        """The occupied places in Prime order counted from `anchor` (the banker in turn):
        the place after it first, `anchor` itself last; from place 1 when None."""
        start = 0 if anchor is None else anchor
        order = [(start + i - 1) % self.places + 1 for i in range(1, self.places + 1)]
        return tuple(s for s in order if s in self.occupied)

    def next_after(self, place: int | None) -> int | None:
        """The next occupied place after `place` (wrapping; `place` itself only if it is the
        only one); None when nobody is seated."""
        order = self.rotation(place)
        return order[0] if order else None

    def to_dict(self) -> dict[str, object]:
        return {"places": self.places, "occupied": sorted(self.occupied)}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Seating:
        return cls(int(data["places"]), frozenset(int(s) for s in data["occupied"]))  # type: ignore[arg-type,union-attr]
