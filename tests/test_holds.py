"""Every way out of every hold, played through: the instruction printed is the one that works.

For each hold the coup machine can raise, each sequence of presses its instruction names
(`WayOut.presses`, from shoe_daemon/game/irregularities.py) is played from the hold to a
decided, void or cancelled coup, with messages sent during the hold waiting in the queue and
played afterwards, in order. `test_every_way_out_is_played` fails when a hold, a resolution
or a press named in an instruction has no play-through here.

Seeds: 000 Zoppot 1934 (rules 12, 21), 001 Clermont 2015, 002 eight-pack, 003 Baden,
004 shimmy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest

from drivers.messages import BUTTONS
from hil.script import parse_script
from shoe_daemon.game.coup import CoupMachine
from shoe_daemon.game.houses import PROFILES, get_profile
from shoe_daemon.game.irregularities import KINDS, Code, Resolution
from shoe_daemon.game.rules import Game, Report


@dataclass(frozen=True)
class WayOutCase:
    """A hold raised by `script`, `during` sent while it holds, then `presses`, then `after`."""

    code: Code
    profile: str
    script: str
    during: str
    presses: str  # script tokens, e.g. "KEY:4711 VOID"
    after: str
    outcome: str  # of the held coup
    punter: tuple[str, ...]
    banker: tuple[str, ...]
    how: str
    by: str
    more: tuple[str, ...] = ()  # outcomes of the coups after it, played from the queue/after
    # A hold raised by the croupier's console instead (coup/reports.py): after the script,
    # (report, by, position) reported, as console/actions.py does.
    report: tuple[str, str, str] | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """The button names pressed, as a way out's presses spell them."""
        return tuple(token.partition(":")[0] for token in self.presses.split())

    @property
    def id(self) -> str:
        return f"{self.code.value}-{'+'.join(self.names)}-{self.profile}"


CASES = [
    # 000 rule 12: the card put in its place; the queued cards then follow in order.
    WayOutCase(Code.WRONG_ORDER, "baden", "SHOE DEAL 9C@B", "5D KH 3S", "OK", "",
               "punter", ("9C", "KH"), ("5D", "3S"), "OK", "croupier"),
    # Rule 12's forfeit is the supervisor's: the cards dealt during the hold are the void
    # coup's, and the next DEAL plays afresh.
    WayOutCase(Code.WRONG_ORDER, "baden", "SHOE DEAL 9C@B", "5D KH", "KEY:4711 VOID",
               "DEAL 9D 5H KD 3C", "void", (), (), "VOID", "4711", ("punter",)),
    WayOutCase(Code.UNREADABLE_CARD, "baden", "SHOE DEAL 9C ??", "KH 3S", "ENTER:5D", "",
               "punter", ("9C", "KH"), ("5D", "3S"), "ENTER 5D", "croupier"),
    # A queued DEAL and a whole coup wait behind the hold and are played after it.
    WayOutCase(Code.UNREADABLE_CARD, "zoppot-1934", "SHOE DEAL 9C ??", "KH 3S DEAL 8D 2C TH 3D",
               "ENTER:5D", "", "punter", ("9C", "KH"), ("5D", "3S"), "ENTER 5D", "croupier",
               ("punter",)),
    WayOutCase(Code.FOREIGN_CARD, "baden", "SHOE:1 DEAL 9C 5D 9C", "KH 3S", "KEY:4711 OK", "",
               "punter", ("9C", "KH"), ("5D", "3S"), "OK", "4711"),
    WayOutCase(Code.FOREIGN_CARD, "baden", "SHOE:1 DEAL 9C 5D 9C", "KH 3S", "KEY:S-0815 VOID",
               "", "void", ("9C",), ("5D",), "VOID", "S-0815"),
    # 003: the punter with 5 chooses; STAND sent during the hold is the banker's answer to
    # his grid cell (row 5, third card 4: V) and waits for its turn.
    WayOutCase(Code.DECLARATION_MISSING, "baden", "SHOE DEAL 2C TH 3D 5S 4H", "STAND", "CARTE",
               "", "punter", ("2C", "3D", "4H"), ("TH", "5S"), "CARTE", "croupier"),
    # RESTE: the card is the banker's (5, the punter stood: he draws).
    WayOutCase(Code.DECLARATION_MISSING, "baden", "SHOE DEAL 2C TH 3D 5S 4H", "", "RESTE", "",
               "banker", ("2C", "3D"), ("TH", "5S", "4H"), "RESTE", "croupier"),
    WayOutCase(Code.DECLARATION_MISSING, "zoppot-1934", "SHOE DEAL 2C TH 3D 5S 4H", "",
               "KEY:PIT-2 VOID", "", "void", ("2C", "3D"), ("TH", "5S"), "VOID", "PIT-2"),
    # OK ignores the early DEAL: the cards dealt meanwhile finish coup 1, no coup 2 starts.
    WayOutCase(Code.COUP_NOT_FINISHED, "baden", "SHOE DEAL 2C TH DEAL", "AD 3S 5H", "OK", "4C",
               "punter", ("2C", "AD", "5H"), ("TH", "3S", "4C"), "OK", "croupier"),
    WayOutCase(Code.COUP_NOT_FINISHED, "clermont-2015", "SHOE DEAL 9C 2D SHOE", "", "OK",
               "KH 3S", "punter", ("9C", "KH"), ("2D", "3S"), "OK", "croupier"),
    # VOID ends coup 1 and the held DEAL then starts coup 2 with the cards that follow.
    WayOutCase(Code.COUP_NOT_FINISHED, "baden", "SHOE DEAL 2C TH DEAL", "", "KEY:99 VOID",
               "9C 5D KH 3S", "void", ("2C",), ("TH",), "VOID", "99", ("punter",)),
    # 000 rule 21: a bound punter (TABLE:P) with 6 calls CARTE; the free banker chooses.
    WayOutCase(Code.FAUX_TIRAGE, "zoppot-1934", "SHOE DEAL TABLE:P 3H 2C 3S 2D CARTE 9C",
               "DEAL", "OK", "8D 2H TH 3C", "punter", ("3H", "3S"), ("2C", "2D", "9C"), "OK",
               "croupier", ("punter",)),
    WayOutCase(Code.FAUX_TIRAGE, "zoppot-1934", "SHOE DEAL TABLE:P 3H 2C 3S 2D CARTE 9C",
               "DEAL", "STAND", "8D 2H TH 3C", "punter", ("3H", "3S"), ("2C", "2D"), "STAND",
               "croupier", ("punter",)),
    # 001: "any rounds that do not comply must be reconstructed"; the Clermont banker is free.
    WayOutCase(Code.FAUX_TIRAGE, "clermont-2015", "SHOE DEAL TABLE:P 3H 4C 3S 2D CARTE 2H",
               "", "OK", "", "banker", ("3H", "3S"), ("4C", "2D", "2H"), "OK", "croupier"),
    WayOutCase(Code.FAUX_TIRAGE, "clermont-2015", "SHOE DEAL TABLE:P 3H 4C 3S 2D CARTE 2H",
               "", "STAND", "", "egalite", ("3H", "3S"), ("4C", "2D"), "STAND", "croupier"),
    # 004: bound by default; the chart leaves a banker with 5 the choice when the punter stood.
    WayOutCase(Code.FAUX_TIRAGE, "shimmy", "SHOE DEAL 3H 2C 3S 3D CARTE 9C", "", "STAND", "",
               "punter", ("3H", "3S"), ("2C", "3D"), "STAND", "croupier"),
    WayOutCase(Code.FAUX_TIRAGE, "shimmy", "SHOE DEAL 3H 2C 3S 3D CARTE 4C", "", "OK", "",
               "banker", ("3H", "3S"), ("2C", "3D", "4C"), "OK", "croupier"),
    # Protocol 1.1: a banker freed by FREE:B where sides are bound by default (003, 002).
    WayOutCase(Code.FAUX_TIRAGE, "baden", "SHOE FREE:B DEAL 3H 2C 3S 2D CARTE 9C", "", "OK", "",
               "punter", ("3H", "3S"), ("2C", "2D", "9C"), "OK", "croupier"),
    WayOutCase(Code.FAUX_TIRAGE, "eight-pack", "SHOE DEAL FREE:B 3H 2C 3S 2D CARTE 9C", "",
               "STAND", "", "punter", ("3H", "3S"), ("2C", "2D"), "STAND", "croupier"),
    # 000 rule 11, reported on the console: the banker's B1 (TH) lost in the discard. The
    # supervisor upholds it: lost to the banker, the cards he dealt meanwhile are this coup's
    # (to the discard, never the next deal's), and the next coup plays afresh.
    WayOutCase(Code.BANKER_CARD_LOST, "zoppot-1934", "SHOE DEAL 2C TH 3D", "5S 4H",
               "KEY:4711 OK", "DEAL 9C 5D KH 3S", "punter", ("2C", "3D"), ("TH",), "OK",
               "4711", ("punter",), report=("banker_card_lost", "bob", "B1")),
    WayOutCase(Code.BANKER_CARD_LOST, "baden", "SHOE DEAL 2C TH 3D", "5S", "KEY:S-1 VOID", "",
               "void", ("2C", "3D"), ("TH",), "VOID", "S-1", report=("banker_card_lost", "bob",
                                                                   "B1")),
]


def run(machine: CoupMachine, script: str) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    for message in parse_script(script):
        lines += machine.handle(message)
    return lines


def raised(machine: CoupMachine, case: WayOutCase) -> list[dict[str, Any]]:
    """The case's script played, then its report if the console raises the hold."""
    lines = run(machine, case.script)
    if case.report is not None:
        kind, by, position = case.report
        lines += machine.report(kind, by, position=position)
    return lines


def expected_rule(code: Code, profile: str) -> str:
    """The rule a hold cites: the house's own source where the machine uses it."""
    house = get_profile(profile)
    by_house = {Code.FOREIGN_CARD: house.packs_source, Code.FAUX_TIRAGE: house.faux_tirage_source,
                Code.BANKER_CARD_LOST: house.croupier_rule(Report.BANKER_CARD_LOST).source}
    return by_house.get(code, KINDS[code].rule)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_a_way_out_lifts_the_hold_and_the_coup_ends(case: WayOutCase):
    machine = CoupMachine(get_profile(case.profile))
    lines = raised(machine, case)
    hold = lines[-1]
    assert machine.state == "on_hold" and machine.lamp == "RED"
    assert (hold["event"], hold["code"], hold["hold"]) == ("irregularity", case.code, True)
    assert hold["rule"] == expected_rule(case.code, case.profile)
    way_out = KINDS[case.code].hold
    assert way_out is not None and hold["action"] == way_out.action
    assert case.names in way_out.presses  # the instruction names what is pressed here

    during = run(machine, case.during)
    assert during == [] and machine.state == "on_hold"  # everything waits in the queue

    lines = run(machine, case.presses) + run(machine, case.after)
    resolved = [line for line in lines if line["event"] == "irregularity.resolved"]
    assert [(r["code"], r["how"], r["by"]) for r in resolved] == [(case.code, case.how, case.by)]
    assert (resolved[0]["shoe"], resolved[0]["coup"]) == (1, 1)
    results = [line for line in lines if line["event"] == "coup.result"]
    first = results[0]
    assert (first["coup"], first["outcome"]) == (1, case.outcome)
    assert tuple(first["punter"]["cards"]) == case.punter
    assert tuple(first["banker"]["cards"]) == case.banker
    assert case.code in first["irregularities"]
    assert lines.index(resolved[0]) < lines.index(first)
    assert [r["outcome"] for r in results[1:]] == list(case.more)
    assert [r["coup"] for r in results] == list(range(1, len(results) + 1))
    assert machine.state == "decided" and machine.lamp == "GREEN"


def test_every_way_out_is_played():
    """Each hold's every printed way out, and each Resolution, has a play-through above."""
    table = {
        (kind.code, press)
        for kind in KINDS.values()
        if kind.hold is not None
        for press in kind.hold.presses
    }
    played = {(case.code, case.names) for case in CASES}
    assert played == table
    assert {kind.hold.resolution for kind in KINDS.values() if kind.hold} == set(Resolution)


@pytest.mark.parametrize("code", [kind.code for kind in KINDS.values() if kind.hold])
def test_an_instruction_names_exactly_the_buttons_that_lift_its_hold(code: Code):
    way_out = KINDS[code].hold
    assert way_out is not None
    named = set(re.findall(r"\b[A-Z]{2,}\b", way_out.action)) & BUTTONS
    assert named == {name for press in way_out.presses for name in press}


def test_a_hold_lets_through_only_its_own_buttons():
    # During the faux tirage hold CARTE is no answer: it waits, and is played after the
    # result, where it changes nothing; the next DEAL then opens coup 2.
    machine = CoupMachine(get_profile("zoppot-1934"))
    run(machine, "SHOE DEAL TABLE:P 3H 2C 3S 2D CARTE 9C")
    assert run(machine, "CARTE RESTE ENTER:4D") == [] and machine.state == "on_hold"
    lines = run(machine, "STAND DEAL 9S")
    assert [line["event"] for line in lines] == ["irregularity.resolved", "coup.result"]
    assert machine.state == "dealing" and machine.coup is not None
    assert machine.coup.number == 2 and machine.coup.punter == ["9S"]


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_a_foreign_card_cites_the_houses_packs_in_every_profile(profile: str):
    machine = CoupMachine(get_profile(profile))
    hold = run(machine, "SHOE:1 DEAL 9C 5D 9C")[-1]
    assert hold["code"] == "FOREIGN_CARD" and hold["rule"] == get_profile(profile).packs_source
    lines = run(machine, "KH KEY:4711 3S OK")  # the cards wait; KEY and OK act at once
    results = [line for line in lines if line["event"] == "coup.result"]
    assert [r["punter"]["cards"] for r in results] == [["9C", "KH"]]
    assert results[0]["banker"]["cards"] == ["5D", "3S"]


def test_the_faux_tirage_hold_is_met_in_every_chemin_de_fer_house():
    # Any Chemin de Fer banker can be free (by default, or BTN,FREE,B since protocol 1.1), so
    # each house's faux tirage rule is cited by a play-through above; Punto Banco leaves
    # nobody a choice (003).
    chemin_de_fer = {name for name, house in PROFILES.items() if house.game is Game.CHEMIN_DE_FER}
    assert chemin_de_fer == {case.profile for case in CASES if case.code is Code.FAUX_TIRAGE}
