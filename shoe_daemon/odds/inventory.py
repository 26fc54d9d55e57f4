"""A shoe's inventory at its end (issue 14, section 3): every card read from it, in order,
how many of each code, whether any code came out more often than the packs hold (a foreign
card), and the cards the reader could not read.

The order is the order the cards left the shoe, as the shoe reported them (`CARD` frames):
hands, and any card read outside a hand (a voided face-up card, an extra card carried to the
next deal, a foreign card). A card read as `??` and keyed in later (`ENTER`) is listed by
the code keyed in; one never keyed in stays `??`. The cards behind the cut card are never
dealt, so never read.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from shoe_daemon.game.cards import ALL_CODES, CARDS_PER_PACK, UNREADABLE
from shoe_daemon.odds.live import SYSTEM


@dataclass(frozen=True)
class Inventory:
    packs: int
    cards: tuple[str, ...]  # in the order read; `??` for a card never keyed in
    unreadable_at: tuple[int, ...]  # 0-based positions read as `??` (keyed in or not)

    @property
    def size(self) -> int:
        return self.packs * CARDS_PER_PACK

    @property
    def counts(self) -> Counter[str]:
        return Counter(c for c in self.cards if c != UNREADABLE)

    @property
    def over(self) -> dict[str, int]:
        """Codes read more often than the packs hold them, with how often."""
        return {c: k for c, k in self.counts.items() if k > self.packs}

    @property
    def unknown(self) -> int:
        return sum(1 for c in self.cards if c == UNREADABLE)

    @property
    def foreign(self) -> int:
        return sum(k - self.packs for k in self.over.values())

    @property
    def never_read(self) -> int:
        """Cards of the shoe never read: behind the cut card, or left when it was replaced.
        An unknown card counts as read (it did leave the shoe)."""
        return self.size - (len(self.cards) - self.foreign)


def inventory_body(inv: Inventory, shoe: int | None, opened_at: int, coups: int,
                   ended: str) -> dict[str, Any]:
    """The `shoe.inventory` record."""
    counts = inv.counts
    over = inv.over
    positions: dict[str, list[int]] = {}
    for i, code in enumerate(inv.cards):
        if code in over:
            positions.setdefault(code, []).append(i + 1)
    keyed = sum(1 for i in inv.unreadable_at if inv.cards[i] != UNREADABLE)
    if over:
        check = "FOREIGN CARDS: " + "; ".join(
            f"{code} read {k} times in a {inv.packs}-pack shoe (at cards {positions[code]})"
            for code, k in sorted(over.items()))
    else:
        check = f"no code read more than the {inv.packs} copies the packs hold"
    which = f"Shoe {shoe}" if shoe is not None else "A shoe with no coup decided"
    words = (f"{which}: {len(inv.cards)} cards read of {inv.size} ({inv.packs} packs) in "
             f"{coups} coups, {inv.never_read} never read; {check}.")
    if inv.unreadable_at:
        words += (f" {len(inv.unreadable_at)} read as ??: {keyed} keyed in, "
                  f"{inv.unknown} never known.")
    return {
        "by": SYSTEM, "shoe": shoe, "opened_at": opened_at, "packs": inv.packs,
        "size": inv.size, "ended": ended, "coups": coups, "cards_read": len(inv.cards),
        "order": list(inv.cards),
        "counts": {code: counts[code] for code in ALL_CODES if counts[code]},
        "over_pack_count": [{"code": code, "read": k, "positions": positions[code]}
                            for code, k in sorted(over.items())],
        "foreign": inv.foreign,
        "unreadable": {"read": len(inv.unreadable_at), "keyed_in": keyed,
                       "unknown": inv.unknown,
                       "positions": [i + 1 for i in inv.unreadable_at]},
        "never_read": inv.never_read,
        "words": words,
    }
