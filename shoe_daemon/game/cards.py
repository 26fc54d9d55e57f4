"""What baccarat makes of the shoe's cards: their points, a hand's total, a pack.

The card codes are the protocol's (drivers.messages, docs/shoe-line-protocol.md, `CARD`): rank
`A 2-9 T J Q K` then suit `C D H S`, and `??` for the reader's "could not read"; they are
defined there once and only used here. Points follow 000 Table I and 001 ("picture cards
and tens count nothing, ace = 1"); a hand's total drops the tens (000 Table I: "5 and 7
counts 2").
"""

from __future__ import annotations

from collections.abc import Iterable

from drivers.messages import RANKS, READABLE_CARDS, SUITS, UNREADABLE

__all__ = ["ALL_CODES", "CARDS_PER_PACK", "UNREADABLE", "is_card", "points", "suit", "total"]

_POINTS = {rank: (0 if rank in "TJQK" else (1 if rank == "A" else int(rank))) for rank in RANKS}

#: One pack's 52 codes, suit by suit (the order the simulated dealer builds a shoe in).
ALL_CODES: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
CARDS_PER_PACK = len(ALL_CODES)


def is_card(code: str) -> bool:
    """A readable card code (not `??`)."""
    return isinstance(code, str) and code in READABLE_CARDS


def points(code: str) -> int:
    """Baccarat value of one card: 000 Table I (pictures and tens 0, ace 1)."""
    return _POINTS[code[0]]


def total(codes: Iterable[str]) -> int:
    """Hand total: the sum of points with the tens dropped (000 Table I)."""
    return sum(_POINTS[c[0]] for c in codes) % 10


def suit(code: str) -> str:
    """The suit letter of a readable code (003's Swiss Nine asks for one suit, or clubs)."""
    return code[1]
