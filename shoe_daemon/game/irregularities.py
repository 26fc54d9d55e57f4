"""The dealing errors the coup machine catches, what they cite and what they ask of the croupier.

A hold stops the coup (lamp red) until the croupier or a supervisor acts; a warning is
recorded with the coup and play goes on. Each kind names the rule behind it; where the
citation depends on the house, the coup machine passes the profile's own source instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Code(StrEnum):
    WRONG_ORDER = "WRONG_ORDER"
    WRONG_NUMBER = "WRONG_NUMBER"
    FAUX_TIRAGE = "FAUX_TIRAGE"
    EXPOSED_CARD = "EXPOSED_CARD"
    FACE_UP_IN_SHOE = "FACE_UP_IN_SHOE"
    UNREADABLE_CARD = "UNREADABLE_CARD"
    FOREIGN_CARD = "FOREIGN_CARD"
    CUT_CARD_MISPLACED = "CUT_CARD_MISPLACED"
    SHORT_LAST_COUP = "SHORT_LAST_COUP"
    DECLARATION_MISSING = "DECLARATION_MISSING"
    COUP_NOT_FINISHED = "COUP_NOT_FINISHED"
    DEAL_AFTER_LAST_COUP = "DEAL_AFTER_LAST_COUP"


class Resolution(StrEnum):
    """How a hold is lifted."""

    OK = "OK"  # the croupier put it right and pressed OK
    ENTER = "ENTER"  # the croupier keyed in the unreadable card
    DECLARE = "DECLARE"  # CARTE or RESTE for the punter
    SUPERVISOR_OK = "SUPERVISOR_OK"  # KEY, then OK
    BANKER_CHOICE = "BANKER_CHOICE"  # OK (the banker takes the card) or STAND (discard it)


@dataclass(frozen=True, slots=True)
class Kind:
    code: Code
    rule: str
    hold: bool
    resolution: Resolution | None
    action: str  # what the croupier must do, in words


_VOID_HINT = " Or a supervisor cancels the coup: KEY, then VOID."

KINDS: dict[Code, Kind] = {
    k.code: k
    for k in (
        Kind(
            Code.WRONG_ORDER,
            "000 rule 12",
            True,
            Resolution.OK,
            "Card dealt to the wrong place: move it to its place in the order punter, banker, "
            "punter, banker, then press OK." + _VOID_HINT,
        ),
        Kind(
            Code.WRONG_NUMBER,
            "000 rules 12, 13",
            False,
            None,
            "Card dealt where none may come: if it was not uncovered it stays on the table "
            "for the next deal (000 rule 13); if it was uncovered, put it in the discard.",
        ),
        Kind(
            Code.FAUX_TIRAGE,
            "000 rule 21",
            False,
            None,
            "A side bound by the table played against it: redress it as the table requires.",
        ),
        Kind(
            Code.EXPOSED_CARD,
            "000 rules 6, 8",
            False,
            None,
            "A dealt card was uncovered: the banker uncovers his matching card (000 rule 6); "
            "with both punter cards uncovered he uncovers both and plays after the shoe (rule 8).",
        ),
        Kind(
            Code.FACE_UP_IN_SHOE,
            "house profile",
            False,
            None,
            "A card came out of the shoe face up.",
        ),
        Kind(
            Code.UNREADABLE_CARD,
            "shoe-line-protocol CARD ??",
            True,
            Resolution.ENTER,
            "The reader could not read the card: key it in with ENTER.",
        ),
        Kind(
            Code.FOREIGN_CARD,
            "house profile: packs",
            True,
            Resolution.SUPERVISOR_OK,
            "More copies of this card than the packs hold: call a supervisor. KEY, then OK "
            "takes the card out of play (the next card takes its place)." + _VOID_HINT,
        ),
        Kind(
            Code.CUT_CARD_MISPLACED,
            "house profile: cut card",
            False,
            None,
            "The cut card came out with other than the expected number of cards behind it: "
            "check the shoe's preparation before the next shoe.",
        ),
        Kind(
            Code.SHORT_LAST_COUP,
            "000 rule 24",
            False,
            None,
            "The shoe ran out before the coup could be finished: the coup is cancelled "
            "without loss to either side.",
        ),
        Kind(
            Code.DECLARATION_MISSING,
            "shoe-line-protocol 'A coup on the wire'",
            True,
            Resolution.DECLARE,
            "A card came before the punter declared: press CARTE or RESTE for his "
            "declaration; the card is then placed accordingly." + _VOID_HINT,
        ),
        Kind(
            Code.COUP_NOT_FINISHED,
            "000 rule 12",
            True,
            Resolution.OK,
            "A new deal or shoe was started inside an undecided coup: press OK to ignore that "
            "press and finish the coup." + _VOID_HINT,
        ),
        Kind(
            Code.DEAL_AFTER_LAST_COUP,
            "house profile: cut card",
            False,
            None,
            "A coup was dealt after the last coup of the shoe: change the shoe.",
        ),
    )
}
