"""A slow, plain enumeration of a coup, card by card, for checking the fast law on small shoes.

It deals the shoe's cards one at a time (punter, banker, punter, banker, the punter's third
card if he draws, the banker's if he draws) with the chance count/left of each point value,
and applies the strategy at each decision: nothing shared with shoe_daemon.odds.law but the
rules of the game (000 Table I's points, the nearer to nine wins, 8 and 9 are naturals).
Returns the masses of (banker wins, punter wins, égalité) over N(N-1)...(N-5), exact.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

STOOD = 10


def _falling(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out *= n - i
    return out


def _winner(punter: int, banker: int) -> int:
    if banker > punter:
        return 0
    return 1 if punter > banker else 2


def enumerate_coup(
    counts: list[int],
    punter: Mapping[int, Fraction],
    banker: Mapping[tuple[int, int], Fraction],
) -> list[Fraction]:
    """Masses (banker, punter, égalité) over N(N-1)...(N-5), by plain enumeration."""
    size = sum(counts)
    out = [Fraction(0)] * 3
    left = list(counts)

    def deal(cards: list[int], weight: int) -> None:
        k = len(cards)
        if k < 4:
            for v in range(10):
                if left[v]:
                    n = left[v]
                    left[v] -= 1
                    deal([*cards, v], weight * n)
                    left[v] += 1
            return
        p = (cards[0] + cards[2]) % 10
        b = (cards[1] + cards[3]) % 10
        if k == 4 and (p >= 8 or b >= 8):
            out[_winner(p, b)] += weight * _falling(size - 4, 2)
            return
        if k == 4:
            x = punter[p]
            if x != 1:
                finish(cards, weight, 1 - x, p, b, STOOD)
            if x != 0:
                for v in range(10):
                    if left[v]:
                        n = left[v]
                        left[v] -= 1
                        finish([*cards, v], weight * n, x, (p + v) % 10, b, v)
                        left[v] += 1

    def finish(cards: list[int], weight: int, chance: Fraction, p: int, b: int, cell: int
               ) -> None:
        y = banker[(b, cell)]
        k = len(cards)
        if y != 1:
            out[_winner(p, b)] += chance * (1 - y) * weight * _falling(size - k, 6 - k)
        if y != 0:
            for v in range(10):
                if left[v]:
                    out[_winner(p, (b + v) % 10)] += (
                        chance * y * weight * left[v] * _falling(size - k - 1, 5 - k)
                    )

    deal([], 1)
    return out
