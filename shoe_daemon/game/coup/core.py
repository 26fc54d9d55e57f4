"""What the coup machine holds between messages, and the lines the message in hand produced.

`Core` is the `transitions` model: its `state` moves only by the triggers of the table in
`shoe_daemon.game.coup.machine`. The parts (order of play, drawing, holds, inventory) read
and change the shoe, the coup in play and the hold here, and record their lines through it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from drivers.messages import Card, Message
from shoe_daemon.game import cards, results
from shoe_daemon.game.irregularities import KINDS, Code, WayOut
from shoe_daemon.game.rules import HouseProfile, swiss_nine


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
    irregularities: list[str] = field(default_factory=list)
    outcome: str | None = None
    # What the croupier reported on the console (reports.py): the punter's hand thrown into
    # the discard counts bac (000 rule 15); the positions whose cards went into the discard
    # unseen (never shown); each rule applied to the coup, as its result line cites it.
    bac: bool = False
    discarded: set[str] = field(default_factory=set)
    rulings: list[dict[str, str]] = field(default_factory=list)

    def position(self, side: str) -> str:
        hand = self.punter if side == "P" else self.banker
        return f"{side}{len(hand) + 1}"

    def dealt(self) -> tuple[str, ...]:
        """The positions dealt so far, punter's then banker's: P1 P2 ... B1 B2 ..."""
        return (*(f"P{i}" for i in range(1, len(self.punter) + 1)),
                *(f"B{i}" for i in range(1, len(self.banker) + 1)))


@dataclass
class Hold:
    code: Code
    rule: str
    way_out: WayOut  # the buttons that lift it, and the instruction that names them
    resume: str  # the state play goes back to
    message: Message | None = None  # the held card or button
    latch: str | None = None  # the latch it left, when the console latches holds
    by: str | None = None  # who reported it on the console (a report's hold: 000 rule 11)
    position: str | None = None  # the card the report names (000 rule 11: the lost one)


@dataclass
class Latch:
    """A hold or a shoe fault the croupier's console must sign off (latching machines only).

    It stays open after the shoe's own way out lifted the hold, until the console's
    resolution; while one is open the lamp is red and no coup may start (latches.py).
    """

    id: str  # hold-<shoe>-<coup>-<n> or fault-<code>
    kind: str  # "hold" or "fault"
    code: str  # the hold's irregularity code, or the shoe's FAULT code
    rule: str
    action: str  # what the croupier is told
    shoe: int
    coup: int
    hold: Hold | None = None  # the hold, while the machine still holds play for it
    lifted: tuple[str, str] | None = None  # (how, by): the shoe's way out lifted the hold
    on: bool = False  # a fault the shoe still reports


class Core:
    """The state, the shoe, the coup in play, the hold, and the lines being produced."""

    state: str
    # The triggers, bound by transitions from the table in machine.py.
    load_shoe: Callable[..., bool]
    deal: Callable[..., bool]
    punter_draws: Callable[..., bool]
    ask_declaration: Callable[..., bool]
    punter_stands: Callable[..., bool]
    carte: Callable[..., bool]
    reste: Callable[..., bool]
    punter_drew: Callable[..., bool]
    decide: Callable[..., bool]
    hold: Callable[..., bool]
    lift: Callable[..., bool]
    bac: Callable[..., bool]
    forfeit: Callable[..., bool]

    def __init__(self, profile: HouseProfile) -> None:
        self.profile = profile
        self.shoe: Shoe | None = None
        self.coup: Coup | None = None
        self.held: Hold | None = None
        self.lines: list[dict[str, Any]] = []  # produced by the message being handled
        self.latching = False  # the console latches holds and faults (latches.py)
        self.on_decided: Callable[[Coup], None] | None = None  # told of each decided coup
        self.latches: dict[str, Latch] = {}  # open ones, in the order they were opened
        # The moments of play, in order, while someone keeps them (the table's money): a shoe
        # started ("shoe", n), a coup started ("coup", shoe, n), a coup decided ("result", line).
        self.moments: list[tuple[Any, ...]] | None = None
        self._holds_here = (0, 0, 0)  # (shoe, coup, holds raised in it): the latches' ids
        # Messages of a shoe in play before the table's first BTN,SHOE, not played (play.py).
        self.unseen = 0

    def moment(self, *what: Any) -> None:
        if self.moments is not None:
            self.moments.append(what)

    def where(self) -> tuple[int, int]:
        shoe = self.shoe.number if self.shoe is not None else 0
        coup = self.coup.number if self.coup is not None else 0
        return shoe, coup

    def irregularity(
        self, code: Code, detail: str, rule: str | None = None, way_out: WayOut | None = None,
        by: str | None = None,
    ) -> None:
        """Record one; a hold's line prints its way out, a warning's the code's words; `by`,
        the person who reported it on the console."""
        kind = KINDS[code]
        action = way_out.action if way_out is not None else kind.warning
        assert action is not None, f"{code} has no warning words"
        if self.coup is not None and self.state not in ("waiting_for_stakes", "no_shoe"):
            self.coup.irregularities.append(code.value)
        shoe, coup = self.where()
        self.lines.append(
            results.irregularity(
                code=code.value,
                shoe=shoe,
                coup=coup,
                rule=rule or kind.rule,
                detail=detail,
                hold=way_out is not None,
                action=action,
                by=by,
            )
        )

    def hold_for(
        self,
        code: Code,
        detail: str,
        message: Message | None = None,
        rule: str | None = None,
        way_out: WayOut | None = None,
        by: str | None = None,
    ) -> None:
        """Stop play: `way_out` (by default the code's) says which buttons lift the hold;
        `by`, the person whose report on the console raised it."""
        kind = KINDS[code]
        way_out = way_out or kind.hold
        assert way_out is not None, f"{code} has no way out of a hold"
        rule = rule or kind.rule
        self.held = Hold(code, rule, way_out, resume=self.state, message=message, by=by)
        self.hold()
        self.irregularity(code, detail, rule=rule, way_out=way_out, by=by)
        if self.latching:
            self._latch(self.held)

    def resolved(self, hold: Hold, how: str, by: str) -> None:
        shoe, coup = self.where()
        self.lines.append(results.resolution(code=hold.code, shoe=shoe, coup=coup, how=how, by=by))
        latch = self.latches.get(hold.latch or "")
        if latch is not None:  # lifted on the shoe: the console's sign-off is still due
            latch.hold, latch.lifted = None, (how, by)

    def _latch(self, hold: Hold) -> None:
        """Open the latch of a hold just raised; its id numbers the holds of the coup."""
        shoe, coup = self.where()
        here, raised = self._holds_here[:2], self._holds_here[2]
        n = raised + 1 if here == (shoe, coup) else 1
        self._holds_here = (shoe, coup, n)
        latch = Latch(f"hold-{shoe}-{coup}-{n}", "hold", hold.code.value, hold.rule,
                      hold.way_out.action, shoe, coup, hold=hold)
        hold.latch = latch.id
        self.latches[latch.id] = latch

    # ---- transition callbacks ----------------------------------------------------------

    def resumes_here(self, event: Any) -> bool:
        """A lifted hold goes back to the state it was raised in."""
        return self.held is not None and event.transition.dest == self.held.resume

    def publish(self, event: Any) -> None:
        """The decided coup's outcome (given: cancelled, void; else the higher total wins)
        and its result line; the shoe's last coup finishes the shoe."""
        coup, shoe = self.coup, self.shoe
        assert coup is not None and shoe is not None
        coup.outcome = event.kwargs.get("outcome") or results.outcome_of(
            coup.punter, coup.banker, coup.bac)
        if coup.last:
            shoe.finished = True
        swiss = None
        if self.profile.swiss_nine:
            swiss = swiss_nine(coup.banker[:2]) if len(coup.banker) >= 2 else ()
        line = results.coup_result(
            shoe=coup.shoe,
            coup=coup.number,
            profile=self.profile.name,
            outcome=coup.outcome,
            punter=coup.punter,
            banker=coup.banker,
            last_coup=coup.last,
            irregularities=coup.irregularities,
            swiss_nine=swiss,
            bac=coup.bac,
            rulings=coup.rulings,
        )
        self.lines.append(line)
        self.moment("result", line)
        if self.on_decided is not None:
            self.on_decided(coup)
