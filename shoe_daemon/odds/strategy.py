"""What each side may do, read from a house profile, and a strategy: how often each side draws.

A house's table (shoe_daemon/game/rules.py) gives each punter total and each banker cell a
`Play`: draw, stand, or option (003's K / R / V). `Choices.of` reads the table a side is bound
to, or leaves the side free: a free banker may draw or stand in every one of his 88 cells
(000: "he can play free"; 003's banco solo: "nach Belieben"); a free punter plays the
house's `punter_rule` where it leaves him one option (5), and his printed table where it
leaves him every total (003's banco solo): a choice on another total than 5 gains nothing
against the optimal banker (docs/odds.md, "Left out").

A `Strategy` gives the chance of drawing at every punter total (0..7) and every banker cell;
an option cell may be mixed (a Fraction), as the game's solution needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

from shoe_daemon.game.rules import HouseProfile, Play, Ruling
from shoe_daemon.odds.law import CELLS, DECIDING, STOOD

Cell = tuple[int, int]  # (banker's total 0..7, punter's third card 0..9 or STOOD)
BANKER_CELLS: tuple[Cell, ...] = tuple((t, c) for t in DECIDING for c in CELLS)


def cell_name(cell: Cell) -> str:
    total, third = cell
    return f"{total} v {'stood' if third == STOOD else third}"


def _profile_cell(cell: Cell) -> tuple[int, int | None]:
    total, third = cell
    return total, (None if third == STOOD else third)


def modelled_free_rule(profile: HouseProfile) -> Mapping[int, Ruling]:
    """A free punter's rule as the odds model it: the house's free rule, or where that leaves
    him more than one total (003 banco solo, "nach Belieben"), his printed table."""
    options = [t for t, ruling in profile.punter_rule.items() if ruling.play is Play.OPTION]
    return profile.punter_rule if len(options) <= 1 else profile.punter_table


@dataclass(frozen=True)
class Strategy:
    """The chance of drawing: `punter[total]` and `banker[cell]`."""

    punter: Mapping[int, Fraction]
    banker: Mapping[Cell, Fraction]


@dataclass(frozen=True)
class Choices:
    """Each punter total's and each banker cell's Play for one pair of sides."""

    punter: Mapping[int, Play]
    banker: Mapping[Cell, Play]
    punter_bound: bool = True
    banker_bound: bool = True

    @classmethod
    def of(cls, profile: HouseProfile, punter_bound: bool = True, banker_bound: bool = True
           ) -> Choices:
        """The choices a profile leaves: each side bound by the house's table, or free."""
        punter = profile.punter_table if punter_bound else modelled_free_rule(profile)
        banker = {
            cell: (profile.banker_table[_profile_cell(cell)].play if banker_bound else Play.OPTION)
            for cell in BANKER_CELLS
        }
        return cls(
            MappingProxyType({t: punter[t].play for t in DECIDING}),
            MappingProxyType(banker),
            punter_bound,
            banker_bound,
        )

    @property
    def punter_options(self) -> tuple[int, ...]:
        return tuple(t for t in DECIDING if self.punter[t] is Play.OPTION)

    @property
    def banker_options(self) -> tuple[Cell, ...]:
        return tuple(c for c in BANKER_CELLS if self.banker[c] is Play.OPTION)

    def strategy(
        self,
        punter: Mapping[int, Fraction | int] | None = None,
        banker: Mapping[Cell, Fraction | int] | None = None,
    ) -> Strategy:
        """The strategy that follows the table and draws at each option with the chance given
        (every option must be given one; a value on a fixed cell is refused)."""
        return Strategy(
            _fill(self.punter, punter or {}, "punter total"),
            _fill(self.banker, banker or {}, "banker cell"),
        )

    def pure(self, draw: bool) -> Strategy:
        """Every option drawn (True) or stood (False), the rest as the table says."""
        p = Fraction(int(draw))
        return self.strategy(
            dict.fromkeys(self.punter_options, p), dict.fromkeys(self.banker_options, p)
        )


def _fill(plays: Mapping, chosen: Mapping, what: str) -> Mapping:
    out = {}
    for key, play in plays.items():
        if play is Play.OPTION:
            if key not in chosen:
                raise ValueError(f"no chance of drawing given for the option at {what} {key}")
            p = Fraction(chosen[key])
            if not 0 <= p <= 1:
                raise ValueError(f"a chance must be within 0..1, not {p} at {what} {key}")
            out[key] = p
        else:
            if key in chosen:
                raise ValueError(f"{what} {key} is not an option ({play.value})")
            out[key] = Fraction(int(play is Play.DRAW))
    return MappingProxyType(out)
