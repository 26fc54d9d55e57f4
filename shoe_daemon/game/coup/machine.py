"""The coup state machine: one per table, fed decoded shoe messages, reused across coups.

It applies the house profile (shoe_daemon.game.houses) to what the shoe reports and decides
each coup, or holds it when the dealing went wrong. Every rule applied cites its seed:
`000` is Zoppot 1934, `001` the Clermont Club 2015, `003` Grand Casino Baden.

`table` below is the machine: every move of the state (shoe_daemon.game.coup.states), what
chooses among moves, and what each move does. The parts decide the rest, each on its own
concern: the order of play (play.py), declarations and drawing (drawing.py, with the calls
against the table and faux tirage in calls.py), holds and their resolution (holds.py), the
shoe's inventory and last coup (inventory.py); they share the state, the shoe, the coup in
play and the hold (core.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from transitions import Machine

from drivers.messages import Message
from shoe_daemon.game.coup.calls import Calls
from shoe_daemon.game.coup.core import Core, Coup, Hold, Shoe
from shoe_daemon.game.coup.drawing import Drawing
from shoe_daemon.game.coup.holds import Holds
from shoe_daemon.game.coup.inventory import Inventory
from shoe_daemon.game.coup.latches import Latches
from shoe_daemon.game.coup.play import OrderOfPlay
from shoe_daemon.game.coup.public import (
    CoupState,
    LatchState,
    ReportState,
    TableState,
    coup_state,
    latch_state,
    snapshot,
)
from shoe_daemon.game.coup.reports import CODES, WHEN, Reports
from shoe_daemon.game.coup.states import BETWEEN_COUPS, IN_COUP, NOT_HELD, STATES
from shoe_daemon.game.rules import HouseProfile, Play, Report


def table(core: Core, drawing: Drawing, reports: Reports) -> list[dict[str, Any]]:
    """Every transition: trigger, from, to, and what it does (its callbacks).

    Each trigger names a moment of the coup; where the game chooses between moves (after
    the fourth card) the part that knows the rule pulls the one trigger that applies
    (docs/coup-machine.md says why). Only a lifted hold is chosen by a condition: it goes
    back to the state it was raised in.
    """
    return [
        {"trigger": "load_shoe", "source": BETWEEN_COUPS, "dest": "waiting_for_stakes"},
        {"trigger": "deal", "source": BETWEEN_COUPS, "dest": "dealing"},
        # After the fourth card, no natural: the punter's cell (Drawing.four_dealt).
        {"trigger": "punter_draws", "source": "dealing", "dest": "punter_drawing",
         "before": drawing.implied},
        {"trigger": "ask_declaration", "source": "dealing", "dest": "punter_to_declare"},
        {"trigger": "punter_stands", "source": "dealing", "dest": "banker_to_play",
         "before": drawing.implied, "after": drawing.banker_plays},
        # The punter's own CARTE or RESTE (a free punter may still change an implied one).
        {"trigger": "carte", "source": ["punter_to_declare", "banker_to_play"],
         "dest": "punter_drawing", "before": drawing.declared},
        {"trigger": "reste", "source": ["punter_to_declare", "punter_drawing"],
         "dest": "banker_to_play", "before": drawing.declared, "after": drawing.banker_plays},
        {"trigger": "punter_drew", "source": "punter_drawing", "dest": "banker_to_play",
         "after": drawing.banker_plays},
        {"trigger": "decide", "source": list(IN_COUP), "dest": "decided",
         "after": core.publish},
        # What only the croupier sees (reports.py). 000 rule 15: the punter's hand counts bac
        # and the banker plays on against it (decided at once if he has more than 0).
        {"trigger": "bac", "source": list(WHEN[Report.PUNTER_BAC].states),
         "dest": "banker_to_play", "before": reports.counted_bac,
         "after": reports.banker_after_bac},
        # 000 rule 11, upheld by a supervisor (its hold lifted first): lost to the banker.
        {"trigger": "forfeit", "source": list(IN_COUP), "dest": "decided",
         "after": core.publish},
        {"trigger": "hold", "source": NOT_HELD, "dest": "on_hold"},
        *(
            {"trigger": "lift", "source": "on_hold", "dest": state, "conditions": core.resumes_here}
            for state in NOT_HELD
        ),
    ]


class CoupMachine:
    """Applies a house profile to the stream of shoe messages for one table.

    `handle(message)` feeds one accepted frame's message and returns, in order, the lines
    it produced: results and irregularities (JSON-able dicts, see shoe_daemon.game.results).

    `latching` (the croupier's console is on): holds and shoe faults leave latches that only
    the console's `resolve` closes, and its supervisor's `void` ends the coup in play
    (latches.py). Each returns the lines it produced, as `handle` does.
    """

    def __init__(self, profile: HouseProfile, latching: bool = False) -> None:
        self.profile = profile
        self._core = core = Core(profile)
        core.latching = latching
        self._inventory = Inventory(core)
        self._drawing = Drawing(core)
        self._holds = Holds(core, self._inventory, self._drawing)
        self._latches = Latches(core, self._holds)
        self._reports = Reports(core, self._drawing)
        self._offered: tuple[Any, tuple[ReportState, ...]] | None = None  # `reports`, kept
        calls = Calls(core, self._drawing)
        self._play = OrderOfPlay(core, self._inventory, self._drawing, calls, self._holds,
                                 self._latches)
        self._machine = Machine(
            model=core,
            states=STATES,
            transitions=table(core, self._drawing, self._reports),
            initial="no_shoe",
            auto_transitions=False,
            send_event=True,
        )

    # ---- input ---------------------------------------------------------------------------

    def restore(self, messages: Iterable[Message], shoes_before: int) -> list[dict[str, Any]]:
        """Rebuild the state from recorded messages (the ledger's, since the last BTN,SHOE).

        The machine depends on nothing but the profile and the messages, so playing them
        again brings back the coup in progress, holds and queue included. Returns the lines
        that replay produced, for the caller to hold against what was recorded; they are
        not published again.
        """
        self._inventory.shoes = shoes_before
        produced: list[dict[str, Any]] = []
        for message in messages:
            produced += self.handle(message)
        return produced

    def handle(self, message: Message) -> list[dict[str, Any]]:
        """Play one message; return the lines it produced, in order."""
        core = self._core
        lines = core.lines = []
        if core.state == "on_hold":
            if not self._holds.lifts(message):
                self._holds.wait(message)
                return lines
        elif core.latching and self._latches.waits(message):
            self._holds.wait(message)
            return lines
        self._play.dispatch(message)
        self._drain()
        return lines

    def resolve(self, latch: str, by: str, way: str | None = None,
                card: str | None = None) -> list[dict[str, Any]]:
        """The console resolves a latch (by `by`, a person's id): with `way` (and the `card`
        keyed in for ENTER) while play is still held for it, else a sign-off. Then what
        waited is played. ValueError, nothing changed, if it cannot be resolved so."""
        lines = self._core.lines = []
        self._latches.resolve(latch, by, way, card, self._play.route)
        self._drain()
        return lines

    def void(self, by: str) -> list[dict[str, Any]]:
        """A supervisor (`by`) voids the coup in play from the console, as KEY then VOID does;
        a hold is lifted first, and its latch resolved. ValueError if nothing is in play."""
        core = self._core
        if core.state not in IN_COUP and core.state != "on_hold":
            raise ValueError("no coup is in play to void")
        lines = core.lines = []
        held = core.held.latch if core.held is not None else None
        self._holds.supervisor = by
        self._holds.void()
        self._latches.close(held)
        self._drain()
        return lines

    def report(self, report: Report | str, by: str, position: str | None = None,
               face: str | None = None, partner: str | None = None) -> list[dict[str, Any]]:
        """What the croupier reports on the console, by `by` (a person's id): a punter's bac
        (000 rule 15), a card the banker lost in the discard (rule 11: play holds for a
        supervisor's ruling), a card fallen from the table (rule 10, `position` and `face`),
        the banker's partner objecting (rule 4, `partner`). Returns the lines it produced;
        ValueError, nothing changed, where the house or the moment does not take it
        (reports.py)."""
        lines = self._core.lines = []
        self._reports.apply(Report(report), by, position, face, partner)
        self._drain()
        return lines

    def refusal(self, report: Report | str, position: str | None = None,
                face: str | None = None, partner: str | None = None) -> str | None:
        """Why `report` cannot be taken now, citing the house's rule; None if it can."""
        return self._reports.refusal(Report(report), position, face, partner)

    @property
    def reports(self) -> tuple[ReportState, ...]:
        """Each report the console offers, at this house and now (the console's buttons).
        Asked after every commit with the console on: kept until what it depends on moves."""
        core, coup, held = self._core, self._core.coup, self._core.held
        key = (core.state, (held.code, held.resume) if held is not None else None,
               None if coup is None else (coup.number, len(coup.punter), len(coup.banker),
                                          coup.bac, frozenset(coup.discarded)))
        if self._offered is None or self._offered[0] != key:
            reports = self._reports
            self._offered = (key, tuple(
                ReportState(report.value, CODES[report].value, reports.cell(report).applies,
                            reports.cell(report).rule, reports.why_not_now(report),
                            reports.positions(report))
                for report in Report))
        return self._offered[1]

    def _drain(self) -> None:
        """Play what waited, in order, as far as play is free to go."""
        holds, dispatch = self._holds, self._play.dispatch
        if not holds.queue:
            return
        if self._core.latching:
            while (waiting := holds.next_latched(self._latches.blocks)) is not None:
                dispatch(waiting)
        else:
            while (waiting := holds.next_waiting()) is not None:
                dispatch(waiting)

    # ---- what the table shows --------------------------------------------------------------

    @property
    def state(self) -> str:
        return self._core.state

    @property
    def lamp(self) -> str:
        """GREEN ready, AMBER waiting for a declaration or the banker's choice, RED on hold,
        and RED while the table waits for a shoe after joining one in play (`unseen`)."""
        state = self._core.state
        if state == "on_hold" or self._core.latches:
            return "RED"
        if state == "no_shoe" and self._core.unseen:
            return "RED"
        if state == "punter_to_declare":
            return "AMBER"
        if state == "banker_to_play" and self._drawing.banker_play() is Play.OPTION:
            return "AMBER"
        return "GREEN"

    @property
    def latching(self) -> bool:
        return self._core.latching

    @property
    def unseen(self) -> int:
        """Messages not played because they came before the table's first `BTN,SHOE`: the
        table joined a shoe in play, and waits for the next shoe (play.py)."""
        return self._core.unseen

    def unseen_said(self) -> dict[str, Any]:
        """What to say, once, when the table joins a shoe in play: why none of its coups is
        decided, by the rules it cannot apply, and when play is published again."""
        profile = self.profile
        return {
            "detail": "the table joined a shoe in play: it did not see the shoe's BTN,SHOE, so "
                      "it cannot count the cards against the packs nor place the cut card and "
                      "the last coup; none of this shoe's coups is published",
            "action": "the table publishes again from the next shoe (BTN,SHOE)",
            "rules": [profile.packs_source, profile.cut_source, "000 rule 24"],
        }

    def watch_decisions(self, told: Callable[[CoupState], None]) -> None:
        """`told` gets each coup as it is decided, exposures and all (the console's recall,
        which plays the ledger again, needs what was public at that moment)."""
        self._core.on_decided = lambda coup: told(coup_state(coup))

    def keep_moments(self) -> None:
        """From now on, note each shoe started, coup started and coup decided, in the order
        they happen, whatever plays them (a frame, what waited behind a latch, an action):
        the table's money closes, settles and starts a shoe by them (`take_moments`)."""
        if self._core.moments is None:
            self._core.moments = []

    def take_moments(self) -> list[tuple[Any, ...]]:
        """The moments noted since last taken: ("shoe", n), ("coup", shoe, n), ("result",
        the coup.result line); none unless `keep_moments` was asked."""
        moments = self._core.moments
        if not moments:
            return []
        self._core.moments = []
        return moments

    @property
    def latches(self) -> tuple[LatchState, ...]:
        """The open latches alone (the console asks after every commit: no whole snapshot)."""
        latches = self._core.latches
        return tuple(latch_state(latch) for latch in latches.values()) if latches else ()

    @property
    def waiting(self) -> int:
        """Messages waiting to be played (behind a hold, or a latch)."""
        return len(self._holds.queue)

    @property
    def public(self) -> TableState:
        """A frozen snapshot of the table now: what the display and the status may read."""
        return snapshot(self._core, self.lamp)

    # The machine's own records, live and changing (its tests look into them); anything that
    # shows the table reads `public` instead.

    @property
    def shoe(self) -> Shoe | None:
        return self._core.shoe

    @property
    def coup(self) -> Coup | None:
        return self._core.coup

    @property
    def hold_(self) -> Hold | None:
        return self._core.held
