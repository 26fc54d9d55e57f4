"""Playing cards as the shoe names them, and their baccarat points.

A card code is rank then suit, exactly as on the wire (docs/shoe-line-protocol.md, `CARD`):
rank `A 2-9 T J Q K`, suit `C D H S`. `??` is the reader's "could not read".
Points follow 000 Table I and 001 ("picture cards and tens count nothing, ace = 1");
a hand's total drops the tens (000 Table I: "5 and 7 counts 2").
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "A23456789TJQK"
SUITS = "CDHS"
UNREADABLE = "??"
CARDS_PER_PACK = 52

_POINTS = {rank: (0 if rank in "TJQK" else (1 if rank == "A" else int(rank))) for rank in RANKS}

ALL_CODES: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)


def is_card(code: str) -> bool:
    """A readable card code (not `??`)."""
    return len(code) == 2 and code[0] in _POINTS and code[1] in SUITS


def points(code: str) -> int:
    """Baccarat value of one card: 000 Table I (pictures and tens 0, ace 1)."""
    return _POINTS[code[0]]


def total(codes: Iterable[str]) -> int:
    """Hand total: the sum of points with the tens dropped (000 Table I)."""
    return sum(_POINTS[c[0]] for c in codes) % 10


def suit(code: str) -> str:
    return code[1]
