"""The exact law of a coup: hand-checked shoes, the published eight-pack figures, the fast
formulation against a plain card-by-card enumeration, and conservation."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from shoe_daemon.game.houses import PROFILES, get_profile
from shoe_daemon.odds.law import CoupLaw
from shoe_daemon.odds.shoe import Shoe, ShoeError
from shoe_daemon.odds.strategy import BANKER_CELLS, Choices
from tests.odds.reference import enumerate_coup

PUNTO_BANCO = get_profile("baden-punto-banco")


def _table(profile_name: str = "baden-punto-banco", draw: bool = False):
    return Choices.of(get_profile(profile_name)).pure(draw)


def _random_strategy(rng: random.Random):
    """Every punter total and banker cell drawn with a random chance, some pure, some mixed."""

    def chance() -> Fraction:
        return rng.choice([Fraction(0), Fraction(1), Fraction(rng.randint(1, 9), 10)])

    return {t: chance() for t in range(8)}, {c: chance() for c in BANKER_CELLS}


def test_seven_tens_and_a_nine_by_hand() -> None:
    """The nine is equally likely at each of the eight places. At 1 or 3 the punter holds a
    natural 9; at 2 or 4 the banker does. At 5 it is the punter's third card (he draws on 0):
    9 against the banker's 0, who draws (0 always draws) a ten: punter. At 6 the punter drew
    a ten and the banker draws the nine: banker. At 7 or 8 both end on 0: égalité."""
    shoe = Shoe((7, 0, 0, 0, 0, 0, 0, 0, 0, 1))
    s = _table()
    o = CoupLaw.of(shoe).outcome(s.punter, s.banker)
    assert (o.banker, o.punter, o.egalite) == (Fraction(3, 8), Fraction(3, 8), Fraction(1, 4))


def test_a_shoe_of_tens_is_all_egalite() -> None:
    s = _table()
    o = CoupLaw.of(Shoe((40, 0, 0, 0, 0, 0, 0, 0, 0, 0))).outcome(s.punter, s.banker)
    assert (o.banker, o.punter, o.egalite) == (0, 0, 1)


def test_the_punters_five_matters() -> None:
    """Four tens, two fives and a seven: the punter's choice on 5 alone (the banker's options
    stood) changes the chances, and both choices agree with the plain enumeration."""
    shoe = Shoe((4, 0, 0, 0, 0, 2, 0, 1, 0, 0))
    law = CoupLaw.of(shoe)
    choices = Choices.of(get_profile("shimmy"))
    results = []
    for draw in (0, 1):
        s = choices.strategy({5: draw}, dict.fromkeys(choices.banker_options, 0))
        exact = enumerate_coup(list(shoe.counts), s.punter, s.banker)
        assert list(law.masses(s.punter, s.banker)) == exact
        results.append(tuple(exact))
    assert results[0] != results[1]


def test_published_eight_pack_punto_banco() -> None:
    """The widely published eight-deck Punto Banco figures (e.g. the table "Probabilities in
    8deck Baccarat" reprinted at casinoexploit.com/baccarat.html, after the Wizard of Odds;
    multiplayerbaccarat.com/odds.html after Thorp): the exact combination counts over
    416*415*...*411 orders, and banker 0.458597, punter 0.446247, tie 0.095156."""
    s = _table()
    law = CoupLaw.of(Shoe.full(8))
    assert law.masses(s.punter, s.banker) == (
        2_292_252_566_437_888, 2_230_518_282_592_256, 475_627_426_473_216
    )
    assert law.denominator == 416 * 415 * 414 * 413 * 412 * 411
    o = law.outcome(s.punter, s.banker)
    assert (round(float(o.banker), 6), round(float(o.punter), 6), round(float(o.egalite), 6)) \
        == (0.458597, 0.446247, 0.095156)


def test_published_six_pack_punto_banco() -> None:
    """The same table's six-deck counts (casinoexploit.com/baccarat.html)."""
    s = _table()
    assert CoupLaw.of(Shoe.full(6)).masses(s.punter, s.banker) == (
        403_095_751_234_560, 392_220_492_728_832, 83_552_962_932_288
    )


@pytest.mark.parametrize("seed", range(12))
def test_fast_law_equals_plain_enumeration(seed: int) -> None:
    """Small random shoes (four to six point values present) and random strategies, mixed
    chances included: the fast law and the card-by-card enumeration agree exactly."""
    rng = random.Random(seed)
    values = rng.sample(range(10), rng.randint(4, 6))
    counts = [0] * 10
    for v in values:
        counts[v] = rng.randint(1, 4)
    while sum(counts) < 6:
        counts[rng.choice(values)] += 1
    punter, banker = _random_strategy(rng)
    law = CoupLaw.of(Shoe(tuple(counts)))
    assert list(law.masses(punter, banker)) == enumerate_coup(counts, punter, banker)


def test_fast_law_equals_plain_enumeration_every_value() -> None:
    """One shoe holding every point value, under Punto Banco's scheme."""
    counts = [3, 1, 2, 1, 1, 2, 1, 1, 1, 2]
    s = _table()
    law = CoupLaw.of(Shoe(tuple(counts)))
    assert list(law.masses(s.punter, s.banker)) == enumerate_coup(counts, s.punter, s.banker)


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_conservation(name: str) -> None:
    """Banker, punter and égalité take every deal exactly once: the chances sum to 1 exactly,
    for every profile's table (options drawn and stood), on full and random shoes."""
    rng = random.Random(name)
    shoes = [Shoe.full(1), Shoe.full(6),
             Shoe(tuple(rng.randint(0, 9) for _ in range(10)))]
    for shoe in shoes:
        if shoe.size < 6:
            continue
        law = CoupLaw.of(shoe)
        for draw in (False, True):
            s = _table(name, draw)
            assert sum(law.masses(s.punter, s.banker)) == law.denominator
            o = law.outcome(s.punter, s.banker)
            assert o.banker + o.punter + o.egalite == 1


def test_conservation_with_replacement() -> None:
    law = CoupLaw.with_replacement()
    s = _table()
    assert sum(law.masses(s.punter, s.banker)) == law.denominator == 13**6


def test_a_live_shoe_after_a_coup() -> None:
    """The shoe after a coup's cards is the full shoe less them; unread cards are skipped."""
    shoe = Shoe.full(1).without(["9C", "TD", "??", "9H", "KS"])
    assert shoe.size == 48
    assert shoe.counts[9] == 2 and shoe.counts[0] == 14
    assert shoe.codes["9C"] == 0 and shoe.codes["9D"] == 1


def test_impossible_shoes_are_refused() -> None:
    with pytest.raises(ShoeError, match="more often"):
        Shoe.full(1).without(["9C", "9C"])
    with pytest.raises(ShoeError, match="not a card code"):
        Shoe.full(1).without(["1X"])
    with pytest.raises(ShoeError, match="can take 6 cards"):
        CoupLaw.of(Shoe((5, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
    with pytest.raises(ShoeError):
        Shoe((1, 2, 3))
    with pytest.raises(ShoeError):
        Shoe.full(0)
