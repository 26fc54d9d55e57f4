"""Chemin de Fer as a game: the solution found is an equilibrium (checked exactly, by the law
and by the plain enumeration), Kemeny and Snell's published solution is reproduced, and a
side that binds itself to the table never gains by it."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from shoe_daemon.game.houses import PROFILES, get_profile
from shoe_daemon.game.rules import Game, Play
from shoe_daemon.odds.analysis import analyse
from shoe_daemon.odds.bets import commission
from shoe_daemon.odds.law import STOOD, CoupLaw
from shoe_daemon.odds.shoe import Shoe
from shoe_daemon.odds.solve import equilibria, is_equilibrium, payoffs
from shoe_daemon.odds.strategy import Choices, Strategy
from tests.odds.reference import enumerate_coup

CHEMIN_DE_FER = sorted(n for n, p in PROFILES.items() if p.game is Game.CHEMIN_DE_FER)
FIVE_PERCENT = Fraction(1, 20)


def test_kemeny_and_snell_reproduced() -> None:
    """Dealt with replacement, each side seeing his own total: Kemeny and Snell (1957) found
    that the punter draws on 5 with probability 9/11 and the banker, holding 6 against a
    punter who stood, draws with probability 859/2288 (a banker's advantage of about 1.28%)."""
    law = CoupLaw.with_replacement()
    choices = Choices.of(get_profile("baden"), punter_bound=False, banker_bound=False)
    (solution,) = equilibria(law, choices)
    assert solution.strategy.punter[5] == Fraction(9, 11)
    mixed = {c: y for c, y in solution.strategy.banker.items() if 0 < y < 1}
    assert mixed == {(6, STOOD): Fraction(859, 2288)}
    assert round(float(solution.banker_ev), 4) == 0.0128
    assert is_equilibrium(law, choices, solution.strategy)


@pytest.mark.parametrize("name", CHEMIN_DE_FER)
@pytest.mark.parametrize("cut", [Fraction(0), FIVE_PERCENT])
def test_every_game_solution_is_an_equilibrium(name: str, cut: Fraction) -> None:
    """For every profile, the four games (each side bound or free), with and without the
    commission, on a full six-pack shoe: no side gains by any change at any option. The
    banker's check also tries random changes at many cells at once."""
    law = CoupLaw.of(Shoe.full(6))
    rng = random.Random(name)
    for punter_bound in (True, False):
        for banker_bound in (True, False):
            choices = Choices.of(get_profile(name), punter_bound, banker_bound)
            found = equilibria(law, choices, cut)
            assert len(found) == 1
            play = found[0].strategy
            assert is_equilibrium(law, choices, play, cut)
            punter, banker = payoffs(law, play, cut)
            for _ in range(5):
                changed = {c: Fraction(rng.randint(0, 1)) for c in choices.banker_options}
                other = Strategy(play.punter, {**play.banker, **changed})
                assert payoffs(law, other, cut)[1] <= banker
            for t in choices.punter_options:
                for x in (0, 1):
                    other = Strategy({**play.punter, t: Fraction(x)}, play.banker)
                    assert payoffs(law, other, cut)[0] <= punter


def test_a_wrong_strategy_is_no_equilibrium() -> None:
    """The check can fail: in the free game a punter who always draws on 5, or a banker who
    never draws at 6 against a punter who stood, can be exploited."""
    law = CoupLaw.of(Shoe.full(6))
    choices = Choices.of(get_profile("baden"), punter_bound=False, banker_bound=False)
    (solution,) = equilibria(law, choices)
    play = solution.strategy
    assert not is_equilibrium(law, choices, Strategy({**play.punter, 5: Fraction(1)},
                                                      play.banker))
    assert not is_equilibrium(law, choices, Strategy(play.punter,
                                                      {**play.banker, (6, STOOD): Fraction(0)}))


def test_small_shoe_solution_checked_by_enumeration() -> None:
    """On a small shoe the solution is checked against the plain enumeration alone: the
    zero-sum value is what the punter gets, and no pure change of either side beats it."""
    counts = [3, 0, 1, 0, 1, 2, 2, 1, 0, 1]
    law = CoupLaw.of(Shoe(tuple(counts)))
    choices = Choices.of(get_profile("zoppot-1934"), punter_bound=False, banker_bound=False)
    (solution,) = equilibria(law, choices)
    play = solution.strategy

    def punter_value(strategy: Strategy) -> Fraction:
        b, p, _ = enumerate_coup(counts, strategy.punter, strategy.banker)
        return (p - b) / law.denominator

    value = punter_value(play)
    assert value == solution.punter_ev
    for x in (0, 1):
        assert punter_value(Strategy({**play.punter, 5: Fraction(x)}, play.banker)) <= value
    for cell in [(6, STOOD), (5, 4), (3, 9), (5, STOOD), (4, 1), (2, 8)]:
        for y in (0, 1):
            changed = Strategy(play.punter, {**play.banker, cell: Fraction(y)})
            assert punter_value(changed) >= value


@pytest.mark.parametrize("name", CHEMIN_DE_FER)
def test_the_table_costs_a_side_something_or_nothing(name: str) -> None:
    """Binding oneself to the table can never help in the zero-sum game; the free game's
    solution stays one when the punter may also choose at every other total."""
    analysis = analyse(get_profile(name), Shoe.full(6))
    assert analysis.banker_loss[0] >= 0 and analysis.punter_loss[0] >= 0
    assert analysis.punter_unrestricted
    assert all(g.verified for g in analysis.games)
    if name == "clermont-2015":  # its Rule Table makes the punter stand on 5
        assert analysis.punter_loss[0] > 0
    else:
        assert analysis.punter_loss[0] == 0


def test_commission_changes_only_what_it_must() -> None:
    """The commission makes the banker value his wins less: the punter's mixing changes, the
    banker's (which keeps the punter indifferent, and the punter pays no commission) not."""
    law = CoupLaw.of(Shoe.full(6))
    profile = get_profile("shimmy")
    choices = Choices.of(profile, punter_bound=False, banker_bound=False)
    (zero,) = equilibria(law, choices)
    (cut,) = equilibria(law, choices, commission(profile))
    assert zero.strategy.punter[5] != cut.strategy.punter[5]
    assert zero.strategy.banker == cut.strategy.banker
    assert all(p is Play.OPTION for p in choices.banker.values())
