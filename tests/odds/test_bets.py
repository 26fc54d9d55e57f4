"""Every bet's expectation: the published Punto Banco edges, the Swiss Nine bets against the
game's own rule (shoe_daemon.game.rules.swiss_nine), and bets that turn favourable."""

from __future__ import annotations

import itertools
from fractions import Fraction

from shoe_daemon.game.cards import ALL_CODES
from shoe_daemon.game.houses import get_profile
from shoe_daemon.game.rules import swiss_nine
from shoe_daemon.odds.analysis import coup_odds
from shoe_daemon.odds.bets import swiss_nine_chances
from shoe_daemon.odds.shoe import Shoe

PUNTO_BANCO = get_profile("baden-punto-banco")


def _bets(shoe: Shoe) -> dict[str, Fraction]:
    return {b.name: b.ev for b in coup_odds(PUNTO_BANCO, shoe).bets}


def test_published_eight_pack_edges() -> None:
    """The widely published eight-deck edges: Banco 1.06%, Punto 1.24%, Egalité at 8:1
    14.36% (casinoexploit.com/baccarat.html; multiplayerbaccarat.com/odds.html gives
    1.0579%, 1.2351%, 14.3596%)."""
    bets = _bets(Shoe.full(8))
    assert round(float(-bets["Banco"]) * 100, 4) == 1.0579
    assert round(float(-bets["Punto"]) * 100, 4) == 1.2351
    assert round(float(-bets["Egalité"]) * 100, 4) == 14.3596
    assert round(float(-bets["Egalité"]) * 100, 2) == 14.36


def test_swiss_nine_chances_match_the_games_rule() -> None:
    """Every ordered pair of cards of a small shoe judged by the coup machine's own rule: the
    chances equal the closed forms used for the bets."""
    codes = dict.fromkeys(ALL_CODES, 0)
    for code in ("9C", "9C", "9H", "TC", "KC", "QH", "JD", "5S", "AC", "9S", "TS"):
        codes[code] += 1
    shoe = Shoe.from_codes(codes)
    cards = [c for c, k in codes.items() for _ in range(k)]
    wins = dict.fromkeys(("simple", "colour", "swiss"), 0)
    pairs = 0
    for i, j in itertools.permutations(range(len(cards)), 2):
        pairs += 1
        for bet in swiss_nine((cards[i], cards[j])):
            wins[bet] += 1
    assert swiss_nine_chances(shoe) == {b: Fraction(w, pairs) for b, w in wins.items()}


def test_swiss_nine_full_shoe_by_hand() -> None:
    """Six packs: 96 ten-values and 24 nines among 312 cards; the pair in either order."""
    chances = swiss_nine_chances(Shoe.full(6))
    pairs = 312 * 311
    assert chances["simple"] == Fraction(2 * 96 * 24, pairs)
    assert chances["colour"] == Fraction(4 * 2 * 24 * 6, pairs)
    assert chances["swiss"] == Fraction(2 * 24 * 6, pairs)
    bets = _bets(Shoe.full(6))
    assert bets["Simple Nine"] == 20 * chances["simple"] - 1  # 19 to 1
    assert bets["Simple Nine, read 19 for 1"] == 19 * chances["simple"] - 1
    assert bets["Swiss Nine"] == 301 * chances["swiss"] - 1


def test_bets_turn_favourable_late_in_a_shoe() -> None:
    """A shoe rich in ten-values and nines favours the Simple Nine; one of tens alone makes
    every coup an égalité, and the Egalité bet pays 8."""
    seen = [c for c in ALL_CODES if c[0] not in "9TJQK"] * 6
    odds = coup_odds(PUNTO_BANCO, Shoe.full(6).without(seen))
    assert "Simple Nine" in {b.name for b in odds.favourable()}
    tens = Shoe.full(1).without([c for c in ALL_CODES if c[0] not in "TJQK"])
    bets = _bets(tens)
    assert bets["Egalité"] == 8 and bets["Banco"] == 0 and bets["Punto"] == 0
    assert {b.name for b in coup_odds(PUNTO_BANCO, Shoe.full(6)).favourable()} == set()
