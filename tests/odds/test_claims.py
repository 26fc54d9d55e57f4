"""004's own claim: "50.67% of the coups are on average won by the banker, 49.33% by the
punters, a winning edge to the bank of 1.34%" (decided coups; 50.67 - 49.33 = 1.34). Which
rules and strategy reproduce it, to its printed precision (docs/odds.md, "004's claim")."""

from __future__ import annotations

import itertools
from fractions import Fraction

from shoe_daemon.game.houses import get_profile
from shoe_daemon.odds.analysis import STRATEGIES, coup_odds
from shoe_daemon.odds.law import STOOD, CoupLaw
from shoe_daemon.odds.shoe import Shoe
from shoe_daemon.odds.strategy import Choices

SHIMMY = get_profile("shimmy")
OPTIONS = ((3, 9), (5, 4), (5, STOOD))


def _printed(share: Fraction) -> float:
    return round(float(share) * 100, 2)


def _shares(packs: int) -> dict[tuple[int, ...], Fraction]:
    """The banker's share of decided coups for each pure play of 004's options: the punter's
    5, then the banker's 3 v 9, 5 v 4 and 5 after a punter who stood (1 draws)."""
    law = CoupLaw.of(Shoe.full(packs))
    choices = Choices.of(SHIMMY)
    out = {}
    for bits in itertools.product((0, 1), repeat=4):
        s = choices.strategy({5: bits[0]}, dict(zip(OPTIONS, bits[1:], strict=True)))
        out[bits] = law.outcome(s.punter, s.banker).banker_share
    return out


def test_no_play_of_004s_chart_gives_it_with_six_packs() -> None:
    shares = _shares(6)
    assert [b for b, s in shares.items() if _printed(s) == 50.67] == []
    law = CoupLaw.of(Shoe.full(6))
    for strategy in STRATEGIES:
        assert _printed(coup_odds(SHIMMY, law.shoe, strategy, law).outcome.banker_share) != 50.67


def test_three_packs_give_it() -> None:
    """The punter drawing on 5, the banker standing with 3 against a 9 and drawing with 5
    after a punter who stood (5 against a 4 either way): the share prints 50.67% with 2, 3 or
    4 packs (and with 5 if he draws with 5 against a 4), and the edge (2 x share - 1) prints
    1.34% too only with 3 packs (2 packs: 1.35%, 4 and 5 packs: 1.33%)."""
    claimed = {(1, 0, 0, 1), (1, 0, 1, 1)}
    share_prints = {2: claimed, 3: claimed, 4: claimed, 5: {(1, 0, 1, 1)}}
    for packs in range(1, 9):
        shares = _shares(packs)
        share_only = {b for b, s in shares.items() if _printed(s) == 50.67}
        both = {b for b in share_only if _printed(2 * shares[b] - 1) == 1.34}
        assert share_only == share_prints.get(packs, set()), packs
        assert both == (claimed if packs == 3 else set()), packs
