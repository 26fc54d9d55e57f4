"""Shoes that are not fairly shuffled, for the simulated croupier's integrity faults
(hil/dealer.py `false_shuffle`, `stacked`) and for bench/integrity.py's power:

- `false_shuffle(previous, fraction, rng)`: the new shoe keeps `fraction` of the previous
  shoe's order in slugs of SLUG_LENGTHS cards (each slug's cards in the order they were
  dealt), the rest shuffled, the slugs laid among them at random: what a false shuffle or a
  weak hand shuffle of the discards leaves;
- `prearranged(profile, packs, rng, wanted)`: a shoe whose coups are arranged, coup by coup,
  to give the outcomes `wanted` yields (a confederate's sequence), as far as its cards allow;
  the patterns: `streaks` (one side for runs of lo to hi coups), `banker_share` (the banker
  with chance q), `ties` (an égalité with chance r).

A shoe is a list of codes in the order they leave it (the first dealt first).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from shoe_daemon.game.cards import ALL_CODES, points, total
from shoe_daemon.game.rules import HouseProfile, Play

SLUG_LENGTHS = (4, 8)  # a false shuffle's slugs: 4 to 8 cards
ARRANGE_TRIES = 400  # random coups tried for each outcome wanted


def false_shuffle(previous: Sequence[str], fraction: float, rng: random.Random,
                  lengths: tuple[int, int] = SLUG_LENGTHS) -> list[str]:
    """A new shoe of the previous shoe's cards keeping `fraction` of them in slugs."""
    n = len(previous)
    want = round(fraction * n)
    taken = bytearray(n)
    slugs: list[list[str]] = []
    kept = tries = 0
    while kept < want and tries < 100 * n:
        tries += 1
        length = rng.randint(*lengths)
        start = rng.randrange(0, max(1, n - length + 1))
        if any(taken[max(0, start - 1):start + length + 1]):  # slugs never touch
            continue
        taken[start:start + length] = b"\x01" * length
        slugs.append(list(previous[start:start + length]))
        kept += length
    pieces = [[previous[i]] for i in range(n) if not taken[i]] + slugs
    rng.shuffle(pieces)
    return [code for piece in pieces for code in piece]


def coup_hands(profile: HouseProfile, cards: Sequence[str]) -> tuple[str, list[str], list[str]]:
    """The outcome and the two hands of a coup dealt from `cards` (at least six) by the
    house's table, both sides bound, every option drawn."""
    punter, banker = [cards[0], cards[2]], [cards[1], cards[3]]
    used = 4
    if total(punter) < 8 and total(banker) < 8:
        if profile.punter_ruling(total(punter), True).play is not Play.STAND:
            punter.append(cards[used])
            used += 1
        third = points(punter[2]) if len(punter) == 3 else None
        if profile.banker_ruling(total(banker), third).play is not Play.STAND:
            banker.append(cards[used])
    p, b = total(punter), total(banker)
    return ("egalite" if p == b else "punter" if p > b else "banker"), punter, banker


def coup_of(profile: HouseProfile, cards: Sequence[str]) -> tuple[str, int]:
    """The outcome of a coup dealt from `cards` (coup_hands) and how many cards it took."""
    outcome, punter, banker = coup_hands(profile, cards)
    return outcome, len(punter) + len(banker)


def prearranged(profile: HouseProfile, packs: int, rng: random.Random, wanted: Iterator[str],
                keep: int = 13) -> list[str]:
    """A shoe arranged coup by coup to give the `wanted` outcomes; its last `keep` cards and
    any coup no try could arrange are left as they fall."""
    cards = list(ALL_CODES) * packs
    rng.shuffle(cards)
    order: list[str] = []
    while len(cards) > keep + 6:
        target = next(wanted)
        pick = rng.sample(range(len(cards)), 6)
        for _ in range(ARRANGE_TRIES):
            outcome, used = coup_of(profile, [cards[i] for i in pick])
            if outcome == target:
                break
            pick = rng.sample(range(len(cards)), 6)
        _, used = coup_of(profile, [cards[i] for i in pick])
        order += [cards[i] for i in pick[:used]]
        for i in sorted(pick[:used], reverse=True):
            del cards[i]
    return order + cards


def streaks(rng: random.Random, lo: int = 6, hi: int = 12) -> Iterator[str]:
    """One side for lo to hi coups, then the other."""
    side = rng.choice(("banker", "punter"))
    while True:
        for _ in range(rng.randint(lo, hi)):
            yield side
        side = "punter" if side == "banker" else "banker"


def banker_share(rng: random.Random, q: float) -> Iterator[str]:
    while True:
        yield "banker" if rng.random() < q else "punter"


def ties(rng: random.Random, rate: float) -> Iterator[str]:
    while True:
        yield "egalite" if rng.random() < rate else rng.choice(("banker", "punter"))
