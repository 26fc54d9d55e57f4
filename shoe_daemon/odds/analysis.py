"""A house's exact odds for a shoe: what `shoe-daemon odds` prints and the live shoe will use.

`coup_odds(profile, shoe, strategy)` is the one call for the next coup from any shoe (a full
one, or what is left after the cards read so far: `Shoe.full(packs).without(codes)`): the
chances of banker, punter and égalité under a named strategy, and every bet's expectation.
`analyse(profile, shoe)` adds, for Chemin de Fer, the four games (each side bound by the
house's table or free), their solutions and what a side gives up by playing the table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

from shoe_daemon.game.rules import Game, HouseProfile, Play
from shoe_daemon.odds.bets import Bet, chemin_de_fer_sides, commission, punto_banco_bets
from shoe_daemon.odds.law import CoupLaw, Outcome
from shoe_daemon.odds.shoe import Shoe
from shoe_daemon.odds.solve import Equilibrium, equilibria, is_equilibrium
from shoe_daemon.odds.strategy import Choices, Strategy

#: The strategies by name, as `--strategy` takes them.
STRATEGIES: Mapping[str, str] = MappingProxyType({
    "table": "both sides bound by the house's table, its options played as the solution of "
             "the game they leave (zero-sum, Kemeny and Snell)",
    "optimal": "both sides free (the banker in every cell, the punter as the house's free "
               "rule lets him): the solution of the zero-sum game (Kemeny and Snell's method, "
               "over the finite shoe)",
    "optimal-commission": "both sides free, each weighing his own gain: the banker's wins "
                          "less the house's commission (the Nash equilibrium)",
    "draw": "both sides bound by the house's table, drawing at every option",
    "stand": "both sides bound by the house's table, standing at every option",
})


@dataclass(frozen=True)
class CoupOdds:
    """One strategy's exact odds of the next coup and every bet's expectation."""

    profile: HouseProfile
    strategy: str
    outcome: Outcome
    bets: tuple[Bet, ...]
    play: Strategy
    #: How many equilibria the game has (1: unique); None for a strategy that is no solution.
    equilibria: int | None = None

    def favourable(self) -> tuple[Bet, ...]:
        """The bets in the bettor's favour (expectation above 0)."""
        return tuple(b for b in self.bets if b.favourable)


def _choices(profile: HouseProfile, strategy: str) -> tuple[Choices, Fraction | None]:
    """The choices a strategy plays in, and the commission it solves with (None: no game)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; valid: {', '.join(STRATEGIES)}")
    if strategy in ("optimal", "optimal-commission"):
        cut = commission(profile) if strategy == "optimal-commission" else Fraction(0)
        return Choices.of(profile, punter_bound=False, banker_bound=False), cut
    return Choices.of(profile), (Fraction(0) if strategy == "table" else None)


def coup_odds(profile: HouseProfile, shoe: Shoe, strategy: str = "table",
              law: CoupLaw | None = None) -> CoupOdds:
    """The exact odds of the next coup dealt from `shoe` under `profile`'s rules and the named
    strategy (STRATEGIES), with every bet the house offers. `law` (CoupLaw.of(shoe)) may be
    passed to share one computation between strategies. Raises ShoeError for a shoe of fewer
    than six cards, ValueError for an unknown strategy."""
    law = law or CoupLaw.of(shoe)
    choices, cut = _choices(profile, strategy)
    count = None
    if cut is None:
        play = choices.pure(strategy == "draw")
    else:
        found = equilibria(law, choices, cut)
        play, count = found[0].strategy, len(found)
    outcome = law.outcome(play.punter, play.banker)
    if profile.game is Game.PUNTO_BANCO:
        bets = punto_banco_bets(profile, outcome, shoe)
    else:
        bets = chemin_de_fer_sides(profile, outcome)
    return CoupOdds(profile, strategy, outcome, bets, play, count)


@dataclass(frozen=True)
class SolvedGame:
    """One Chemin de Fer game: each side bound by the table or free; its solutions."""

    punter_bound: bool
    banker_bound: bool
    zero_sum: tuple[Equilibrium, ...]  # Kemeny and Snell's: no commission
    with_commission: tuple[Equilibrium, ...]  # the Nash equilibria, the banker paying commission
    verified: bool  # every solution checked with is_equilibrium

    @property
    def name(self) -> str:
        side = {True: "table", False: "free"}
        return f"banker {side[self.banker_bound]}, punter {side[self.punter_bound]}"


@dataclass(frozen=True)
class Analysis:
    """A profile's odds for one shoe: every strategy and, at Chemin de Fer, the four games."""

    profile: HouseProfile
    shoe: Shoe
    odds: tuple[CoupOdds, ...]
    games: tuple[SolvedGame, ...]
    #: The free game's zero-sum solution stays one when the punter may also draw or stand at
    #: every other total (not only where the house's free rule leaves him a choice).
    punter_unrestricted: bool | None

    def game(self, banker_bound: bool, punter_bound: bool) -> SolvedGame:
        return next(g for g in self.games
                    if g.banker_bound == banker_bound and g.punter_bound == punter_bound)

    @property
    def banker_loss(self) -> tuple[Fraction, Fraction] | None:
        """What the banker gives up per unit by binding himself to the table against a free
        punter who knows it: (zero-sum, commission included)."""
        if not self.games:
            return None
        free, bound = self.game(False, False), self.game(True, False)
        return (free.zero_sum[0].banker_ev - bound.zero_sum[0].banker_ev,
                free.with_commission[0].banker_ev - bound.with_commission[0].banker_ev)

    @property
    def punter_loss(self) -> tuple[Fraction, Fraction] | None:
        """What the punter gives up by binding himself to the table against a free banker."""
        if not self.games:
            return None
        free, bound = self.game(False, False), self.game(False, True)
        return (free.zero_sum[0].punter_ev - bound.zero_sum[0].punter_ev,
                free.with_commission[0].punter_ev - bound.with_commission[0].punter_ev)


def analyse(profile: HouseProfile, shoe: Shoe) -> Analysis:
    """Every strategy's odds and, for Chemin de Fer, the four games solved and checked."""
    law = CoupLaw.of(shoe)
    if profile.game is Game.PUNTO_BANCO:
        return Analysis(profile, shoe, (coup_odds(profile, shoe, "table", law),), (), None)
    odds = tuple(coup_odds(profile, shoe, s, law) for s in STRATEGIES)
    cut = commission(profile)
    games = []
    for banker_bound in (True, False):
        for punter_bound in (True, False):
            choices = Choices.of(profile, punter_bound, banker_bound)
            zero, comm = equilibria(law, choices), equilibria(law, choices, cut)
            ok = all(is_equilibrium(law, choices, e.strategy) for e in zero) and all(
                is_equilibrium(law, choices, e.strategy, cut) for e in comm)
            games.append(SolvedGame(punter_bound, banker_bound, zero, comm, ok))
    free = Choices.of(profile, punter_bound=False, banker_bound=False)
    anything = Choices(dict.fromkeys(free.punter, Play.OPTION), free.banker, False, False)
    solution = next(g for g in games if not g.banker_bound and not g.punter_bound).zero_sum[0]
    unrestricted = is_equilibrium(law, anything, solution.strategy)
    return Analysis(profile, shoe, odds, tuple(games), unrestricted)
