"""The dealing errors the coup machine catches, what they cite and what they ask of the croupier.

A hold stops the coup (lamp red) until the croupier or a supervisor acts; a warning is
recorded with the coup and play goes on. Each kind names the rule behind it; where the
citation depends on the house, the coup machine passes the profile's own source instead.

A hold carries its way out (`WayOut`): the buttons that lift it and the instruction that
names them, so what the croupier is told is what the machine accepts. A code that holds
only sometimes (FAUX_TIRAGE, where the banker must choose) has its way out for that case
here too, and its warning words for the others.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType


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
    # What only the croupier sees, reported on the console (coup/reports.py): 000 rules 15,
    # 11, 10 and 4, or the house's own cell for them (HouseProfile.croupier_rules).
    PUNTER_BAC = "PUNTER_BAC"
    BANKER_CARD_LOST = "BANKER_CARD_LOST"
    CARD_FELL = "CARD_FELL"
    PARTNER_OBJECTION = "PARTNER_OBJECTION"


class Resolution(StrEnum):
    """How a hold is lifted (a supervisor's KEY, then VOID, ends any hold: the coup is void)."""

    OK = "OK"  # the croupier put it right and pressed OK
    ENTER = "ENTER"  # the croupier keyed in the unreadable card
    DECLARE = "DECLARE"  # CARTE or RESTE for the punter
    SUPERVISOR_OK = "SUPERVISOR_OK"  # KEY, then OK
    BANKER_CHOICE = "BANKER_CHOICE"  # OK (the banker takes the card) or STAND (discard it)
    SUPERVISOR_RULING = "SUPERVISOR_RULING"  # KEY, then OK upholds a report; the console's
    # supervisor may DISMISS it instead


#: The presses that lift a hold of each resolution, each a sequence of button names.
PRESSES: Mapping[Resolution, tuple[tuple[str, ...], ...]] = MappingProxyType(
    {
        Resolution.OK: (("OK",),),
        Resolution.ENTER: (("ENTER",),),
        Resolution.DECLARE: (("CARTE",), ("RESTE",)),
        Resolution.SUPERVISOR_OK: (("KEY", "OK"),),
        Resolution.BANKER_CHOICE: (("OK",), ("STAND",)),
        Resolution.SUPERVISOR_RULING: (("KEY", "OK"),),
    }
)
#: Ways out the croupier's console offers beside the shoe's buttons: a report made on the
#: console (000 rule 11) is dismissed there, by a supervisor, when it does not hold.
CONSOLE_ONLY: Mapping[Resolution, tuple[str, ...]] = MappingProxyType(
    {Resolution.SUPERVISOR_RULING: ("DISMISS",)}
)
SUPERVISOR_VOID = ("KEY", "VOID")  # ends any hold; printed where the instruction offers it

_VOID_HINT = " Or a supervisor cancels the coup: KEY, then VOID."


@dataclass(frozen=True, slots=True)
class WayOut:
    """How one hold is lifted, and the instruction printed with it (`action`)."""

    resolution: Resolution
    action: str

    @property
    def presses(self) -> tuple[tuple[str, ...], ...]:
        """Every sequence of presses the instruction names, the supervisor's VOID included."""
        offered = (SUPERVISOR_VOID,) if self.action.endswith(_VOID_HINT) else ()
        return PRESSES[self.resolution] + offered

    @property
    def buttons(self) -> frozenset[str]:
        """The buttons this hold's resolution takes (KEY and VOID act during any hold)."""
        return frozenset(name for press in PRESSES[self.resolution] for name in press)

    @property
    def console_ways(self) -> tuple[str, ...]:
        """The buttons the croupier's console offers for this way out: the last press of each
        sequence, the console's signed-in supervisor standing for a supervisor's KEY. (The
        supervisor's VOID is the console's own `void` action.)"""
        shoe = (press[-1] for press in PRESSES[self.resolution])
        return tuple(dict.fromkeys((*shoe, *CONSOLE_ONLY.get(self.resolution, ()))))

    @property
    def supervised(self) -> bool:
        """Whether this way out needs a supervisor (a KEY in its presses)."""
        return any("KEY" in press for press in PRESSES[self.resolution])


@dataclass(frozen=True, slots=True)
class Kind:
    """One code: the rule it cites, and what the croupier is told when it warns or holds."""

    code: Code
    rule: str
    warning: str | None = None  # the instruction when it is recorded and play goes on
    hold: WayOut | None = None  # how a hold of this code is lifted


#: 000 rule 21: the card drawn for the punter against the table is the banker's to take if
#: he draws, else it goes to the discard; where the banker has a choice the coup waits for it.
BANKER_TAKES_OR_STANDS = WayOut(
    Resolution.BANKER_CHOICE,
    "A card was drawn for the punter against the table: the banker may take it. Press OK if "
    "he takes it, or STAND if he stands and the card goes to the discard; the coup is then "
    "decided as redressed.",
)

KINDS: dict[Code, Kind] = {
    k.code: k
    for k in (
        Kind(
            Code.WRONG_ORDER,
            "000 rule 12",
            hold=WayOut(
                Resolution.OK,
                "Card dealt to the wrong place: move it to its place in the order punter, "
                "banker, punter, banker, then press OK." + _VOID_HINT,
            ),
        ),
        Kind(
            Code.WRONG_NUMBER,
            "000 rules 12, 13",
            "Card dealt where none may come: if it was not uncovered it stays on the table "
            "for the next deal (000 rule 13); if it was uncovered, put it in the discard.",
        ),
        Kind(
            Code.FAUX_TIRAGE,
            "000 rule 21",
            "A side bound by the table played against it: redress it as the table requires.",
            hold=BANKER_TAKES_OR_STANDS,
        ),
        Kind(
            Code.EXPOSED_CARD,
            "000 rules 6, 8",
            "A dealt card was uncovered: the banker uncovers his matching card (000 rule 6); "
            "with both punter cards uncovered he uncovers both and plays after the shoe (rule 8).",
        ),
        Kind(
            Code.FACE_UP_IN_SHOE,
            "house profile",
            "A card came out of the shoe face up.",
        ),
        Kind(
            Code.UNREADABLE_CARD,
            "shoe-line-protocol CARD ??",
            hold=WayOut(
                Resolution.ENTER, "The reader could not read the card: key it in with ENTER."
            ),
        ),
        Kind(
            Code.FOREIGN_CARD,
            "house profile: packs",
            hold=WayOut(
                Resolution.SUPERVISOR_OK,
                "More copies of this card than the packs hold: call a supervisor. KEY, then OK "
                "takes the card out of play (the next card takes its place)." + _VOID_HINT,
            ),
        ),
        Kind(
            Code.CUT_CARD_MISPLACED,
            "house profile: cut card",
            "The cut card came out with other than the expected number of cards behind it: "
            "check the shoe's preparation before the next shoe.",
        ),
        Kind(
            Code.SHORT_LAST_COUP,
            "000 rule 24",
            "The shoe ran out before the coup could be finished: the coup is cancelled "
            "without loss to either side.",
        ),
        Kind(
            Code.DECLARATION_MISSING,
            "shoe-line-protocol 'A coup on the wire'",
            hold=WayOut(
                Resolution.DECLARE,
                "A card came before the punter declared: press CARTE or RESTE for his "
                "declaration; the card is then placed accordingly." + _VOID_HINT,
            ),
        ),
        Kind(
            Code.COUP_NOT_FINISHED,
            "000 rule 12",
            hold=WayOut(
                Resolution.OK,
                "A new deal or shoe was started inside an undecided coup: press OK to ignore "
                "that press and finish the coup." + _VOID_HINT,
            ),
        ),
        Kind(
            Code.DEAL_AFTER_LAST_COUP,
            "house profile: cut card",
            "A coup was dealt after the last coup of the shoe: change the shoe.",
        ),
        # Reported on the croupier's console; each line cites the house's cell for it.
        Kind(
            Code.PUNTER_BAC,
            "000 rule 15",
            "The punter threw his cards into the discard: his hand counts bac (0), its cards "
            "stay out of sight, and the banker plays on against it.",
        ),
        Kind(
            Code.BANKER_CARD_LOST,
            "000 rule 11",
            hold=WayOut(
                Resolution.SUPERVISOR_RULING,
                "The banker threw a card into the discard and it cannot be recognised: call a "
                "supervisor. KEY, then OK upholds it and the coup is lost to the banker; on the "
                "console the supervisor may dismiss it instead, and play goes on." + _VOID_HINT,
            ),
        ),
        Kind(
            Code.CARD_FELL,
            "000 rule 10",
            "A card fell from the table: it remains valid, and only a member of the casino "
            "staff picks it up.",
        ),
        Kind(
            Code.PARTNER_OBJECTION,
            "000 rule 4",
            "The banker's partner objected to the banker's manner of play: the banker's play "
            "stands; the partner has no say in it.",
        ),
    )
}
