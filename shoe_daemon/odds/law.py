"""The exact law of the next coup from a finite shoe, for any drawing strategy.

A coup takes the shoe's first four cards (punter, banker, punter, banker), then the punter's
third card if he draws, then the banker's. The chance of any run of k cards is a product of
falling factorials over the shoe's counts divided by N(N-1)...(N-k+1), and depends only on
the run's multiset of point values. So:

1. `_FOUR_CARDS` (computed once, shoe-independent): each of the 715 multisets of four point
   values, with how many of its orderings give each pair of two-card totals (punter, banker).
2. For a shoe: `Q6[pt, bt][c][d]`, N(N-1)...(N-5) times the chance that the first four cards
   give totals pt, bt and the fifth and sixth are worth c and d. Writing the cards left
   after the four as r = n - m, the fifth and sixth contribute r_c (r_d - [c = d]); that
   expands into sums over each multiset's own values only (at most four of them), which is
   why it is fast: about 4 ms in pure Python for a full shoe (bench/odds.py).
3. `CoupLaw.paths[pt][bt][cell][action]`: the masses (banker wins, punter wins, égalité)
   of the deals in which the punter holds pt, the banker bt, the banker's decision falls in
   `cell` (the punter's third card 0..9, or STOOD) and he takes `action`. Naturals
   (8 or 9 in either hand's first two cards) are apart. Every strategy of either side,
   pure or mixed, is a weighting of these paths (`CoupLaw.outcome`).

Every number is an integer over `CoupLaw.denominator` = N(N-1)...(N-5): the results are
exact fractions (fractions.Fraction), with no sampling and no rounding.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from shoe_daemon.odds.shoe import COUP_CARDS, Shoe

#: The banker's decision cell when the punter stood (drew no third card).
STOOD = 10
#: Cells of a banker's row: the punter's third card's points 0..9, then STOOD.
CELLS: tuple[int, ...] = (*range(10), STOOD)
#: Two-card totals that are no natural.
DECIDING: tuple[int, ...] = tuple(range(8))
STAND, DRAW = 0, 1

Masses = tuple[int, int, int]  # (banker wins, punter wins, égalité), over the denominator


def _result(punter: int, banker: int) -> int:
    """0 banker wins, 1 punter wins, 2 égalité: the nearer to nine wins."""
    return 0 if banker > punter else (1 if punter > banker else 2)


@cache
def _four_cards() -> tuple[tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...],
                                 tuple[tuple[int, int], ...]], ...]:
    """Per multiset of four point values: its values with multiplicity [(v, m_v)], the products
    m_u m_v by u*10+v, and [(pt*10+bt, orderings)]. The same for every shoe."""
    by_multiset: dict[tuple[int, ...], dict[int, int]] = {}
    for p1, b1, p2, b2 in itertools.product(range(10), repeat=4):
        m = [0] * 10
        for v in (p1, b1, p2, b2):
            m[v] += 1
        key = ((p1 + p2) % 10) * 10 + (b1 + b2) % 10
        ks = by_multiset.setdefault(tuple(m), {})
        ks[key] = ks.get(key, 0) + 1
    out = []
    for m, ks in by_multiset.items():
        nz = tuple((v, k) for v, k in enumerate(m) if k)
        pairs = tuple((u * 10 + v, a * b) for u, a in nz for v, b in nz)
        out.append((nz, pairs, tuple(sorted(ks.items()))))
    return tuple(out)


def _falling(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out *= n - i
    return out


def _plain(p: Fraction | int) -> Fraction | int:
    """A chance of 0 or 1 as an int, so a pure strategy sums in integers."""
    return int(p) if Fraction(p).denominator == 1 else p


@dataclass(frozen=True)
class Outcome:
    """The chances of a coup's three results (exact)."""

    banker: Fraction
    punter: Fraction
    egalite: Fraction

    @property
    def decided(self) -> Fraction:
        return self.banker + self.punter

    @property
    def banker_share(self) -> Fraction:
        """The banker's share of the decided coups (004's "50.67% of the coups")."""
        return self.banker / self.decided


@dataclass(frozen=True)
class CoupLaw:
    """The exact law of the next coup from one shoe; see the module's note."""

    shoe: Shoe | None  # None: dealt with replacement (`with_replacement`)
    denominator: int
    natural: Masses
    paths: tuple[tuple[tuple[tuple[Masses, Masses], ...], ...], ...]  # [pt][bt][cell][action]

    @classmethod
    def of(cls, shoe: Shoe) -> CoupLaw:
        """Compute the law for `shoe` (ShoeError if it holds fewer than six cards)."""
        shoe.check_coup()
        n = shoe.counts
        size = shoe.size
        ff = [[_falling(nv, j) for j in range(5)] for nv in n]
        a = [0] * 100  # sum of orderings x weight, per (pt, bt)
        b = [[0] * 10 for _ in range(100)]  # ... x m_v
        c = [[0] * 100 for _ in range(100)]  # ... x m_u m_v
        for nz, pairs, ks in _four_cards():
            w = 1
            for v, k in nz:
                w *= ff[v][k]
            if not w:
                continue
            for key, orderings in ks:
                cw = orderings * w
                a[key] += cw
                bk = b[key]
                for v, k in nz:
                    bk[v] += cw * k
                ck = c[key]
                for uv, p in pairs:
                    ck[uv] += cw * p
        tail = (size - 4) * (size - 5)
        natural_q4 = {key: a[key] * tail for key in range(100)}

        def q6(key: int) -> list[list[int]]:
            ak, bk, ck = a[key], b[key], c[key]
            rows = []
            for x in range(10):
                nx, bx = n[x], bk[x]
                rows.append([
                    nx * (n[y] - (x == y)) * ak - nx * bk[y] - bx * (n[y] - (x == y))
                    + ck[x * 10 + y]
                    for y in range(10)
                ])
            return rows

        return cls._build(shoe, _falling(size, COUP_CARDS), natural_q4, q6)

    @classmethod
    def with_replacement(cls) -> CoupLaw:
        """The law when every card is drawn from a fresh pack (an infinite shoe): Kemeny and
        Snell's model. A ten-value has chance 4/13, each other value 1/13; over 13**6."""
        w = [4] + [1] * 9
        pair = [sum(w[x] * w[(s - x) % 10] for x in range(10)) for s in range(10)]
        natural_q4 = {
            key: pair[key // 10] * pair[key % 10] * 13 * 13 for key in range(100)
        }

        def q6(key: int) -> list[list[int]]:
            base = pair[key // 10] * pair[key % 10]
            return [[base * w[x] * w[y] for y in range(10)] for x in range(10)]

        return cls._build(None, 13**COUP_CARDS, natural_q4, q6)

    @classmethod
    def _build(cls, shoe: Shoe | None, denominator: int, q4: Mapping[int, int],
               q6: Callable[[int], list[list[int]]]) -> CoupLaw:
        """The paths from `q4[pt*10+bt]` (first four cards) and `q6(pt*10+bt)[x][y]` (fifth and
        sixth cards too), all over `denominator`."""
        natural = [0, 0, 0]
        for key in range(100):
            pt, bt = divmod(key, 10)
            if pt >= 8 or bt >= 8:
                natural[_result(pt, bt)] += q4[key]
        paths = []
        for pt in DECIDING:
            row = []
            for bt in DECIDING:
                six = q6(pt * 10 + bt)
                five = [sum(r) for r in six]
                cells = []
                for third in range(10):  # the punter drew `third`
                    fp = (pt + third) % 10
                    stand = [0, 0, 0]
                    stand[_result(fp, bt)] = five[third]
                    draw = [0, 0, 0]
                    for y, mass in enumerate(six[third]):
                        draw[_result(fp, (bt + y) % 10)] += mass
                    cells.append((tuple(stand), tuple(draw)))
                stand = [0, 0, 0]
                stand[_result(pt, bt)] = sum(five)
                draw = [0, 0, 0]
                for y, mass in enumerate(five):
                    draw[_result(pt, (bt + y) % 10)] += mass
                cells.append((tuple(stand), tuple(draw)))
                row.append(tuple(cells))
            paths.append(tuple(row))
        return cls(shoe, denominator, tuple(natural), tuple(paths))

    def masses(
        self, punter: Mapping[int, Fraction | int], banker: Mapping[tuple[int, int], Fraction | int]
    ) -> tuple[Fraction | int, Fraction | int, Fraction | int]:
        """(banker, punter, égalité) masses over the denominator for a strategy: `punter[t]`
        the chance the punter draws on t (0..7), `banker[(t, cell)]` the chance the banker
        draws on t in `cell` (0..9 or STOOD)."""
        punter = {t: _plain(p) for t, p in punter.items()}
        banker = {c: _plain(p) for c, p in banker.items()}
        out: list[Fraction | int] = list(self.natural)
        for pt in DECIDING:
            x = punter[pt]
            for bt in DECIDING:
                cells = self.paths[pt][bt]
                for cell, weight in ((STOOD, 1 - x), *((c, x) for c in range(10))):
                    if not weight:
                        continue
                    y = banker[(bt, cell)]
                    stand, draw = cells[cell]
                    for i in range(3):
                        if y != 1 and stand[i]:
                            out[i] += weight * (1 - y) * stand[i]
                        if y and draw[i]:
                            out[i] += weight * y * draw[i]
        return out[0], out[1], out[2]

    def outcome(
        self, punter: Mapping[int, Fraction | int], banker: Mapping[tuple[int, int], Fraction | int]
    ) -> Outcome:
        """The exact chances of banker, punter and égalité under a strategy (see `masses`)."""
        bm, pm, tm = self.masses(punter, banker)
        d = self.denominator
        return Outcome(Fraction(bm, d), Fraction(pm, d), Fraction(tm, d))
