"""Money decisions shared by several houses, for what their seeds do not print.

Each is written once here and cited the same way by every profile that needs it
(`decided(seed, value, TEXT)` puts "not printed in <seed>: " before it); the reasons are in
docs/money.md, "Decisions". They quote only the seeds' own words.
"""

from __future__ import annotations

from typing import TypeVar

from shoe_daemon.game.rules import NOT_PRINTED
from shoe_daemon.money.profile import Term

T = TypeVar("T")


def printed(value: T, source: str) -> Term[T]:
    """A term the seed prints; `source` starts with the seed's number and quotes it."""
    return Term(value, source)


def decided(seed: str, value: T, why: str) -> Term[T]:
    """A term the seed does not print: the decision and its reason."""
    return Term(value, f"{NOT_PRINTED}{seed}: {why}")


ROUNDING = (
    "no seed says how a commission that is not a whole number of the currency's unit is "
    "rounded; it is rounded down to the unit, in the player's favour: the house then never "
    "takes more than its published rate, and 003's worked example (\"Taxe Fr. 30\" on "
    "Fr. 600) is exact either way"
)
CHIP = (
    "no seed gives the smallest chip; every amount the seeds print is whole (000: 10, 2 and "
    "2400 Guildens; 003: Fr. 800, 600, 200, 30), so a stake is a whole number of the "
    "currency by default and the table sets `chip`"
)
STAKES_PUBLIC = (
    "no seed says whether stakes may be shown before betting closes; they lie on the table "
    "in everybody's view (000 rule 1: \"place their stakes on the table\"; 001: \"place a "
    "stake in front of their own box\"), so showing them hides nothing"
)
STAKES_PUBLIC_PB = (
    "no seed says whether bets may be shown before betting closes; they lie on the layout "
    "in everybody's view, as 000 rule 1 says of stakes (\"place their stakes on the table\")"
)
VOID = (
    "a cancelled or void coup returns every stake and changes nothing in the bank, as 000 "
    "rule 24: \"the coup is cancelled without loss to either side\""
)
MIN_PLAYERS = (
    "no minimum number of players is given; a coup needs a banker and one punter, so 2, "
    "counted when the game's first bank is put up, as 001 and 003 count theirs (the ruling "
    "of issue 20)"
)
HOLDER_TIE = (
    "; between equal stakes the cards go to the player nearer the banker's right (004: "
    "\"nearest player to him with the greatest stake\")"
)
PAYMENT_ORDER = (
    "no order of payment is given; 000 rule 26's, the only one a seed prints: \"First, the "
    "highest table stake, then the stake of the player seated at the right hand of the "
    "banker (Prime), and then the others in rotation\"; during or after a Suite counted "
    "from its originator, \"and finally, the last banker\"; outsiders after the seated "
    "players, smallest first; the bank last"
)
CLOSING = (
    "not given in words; betting closes when the cards are dealt (the shoe's BTN,DEAL), and "
    "nothing changes after it, as 000 IV: \"After the croupier has declared the betting "
    "closed ('Rien ne va plus'), no further stakes may be placed.\""
)
DECLINE_BANK = (
    "nothing on a player who does not want the bank; he may refuse it and it goes on to "
    "the next place, as 004: \"Any player may refuse to operate the shoe and provide the "
    "bank when it is his turn to do so, and it then goes to next in circuit.\""
)
NEW_SHOE = (
    "nothing ties the bank to the shoe; a hand goes on across a new shoe with the bank as it "
    "stands, as 000 rule 25: \"The first coup of a new 'shoe' is announced at exactly the "
    "same figure as that which was won by the bank in the last coup of the preceding "
    "'shoe'.\""
)
OPEN_BANK = (
    "no open bank is offered; only 000 rule 5 has one (\"play without a limit (open bank)\")"
)
PARTNER = (
    "no partner in the bank is offered; only 000 rule 4 has one (\"he may have a partner "
    "for any sum in excess of the minimum\")"
)
NO_EXCLUSION = (
    "nothing bars the banker who gave up the bank from taking it again; only 000 rule 22 "
    "does (\"may not share in the bidding for the said 'suite'\")"
)
FIRST_BID = (
    "the highest bid takes the bank; a bid must beat the highest so far, so between equal "
    "bids the first stands"
)
OUT_OF_TURN = (
    "after a banker out of turn (the auction's, or a standing player's) ends his hand, the "
    "bank goes to the place after the banker in turn who gave it up, as 003: \"geht die "
    "nächste Bankhalterschaft an den rechts vom vorletzten Bankhalter sitzenden Spieler "
    "über\""
)
OVER_THE_LINE = "no stake over a line is mentioned; only 001's are worth half"
WITH_TABLE_NONE = "no banco with the table is offered, so no share of the bank applies"
NOT_ANSWERABLE = "no banco with the table is offered, so nobody answers for a difference"
