"""Each profile's own rules are what the odds apply: change one cell and the result changes."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from shoe_daemon.game.houses import PROFILES, get_profile
from shoe_daemon.game.rules import Play, Ruling
from shoe_daemon.odds.analysis import coup_odds
from shoe_daemon.odds.law import CoupLaw
from shoe_daemon.odds.shoe import Shoe

FLIP = {Play.DRAW: Play.STAND, Play.STAND: Play.DRAW}


@pytest.mark.parametrize("name", sorted(PROFILES))
@pytest.mark.parametrize("cell", [(4, 1), (6, None), (3, 8), (5, 6)])
def test_a_banker_cell_changed_changes_the_odds(name: str, cell: tuple) -> None:
    profile = get_profile(name)
    law = CoupLaw.of(Shoe.full(profile.packs))
    table = dict(profile.banker_table)
    assert table[cell].play is not Play.OPTION  # so both strategies below play it as printed
    table[cell] = Ruling(FLIP[table[cell].play], "a changed cell (test)")
    changed = dataclasses.replace(profile, banker_table=table)
    for strategy in ("draw", "stand"):
        before = coup_odds(profile, law.shoe, strategy, law).outcome
        after = coup_odds(changed, law.shoe, strategy, law).outcome
        assert before != after
        assert after.banker + after.punter + after.egalite == 1


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_the_punters_rule_is_applied(name: str) -> None:
    """The punter's 5 made a forced stand and then a forced draw: two different results, one
    of which is the profile's own when its 5 is fixed."""
    profile = get_profile(name)
    law = CoupLaw.of(Shoe.full(profile.packs))
    results = []
    for play in (Play.STAND, Play.DRAW):
        rule = {**profile.punter_table, 5: Ruling(play, "a changed cell (test)")}
        changed = dataclasses.replace(profile, punter_table=rule)
        results.append(coup_odds(changed, law.shoe, "stand", law).outcome)
    assert results[0] != results[1]
    own = coup_odds(profile, law.shoe, "stand", law).outcome
    if profile.punter_table[5].play is not Play.OPTION:
        assert own == results[profile.punter_table[5].play is Play.DRAW]


def test_eight_pack_forces_what_others_leave_open() -> None:
    """002 forces a banker's draw with 5 against a 4, where 000, 001, 003 and 004 leave it to
    him: standing at every option, eight-pack draws there and Baden does not."""
    law = CoupLaw.of(Shoe.full(8))
    eight = coup_odds(get_profile("eight-pack"), law.shoe, "stand", law)
    baden = coup_odds(get_profile("baden", 8), law.shoe, "stand", law)
    assert eight.play.banker[(5, 4)] == 1 and baden.play.banker[(5, 4)] == 0
    assert eight.outcome != baden.outcome
    assert baden.play.punter[5] == eight.play.punter[5] == Fraction(0)
