"""Every bet a house offers, with its payout, and its exact expectation per unit staked.

Punto Banco (003 PUNTO BANCO): Punto pays 1 to 1; Banco 1 to 1 "abzüglich 5% Taxe"; an
égalité leaves both "auf dem Tableau" (a push); Egalité pays "achtfach (8:1)". The three Swiss
Nine bets ("19fach", "77fach", "300fach") win on the Banco side's first two cards
(shoe_daemon.game.rules.swiss_nine). 003 writes the Egalité's payout "achtfach (8:1)", so
"x-fach" is read as x to 1 (the stake returned besides); each Swiss Nine bet is also given
read the other way, x for 1 (the stake included: x - 1 to 1), since the seed does not say it
for those bets themselves.

Chemin de Fer: the bank and the punter stake against each other; an égalité returns the
stakes (004 "no stakes pass"; 003 "erhalten ihre Einsätze zurück"); the house takes its
commission on the banker's wins (001, 003, 004: 5%; 000 and 002 give no rate).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

from shoe_daemon.game.rules import SWISS_NINE_BETS, SWISS_NINE_PAYS, HouseProfile
from shoe_daemon.odds.law import Outcome
from shoe_daemon.odds.shoe import Shoe

_TEN_VALUED = "TJQK"
_CLUBS = "C"

@dataclass(frozen=True)
class Bet:
    """A bet, what it pays, and the bettor's exact expectation per unit staked."""

    name: str
    pays: str
    ev: Fraction
    source: str
    #: Another reading of the payout of a bet listed before it, where the seed leaves the
    #: payout open (the Swiss Nine's "x for 1"): shown beside it, never the house's alarm.
    alternative: bool = False

    @property
    def house_edge(self) -> Fraction:
        return -self.ev

    @property
    def favourable(self) -> bool:
        """The bet is in the bettor's favour (the house loses on it on average)."""
        return self.ev > 0


def commission(profile: HouseProfile) -> Fraction:
    """The house's cut of the banker's wins as a fraction (0 where the seed gives none)."""
    if profile.commission_percent is None:
        return Fraction(0)
    return Fraction(profile.commission_percent) / 100


def swiss_nine_chances(shoe: Shoe) -> Mapping[str, Fraction]:
    """The chance of each Swiss Nine bet winning: the Banco side's first two cards (any two
    cards of the shuffled shoe) are a ten-value and a nine; of one suit; both clubs (003)."""
    if shoe.codes is None:
        raise ValueError("the Swiss Nine bets need the shoe's card codes (suits)")
    codes = shoe.codes
    pairs = Fraction(shoe.size * (shoe.size - 1))
    if not pairs:
        raise ValueError("the Swiss Nine bets need two cards in the shoe")

    def tens(s: str) -> int:
        return sum(codes[r + s] for r in _TEN_VALUED)

    suits = "CDHS"
    simple = 2 * sum(tens(s) for s in suits) * sum(codes["9" + s] for s in suits)
    colour = 2 * sum(tens(s) * codes["9" + s] for s in suits)
    swiss = 2 * tens(_CLUBS) * codes["9" + _CLUBS]
    return MappingProxyType(
        dict(zip(SWISS_NINE_BETS, (simple / pairs, colour / pairs, swiss / pairs), strict=True))
    )


def punto_banco_bets(profile: HouseProfile, outcome: Outcome, shoe: Shoe | None
                     ) -> tuple[Bet, ...]:
    """Punto, Banco, Egalité and (where the house offers them) the Swiss Nine bets."""
    cut = commission(profile)
    b, p, t = outcome.banker, outcome.punter, outcome.egalite
    bets = [
        Bet("Banco", f"1 to 1 less {_percent(cut)}", (1 - cut) * b - p, profile.commission_source),
        Bet("Punto", "1 to 1", p - b, '003: "erhalten Sie den einfachen Einsatz als Gewinn"'),
    ]
    if profile.egalite_pays is not None:
        bets.append(Bet("Egalité", f"{profile.egalite_pays} to 1",
                        (profile.egalite_pays + 1) * t - 1,
                        '003: "wird die Chance «Egalité» achtfach (8:1) ausgezahlt"'))
    if profile.swiss_nine and shoe is not None and shoe.codes is not None:
        chances = swiss_nine_chances(shoe)
        for bet in SWISS_NINE_BETS:
            x, q = SWISS_NINE_PAYS[bet], chances[bet]
            label = {"simple": "Simple Nine", "colour": "Colour Nine", "swiss": "Swiss Nine"}[bet]
            source = f'003 Swiss Nine: «{label}» "Auszahlung: {x}fach"'
            bets.append(Bet(label, f"{x} to 1 ({x}fach)", (x + 1) * q - 1, source))
            bets.append(Bet(f"{label}, read {x} for 1", f"{x} for 1 ({x - 1} to 1)",
                            x * q - 1, source + "; the other reading", alternative=True))
    return tuple(bets)


def chemin_de_fer_sides(profile: HouseProfile, outcome: Outcome) -> tuple[Bet, ...]:
    """The bank's and the punter's expectation per unit at stake, commission included."""
    cut = commission(profile)
    b, p = outcome.banker, outcome.punter
    return (
        Bet("the bank", f"1 to 1 less {_percent(cut)}" if cut else "1 to 1 (no rate given)",
            (1 - cut) * b - p, profile.commission_source),
        Bet("the punter", "1 to 1", p - b, "égalité: the stakes are returned"),
    )


def _percent(f: Fraction) -> str:
    return f"{float(f * 100):g}%"
