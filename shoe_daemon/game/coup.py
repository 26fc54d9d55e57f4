"""The coup state machine: one per table, fed decoded shoe messages, reused across coups.

It applies the house profile (shoe_daemon.game.houses) to what the shoe reports and decides
each coup, or holds it when the dealing went wrong. Every rule applied cites its seed:
`000` is Zoppot 1934, `001` the Clermont Club 2015, `003` Grand Casino Baden.

States (`state`):
- `no_shoe`: nothing loaded yet (`BTN,SHOE` not seen).
- `waiting_for_stakes`: a shoe is loaded, no coup dealt yet.
- `dealing`: `BTN,DEAL` pressed, the four cards punter, banker, punter, banker coming.
- `punter_to_declare`: the punter has a choice (CARTE or RESTE).
- `punter_drawing`: the punter draws; his third card is awaited.
- `banker_to_play`: the banker draws or, where he has a choice, may STAND.
- `decided`: the coup's result is out; waiting for the next DEAL.
- `on_hold`: an irregularity stops play until the croupier or a supervisor acts.

While on hold only the buttons that can lift the hold (and KEY/VOID) act; everything else
the shoe sends waits, in order, and is played once the hold is lifted.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from transitions import Machine

from drivers.messages import Button, Card, Cut, Empty, Fault, Message
from shoe_daemon.game import cards, results
from shoe_daemon.game.irregularities import (
    BANKER_TAKES_OR_STANDS,
    KINDS,
    Code,
    Resolution,
    WayOut,
)
from shoe_daemon.game.rules import FaceUp, Game, HouseProfile, Play, swiss_nine

STATES = [
    "no_shoe",
    "waiting_for_stakes",
    "dealing",
    "punter_to_declare",
    "punter_drawing",
    "banker_to_play",
    "decided",
    "on_hold",
]
_IN_COUP = ("dealing", "punter_to_declare", "punter_drawing", "banker_to_play")
BETWEEN_COUPS = ("no_shoe", "waiting_for_stakes", "decided")  # a DEAL or SHOE may come

TRANSITIONS = [
    {"trigger": "load_shoe", "source": "*", "dest": "waiting_for_stakes"},
    {"trigger": "deal", "source": list(BETWEEN_COUPS), "dest": "dealing"},
    {"trigger": "ask_declaration", "source": "dealing", "dest": "punter_to_declare"},
    {
        "trigger": "punter_draws",
        "source": ["dealing", "punter_to_declare", "banker_to_play"],
        "dest": "punter_drawing",
    },
    {"trigger": "banker_turn", "source": list(_IN_COUP), "dest": "banker_to_play"},
    {"trigger": "decide", "source": list(_IN_COUP), "dest": "decided"},
    {"trigger": "hold", "source": [s for s in STATES if s != "on_hold"], "dest": "on_hold"},
]

DEAL_ORDER = "PBPB"  # 000: "the top card ... for the punter ... a card for himself ..."


@dataclass
class Shoe:
    number: int
    packs: int
    seen: int = 0  # cards out of the shoe, foreign ones excepted
    copies: Counter[str] = field(default_factory=Counter)
    last_coup_next: bool = False  # the cut card came out: the next coup is the last
    finished: bool = False  # the last coup has been decided
    carried: list[Card] = field(default_factory=list)  # 000 rule 13: kept for the next deal

    @property
    def size(self) -> int:
        return self.packs * cards.CARDS_PER_PACK

    @property
    def left(self) -> int:
        return self.size - self.seen


@dataclass
class Coup:
    shoe: int
    number: int
    last: bool
    punter_bound: bool
    banker_bound: bool
    punter: list[str] = field(default_factory=list)
    banker: list[str] = field(default_factory=list)
    exposed: set[str] = field(default_factory=set)  # positions P1 P2 P3 B1 B2 B3
    declaration: str | None = None  # CARTE or RESTE, pressed or implied
    declared: bool = False  # the punter said it himself (a button), so it binds him
    banker_bound_stand: bool = False  # decided because the table made the banker stand
    redress_pending: bool = False  # 000 rule 21: a card drawn for the punter by mistake is due
    void_cards: list[str] = field(default_factory=list)
    irregularities: list[str] = field(default_factory=list)
    outcome: str | None = None

    def position(self, side: str) -> str:
        hand = self.punter if side == "P" else self.banker
        return f"{side}{len(hand) + 1}"


@dataclass
class Hold:
    code: Code
    rule: str
    way_out: WayOut  # the buttons that lift it, and the instruction that names them
    resume: str  # state to return to
    message: Message | None = None  # the held card or button


class CoupMachine:
    """Applies a house profile to the stream of shoe messages for one table.

    `handle(message)` feeds one accepted frame's message and returns, in order, the lines
    it produced: results and irregularities (JSON-able dicts, see shoe_daemon.game.results).
    """

    state: str

    def __init__(self, profile: HouseProfile):
        self.profile = profile
        self._lines: list[dict[str, Any]] = []  # produced by the message being handled
        self.shoe: Shoe | None = None
        self.coup: Coup | None = None
        self.hold_: Hold | None = None
        self.supervisor: str | None = None  # badge of the last KEY, good for one VOID or OK
        self.faults: set[str] = set()
        self._queue: deque[Message] = deque()
        self._shoes = 0
        self._next_bound: dict[str, bool] = {}  # BTN,TABLE / BTN,FREE pressed between coups
        self.machine = Machine(
            model=self,
            states=STATES,
            transitions=TRANSITIONS,
            initial="no_shoe",
            auto_transitions=True,
        )

    # ---- input ---------------------------------------------------------------------------

    def restore(self, messages: Iterable[Message], shoes_before: int) -> list[dict[str, Any]]:
        """Rebuild the state from recorded messages (the ledger's, since the last BTN,SHOE).

        The machine depends on nothing but the profile and the messages, so playing them
        again brings back the coup in progress, holds and queue included. Returns the lines
        that replay produced, for the caller to hold against what was recorded; they are
        not published again.
        """
        self._shoes = shoes_before
        produced: list[dict[str, Any]] = []
        for message in messages:
            produced += self.handle(message)
        return produced

    def handle(self, message: Message) -> list[dict[str, Any]]:
        """Play one message; return the lines it produced, in order."""
        self._lines = []
        if self.state == "on_hold" and not self._lifts_hold(message):
            self._queue.append(message)
            return self._lines
        self._dispatch(message)
        self._drain_queue()
        return self._lines

    def _dispatch(self, message: Message) -> None:
        if isinstance(message, Card):
            self._on_card(message)
        elif isinstance(message, Button):
            self._on_button(message)
        elif isinstance(message, Cut):
            self._on_cut()
        elif isinstance(message, Empty):
            self._on_empty()
        elif isinstance(message, Fault):
            (self.faults.add if message.on else self.faults.discard)(message.code)
        # HELLO and HB change nothing in the game: the transport records them.

    def _drain_queue(self) -> None:
        while self._queue and self.state != "on_hold":
            self._dispatch(self._queue.popleft())

    def _lifts_hold(self, message: Message) -> bool:
        """Whether a message acts during a hold; the rest waits in the queue, in order."""
        if isinstance(message, Card | Cut | Empty):
            return False
        if not isinstance(message, Button):
            return True  # FAULT, HELLO, HB change nothing in the game
        if message.name in ("KEY", "VOID", "OK", "ENTER"):
            return True
        assert self.hold_ is not None
        return message.name in self.hold_.way_out.buttons

    # ---- what the table shows --------------------------------------------------------------

    @property
    def lamp(self) -> str:
        """GREEN ready, AMBER waiting for a declaration or the banker's choice, RED on hold."""
        if self.state == "on_hold":
            return "RED"
        if self.state == "punter_to_declare":
            return "AMBER"
        if self.state == "banker_to_play" and self._banker_play() is Play.OPTION:
            return "AMBER"
        return "GREEN"

    # ---- shoe ----------------------------------------------------------------------------------

    def _new_shoe(self, decks: str | None) -> None:
        self._shoes += 1
        packs = int(decks) if decks else self.profile.packs
        self.shoe = Shoe(number=self._shoes, packs=packs)
        self.coup = None
        self.load_shoe()

    def _ensure_shoe(self) -> Shoe:
        """A capture may begin inside a shoe: take it as a new shoe of the house's packs."""
        if self.shoe is None:
            self._new_shoe(None)
        assert self.shoe is not None
        return self.shoe

    def _on_cut(self) -> None:
        shoe = self._ensure_shoe()
        expected = self.profile.cut_cards_behind
        # With no position from the seed, the cut card must at least leave a whole coup (6 cards).
        misplaced = shoe.left != expected if expected is not None else shoe.left < 6
        if misplaced:
            want = f"{expected}" if expected is not None else "at least 6"
            self._irregularity(
                Code.CUT_CARD_MISPLACED,
                f"cut card came out with {shoe.left} cards left, expected {want}",
                rule=self.profile.cut_source,
            )
        shoe.last_coup_next = True

    def _on_empty(self) -> None:
        if self.state in _IN_COUP:
            self._short_last_coup("the empty sensor reports no cards left")

    def _short_last_coup(self, why: str) -> None:
        self._irregularity(Code.SHORT_LAST_COUP, why)
        self._finish("cancelled")

    # ---- cards ----------------------------------------------------------------------------------

    def _on_card(self, card: Card) -> None:
        shoe = self._ensure_shoe()
        shoe.seen += 1
        if card.code != cards.UNREADABLE and self._foreign(card):
            return
        self._route(card)

    def _foreign(self, card: Card) -> bool:
        """More copies of a card than the packs hold: hold for a supervisor."""
        assert self.shoe is not None
        self.shoe.copies[card.code] += 1
        if self.shoe.copies[card.code] <= self.shoe.packs:
            return False
        self._hold(
            Code.FOREIGN_CARD,
            f"{card.code}: copy {self.shoe.copies[card.code]} of a {self.shoe.packs}-pack shoe",
            card,
            rule=self.profile.packs_source,
        )
        return True

    def _route(self, card: Card) -> None:
        """Place one card out of the shoe (counted already) according to the coup's state."""
        if self.state in BETWEEN_COUPS:
            self._card_outside_coup(card)
            return
        coup = self.coup
        assert coup is not None
        if card.face == "U" and self.profile.face_up is FaceUp.VOID:
            coup.void_cards.append(card.code)
            self._irregularity(
                Code.FACE_UP_IN_SHOE,
                f"{card.code} came out face up: null and void, the next card takes its place",
                rule=self.profile.face_up_source,
            )
            self._check_exhausted()
            return
        if card.code == cards.UNREADABLE:
            self._hold(Code.UNREADABLE_CARD, "the reader could not read a card", card)
            return
        if self.state == "dealing":
            self._deal_card(coup, card)
        elif self.state == "punter_to_declare":
            if card.dest is None:
                self._hold(
                    Code.DECLARATION_MISSING,
                    f"{card.code} came before the punter's CARTE or RESTE",
                    card,
                )
                return
            # With a table position sensor the card's place says what the punter declared.
            self._declare("CARTE" if card.dest == "P" else "RESTE")
            self._route(card)
            return
        elif self.state == "punter_drawing":
            if card.dest == "B":
                self._wrong_order(card, "the punter's third card")
                return
            self._add(coup, "P", card)
            self._banker_turn()
        elif self.state == "banker_to_play":
            self._banker_card(coup, card)
        self._check_exhausted()

    def _deal_card(self, coup: Coup, card: Card) -> None:
        expected = DEAL_ORDER[len(coup.punter) + len(coup.banker)]
        if card.dest is not None and card.dest != expected:
            self._wrong_order(card, f"the {_SIDE[expected]}'s card ({coup.position(expected)})")
            return
        self._add(coup, expected, card)
        if len(coup.punter) + len(coup.banker) == 4:
            self._after_four(coup)

    def _banker_card(self, coup: Coup, card: Card) -> None:
        if card.dest == "P" and not coup.redress_pending:
            self._wrong_order(card, "the banker's third card")
            return
        if coup.redress_pending:
            # 000 rule 21: the card drawn by mistake for the punter goes to the banker
            # if he asks for a card, else to the discard.
            play = self._banker_play()
            if play is Play.OPTION:
                self._hold(
                    Code.FAUX_TIRAGE,
                    f"{card.code} was drawn for the punter against the table: the banker "
                    "takes it (OK) or stands (STAND) and it goes to the discard",
                    card,
                    rule=self._faux_tirage_rule(),
                    way_out=BANKER_TAKES_OR_STANDS,
                )
                return
            coup.redress_pending = False
        self._add(coup, "B", card)
        self._decide()

    def _add(self, coup: Coup, side: str, card: Card) -> None:
        position = coup.position(side)
        (coup.punter if side == "P" else coup.banker).append(card.code)
        if card.face == "U":
            self._irregularity(
                Code.FACE_UP_IN_SHOE,
                f"{card.code} came out face up at {position}: it stays valid and is exposed",
                rule=self.profile.face_up_source,
            )
            self._expose(coup, position)

    def _card_outside_coup(self, card: Card) -> None:
        last = self.coup
        if last is not None and last.redress_pending:
            # The card drawn for the punter by mistake, after the banker was bound to stand:
            # 000 rule 21 sends it to the discard; the faux tirage is on record already.
            last.redress_pending = False
            last.void_cards.append(card.code)
            return
        if last is not None and last.banker_bound_stand and self.state == "decided":
            last.banker_bound_stand = False
            self._irregularity(
                Code.FAUX_TIRAGE,
                f"{card.code} drawn by the banker though the table binds him to stand: "
                "it goes to the discard",
                rule=self._faux_tirage_rule(),
            )
            return
        where = "before the first deal" if last is None else f"after coup {last.number}"
        if card.face == "D":
            assert self.shoe is not None
            self.shoe.carried.append(Card(card.code, card.face, None))
            fate = "not uncovered: it stays on the table for the next deal (000 rule 13)"
        else:
            fate = "uncovered: it goes to the discard"
        self._irregularity(Code.WRONG_NUMBER, f"{card.code} dealt {where}; {fate}")

    def _check_exhausted(self) -> None:
        """000 rule 24: a coup the shoe cannot finish is cancelled without loss."""
        if self.state in _IN_COUP and self.shoe is not None and self.shoe.left <= 0:
            self._short_last_coup(f"every card of the {self.shoe.packs}-pack shoe has been dealt")

    # ---- the game -------------------------------------------------------------------------------

    def _after_four(self, coup: Coup) -> None:
        p, b = cards.total(coup.punter), cards.total(coup.banker)
        if p >= 8 or b >= 8:
            # 000, 002, 003 "Schlagrecht": a natural ends the deal; 9 beats 8.
            self._decide()
            return
        play = self.profile.punter_ruling(p, coup.punter_bound).play
        if play is Play.DRAW:
            coup.declaration = "CARTE"
            self.punter_draws()
        elif play is Play.OPTION:
            self.ask_declaration()
        else:
            coup.declaration = "RESTE"
            self._banker_turn()

    def _punter_third(self) -> int | None:
        assert self.coup is not None
        return cards.points(self.coup.punter[2]) if len(self.coup.punter) == 3 else None

    def _banker_play(self) -> Play:
        """The banker's freedom now: a free banker chooses everywhere (000 'he can play free')."""
        coup = self.coup
        assert coup is not None
        if not coup.banker_bound:
            return Play.OPTION
        return self.profile.banker_ruling(cards.total(coup.banker), self._punter_third()).play

    def _banker_turn(self) -> None:
        coup = self.coup
        assert coup is not None
        self.banker_turn()
        if self._banker_play() is Play.STAND:
            # Bound to stand: "where the rules bind him to stand, nothing more comes".
            coup.banker_bound_stand = True
            self._decide()

    def _declare(self, name: str) -> None:
        coup = self.coup
        assert coup is not None
        coup.declaration = name
        coup.declared = True
        if name == "CARTE":
            self.punter_draws()
        else:
            self._banker_turn()

    def _decide(self) -> None:
        assert self.coup is not None
        self._finish(results.outcome_of(self.coup.punter, self.coup.banker))

    def _finish(self, outcome: str) -> None:
        coup, shoe = self.coup, self.shoe
        assert coup is not None and shoe is not None
        coup.outcome = outcome
        if self.state != "decided":
            if self.state == "on_hold":
                self.to_decided()
            else:
                self.decide()
        if coup.last:
            shoe.finished = True
        swiss = None
        if self.profile.swiss_nine:
            swiss = swiss_nine(coup.banker[:2]) if len(coup.banker) >= 2 else ()
        self._lines.append(
            results.coup_result(
                shoe=coup.shoe,
                coup=coup.number,
                profile=self.profile.name,
                outcome=outcome,
                punter=coup.punter,
                banker=coup.banker,
                last_coup=coup.last,
                irregularities=coup.irregularities,
                swiss_nine=swiss,
            )
        )

    # ---- buttons --------------------------------------------------------------------------------

    def _on_button(self, button: Button) -> None:
        name = button.name
        if self.state == "on_hold" and self._resolve(button):
            return
        if name == "SHOE" or name == "DEAL":
            if self.state in _IN_COUP:
                self._hold(
                    Code.COUP_NOT_FINISHED,
                    f"BTN {name} pressed while coup {self.coup.number if self.coup else '?'} "
                    "is undecided",
                    button,
                )
            elif name == "SHOE":
                self._new_shoe(button.arg)
            else:
                self._start_coup()
        elif name == "KEY":
            self.supervisor = button.arg
        elif name == "VOID":
            self._void()
        elif name in ("CARTE", "RESTE"):
            self._punter_button(name)
        elif name == "STAND":
            self._stand()
        elif name == "TABLE" or name == "FREE":
            self._bind(button.arg or "", bound=name == "TABLE")
        elif name == "EXPOSE" and self.coup is not None and self.state in _IN_COUP:
            self._expose(self.coup, button.arg or "", pressed=True)
        # OK and ENTER with nothing on hold, and buttons with no meaning now, change nothing.

    def _start_coup(self) -> None:
        shoe = self._ensure_shoe()
        number = self.coup.number + 1 if self.coup is not None else 1
        game_bound = self.profile.game is Game.PUNTO_BANCO
        coup = Coup(
            shoe=shoe.number,
            number=number,
            last=shoe.last_coup_next and not shoe.finished,
            punter_bound=game_bound or self._next_bound.get("P", not self.profile.punter_free),
            banker_bound=game_bound or self._next_bound.get("B", not self.profile.banker_free),
        )
        self._next_bound.clear()
        shoe.last_coup_next = False
        self.coup = coup
        self.supervisor = None
        self.deal()
        if shoe.finished:
            self._irregularity(
                Code.DEAL_AFTER_LAST_COUP, f"coup {number} dealt after the shoe's last coup"
            )
        carried, shoe.carried = deque(shoe.carried), []
        while carried and self.state != "on_hold":
            self._route(carried.popleft())
        self._queue.extendleft(reversed(carried))

    def _punter_button(self, name: str) -> None:
        coup = self.coup
        if coup is None:
            return
        if self.state == "decided" and coup.banker_bound_stand and len(coup.punter) == 2:
            # The table made the banker stand as soon as the punter stood: a bound punter's
            # CARTE now is still his faux tirage, and the card drawn for him is discarded.
            if name == "CARTE" and coup.punter_bound and not coup.declared:
                coup.declared = True
                coup.banker_bound_stand = False
                coup.redress_pending = True
                self._irregularity(
                    Code.FAUX_TIRAGE,
                    "the punter, bound by the table, called CARTE where the table says RESTE: "
                    "the banker stands, so the card drawn for him goes to the discard",
                    rule=self._faux_tirage_rule(),
                )
            return
        if self.state == "punter_to_declare":
            self._declare(name)
            return
        in_punter_turn = self.state == "punter_drawing" or (
            self.state == "banker_to_play" and len(coup.banker) == 2 and len(coup.punter) == 2
        )
        if not in_punter_turn or coup.declaration == name or coup.declared:
            return  # a repeated or late press: the first declaration binds (000 rule 17)
        if not coup.punter_bound:
            # 000 rule 17 / 003 "nach Belieben": a free punter's own call is his to make.
            self._declare(name)
            return
        self._irregularity(
            Code.FAUX_TIRAGE,
            f"the punter, bound by the table, called {name} where the table says "
            f"{coup.declaration}: "
            + (
                "the card drawn for him goes to the banker if he draws, else to the discard"
                if name == "CARTE"
                else "the call is disregarded and he draws"
            ),
            rule=self._faux_tirage_rule(),
        )
        if name == "CARTE":
            coup.redress_pending = True

    def _stand(self) -> None:
        coup = self.coup
        if coup is None or self.state != "banker_to_play":
            return
        play = self._banker_play()
        if play is Play.DRAW:
            self._irregularity(
                Code.FAUX_TIRAGE,
                "the banker, bound by the table, stood where the table makes him draw: "
                "the stand is disregarded and he draws",
                rule=self._faux_tirage_rule(),
            )
            return
        self._decide()

    def _bind(self, side: str, bound: bool) -> None:
        """BTN,TABLE binds a side to the house's table for the coup; BTN,FREE (protocol 1.1)
        lets it play free (003: banco solo, "nach Belieben"). Between coups, for the next."""
        if self.profile.game is Game.PUNTO_BANCO or side not in ("P", "B"):
            return
        coup = self.coup
        if self.state in BETWEEN_COUPS or coup is None:
            self._next_bound[side] = bound
            return
        if not bound:
            if side == "P":
                coup.punter_bound = False  # his own CARTE or RESTE is now honoured
            elif not {"P1", "P2"} <= coup.exposed:  # 000 rule 8 binds him all the same
                coup.banker_bound = False
            return
        if side == "P":
            coup.punter_bound = True
            if self.state == "punter_to_declare":
                play = self.profile.punter_ruling(cards.total(coup.punter), True).play
                if play is not Play.OPTION:
                    self._declare("CARTE" if play is Play.DRAW else "RESTE")
        else:
            coup.banker_bound = True
            if self.state == "banker_to_play" and self._banker_play() is Play.STAND:
                coup.banker_bound_stand = True
                self._decide()

    def _expose(self, coup: Coup, position: str, pressed: bool = False) -> None:
        if position not in ("P1", "P2", "P3", "B1", "B2", "B3"):
            return
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
            self._irregularity(
                Code.EXPOSED_CARD, f"{position} was uncovered by accident{consequence}", rule=rule
            )

    def _void(self) -> None:
        if self.supervisor is None:
            return  # VOID needs a supervisor's KEY first
        badge, self.supervisor = self.supervisor, None
        if self.state == "on_hold":
            hold = self._release(how="VOID", by=badge)
            self._drop_held(hold)
            if isinstance(hold.message, Button):
                self._queue.appendleft(hold.message)  # the DEAL or SHOE that came too early
            if self.state in _IN_COUP:
                # Cards dealt while the coup was held belong to the voided coup.
                assert self.coup is not None
                self.coup.void_cards.extend(m.code for m in self._queue if isinstance(m, Card))
                self._queue = deque(m for m in self._queue if not isinstance(m, Card))
        if self.state in _IN_COUP:
            self._finish("void")

    # ---- holds --------------------------------------------------------------------------------

    def _hold(
        self,
        code: Code,
        detail: str,
        message: Message | None = None,
        rule: str | None = None,
        way_out: WayOut | None = None,
    ) -> None:
        """Stop play: `way_out` (by default the code's) says which buttons lift the hold."""
        kind = KINDS[code]
        way_out = way_out or kind.hold
        assert way_out is not None, f"{code} has no way out of a hold"
        rule = rule or kind.rule
        self.hold_ = Hold(code=code, rule=rule, way_out=way_out, resume=self.state, message=message)
        self.hold()
        self._irregularity(code, detail, rule=rule, hold=way_out)

    def _release(self, how: str, by: str) -> Hold:
        hold = self.hold_
        assert hold is not None
        self.hold_ = None
        getattr(self, f"to_{hold.resume}")()
        shoe, coup = self._where()
        self._lines.append(results.resolution(code=hold.code, shoe=shoe, coup=coup, how=how, by=by))
        return hold

    def _drop_held(self, hold: Hold) -> None:
        card = hold.message
        if isinstance(card, Card) and self.shoe is not None:
            if hold.code is Code.FOREIGN_CARD:
                self.shoe.copies[card.code] -= 1
                self.shoe.seen -= 1  # it never belonged to the packs
            elif self.coup is not None:
                self.coup.void_cards.append(card.code)

    def _resolve(self, button: Button) -> bool:
        """Try to lift the hold with this button; True if the button was used for that."""
        hold = self.hold_
        assert hold is not None
        how = hold.way_out.resolution
        name = button.name
        if name in ("KEY", "VOID"):
            return False
        if how is Resolution.ENTER and name == "ENTER":
            held = hold.message
            assert isinstance(held, Card) and button.arg is not None
            self._release(how=f"ENTER {button.arg}", by="croupier")
            card = Card(button.arg, held.face, held.dest)
            if not self._foreign(card):
                self._route(card)
            return True
        if how is Resolution.DECLARE and name in ("CARTE", "RESTE"):
            held = hold.message
            assert isinstance(held, Card)
            self._release(how=name, by="croupier")
            self._declare(name)
            self._route(held)
            return True
        if how is Resolution.BANKER_CHOICE and name in ("OK", "STAND"):
            held = hold.message
            assert isinstance(held, Card) and self.coup is not None
            self._release(how=name, by="croupier")
            self.coup.redress_pending = False
            if name == "OK":
                self._add(self.coup, "B", held)
            else:
                self.coup.void_cards.append(held.code)
            self._decide()
            return True
        if name != "OK":
            return False
        if how is Resolution.SUPERVISOR_OK:
            if self.supervisor is None:
                return True  # OK alone does not lift it: the hold stays
            badge, self.supervisor = self.supervisor, None
            self._release(how="OK", by=badge)
            self._drop_held(hold)
            self._check_exhausted()
            return True
        if how is Resolution.OK:
            self._release(how="OK", by="croupier")
            if hold.code is Code.WRONG_ORDER:
                held = hold.message
                assert isinstance(held, Card)
                # Rectified by the croupier (000 rule 12): the card takes its right place.
                self._route(Card(held.code, held.face, None))
            return True  # COUP_NOT_FINISHED: the stray DEAL or SHOE press is ignored
        return False

    def _wrong_order(self, card: Card, belongs: str) -> None:
        self._hold(
            Code.WRONG_ORDER,
            f"{card.code} went to the {_SIDE[card.dest or 'P']}'s place; it is {belongs}",
            card,
        )

    # ---- records --------------------------------------------------------------------------------

    def _where(self) -> tuple[int, int]:
        shoe = self.shoe.number if self.shoe is not None else 0
        coup = self.coup.number if self.coup is not None else 0
        return shoe, coup

    def _faux_tirage_rule(self) -> str:
        return self.profile.faux_tirage_source

    def _irregularity(
        self, code: Code, detail: str, rule: str | None = None, hold: WayOut | None = None
    ) -> None:
        """Record an irregularity; a hold's line prints its way out, a warning the code's words."""
        kind = KINDS[code]
        action = hold.action if hold is not None else kind.warning
        assert action is not None, f"{code} has no warning words"
        if self.coup is not None and self.state not in ("waiting_for_stakes", "no_shoe"):
            self.coup.irregularities.append(code.value)
        shoe, coup = self._where()
        self._lines.append(
            results.irregularity(
                code=code.value,
                shoe=shoe,
                coup=coup,
                rule=rule or kind.rule,
                detail=detail,
                hold=hold is not None,
                action=action,
            )
        )


_SIDE = {"P": "punter", "B": "banker"}
