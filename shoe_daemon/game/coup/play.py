"""The order of play: each message to its part, each card to its place in the coup.

000: the croupier deals "the top card ... for the punter ... a card for himself ...", so
four cards come punter, banker, punter, banker; then the punter's third card if he draws,
then the banker's. A card whose table position sensor (`dest`) contradicts that order, or
that comes where none may, is an irregularity (000 rules 12, 13).
"""

from __future__ import annotations

from drivers.messages import Button, Card, Cut, Empty, Fault, Message
from shoe_daemon.game import cards
from shoe_daemon.game.coup.calls import Calls
from shoe_daemon.game.coup.core import Core, Coup
from shoe_daemon.game.coup.drawing import Drawing
from shoe_daemon.game.coup.holds import Holds
from shoe_daemon.game.coup.inventory import Inventory
from shoe_daemon.game.coup.latches import Latches
from shoe_daemon.game.coup.states import BETWEEN_COUPS, IN_COUP
from shoe_daemon.game.irregularities import Code
from shoe_daemon.game.rules import FaceUp

DEAL_ORDER = "PBPB"
SIDE = {"P": "punter", "B": "banker"}


class OrderOfPlay:
    def __init__(
        self, core: Core, inventory: Inventory, drawing: Drawing, calls: Calls, holds: Holds,
        latches: Latches,
    ) -> None:
        self.core = core
        self.inventory = inventory
        self.drawing = drawing
        self.calls = calls
        self.holds = holds
        self.latches = latches

    def dispatch(self, message: Message) -> None:
        """Play one message. HELLO and HB change nothing in the game; a FAULT only opens or
        clears a latch, where the console latches them (latches.py). Before the table's
        first `BTN,SHOE` nothing else is played: it belongs to a shoe in play whose start the
        table never saw (`unseen`)."""
        if self.core.state == "no_shoe" and self._unseen(message):
            return
        if isinstance(message, Card):
            if self.inventory.take(message):
                self.route(message)
        elif isinstance(message, Button):
            self.button(message)
        elif isinstance(message, Cut):
            self.inventory.cut()
        elif isinstance(message, Empty):
            self.inventory.empty()
        elif isinstance(message, Fault) and self.core.latching:
            self.latches.fault(message)

    def _unseen(self, message: Message) -> bool:
        """A card, the cut card, `EMPTY` or a button other than `SHOE` before any shoe was
        loaded: the table joined a shoe in play. Its cards cannot be counted against the
        packs, nor its cut card and last coup placed (the profile's `packs_source` and
        `cut_source`; 000 rule 24), so none of its coups can be decided right: they are not
        played, and the next `BTN,SHOE` starts the first shoe the table follows."""
        if isinstance(message, Button) and message.name == "SHOE":
            return False
        if not isinstance(message, Card | Button | Cut | Empty):
            return False
        self.core.unseen += 1
        return True

    # ---- cards ------------------------------------------------------------------------------

    def route(self, card: Card) -> None:
        """Place one card out of the shoe (counted already) according to the coup's state."""
        core = self.core
        if core.state in BETWEEN_COUPS:
            self._outside_coup(card)
            return
        coup = core.coup
        assert coup is not None
        profile = core.profile
        if card.face == "U" and profile.face_up is FaceUp.VOID:
            core.irregularity(
                Code.FACE_UP_IN_SHOE,
                f"{card.code} came out face up: null and void, the next card takes its place",
                rule=profile.face_up_source,
            )
            self.inventory.check_exhausted()
            return
        if card.code == cards.UNREADABLE:
            core.hold_for(Code.UNREADABLE_CARD, "the reader could not read a card", card)
            return
        if core.state == "dealing":
            self._deal(coup, card)
        elif core.state == "punter_to_declare":
            if card.dest is None:
                core.hold_for(
                    Code.DECLARATION_MISSING,
                    f"{card.code} came before the punter's CARTE or RESTE",
                    card,
                )
                return
            # With a table position sensor the card's place says what the punter declared.
            self.drawing.declare("CARTE" if card.dest == "P" else "RESTE")
            self.route(card)
            return
        elif core.state == "punter_drawing":
            if card.dest == "B":
                self._wrong_order(card, "the punter's third card")
                return
            self.drawing.place("P", card)
            core.punter_drew()
        elif core.state == "banker_to_play":
            if card.dest == "P" and not coup.redress_pending:
                self._wrong_order(card, "the banker's third card")
                return
            if self.calls.redress(card):
                return
            self.drawing.place("B", card)
            core.decide()
        self.inventory.check_exhausted()

    def _deal(self, coup: Coup, card: Card) -> None:
        dealt = len(coup.punter) + len(coup.banker)
        expected = DEAL_ORDER[dealt]
        if card.dest is not None and card.dest != expected:
            self._wrong_order(card, f"the {SIDE[expected]}'s card ({coup.position(expected)})")
            return
        self.drawing.place(expected, card)
        if dealt == 3:
            self.drawing.four_dealt()

    def _outside_coup(self, card: Card) -> None:
        if self.calls.late_card(card):
            return
        last = self.core.coup
        where = "before the first deal" if last is None else f"after coup {last.number}"
        if card.face == "D":
            self.inventory.carry(card)
            fate = "not uncovered: it stays on the table for the next deal (000 rule 13)"
        else:
            fate = "uncovered: it goes to the discard"
        self.core.irregularity(Code.WRONG_NUMBER, f"{card.code} dealt {where}; {fate}")

    def _wrong_order(self, card: Card, belongs: str) -> None:
        self.core.hold_for(
            Code.WRONG_ORDER,
            f"{card.code} went to the {SIDE[card.dest or 'P']}'s place; it is {belongs}",
            card,
        )

    # ---- buttons ------------------------------------------------------------------------------

    def button(self, button: Button) -> None:
        core, name = self.core, button.name
        if core.state == "on_hold" and self.holds.resolve(button, self.route):
            return
        if name == "SHOE" or name == "DEAL":
            if core.state in IN_COUP:
                core.hold_for(
                    Code.COUP_NOT_FINISHED,
                    f"BTN {name} pressed while coup {core.coup.number if core.coup else '?'} "
                    "is undecided",
                    button,
                )
            elif name == "SHOE":
                self.inventory.new_shoe(button.arg)
            else:
                self._start_coup()
        elif name == "KEY":
            self.holds.supervisor = button.arg
        elif name == "VOID":
            self.holds.void()
        elif name in ("CARTE", "RESTE"):
            self.calls.punter_button(name)
        elif name == "STAND":
            self.calls.stand()
        elif name == "TABLE" or name == "FREE":
            self.drawing.bind(button.arg or "", bound=name == "TABLE")
        elif name == "EXPOSE" and core.coup is not None and core.state in IN_COUP:
            self.drawing.expose(button.arg or "", pressed=True)
        # OK and ENTER with nothing on hold, and buttons with no meaning now, change nothing.

    def _start_coup(self) -> None:
        core = self.core
        shoe = self.inventory.loaded()
        number = core.coup.number + 1 if core.coup is not None else 1
        last = self.inventory.next_coup_is_last()
        punter_bound, banker_bound = self.drawing.bindings()
        core.coup = Coup(shoe.number, number, last, punter_bound, banker_bound)
        self.holds.supervisor = None
        core.deal()
        core.moment("coup", shoe.number, number)
        if shoe.finished:
            core.irregularity(
                Code.DEAL_AFTER_LAST_COUP, f"coup {number} dealt after the shoe's last coup"
            )
        carried = self.inventory.take_carried()
        while carried and core.state != "on_hold":
            self.route(carried.pop(0))
        self.holds.put_first(carried)
