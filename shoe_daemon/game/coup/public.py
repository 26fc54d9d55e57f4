"""What the world outside the machine may read of it: a frozen snapshot, `CoupMachine.public`.

The display (and anything else that shows the table) builds on this and on the lines the
machine published, never on the machine's own records, which play keeps changing. The
snapshot holds every card of the coup in play, face down ones included: what may be shown
of them is the reader's rule (shoe_daemon/display/view.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from shoe_daemon.game.coup.core import Core, Coup, Latch
from shoe_daemon.game.coup.latches import console_ways, only_supervisor


@dataclass(frozen=True, slots=True)
class ShoeState:
    number: int
    packs: int
    cards_left: int
    cut_card_out: bool  # the cut card came out (or the shoe's last coup is on or over)
    last_coup: bool  # the coup to come, or the one in play, is the shoe's last
    finished: bool  # the last coup has been decided


@dataclass(frozen=True, slots=True)
class CoupState:
    number: int
    last: bool
    punter: tuple[str, ...]  # in dealing order, face down ones included
    banker: tuple[str, ...]
    exposed: frozenset[str]  # positions uncovered before the showdown: P1 ... B3
    outcome: str | None  # None while the coup is open; see shoe_daemon.game.results.OUTCOMES
    bac: bool = False  # the punter's hand counts bac: his cards into the discard (000 rule 15)
    discarded: frozenset[str] = frozenset()  # cards gone into the discard unseen: never shown


@dataclass(frozen=True, slots=True)
class HoldState:
    code: str
    rule: str  # as the hold's irregularity line cites it
    action: str  # what the croupier is told to do


@dataclass(frozen=True, slots=True)
class LatchState:
    """A hold or fault waiting for the console's resolution (latching machines only)."""

    id: str
    kind: str  # "hold" or "fault"
    code: str
    rule: str
    action: str  # what the croupier is told
    shoe: int
    coup: int
    held: bool  # the machine still holds play for it: the resolution must take a way out
    ways: tuple[str, ...]  # the console's ways out now; empty: a sign-off
    supervisor: bool  # only a supervisor may resolve it now
    lifted: str | None  # how the shoe's way out lifted the hold (`ENTER 5D` names a card)
    lifted_by: str | None
    fault_on: bool  # a fault the shoe still reports


@dataclass(frozen=True, slots=True)
class ReportState:
    """One report the croupier's console offers (reports.py): whether the house has its rule,
    and whether it may be taken now."""

    kind: str  # punter_bac, banker_card_lost, card_fell, partner_objection
    code: str  # the irregularity it records
    applies: bool  # the house has the rule
    rule: str  # the house's rule, short ("000 rule 15", "... (not printed in 003)")
    why_not: str | None  # None: it may be reported now; else why not, citing the rule
    positions: tuple[str, ...]  # the cards it may name now (rules 10 and 11)


@dataclass(frozen=True, slots=True)
class TableState:
    state: str
    lamp: str
    shoe: ShoeState | None
    coup: CoupState | None  # the coup in play, or the last one until the next DEAL
    hold: HoldState | None  # only while the state is on_hold
    latches: tuple[LatchState, ...] = ()  # open, oldest first; only with the console on


def latch_state(latch: Latch) -> LatchState:
    lifted = latch.lifted
    return LatchState(
        id=latch.id, kind=latch.kind, code=latch.code, rule=latch.rule, action=latch.action,
        shoe=latch.shoe, coup=latch.coup, held=latch.hold is not None,
        ways=console_ways(latch), supervisor=only_supervisor(latch),
        lifted=lifted[0] if lifted else None, lifted_by=lifted[1] if lifted else None,
        fault_on=latch.on,
    )


def coup_state(coup: Coup) -> CoupState:
    return CoupState(
        number=coup.number,
        last=coup.last,
        punter=tuple(coup.punter),
        banker=tuple(coup.banker),
        exposed=frozenset(coup.exposed),
        outcome=coup.outcome,
        bac=coup.bac,
        discarded=frozenset(coup.discarded),
    )


def snapshot(core: Core, lamp: str) -> TableState:
    shoe, coup, held = core.shoe, core.coup, core.held
    open_last = coup is not None and coup.outcome is None and coup.last
    return TableState(
        state=core.state,
        lamp=lamp,
        shoe=None if shoe is None else ShoeState(
            number=shoe.number,
            packs=shoe.packs,
            cards_left=max(shoe.left, 0),
            cut_card_out=shoe.last_coup_next or shoe.finished or open_last,
            last_coup=shoe.last_coup_next or open_last,
            finished=shoe.finished,
        ),
        coup=None if coup is None else coup_state(coup),
        hold=None if held is None or core.state != "on_hold" else HoldState(
            code=held.code.value, rule=held.rule, action=held.way_out.action
        ),
        latches=tuple(latch_state(latch) for latch in core.latches.values()),
    )
