"""What only the croupier sees: the console's reports, applied to the coup in play.

Some of the seeds' rules change a coup in ways the shoe cannot sense; the croupier reports
them on the console (console/actions.py) and this part applies them. Each is taken only
where the house has the rule (`HouseProfile.croupier_rules`, each cell citing its seed, or
"not printed in ..." with the reason) and only in the states where the rule can act
(`WHEN`); anywhere else it is refused with the rule cited, and nothing changes.

- `PUNTER_BAC` (000 rule 15: "his hand is considered a 'bac'"): once the four cards are
  dealt and before the result, while the punter holds his cards. His hand counts 0 and takes
  no more cards; its face-down cards went into the discard unseen and are never shown. A
  banker with more than 0 has then won (he has nothing to draw for); a banker with bac
  himself plays on (every table makes him draw on 0) and the totals decide.
- `BANKER_CARD_LOST` (000 rule 11: "the coup is lost to him"): while the banker deals, a
  card of the coup (its position) that he threw into the discard and that cannot be
  recognised. The croupier's report holds play (a hold and its latch: what the shoe sends
  meanwhile waits); a supervisor upholds it (the shoe's KEY then OK, or the console's OK;
  holds.py `uphold`): the coup is decided for the punter, the lost card never shown, the
  cards dealt meanwhile the forfeited coup's; or he dismisses it on the console (the card was
  recognised after all; holds.py `dismiss`) and play goes on; or he voids the coup. The
  forfeit is the supervisor's call, as rule 12's is (docs/coup-machine.md).
- `CARD_FELL` (000 rule 10: "it remains valid"): a dealt card of the coup in play fell from
  the table. It stays in play where it is; one that landed face up was seen by all and is
  exposed, with what 000 rules 6 and 8 uncover with it.
- `PARTNER_OBJECTION` (000 rule 4: the partner "must not raise any objections to the manner
  of play chosen by the banker"): the objection is recorded and changes nothing. The coup
  machine takes the banker's side only from the banker's own buttons (TABLE/FREE B, his
  STAND or card), so a partner has no channel into the play and his objection no effect;
  who the partner is, and his part of the bank, are the money's (`take_bank`).

Every report is a line citing the house's cell and naming who reported it; those made
before the coup's result are also listed in the result line (`rulings`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from shoe_daemon.game import cards
from shoe_daemon.game.coup.core import Core, Coup
from shoe_daemon.game.coup.drawing import Drawing
from shoe_daemon.game.coup.holds import THIRD_CARDS
from shoe_daemon.game.coup.states import IN_COUP
from shoe_daemon.game.irregularities import Code
from shoe_daemon.game.rules import CroupierRule, Report


@dataclass(frozen=True, slots=True)
class When:
    """Where a report may be taken: the machine's states, and in words for a refusal.
    `held`: also while play is held inside a coup (the coup still in play)."""

    states: tuple[str, ...]
    held: bool
    words: str


#: The states in which each report's rule can act. A hold inside the coup counts as the coup
#: in play only where noted: a report that changes the coup's course waits for the hold to go.
WHEN: Mapping[Report, When] = MappingProxyType({
    Report.PUNTER_BAC: When(
        ("punter_to_declare", "punter_drawing", "banker_to_play"), False,
        "while the punter holds his cards: after the fourth card and before the result, "
        "play not held"),
    Report.BANKER_CARD_LOST: When(
        IN_COUP, False, "while the banker deals a coup, before its result, play not held"),
    Report.CARD_FELL: When(IN_COUP, True, "while a coup is in play, before its result"),
    Report.PARTNER_OBJECTION: When(
        (*IN_COUP, "decided"), True,
        "while a coup is in play, or after its result until the next deal"),
})
CODES: Mapping[Report, Code] = MappingProxyType({
    Report.PUNTER_BAC: Code.PUNTER_BAC,
    Report.BANKER_CARD_LOST: Code.BANKER_CARD_LOST,
    Report.CARD_FELL: Code.CARD_FELL,
    Report.PARTNER_OBJECTION: Code.PARTNER_OBJECTION,
})
#: The reports that name one card of the coup by its position.
NAMES_A_CARD = (Report.BANKER_CARD_LOST, Report.CARD_FELL)
FACES = ("up", "down")


class Reports:
    def __init__(self, core: Core, drawing: Drawing) -> None:
        self.core = core
        self.drawing = drawing

    # ---- may it be taken now ---------------------------------------------------------------

    def cell(self, report: Report) -> CroupierRule:
        return self.core.profile.croupier_rule(report)

    def refusal(self, report: Report, position: str | None = None, face: str | None = None,
                partner: str | None = None) -> str | None:
        """Why `report` cannot be taken now, citing its rule; None if it can."""
        why = self.why_not_now(report)
        if why is not None:
            return why
        cell, coup = self.cell(report), self.core.coup
        assert coup is not None
        if report in NAMES_A_CARD:
            if position not in self.positions(report):
                named = "no card" if position is None else f"{position!r}"
                return (f"{report.value} names a card of coup {coup.number} by its position "
                        f"({', '.join(self.positions(report)) or 'none dealt'}), not "
                        f"{named} ({cell.rule})")
            if report is Report.CARD_FELL and face not in FACES:
                return f"card_fell says whether the card landed face up or down ({cell.rule})"
        if report is Report.PARTNER_OBJECTION and not partner:
            return f"partner_objection names the banker's partner ({cell.rule})"
        return None

    def why_not_now(self, report: Report) -> str | None:
        """Why `report` cannot be taken in this state at this house (any arguments)."""
        cell, core = self.cell(report), self.core
        if not cell.applies:
            return f"{report.value} is not taken at {core.profile.name}: {cell.source}"
        when, state, coup = WHEN[report], core.state, core.coup
        in_coup = state in when.states
        if state == "on_hold" and core.held is not None and core.held.resume in IN_COUP:
            if not when.held:
                return (f"{report.value} is taken {when.words}: play is held for "
                        f"{core.held.code.value}; resolve that first, or a supervisor voids "
                        f"the coup ({cell.rule})")
            in_coup = True
        if not in_coup or coup is None:
            now = state.replace("_", " ")
            return f"{report.value} is taken {when.words}; the table is {now} ({cell.rule})"
        if report is Report.BANKER_CARD_LOST and not coup.dealt():
            return f"no card of coup {coup.number} is dealt yet ({cell.rule})"
        if report is Report.PUNTER_BAC and coup.bac:
            return f"the punter's hand counts bac already ({cell.rule})"
        return None

    def positions(self, report: Report) -> tuple[str, ...]:
        """The cards a report may name now: dealt, and not in the discard already."""
        coup = self.core.coup
        if report not in NAMES_A_CARD or coup is None or self.why_not_now(report):
            return ()
        return tuple(p for p in coup.dealt() if p not in coup.discarded)

    # ---- what it does -------------------------------------------------------------------------

    def apply(self, report: Report, by: str, position: str | None = None,
              face: str | None = None, partner: str | None = None) -> None:
        """Apply the report (`by`: the person's id); ValueError, nothing changed, if it
        cannot be taken now."""
        why = self.refusal(report, position, face, partner)
        if why is not None:
            raise ValueError(why)
        source = self.cell(report).source
        if report is Report.PUNTER_BAC:
            self.core.bac(by=by, rule=source)
        elif report is Report.BANKER_CARD_LOST:
            assert position is not None
            self.core.hold_for(
                Code.BANKER_CARD_LOST,
                f"the card at {position} went into the discard unrecognised, reported by {by}",
                rule=source, by=by)
            assert self.core.held is not None
            self.core.held.position = position  # what upholding it leaves unseen (holds.py)
        elif report is Report.CARD_FELL:
            assert position is not None and face is not None
            self._fell(by, position, face, source)
        else:
            self._ruled(Code.PARTNER_OBJECTION, source, by)
            self.core.irregularity(
                Code.PARTNER_OBJECTION,
                f"the banker's partner ({partner}) objected to the banker's manner of play: "
                "it stands", rule=source, by=by)

    def _fell(self, by: str, position: str, face: str, source: str) -> None:
        self._ruled(Code.CARD_FELL, source, by)
        self.core.irregularity(
            Code.CARD_FELL,
            f"the card at {position} fell from the table and landed face {face}: it remains "
            "valid", rule=source, by=by)
        if face == "up" and position not in THIRD_CARDS:
            self.drawing.expose(position, pressed=True)  # seen by all: 000 rules 6, 8 follow

    def _ruled(self, code: Code, rule: str, by: str, **more: str) -> None:
        """The rule applied to the coup, for its result line (not once it is decided)."""
        coup = self.core.coup
        if coup is not None and coup.outcome is None:
            coup.rulings.append({"code": code.value, "rule": rule, "by": by, **more})

    # ---- callbacks of the transition table and of the hold -----------------------------------

    def counted_bac(self, event: Any) -> None:
        """000 rule 15: the punter's hand counts bac; its face-down cards stay unseen."""
        coup = self.coup
        by, rule = event.kwargs["by"], event.kwargs["rule"]
        coup.bac = True
        coup.discarded |= {p for p in ("P1", "P2") if p not in coup.exposed}
        self._ruled(Code.PUNTER_BAC, rule, by)
        self.core.irregularity(
            Code.PUNTER_BAC,
            f"the punter threw his cards into the discard: his hand counts bac, reported by "
            f"{by}", rule=rule, by=by)

    def banker_after_bac(self, event: Any) -> None:
        """More than 0 beats bac and nothing he draws could do better: decided at once."""
        if cards.total(self.coup.banker) > 0:
            self.core.decide()

    @property
    def coup(self) -> Coup:
        assert self.core.coup is not None
        return self.core.coup

