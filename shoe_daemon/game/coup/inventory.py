"""The shoe's inventory and its last coup: cards counted out, foreign cards, the cut card,
the end of the shoe, and the cards carried to the next deal.

Every card out of the shoe is counted against the packs the shoe was loaded with; a copy
more than the packs hold is a foreign card and holds for a supervisor. The cut card makes
the next coup the last (000: "counts off seven cards from the bottom"); a coup the shoe
cannot finish is cancelled without loss (000 rule 24).
"""

from __future__ import annotations

from drivers.messages import Card
from shoe_daemon.game import cards
from shoe_daemon.game.coup.core import Core, Shoe
from shoe_daemon.game.coup.states import IN_COUP
from shoe_daemon.game.irregularities import Code

WHOLE_COUP = 6  # with no position from the seed, the cut card must leave at least this


class Inventory:
    def __init__(self, core: Core) -> None:
        self.core = core
        self.shoes = 0  # shoes loaded at this table, the one in play included

    def new_shoe(self, decks: str | None) -> None:
        """BTN,SHOE: a fresh shoe of `decks` packs (the house's number if not given)."""
        core = self.core
        self.shoes += 1
        packs = int(decks) if decks else core.profile.packs
        core.shoe = Shoe(number=self.shoes, packs=packs)
        core.coup = None
        core.load_shoe()
        core.moment("shoe", self.shoes)

    def loaded(self) -> Shoe:
        """The shoe in play. Play reaches the inventory only once a `BTN,SHOE` loaded one: a
        table that joined a shoe in play plays nothing of it (play.py, `unseen`)."""
        shoe = self.core.shoe
        assert shoe is not None, "no shoe loaded"
        return shoe

    def take(self, card: Card) -> bool:
        """Count a card out of the shoe; False if it is foreign (and play now holds)."""
        self.loaded().seen += 1
        return card.code == cards.UNREADABLE or not self.foreign(card)

    def foreign(self, card: Card) -> bool:
        """More copies of a card than the packs hold: hold for a supervisor."""
        shoe = self.core.shoe
        assert shoe is not None
        shoe.copies[card.code] += 1
        if shoe.copies[card.code] <= shoe.packs:
            return False
        self.core.hold_for(
            Code.FOREIGN_CARD,
            f"{card.code}: copy {shoe.copies[card.code]} of a {shoe.packs}-pack shoe",
            card,
            rule=self.core.profile.packs_source,
        )
        return True

    def discard(self, card: Card) -> None:
        """A card out of the shoe that goes straight to the discard unplayed (a forfeited
        coup's, dealt while its report held play): counted out all the same."""
        shoe = self.core.shoe
        assert shoe is not None
        shoe.seen += 1
        if card.code != cards.UNREADABLE:
            shoe.copies[card.code] += 1

    def give_back(self, card: Card) -> None:
        """A foreign card taken out of play: it never belonged to the packs."""
        shoe = self.core.shoe
        assert shoe is not None
        shoe.copies[card.code] -= 1
        shoe.seen -= 1

    def carry(self, card: Card) -> None:
        """000 rule 13: a card dealt face down where none may come stays for the next deal."""
        shoe = self.core.shoe
        assert shoe is not None
        shoe.carried.append(Card(card.code, card.face, None))

    def take_carried(self) -> list[Card]:
        shoe = self.loaded()
        carried, shoe.carried = shoe.carried, []
        return carried

    def next_coup_is_last(self) -> bool:
        """At DEAL: whether this coup is the shoe's last (the cut card came out before it)."""
        shoe = self.loaded()
        last = shoe.last_coup_next and not shoe.finished
        shoe.last_coup_next = False
        return last

    def cut(self) -> None:
        shoe = self.loaded()
        profile = self.core.profile
        expected = profile.cut_cards_behind
        misplaced = shoe.left != expected if expected is not None else shoe.left < WHOLE_COUP
        if misplaced:
            want = f"{expected}" if expected is not None else f"at least {WHOLE_COUP}"
            self.core.irregularity(
                Code.CUT_CARD_MISPLACED,
                f"cut card came out with {shoe.left} cards left, expected {want}",
                rule=profile.cut_source,
            )
        shoe.last_coup_next = True

    def empty(self) -> None:
        if self.core.state in IN_COUP:
            self._short_last_coup("the empty sensor reports no cards left")

    def check_exhausted(self) -> None:
        """000 rule 24: a coup the shoe cannot finish is cancelled without loss."""
        shoe = self.core.shoe
        if self.core.state in IN_COUP and shoe is not None and shoe.left <= 0:
            self._short_last_coup(f"every card of the {shoe.packs}-pack shoe has been dealt")

    def _short_last_coup(self, why: str) -> None:
        self.core.irregularity(Code.SHORT_LAST_COUP, why)
        self.core.decide(outcome="cancelled")
