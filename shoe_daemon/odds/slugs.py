"""Shuffle quality: runs ("slugs") of an earlier shoe's order found again in a new shoe.

A false shuffle, or a weak hand shuffle, leaves runs of the discards' order intact; a player
who wrote that order down can call the coups the run deals. The daemon read every earlier
shoe card by card, so it can look for them.

**A shoe's order.** Six or eight packs hold six or eight copies of each of 52 codes, so two
consecutive cards of a new shoe were consecutive in an earlier shoe by chance about one time
in seven (about 400 consecutive pairs in a shoe, of 2,704 possible pairs of codes): single
pairs prove nothing. Four consecutive cards are another matter: the chance that four given
consecutive cards of the new shoe lay consecutively, in that order, anywhere in an earlier
shoe of about 400 cards read is about 400 / 52^4, one in 18,000, so a whole shoe shows one
such run by chance about once in 45 comparisons, and three almost never (docs/odds.md
gives the measured rates).

**The statistic** (`coverage`): the number of cards of the new shoe that lie inside some run
of at least `MIN_SLUG` (4) consecutive cards that also lay consecutively, in the same order,
in an earlier shoe's order. It only grows as more cards of either shoe are read, so a check
after every coup alarms at the first coup it reaches `ALARM_CARDS` (12) and its false-alarm
rate is that of the whole shoe.

**Which order of an earlier shoe.** The cards go to the discard holder coup by coup, and the
croupier may gather a coup's cards hand by hand rather than as dealt, so each earlier shoe is
looked at in three orders (`orders`): as dealt; each coup's punter's hand then banker's hand;
each coup's banker's hand then punter's hand (the cards of a coup read outside its hands stay
where they came). Each order of each of the `EARLIER` last shoes is one comparison.

**Naming the slugs** (`slugs`): the runs, matched with care: each earlier position is used by
one run at most, and at each start the earlier run that goes on longest is taken, so a slug
is named once with its full length; positions are the cards' places in each shoe's order as
read (1 = the first card out of the shoe).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from shoe_daemon.game.cards import ALL_CODES

MIN_SLUG = 4  # cards: the shortest run counted
ALARM_CARDS = 12  # cards of the new shoe in such runs, against one earlier order: the alarm
EARLIER = 3  # the earlier shoes at the table each new shoe is compared with

DEALT = "as dealt"
PUNTER_FIRST = "each coup's punter's hand, then banker's"
BANKER_FIRST = "each coup's banker's hand, then punter's"

_INDEX = {code: i for i, code in enumerate(ALL_CODES)}
_BASE = len(ALL_CODES) + 1  # one more for a card not known


def _ints(cards: Sequence[str]) -> list[int]:
    return [_INDEX.get(c, -1) for c in cards]


@dataclass(frozen=True)
class Order:
    """An earlier shoe's cards in one order, and each one's place in the order as dealt."""

    label: str
    cards: tuple[str, ...]
    dealt_at: tuple[int, ...]  # 0-based, as dealt

    @cached_property
    def grams(self) -> dict[int, list[int]]:
        """Its runs of MIN_SLUG cards, built once however often it is compared."""
        return _grams(self.cards)


@dataclass(frozen=True)
class CoupCards:
    """One coup of an earlier shoe: how many cards had been read when it was decided, and
    its hands as its result gave them."""

    read: int
    punter: tuple[str, ...]
    banker: tuple[str, ...]


def orders(cards: Sequence[str], coups: Sequence[CoupCards]) -> list[Order]:
    """The earlier shoe's orders (module note): as dealt, and hand by hand each way."""
    dealt = Order(DEALT, tuple(cards), tuple(range(len(cards))))
    groups: list[tuple[list[int], list[int], list[int]]] = []  # (punter, banker, rest)
    start = 0
    for coup in coups:
        window = list(range(start, min(coup.read, len(cards))))
        start = max(start, coup.read)
        free = list(window)
        hands: list[list[int]] = []
        for hand in (coup.punter, coup.banker):
            taken = []
            for code in hand:
                at = next((i for i in free if cards[i] == code), None)
                if at is not None:
                    free.remove(at)
                    taken.append(at)
            hands.append(taken)
        groups.append((hands[0], hands[1], free))
    groups.append(([], [], list(range(start, len(cards)))))
    out = [dealt]
    for label, first in ((PUNTER_FIRST, 0), (BANKER_FIRST, 1)):
        at: list[int] = []
        for group in groups:
            at += group[first] + group[1 - first] + group[2]
        out.append(Order(label, tuple(cards[i] for i in at), tuple(at)))
    return out


def _grams(cards: Sequence[str]) -> dict[int, list[int]]:
    """Every run of MIN_SLUG known cards, as one integer, with where it starts."""
    ints = _ints(cards)
    grams: dict[int, list[int]] = {}
    for i in range(len(ints) - MIN_SLUG + 1):
        window = ints[i:i + MIN_SLUG]
        if min(window) < 0:
            continue
        key = 0
        for v in window:
            key = key * _BASE + v
        grams.setdefault(key, []).append(i)
    return grams


def coverage(new: Sequence[str], earlier: Sequence[str],
             grams: dict[int, list[int]] | None = None) -> int:
    """The statistic: cards of `new` inside a run of MIN_SLUG or more consecutive cards that
    lay consecutively, in that order, in `earlier`."""
    grams = _grams(earlier) if grams is None else grams
    ints = _ints(new)
    covered = bytearray(len(ints))
    for j in range(len(ints) - MIN_SLUG + 1):
        window = ints[j:j + MIN_SLUG]
        if min(window) < 0:
            continue
        key = 0
        for v in window:
            key = key * _BASE + v
        if key in grams:
            covered[j:j + MIN_SLUG] = b"\x01" * MIN_SLUG
    return sum(covered)


@dataclass(frozen=True)
class Slug:
    """A run of the new shoe found in an earlier order."""

    new_start: int  # 0-based, in the new shoe's order
    earlier_start: int  # 0-based, in the earlier order
    length: int


def slugs(new: Sequence[str], earlier: Sequence[str],
          grams: dict[int, list[int]] | None = None) -> list[Slug]:
    """The runs themselves (module note: each earlier position used once, the longest run
    taken at each start)."""
    grams = _grams(earlier) if grams is None else grams
    ints, old = _ints(new), _ints(earlier)
    used = bytearray(len(old))
    found = []
    j = 0
    while j <= len(ints) - MIN_SLUG:
        window = ints[j:j + MIN_SLUG]
        key = 0
        for v in window:
            key = key * _BASE + v
        best: tuple[int, int] | None = None
        if min(window) >= 0:
            for i in grams.get(key, ()):
                if any(used[i:i + MIN_SLUG]):
                    continue
                length = MIN_SLUG
                while (j + length < len(ints) and i + length < len(old) and not used[i + length]
                       and ints[j + length] >= 0 and ints[j + length] == old[i + length]):
                    length += 1
                if best is None or length > best[1]:
                    best = (i, length)
        if best is None:
            j += 1
            continue
        i, length = best
        used[i:i + length] = b"\x01" * length
        found.append(Slug(j, i, length))
        j += length
    return found


@dataclass(frozen=True)
class Comparison:
    """The new shoe against one order of one earlier shoe."""

    shoe: int | None  # the earlier shoe's number
    opened_at: int  # its BTN,SHOE's ledger index
    order: str
    cards: int  # the statistic
    slugs: tuple[Slug, ...]  # named when the statistic reaches the alarm
    earlier: Order

    @property
    def alarm(self) -> bool:
        return self.cards >= ALARM_CARDS


@dataclass(frozen=True)
class EarlierShoe:
    shoe: int | None
    opened_at: int
    orders: tuple[Order, ...]


def compare(new: Sequence[str], earlier: Sequence[EarlierShoe]) -> list[Comparison]:
    """The new shoe's cards (so far) against every order of every earlier shoe given."""
    out = []
    for shoe in earlier:
        for order in shoe.orders:
            grams = order.grams
            cards = coverage(new, order.cards, grams)
            named = tuple(slugs(new, order.cards, grams)) if cards >= ALARM_CARDS else ()
            out.append(Comparison(shoe.shoe, shoe.opened_at, order.label, cards, named, order))
    return out


def slug_view(slug: Slug, new: Sequence[str], earlier: Order) -> dict[str, object]:
    """A slug as a record names it: its cards, and where they were in each shoe (1-based)."""
    at = [earlier.dealt_at[slug.earlier_start + k] + 1 for k in range(slug.length)]
    return {"cards": list(new[slug.new_start:slug.new_start + slug.length]),
            "new": [slug.new_start + 1, slug.new_start + slug.length],
            "earlier": at}


def comparison_view(c: Comparison, new: Sequence[str]) -> dict[str, object]:
    view: dict[str, object] = {"shoe": c.shoe, "opened_at": c.opened_at, "order": c.order,
                               "cards_in_slugs": c.cards}
    if c.slugs:
        view["slugs"] = [slug_view(s, new, c.earlier) for s in c.slugs]
    return view

