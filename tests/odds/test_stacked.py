"""A prearranged shoe's outcomes (issue 14, section 3): the three tests' laws, checked
against plain enumeration, and what they make of shoes arranged by hil/stacking.py. Their
false-alarm rate and power are measured in bench/integrity.py (docs/odds.md)."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import pytest

from hil.stacking import banker_share, coup_of, prearranged, streaks, ties
from shoe_daemon.game.cards import ALL_CODES
from shoe_daemon.game.houses import get_profile
from shoe_daemon.odds.analysis import coup_odds
from shoe_daemon.odds.shoe import Shoe
from shoe_daemon.odds.stacked import ALPHA, Law, changes_law, full_shoe_law, outcome_tests


@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_the_law_of_changes_is_that_of_every_sequence(n: int) -> None:
    q = 0.507
    law = [0.0] * max(n, 1)
    for seq in itertools.product((0, 1), repeat=n):
        chance = math.prod(q if s else 1 - q for s in seq)
        law[sum(1 for a, b in itertools.pairwise(seq) if a != b)] += chance
    assert changes_law(n, q) == pytest.approx(law, abs=1e-15)


def test_the_full_shoe_law_is_the_exact_odds() -> None:
    law = full_shoe_law("baden-punto-banco", 8)
    outcome = coup_odds(get_profile("baden-punto-banco", 8), Shoe.full(8)).outcome
    assert law.banker_share == float(outcome.banker_share)
    assert law.egalite == float(outcome.egalite)


LAW = Law(0.5068, 0.0951)


def _names(outcomes: list[str]) -> set[str]:
    return {t.name for t in outcome_tests(outcomes, LAW) if t.alarm}


def test_a_plain_shoe_raises_nothing() -> None:
    rng = random.Random(1)
    outcomes = []
    for _ in range(70):
        r = rng.random()
        outcomes.append("egalite" if r < 0.095 else "banker" if r < 0.553 else "punter")
    assert _names(outcomes) == set()


def test_each_test_catches_its_own_arrangement() -> None:
    banker = ["banker"] * 60 + ["punter"] * 10
    assert "side" in _names(banker)
    runs = (["banker"] * 10 + ["punter"] * 10) * 4
    assert _names(runs) == {"changes"}
    chop = ["banker", "punter"] * 40
    assert _names(chop) == {"changes"}
    tied = ["egalite"] * 25 + ["banker", "punter"] * 25
    assert "ties" in _names(tied)


def test_void_and_cancelled_coups_are_left_out() -> None:
    tests = {t.name: t for t in outcome_tests(["banker", "void", "punter", "cancelled",
                                               "egalite"], LAW)}
    assert tests["side"].value == 1 and tests["changes"].value == 1 and tests["ties"].value == 1


def test_the_p_values_are_the_binomial_tails() -> None:
    outcomes = ["banker"] * 45 + ["punter"] * 25
    side = next(t for t in outcome_tests(outcomes, LAW) if t.name == "side")
    upper = sum(math.comb(70, k) * LAW.banker_share**k * (1 - LAW.banker_share) ** (70 - k)
                for k in range(45, 71))
    assert side.p_value == pytest.approx(2 * upper, rel=1e-9)
    assert side.alarm is (side.p_value <= ALPHA)


@pytest.mark.parametrize("profile", ["baden-punto-banco", "eight-pack"])
def test_an_arranged_shoe_deals_the_outcomes_wanted(profile: str) -> None:
    house = get_profile(profile)
    rng = random.Random(4)
    order = prearranged(house, house.packs, rng, streaks(rng, 6, 6), keep=13)
    assert Counter(order) == Counter(list(ALL_CODES) * house.packs)  # the same cards
    got, at = [], 0
    while len(order) - at > 13 + 6:
        outcome, used = coup_of(house, order[at:at + 6])
        got.append(outcome)
        at += used
    assert got[:6] in (["banker"] * 6, ["punter"] * 6)
    assert "changes" in _names(got)


@pytest.mark.parametrize("pattern", ["share", "ties"])
def test_the_other_patterns_are_caught(pattern: str) -> None:
    house = get_profile("baden-punto-banco")
    rng = random.Random(8)
    wanted = banker_share(rng, 0.9) if pattern == "share" else ties(rng, 0.4)
    order = prearranged(house, 6, rng, wanted)
    got, at = [], 0
    while len(order) - at >= 6:
        outcome, used = coup_of(house, order[at:at + 6])
        got.append(outcome)
        at += used
    assert ("side" if pattern == "share" else "ties") in _names(got)
