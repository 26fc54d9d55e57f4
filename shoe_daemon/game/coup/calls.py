"""The sides' own calls and faux tirage: CARTE, RESTE and STAND against the house's table.

A free side's call is its choice (000 rule 17: the punter's first declaration binds him).
A bound side's call against the table is a faux tirage, redressed as the house's rule says
(000 rule 21; 001 "reconstructed by the Inspector"; 003 "im Nachhinein richtig gestellt"):
a wrong STAND or RESTE is disregarded; a card drawn for the punter by mistake goes to the
banker if he draws, else to the discard, and where the banker may choose the coup holds for
his choice; a card a bound banker drew against the table goes to the discard.
"""

from __future__ import annotations

from drivers.messages import Card
from shoe_daemon.game.coup.core import Core
from shoe_daemon.game.coup.drawing import Drawing
from shoe_daemon.game.irregularities import BANKER_TAKES_OR_STANDS, Code
from shoe_daemon.game.rules import Play


class Calls:
    def __init__(self, core: Core, drawing: Drawing) -> None:
        self.core = core
        self.drawing = drawing
        self.profile = core.profile

    def punter_button(self, name: str) -> None:
        """BTN,CARTE or BTN,RESTE: his declaration, a late or repeated press, or a faux tirage."""
        coup, state = self.core.coup, self.core.state
        if coup is None or coup.bac:
            return  # his cards are in the discard (000 rule 15): he declares nothing more
        if state == "decided" and coup.banker_bound_stand and len(coup.punter) == 2:
            # The table made the banker stand as soon as the punter stood: a bound punter's
            # CARTE now is still his faux tirage, and the card drawn for him is discarded.
            if name == "CARTE" and coup.punter_bound and not coup.declared:
                coup.declared = True
                coup.banker_bound_stand = False
                coup.redress_pending = True
                self._faux_tirage(
                    "the punter, bound by the table, called CARTE where the table says RESTE: "
                    "the banker stands, so the card drawn for him goes to the discard"
                )
            return
        if state == "punter_to_declare":
            self.drawing.declare(name)
            return
        in_punter_turn = state == "punter_drawing" or (
            state == "banker_to_play" and len(coup.banker) == 2 and len(coup.punter) == 2
        )
        if not in_punter_turn or coup.declaration == name or coup.declared:
            return  # a repeated or late press: the first declaration binds (000 rule 17)
        if not coup.punter_bound:
            # 000 rule 17 / 003 "nach Belieben": a free punter's own call is his to make.
            self.drawing.declare(name)
            return
        redress = (
            "the card drawn for him goes to the banker if he draws, else to the discard"
            if name == "CARTE"
            else "the call is disregarded and he draws"
        )
        self._faux_tirage(
            f"the punter, bound by the table, called {name} where the table says "
            f"{coup.declaration}: {redress}"
        )
        if name == "CARTE":
            coup.redress_pending = True

    def stand(self) -> None:
        """BTN,STAND: the banker stands where he may; bound to draw, it is disregarded."""
        if self.core.coup is None or self.core.state != "banker_to_play":
            return
        if self.drawing.banker_play() is Play.DRAW:
            self._faux_tirage(
                "the banker, bound by the table, stood where the table makes him draw: "
                "the stand is disregarded and he draws"
            )
            return
        self.core.decide()


    def redress(self, card: Card) -> bool:
        """000 rule 21: the card drawn for the punter by mistake goes to the banker if he asks
        for a card, else to the discard. True: the coup holds for the banker's choice."""
        coup = self.core.coup
        assert coup is not None
        if not coup.redress_pending:
            return False
        if self.drawing.banker_play() is Play.OPTION:
            self.core.hold_for(
                Code.FAUX_TIRAGE,
                f"{card.code} was drawn for the punter against the table: the banker "
                "takes it (OK) or stands (STAND) and it goes to the discard",
                card,
                rule=self.profile.faux_tirage_source,
                way_out=BANKER_TAKES_OR_STANDS,
            )
            return True
        coup.redress_pending = False
        return False

    def late_card(self, card: Card) -> bool:
        """A card after the result that a faux tirage explains; True if it was one."""
        last = self.core.coup
        if last is not None and last.redress_pending:
            # The card drawn for the punter by mistake, after the banker was bound to stand:
            # 000 rule 21 sends it to the discard; the faux tirage is on record already.
            last.redress_pending = False
            return True
        if last is not None and last.banker_bound_stand and self.core.state == "decided":
            last.banker_bound_stand = False
            self._faux_tirage(
                f"{card.code} drawn by the banker though the table binds him to stand: "
                "it goes to the discard"
            )
            return True
        return False

    def _faux_tirage(self, detail: str) -> None:
        self.core.irregularity(Code.FAUX_TIRAGE, detail, rule=self.profile.faux_tirage_source)
