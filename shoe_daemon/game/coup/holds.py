"""Holds and their resolution: what waits while play is held, and what lifts a hold.

While on hold only the buttons of the hold's way out (`WayOut`, from
shoe_daemon.game.irregularities) act, with a supervisor's KEY and VOID and the croupier's OK
and ENTER; everything else the shoe sends waits, in order, and is played once the hold is
lifted. Nothing the shoe sent is dropped. A supervisor's KEY is good for one VOID or OK.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable

from drivers.messages import Button, Card, Cut, Empty, Message
from shoe_daemon.game.coup.core import Core, Hold
from shoe_daemon.game.coup.drawing import Drawing
from shoe_daemon.game.coup.inventory import Inventory
from shoe_daemon.game.coup.states import IN_COUP
from shoe_daemon.game.irregularities import Code, Resolution

ALWAYS_ACT = ("KEY", "VOID", "OK", "ENTER")  # buttons that act during any hold
STARTS_A_COUP = ("DEAL", "SHOE")
THIRD_CARDS = ("P3", "B3")  # face up when dealt (000 rule 9): public already


class Holds:
    def __init__(self, core: Core, inventory: Inventory, drawing: Drawing) -> None:
        self.core = core
        self.inventory = inventory
        self.drawing = drawing
        self.queue: deque[Message] = deque()
        self.supervisor: str | None = None  # badge of the last KEY, good for one VOID or OK

    # ---- what waits ---------------------------------------------------------------------

    def lifts(self, message: Message) -> bool:
        """Whether a message acts during the hold; the rest waits in the queue, in order."""
        if isinstance(message, Card | Cut | Empty):
            return False
        if not isinstance(message, Button):
            return True  # FAULT, HELLO, HB change nothing in the game
        held = self.core.held
        assert held is not None
        return message.name in ALWAYS_ACT or message.name in held.way_out.buttons

    def wait(self, message: Message) -> None:
        self.queue.append(message)

    def put_first(self, messages: Iterable[Message]) -> None:
        """Messages due before those waiting (cards carried into a coup that holds)."""
        self.queue.extendleft(reversed(list(messages)))

    def next_waiting(self) -> Message | None:
        """The next message to play from the queue: None if none waits or play is held."""
        if self.queue and self.core.state != "on_hold":
            return self.queue.popleft()
        return None

    def next_latched(self, blocked: Callable[[Message], bool]) -> Message | None:
        """The next message to play from the queue of a latching machine, where a whole coup
        may have waited behind the console's latch: while play is held, the first waiting
        message that lifts the hold, as if it had come now (the others keep waiting, in
        order); else the next one, unless `blocked` (a coup may not start yet)."""
        queue = self.queue
        if not queue:
            return None
        if self.core.state == "on_hold":
            for i, message in enumerate(queue):
                if self.lifts(message):
                    del queue[i]
                    return message
            return None
        return None if blocked(queue[0]) else queue.popleft()

    # ---- what lifts a hold -------------------------------------------------------------------

    def resolve(self, button: Button, route: Callable[[Card], None],
                by: str = "croupier") -> bool:
        """Lift the hold with this button if its way out takes it; True if the button was used.

        `route` plays a card the hold lets go as the order of play places it; `by` is who
        acted (the shoe's buttons are the croupier's; the console names its signed-in person).
        """
        hold = self.core.held
        assert hold is not None
        how, name, held = hold.way_out.resolution, button.name, hold.message
        if how is Resolution.ENTER and name == "ENTER":
            assert isinstance(held, Card) and button.arg is not None
            self.release(f"ENTER {button.arg}", by)
            card = Card(button.arg, held.face, held.dest)
            if not self.inventory.foreign(card):
                route(card)
            return True
        if how is Resolution.DECLARE and name in ("CARTE", "RESTE"):
            assert isinstance(held, Card)
            self.release(name, by)
            self.drawing.declare(name)
            route(held)
            return True
        if how is Resolution.BANKER_CHOICE and name in ("OK", "STAND"):
            # 000 rule 21: OK, the banker takes the card drawn by mistake; STAND, it is
            # discarded. Either way the coup is decided as redressed.
            assert isinstance(held, Card) and self.core.coup is not None
            self.release(name, by)
            self.core.coup.redress_pending = False
            if name == "OK":
                self.drawing.place("B", held)
            self.core.decide()
            return True
        if name != "OK":
            return False
        if how is Resolution.SUPERVISOR_RULING:
            if self.supervisor is None:
                return True  # OK alone does not uphold it: the hold stays
            badge, self.supervisor = self.supervisor, None
            self.uphold(badge)
            return True
        if how is Resolution.SUPERVISOR_OK:
            if self.supervisor is None:
                return True  # OK alone does not lift it: the hold stays
            badge, self.supervisor = self.supervisor, None
            self.release("OK", badge)
            self._drop(hold)
            self.inventory.check_exhausted()
            return True
        if how is Resolution.OK:
            self.release("OK", by)
            if hold.code is Code.WRONG_ORDER:
                assert isinstance(held, Card)
                # Rectified by the croupier (000 rule 12): the card takes its right place.
                route(Card(held.code, held.face, None))
            return True  # COUP_NOT_FINISHED: the stray DEAL or SHOE press is ignored
        return False

    def void(self) -> None:
        """KEY, then VOID: the coup in play is void; a hold is lifted first."""
        if self.supervisor is None:
            return  # VOID needs a supervisor's KEY first
        badge, self.supervisor = self.supervisor, None
        core = self.core
        if core.state == "on_hold":
            hold = self.release("VOID", badge)
            self._drop(hold)
            if isinstance(hold.message, Button):
                self.queue.appendleft(hold.message)  # the DEAL or SHOE that came too early
            if core.state in IN_COUP:
                # Cards dealt while the coup was held belong to the voided coup.
                self.queue = deque(m for m in self.queue if not isinstance(m, Card))
        if core.state in IN_COUP:
            core.decide(outcome="void")

    def uphold(self, by: str) -> None:
        """A report upheld by a supervisor (`by`): 000 rule 11, the coup is lost to the banker
        (reports.py raised the hold). The lost card stays unseen; the cards dealt while the
        report held play are the forfeited coup's, not the next deal's."""
        core = self.core
        hold, coup = core.held, core.coup
        assert hold is not None and hold.code is Code.BANKER_CARD_LOST and coup is not None
        self.release("OK", by)
        position = hold.position
        if position and position not in coup.exposed and position not in THIRD_CARDS:
            coup.discarded.add(position)  # public before, it stays public
        coup.rulings.append({"code": hold.code.value, "rule": hold.rule, "by": by,
                             "reported_by": hold.by or ""})
        kept, dropped = _this_coups_cards(self.queue)
        self.queue = deque(kept)
        for card in dropped:
            self.inventory.discard(card)
        core.forfeit(outcome="punter")

    def dismiss(self, by: str) -> None:
        """A supervisor (`by`) dismisses a report on the console (the card was recognised
        after all): the hold is lifted and play goes on."""
        hold = self.core.held
        assert hold is not None and hold.way_out.resolution is Resolution.SUPERVISOR_RULING
        self.release("DISMISS", by)

    def release(self, how: str, by: str) -> Hold:
        core = self.core
        hold = core.held
        assert hold is not None
        core.lift()
        core.held = None
        core.resolved(hold, how, by)
        return hold

    def _drop(self, hold: Hold) -> None:
        """The held card leaves play: a foreign one never belonged to the packs."""
        if isinstance(hold.message, Card) and hold.code is Code.FOREIGN_CARD:
            self.inventory.give_back(hold.message)


def _this_coups_cards(queue: Iterable[Message]) -> tuple[list[Message], list[Card]]:
    """What waited behind a forfeited coup, split: what still plays, and its own cards
    (those before the next deal), which go to the discard."""
    kept: list[Message] = []
    dropped: list[Card] = []
    started = False
    for message in queue:
        started = started or (isinstance(message, Button) and message.name in STARTS_A_COUP)
        if started or not isinstance(message, Card):
            kept.append(message)
        else:
            dropped.append(message)
    return kept, dropped
