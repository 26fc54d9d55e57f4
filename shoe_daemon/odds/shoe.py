"""A finite shoe: how many cards of each point value (and, where known, of each card code).

The odds of the next coup depend only on the cards still in the shoe. Baccarat's drawing
rules see points alone (000 Table I: tens and pictures 0, ace 1), so the counts by point
value are enough for the banker's, punter's and égalité's chances; 003's Swiss Nine bets
also need suits, so a shoe built from card codes keeps them.

A card that left the shoe unread (`??`) changes nothing: the shuffled shoe is exchangeable,
so the next six cards are distributed as if that card were still inside. Only cards whose
code is known are taken out (`Shoe.without`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from shoe_daemon.game.cards import ALL_CODES, UNREADABLE, is_card, points

#: Point values 0..9: a ten or a picture is 0 (000 Table I).
VALUES: tuple[int, ...] = tuple(range(10))
#: The most cards one coup can take: two each, and a third card each.
COUP_CARDS = 6


class ShoeError(ValueError):
    """A shoe that cannot be: a negative count, a card taken out that is not left in it,
    or too few cards for a coup."""


def _by_value(codes: Mapping[str, int]) -> tuple[int, ...]:
    counts = [0] * 10
    for code, k in codes.items():
        counts[points(code)] += k
    return tuple(counts)


@dataclass(frozen=True)
class Shoe:
    """The cards left in a shoe. `counts[v]` is how many cards of point value v;
    `codes` (when known) how many of each card code, for the bets that look at suits."""

    counts: tuple[int, ...]
    codes: Mapping[str, int] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        counts = tuple(self.counts)
        if len(counts) != 10 or any(
            isinstance(k, bool) or not isinstance(k, int) or k < 0 for k in counts
        ):
            raise ShoeError(f"a shoe needs ten counts >= 0 (point values 0..9), not {counts!r}")
        object.__setattr__(self, "counts", counts)
        if self.codes is not None:
            bad = [c for c, k in self.codes.items() if not is_card(c) or k < 0]
            if bad:
                raise ShoeError(f"not card codes with counts >= 0: {bad}")
            codes = MappingProxyType({c: self.codes.get(c, 0) for c in ALL_CODES})
            if _by_value(codes) != counts:
                raise ShoeError("the counts by point value do not match the card codes")
            object.__setattr__(self, "codes", codes)

    @classmethod
    def full(cls, packs: int) -> Shoe:
        """A freshly shuffled shoe of `packs` 52-card packs."""
        if isinstance(packs, bool) or not isinstance(packs, int) or packs < 1:
            raise ShoeError(f"packs must be a positive int, not {packs!r}")
        return cls.from_codes(dict.fromkeys(ALL_CODES, packs))

    @classmethod
    def from_codes(cls, codes: Mapping[str, int]) -> Shoe:
        """A shoe from a count of each card code (missing codes: none)."""
        return cls(_by_value(codes), codes)

    @property
    def size(self) -> int:
        return sum(self.counts)

    def without(self, seen: Iterable[str]) -> Shoe:
        """The shoe after the cards `seen` (codes) left it. `??` is skipped (see the module's
        note); a code the shoe no longer holds raises ShoeError naming it."""
        if self.codes is None:
            raise ShoeError("this shoe has counts by point value only; take out by value")
        left = Counter(self.codes)
        for code in seen:
            if code == UNREADABLE:
                continue
            if not is_card(code):
                raise ShoeError(f"not a card code: {code!r}")
            if left[code] <= 0:
                raise ShoeError(f"{code} left the shoe more often than the shoe held it")
            left[code] -= 1
        return Shoe.from_codes(left)

    def check_coup(self) -> None:
        """Raise ShoeError unless the shoe holds the six cards a coup can need."""
        if self.size < COUP_CARDS:
            raise ShoeError(
                f"a coup can take {COUP_CARDS} cards and the shoe holds {self.size}"
            )
