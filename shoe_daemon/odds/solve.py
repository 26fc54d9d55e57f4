"""The optimal play of each side against the other: Chemin de Fer as a two-person game.

Kemeny and Snell (1957) solved baccarat as a two-person zero-sum game in which the punter
sees his own total and the banker his own total and the punter's third card; they dealt with
replacement. Here the same game is solved over the finite shoe itself (`CoupLaw`, dealt
without replacement): Ethier and Gámez (2013) call this information model "B1". The
punter's choice is his 5 (every profile fixes 0-4 and 6-7, even in free play); the banker
chooses in his option cells, or in every cell when free.

The method follows from the game's shape. The punter has one binary choice; call x his chance
of drawing. Each banker cell is reached by its own deals, so the banker's payoff is a sum
over his cells, each linear in x and in his own chance of drawing there (a game "additive"
in the banker's choices, as Ethier and Gámez put Foster's algorithm). For any x the banker's
best reply is cell by cell; it changes only where one of his cells' two lines cross. Between
two such points it is fixed, and so is the punter's gain from drawing. An equilibrium is an x
where the punter is content (he does not gain by drawing more or less) given a best reply of
the banker that mixes, if needed, in the cells indifferent at x. All of it is exact rational
arithmetic on the law's integers; `is_equilibrium` checks the result independently.

With the house's commission on the banker's wins the game is no longer zero-sum (the
commission leaves the table): the banker weighs a win at 1 - commission and the punter at 1.
`equilibria(..., commission)` finds the Nash equilibria of that game the same way (Ethier and
Lee (2023) treat it at length). With no commission it is Kemeny and Snell's zero-sum game and
its equilibria are its solutions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from shoe_daemon.game.rules import Play
from shoe_daemon.odds.law import CELLS, DECIDING, STOOD, CoupLaw, Outcome
from shoe_daemon.odds.strategy import Cell, Choices, Strategy

Line = tuple[Fraction, Fraction]  # value at x = 0, slope in x


@dataclass(frozen=True)
class Equilibrium:
    """A pair of strategies neither side gains by leaving, and what it gives."""

    strategy: Strategy
    outcome: Outcome
    commission: Fraction
    #: True when every x in an open interval is an equilibrium (this one is its midpoint).
    interval: bool = False

    @property
    def punter_ev(self) -> Fraction:
        """The punter's expectation per unit staked (he pays no commission)."""
        return self.outcome.punter - self.outcome.banker

    @property
    def banker_ev(self) -> Fraction:
        """The banker's expectation per unit at stake, the house's commission paid."""
        return (1 - self.commission) * self.outcome.banker - self.outcome.punter


def _payoffs(m: tuple, commission: Fraction) -> tuple[Fraction, Fraction]:
    """(punter's, banker's) payoff of masses (banker wins, punter wins, égalité)."""
    return Fraction(m[1] - m[0]), (1 - commission) * m[0] - m[1]


class _Lines:
    """Every cell's masses as lines in x, the punter's chance of drawing at his option."""

    def __init__(self, law: CoupLaw, choices: Choices) -> None:
        options = choices.punter_options
        if len(options) > 1:
            raise ValueError(f"the solver takes one punter option, not {options}")
        self.option = options[0] if options else None
        fixed = {t: int(choices.punter[t] is Play.DRAW) for t in DECIDING if t != self.option}
        self.law, self.fixed = law, fixed

    def cell(self, bt: int, cell: int, action: int) -> tuple[list[int], list[int]]:
        """(masses at x = 0, change per unit of x) of one banker cell and action."""
        const, slope = [0, 0, 0], [0, 0, 0]
        for pt in DECIDING:
            m = self.law.paths[pt][bt][cell][action]
            if pt == self.option:
                target = const if cell == STOOD else slope
                for i in range(3):
                    target[i] += m[i]
                    if cell == STOOD:
                        slope[i] -= m[i]
            elif self.fixed[pt] == (cell != STOOD):
                for i in range(3):
                    const[i] += m[i]
        return const, slope


def _line(const: list[int], slope: list[int], who: int, commission: Fraction) -> Line:
    return _payoffs(const, commission)[who], _payoffs(slope, commission)[who]


def _at(line: Line, x: Fraction) -> Fraction:
    return line[0] + line[1] * x


def equilibria(law: CoupLaw, choices: Choices, commission: Fraction = Fraction(0)
               ) -> tuple[Equilibrium, ...]:
    """Every equilibrium of the game `choices` leaves over the shoe of `law`, with the banker's
    wins less `commission` (0: Kemeny and Snell's zero-sum game). An interval of equilibria
    is given by its midpoint with `interval=True`."""
    commission = Fraction(commission)
    lines = _Lines(law, choices)
    options = choices.banker_options
    # The punter's (0) and the banker's (1) lines: the fixed part, then each option cell.
    fixed_c, fixed_s = list(law.natural), [0, 0, 0]
    for bt in DECIDING:
        for cell in CELLS:
            if (bt, cell) in options:
                continue
            c, s = lines.cell(bt, cell, int(choices.banker[(bt, cell)] is Play.DRAW))
            for i in range(3):
                fixed_c[i] += c[i]
                fixed_s[i] += s[i]
    punter0 = _line(fixed_c, fixed_s, 0, commission)
    cells: dict[Cell, tuple[tuple[Line, Line], tuple[Line, Line]]] = {}
    for cell in options:
        per_action = [lines.cell(*cell, a) for a in (0, 1)]
        cells[cell] = (
            tuple(_line(c, s, 0, commission) for c, s in per_action),  # punter's S, D
            tuple(_line(c, s, 1, commission) for c, s in per_action),  # banker's S, D
        )
    if lines.option is None:
        return (_settle(law, choices, cells, None, Fraction(0), punter0, commission),)
    points = {Fraction(0), Fraction(1)}
    for _, (bs, bd) in cells.values():
        if bs[1] != bd[1]:
            x = (bd[0] - bs[0]) / (bs[1] - bd[1])
            if 0 < x < 1:
                points.add(x)
    found: list[Equilibrium] = []
    ordered = sorted(points)
    for i, x in enumerate(ordered):
        eq = _settle(law, choices, cells, lines.option, x, punter0, commission)
        if eq is not None:
            found.append(eq)
        if i + 1 < len(ordered):  # the open interval after x: the banker's reply is pure
            mid = (x + ordered[i + 1]) / 2
            slope = punter0[1] + sum(_reply(c, mid)[1][1] for c in cells.values())
            if slope == 0:
                found.append(_settle(law, choices, cells, lines.option, mid, punter0,
                                     commission, interval=True))
    return tuple(e for e in found if e is not None)


def _reply(cell: tuple[tuple[Line, Line], tuple[Line, Line]], x: Fraction) -> tuple[int, Line]:
    """The banker's best action at x (standing when both are as good) and the punter's line
    under it."""
    (ps, pd), (bs, bd) = cell
    action = 1 if _at(bd, x) > _at(bs, x) else 0
    return action, (pd if action else ps)


def _settle(
    law: CoupLaw,
    choices: Choices,
    cells: Mapping[Cell, tuple[tuple[Line, Line], tuple[Line, Line]]],
    option: int | None,
    x: Fraction,
    punter0: Line,
    commission: Fraction,
    interval: bool = False,
) -> Equilibrium | None:
    """The equilibrium at the punter's chance x, or None: the banker replies at his best,
    mixing in the cells indifferent at x so that x is the punter's best too."""
    banker: dict[Cell, Fraction] = {}
    slope = punter0[1]
    tight: list[tuple[Cell, Fraction, Fraction]] = []  # (cell, punter's slope S, slope D)
    for key, cell in cells.items():
        (ps, pd), (bs, bd) = cell
        if _at(bs, x) == _at(bd, x) and not interval:
            tight.append((key, ps[1], pd[1]))
            continue
        action, line = _reply(cell, x)
        banker[key] = Fraction(action)
        slope += line[1]
    if option is None:
        for key, _, _ in tight:
            banker[key] = Fraction(0)
        strategy = choices.strategy({}, banker)
        return Equilibrium(strategy, law.outcome(strategy.punter, strategy.banker), commission)
    low = slope + sum(min(s, d) for _, s, d in tight)
    high = slope + sum(max(s, d) for _, s, d in tight)
    # The punter's gain from drawing more must vanish inside (0, 1), be <= 0 at x = 0 (he
    # stands) and >= 0 at x = 1 (he draws); the tight cells' mix moves it within low..high.
    if 0 < x < 1:
        ok, target = low <= 0 <= high, Fraction(0)
    elif x == 0:
        ok, target = low <= 0, low
    else:
        ok, target = high >= 0, high
    if not ok:
        return None
    s = low
    for key, s_stand, s_draw in tight:  # start at each cell's lower slope, raise to target
        lo_action = 0 if s_stand <= s_draw else 1
        span = abs(s_draw - s_stand)
        part = Fraction(0) if span == 0 else min(Fraction(1), (target - s) / span)
        s += part * span
        banker[key] = part if lo_action == 0 else 1 - part
    strategy = choices.strategy({option: x}, banker)
    return Equilibrium(strategy, law.outcome(strategy.punter, strategy.banker), commission,
                       interval=interval)


def payoffs(law: CoupLaw, strategy: Strategy, commission: Fraction = Fraction(0)
            ) -> tuple[Fraction, Fraction]:
    """(punter's, banker's) expectation per unit staked under `strategy`."""
    o = law.outcome(strategy.punter, strategy.banker)
    return o.punter - o.banker, (1 - Fraction(commission)) * o.banker - o.punter


def is_equilibrium(law: CoupLaw, choices: Choices, strategy: Strategy,
                   commission: Fraction = Fraction(0)) -> bool:
    """True when neither side gains by changing his play at any one of his options (both
    actions tried, against the other's strategy held fixed). The banker's payoff is a sum over
    his cells, so no change at several cells at once gains either."""
    punter, banker = payoffs(law, strategy, commission)
    for t in choices.punter_options:
        for draw in (0, 1):
            deviation = Strategy({**strategy.punter, t: Fraction(draw)}, strategy.banker)
            if payoffs(law, deviation, commission)[0] > punter:
                return False
    for cell in choices.banker_options:
        for draw in (0, 1):
            deviation = Strategy(strategy.punter, {**strategy.banker, cell: Fraction(draw)})
            if payoffs(law, deviation, commission)[1] > banker:
                return False
    return True
