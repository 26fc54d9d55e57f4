"""Decisions shared by several houses, for what their seeds do not print.

Each is written once here and cited the same way by every profile that needs it; the
reasons are in docs/rules.md, "Decisions" (2: the punter-stood column; 6: the packs; 8: a
card leaving the shoe face up). A profile puts "not printed in <seed>: " before the texts
(`stood_decision` writes its own); they quote only the seeds' own words.
"""

from __future__ import annotations

from shoe_daemon.game.houses.transcription import DRAW, OPTION, STAND
from shoe_daemon.game.rules import NOT_PRINTED, Ruling

#: 000 rule 20's words on a banker with 5 after "Reste".
RULE_20 = '"No information for an undrawn card"'


def stood_decision(seed: str, total: int) -> Ruling:
    """The punter-stood column of a seed that does not print one (000, 001, 004)."""
    head = f"{NOT_PRINTED}{seed}: no column for a punter who stood (Reste); "
    if total == 5:
        return Ruling(
            OPTION,
            head + f"000 rule 20 leaves a banker with 5 after Reste to himself ({RULE_20}), "
            "so no faux tirage can be charged there",
        )
    play = DRAW if total < 5 else STAND
    return Ruling(
        play,
        head + f"{'draws' if play is DRAW else 'stands'} on {total} as 002 "
        '"Opponent stands" (6, 7 / 5, 4, 3, 2, 1, 0) and 003 "fünf oder weniger Punkte"; '
        f"only 5 is left open, by 000 rule 20 ({RULE_20})",
    )


#: Packs where the seed gives none (001, 004).
SIX_PACKS = (
    'the number of packs is not given; 6 as 000 ("six packs of playing cards") and 003 '
    '("Üblicherweise werden beim Baccara sechs Kartenspiele"); the operator sets the real '
    "count with BTN,SHOE,<decks>"
)
#: A card face up where the seed is silent (002, 003, 004).
FACE_UP_EXPOSED = (
    "nothing on a card that leaves the shoe face up; exposed (the card stays in play, "
    "seen by all) as 000 rules 6 and 8, the only rules of that kind besides 001's"
)

