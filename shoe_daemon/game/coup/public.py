"""What the world outside the machine may read of it: a frozen snapshot, `CoupMachine.public`.

The display (and anything else that shows the table) builds on this and on the lines the
machine published, never on the machine's own records, which play keeps changing. The
snapshot holds every card of the coup in play, face down ones included: what may be shown
of them is the reader's rule (shoe_daemon/display/view.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from shoe_daemon.game.coup.core import Core


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


@dataclass(frozen=True, slots=True)
class HoldState:
    code: str
    rule: str  # as the hold's irregularity line cites it
    action: str  # what the croupier is told to do


@dataclass(frozen=True, slots=True)
class TableState:
    state: str
    lamp: str
    shoe: ShoeState | None
    coup: CoupState | None  # the coup in play, or the last one until the next DEAL
    hold: HoldState | None  # only while the state is on_hold


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
        coup=None if coup is None else CoupState(
            number=coup.number,
            last=coup.last,
            punter=tuple(coup.punter),
            banker=tuple(coup.banker),
            exposed=frozenset(coup.exposed),
            outcome=coup.outcome,
        ),
        hold=None if held is None or core.state != "on_hold" else HoldState(
            code=held.code.value, rule=held.rule, action=held.way_out.action
        ),
    )
