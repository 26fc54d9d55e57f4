"""Declarations and drawing: who may choose, what the house's table says, the cards placed.

A side *bound* to the house's table ("after the shoe") plays each cell as the table says;
a *free* side chooses: the profile's default, `BTN,TABLE` to bind, `BTN,FREE` (protocol
1.1) to free, 000 rule 8 to bind the banker. The calls a side makes against its table, and
their redress, are in calls.py. The transition table's callbacks for the game are here.
"""

from __future__ import annotations

from typing import Any

from drivers.messages import Card
from shoe_daemon.game import cards
from shoe_daemon.game.coup.core import Core, Coup
from shoe_daemon.game.coup.states import BETWEEN_COUPS
from shoe_daemon.game.irregularities import Code
from shoe_daemon.game.rules import Game, Play

POSITIONS = ("P1", "P2", "P3", "B1", "B2", "B3")


class Drawing:
    def __init__(self, core: Core) -> None:
        self.core = core
        self.profile = core.profile
        self.next_bound: dict[str, bool] = {}  # BTN,TABLE / BTN,FREE pressed between coups

    @property
    def coup(self) -> Coup:
        assert self.core.coup is not None
        return self.core.coup

    # ---- what the table says ------------------------------------------------------------

    def punter_play(self) -> Play:
        coup = self.coup
        return self.profile.punter_ruling(cards.total(coup.punter), coup.punter_bound).play

    def banker_play(self) -> Play:
        """The banker's freedom now: a free banker chooses everywhere (000 'he can play free')."""
        coup = self.coup
        if not coup.banker_bound:
            return Play.OPTION
        third = cards.points(coup.punter[2]) if len(coup.punter) == 3 else None
        return self.profile.banker_ruling(cards.total(coup.banker), third).play

    def four_dealt(self) -> None:
        """000, 002, 003 "Schlagrecht": a natural ends the deal; else the punter's cell."""
        coup, core = self.coup, self.core
        if cards.total(coup.punter) >= 8 or cards.total(coup.banker) >= 8:
            core.decide()
            return
        play = self.punter_play()
        if play is Play.DRAW:
            core.punter_draws()
        elif play is Play.OPTION:
            core.ask_declaration()
        else:
            core.punter_stands()

    # ---- callbacks of the transition table -----------------------------------------------

    def implied(self, event: Any) -> None:
        """Without a choice no button comes (protocol): his cell declares for him."""
        self.coup.declaration = "CARTE" if event.transition.dest == "punter_drawing" else "RESTE"

    def declared(self, event: Any) -> None:
        """His own CARTE or RESTE: it binds him (000 rule 17)."""
        self.implied(event)
        self.coup.declared = True

    def banker_plays(self, event: Any) -> None:
        """Bound to stand: "where the rules bind him to stand, nothing more comes"."""
        if self.banker_play() is Play.STAND:
            self.coup.banker_bound_stand = True
            self.core.decide()

    # ---- buttons --------------------------------------------------------------------------

    def declare(self, name: str) -> None:
        (self.core.carte if name == "CARTE" else self.core.reste)()

    def bind(self, side: str, bound: bool) -> None:
        """BTN,TABLE binds a side to the house's table for the coup; BTN,FREE (protocol 1.1)
        lets it play free (003: banco solo, "nach Belieben"). Between coups, for the next."""
        if self.profile.game is Game.PUNTO_BANCO or side not in ("P", "B"):
            return
        coup, state = self.core.coup, self.core.state
        if state in BETWEEN_COUPS or coup is None:
            self.next_bound[side] = bound
            return
        if not bound:
            if side == "P":
                coup.punter_bound = False  # his own CARTE or RESTE is now honoured
            elif not {"P1", "P2"} <= coup.exposed:  # 000 rule 8 binds him all the same
                coup.banker_bound = False
            return
        if side == "P":
            coup.punter_bound = True
            if state == "punter_to_declare" and self.punter_play() is not Play.OPTION:
                self.declare("CARTE" if self.punter_play() is Play.DRAW else "RESTE")
        else:
            coup.banker_bound = True
            if state == "banker_to_play" and self.banker_play() is Play.STAND:
                coup.banker_bound_stand = True
                self.core.decide()

    def bindings(self) -> tuple[bool, bool]:
        """At DEAL: whether punter and banker are bound in the coup, from the house and the
        presses since the last coup (Punto Banco binds both: 003)."""
        game_bound = self.profile.game is Game.PUNTO_BANCO
        punter = game_bound or self.next_bound.get("P", not self.profile.punter_free)
        banker = game_bound or self.next_bound.get("B", not self.profile.banker_free)
        self.next_bound.clear()
        return punter, banker

    # ---- cards ------------------------------------------------------------------------------

    def place(self, side: str, card: Card) -> None:
        """A card into a hand; one out of the shoe face up stays valid and is exposed."""
        coup = self.core.coup
        assert coup is not None
        (coup.punter if side == "P" else coup.banker).append(card.code)
        if card.face == "U":
            position = f"{side}{len(coup.punter if side == 'P' else coup.banker)}"
            self.core.irregularity(
                Code.FACE_UP_IN_SHOE,
                f"{card.code} came out face up at {position}: it stays valid and is exposed",
                rule=self.profile.face_up_source,
            )
            self.expose(position)

    def expose(self, position: str, pressed: bool = False) -> None:
        """000 rule 6: P1 uncovered uncovers B1; rule 8: P1 and P2 uncover and bind the banker."""
        coup = self.coup
        if position not in POSITIONS or position in coup.discarded:
            return  # a card gone into the discard unseen is not uncovered (reports.py)
        hand = coup.punter if position[0] == "P" else coup.banker
        if int(position[1]) > len(hand):
            return  # not dealt yet: nothing to uncover
        newly = position not in coup.exposed
        coup.exposed.add(position)
        if not pressed and position in ("P3", "B3"):
            return  # third cards are placed face up anyway (000 rule 9)
        rule = "000 rule 6"
        consequence = ""
        if position == "P1":
            coup.exposed.add("B1")
            consequence = "; the banker uncovers his first card too"
        if {"P1", "P2"} <= coup.exposed:
            rule = "000 rule 8"
            coup.exposed.update(("B1", "B2"))
            coup.banker_bound = True
            consequence = "; the banker uncovers both cards and plays after the shoe"
        if pressed and newly:
            self.core.irregularity(
                Code.EXPOSED_CARD, f"{position} was uncovered by accident{consequence}", rule=rule
            )
