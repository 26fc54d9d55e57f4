"""With the croupier's console on, holds and shoe faults are latched until the console
resolves them (shoe_daemon/game/coup/latches.py).

Every hold the coup machine can raise is played through each way out its instruction names
(the cases of tests/test_holds.py), twice on a latching machine:
- the shoe's own presses, as today, then the console's sign-off: the coup goes on as the
  presses say, but the lamp stays red and no coup starts until the sign-off;
- the console's own way out instead of the presses (the same button chosen on the screen,
  the card keyed in on it, the signed-in supervisor for a supervisor's KEY, and its `void`
  for KEY then VOID), which lifts the hold and resolves the latch at once.
Both end in the decided, void or cancelled coup the case expects.
"""

from __future__ import annotations

from typing import Any

import pytest

from shoe_daemon.game.coup import CoupMachine
from shoe_daemon.game.houses import get_profile
from shoe_daemon.game.irregularities import KINDS
from tests.test_holds import CASES, WayOutCase, raised, run

CONSOLE = "ana"  # the signed-in person who resolves on the console


def only_latch(machine: CoupMachine) -> str:
    latches = machine.public.latches
    assert len(latches) == 1, latches
    return latches[0].id


def console_way(machine: CoupMachine, case: WayOutCase) -> list[dict[str, Any]]:
    """The console's equivalent of the case's presses."""
    latch = only_latch(machine)
    tokens = case.presses.split()
    names = case.names
    if names[-1] == "VOID":
        return machine.void(CONSOLE)
    button, _, arg = tokens[-1].partition(":")
    return machine.resolve(latch, CONSOLE, button, arg or None)


def check_end(case: WayOutCase, lines: list[dict[str, Any]], by: str,
              machine: CoupMachine) -> None:
    resolved = [line for line in lines if line["event"] == "irregularity.resolved"]
    assert [(r["code"], r["how"], r["by"]) for r in resolved] == [(case.code, case.how, by)]
    results = [line for line in lines if line["event"] == "coup.result"]
    first = results[0]
    assert (first["coup"], first["outcome"]) == (1, case.outcome)
    assert tuple(first["punter"]["cards"]) == case.punter
    assert tuple(first["banker"]["cards"]) == case.banker
    assert case.code in first["irregularities"]
    assert lines.index(resolved[0]) < lines.index(first)
    assert [r["outcome"] for r in results[1:]] == list(case.more)
    assert machine.state == "decided" and machine.lamp == "GREEN"
    assert machine.public.latches == () and machine.waiting == 0


def raise_hold(case: WayOutCase) -> CoupMachine:
    machine = CoupMachine(get_profile(case.profile), latching=True)
    hold = raised(machine, case)[-1]
    assert (hold["event"], hold["code"], hold["hold"]) == ("irregularity", case.code, True)
    latch = machine.public.latches[0]
    assert (latch.kind, latch.code, latch.held, latch.rule) == ("hold", case.code, True,
                                                                 hold["rule"])
    way_out = KINDS[case.code].hold
    assert way_out is not None
    assert latch.ways == way_out.console_ways and latch.supervisor == way_out.supervised
    assert latch.action == hold["action"] and latch.id == "hold-1-1-1"
    assert run(machine, case.during) == [] and machine.state == "on_hold"
    return machine


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_the_shoes_way_out_then_the_consoles_sign_off(case: WayOutCase):
    machine = raise_hold(case)
    latch = only_latch(machine)
    lines = run(machine, case.presses) + run(machine, case.after)
    # The shoe lifted the hold; the coup went on as it says, but the latch is still open.
    state = machine.public.latches
    assert [(s.id, s.held, s.ways, s.lifted_by) for s in state] == [(latch, False, (), case.by)]
    assert state[0].lifted == case.how
    assert machine.lamp == "RED"
    assert machine.coup is not None and machine.coup.number == 1  # no coup 2 started
    with pytest.raises(ValueError, match="lifted on the shoe"):
        machine.resolve(latch, CONSOLE, "OK")
    lines += machine.resolve(latch, CONSOLE)  # the sign-off: what waited is played
    check_end(case, lines, case.by, machine)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_the_consoles_own_way_out(case: WayOutCase):
    machine = raise_hold(case)
    lines = console_way(machine, case)
    assert machine.public.latches == ()
    lines += run(machine, case.after)
    check_end(case, lines, CONSOLE, machine)


def test_every_way_out_has_a_console_play_through():
    """Each printed way out of each hold maps onto a console action played above."""
    for kind in KINDS.values():
        if kind.hold is None:
            continue
        for press in kind.hold.presses:
            assert press[-1] == "VOID" or press[-1] in kind.hold.console_ways, (kind.code, press)
    played = {(case.code, case.names) for case in CASES}
    assert played == {(k.code, p) for k in KINDS.values() if k.hold for p in k.hold.presses}


def test_a_way_out_the_hold_does_not_take_is_refused_and_changes_nothing():
    machine = CoupMachine(get_profile("baden"), latching=True)
    run(machine, "SHOE DEAL 9C ??")
    latch = only_latch(machine)
    before = machine.public
    for way, card in (("OK", None), ("STAND", None), ("CARTE", None), (None, None)):
        with pytest.raises(ValueError, match="lifted by ENTER"):
            machine.resolve(latch, CONSOLE, way, card)
    with pytest.raises(ValueError):
        machine.resolve(latch, CONSOLE, "ENTER", "XX")  # not a card
    with pytest.raises(ValueError, match="no open latch"):
        machine.resolve("hold-1-1-2", CONSOLE, "ENTER", "5D")
    assert machine.public == before


def test_a_fault_latches_until_resolved_and_only_a_supervisor_while_it_is_on():
    machine = CoupMachine(get_profile("baden"), latching=True)
    run(machine, "SHOE DEAL 9C 5D KH 3S FAULT:JAM:ON")
    assert machine.state == "decided" and machine.lamp == "RED"
    (latch,) = machine.public.latches
    assert (latch.id, latch.kind, latch.code, latch.fault_on, latch.supervisor) == (
        "fault-JAM", "fault", "JAM", True, True)
    assert latch.rule == "shoe-line-protocol FAULT JAM" and latch.ways == ()
    assert run(machine, "DEAL 8D 2C") == []  # no coup may start: it waits
    assert machine.waiting == 3 and machine.coup is not None and machine.coup.number == 1
    # The fault clears while play waits: a FAULT never waits.
    run(machine, "FAULT:JAM:OFF")
    (latch,) = machine.public.latches
    assert (latch.fault_on, latch.supervisor) == (False, False)
    run(machine, "TH 3D")  # still waiting, in order
    lines = machine.resolve("fault-JAM", CONSOLE)
    # 8D and TH: the punter's natural 8 against 5.
    assert [line["outcome"] for line in lines if line["event"] == "coup.result"] == ["punter"]
    assert machine.lamp == "GREEN" and machine.waiting == 0


def test_a_fault_in_a_coup_lets_it_finish_and_stops_the_next():
    machine = CoupMachine(get_profile("baden"), latching=True)
    lines = run(machine, "SHOE DEAL 9C FAULT:READER:ON FAULT:READER:OFF 5D KH 3S")
    assert [line["outcome"] for line in lines if line["event"] == "coup.result"] == ["punter"]
    assert machine.lamp == "RED" and run(machine, "DEAL") == []
    machine.resolve("fault-READER", CONSOLE)
    assert machine.state == "dealing" and machine.coup is not None and machine.coup.number == 2


def test_every_latch_must_be_resolved_before_a_coup_starts():
    machine = CoupMachine(get_profile("baden"), latching=True)
    # A wrong-order hold lifted on the shoe, then a jam; both latched.
    run(machine, "SHOE DEAL 9C@B OK 5D KH 3S FAULT:COVER_OPEN:ON FAULT:COVER_OPEN:OFF DEAL")
    assert [s.id for s in machine.public.latches] == ["hold-1-1-1", "fault-COVER_OPEN"]
    machine.resolve("fault-COVER_OPEN", CONSOLE)
    assert machine.waiting == 1 and machine.lamp == "RED"
    machine.resolve("hold-1-1-1", CONSOLE)
    assert machine.state == "dealing" and machine.waiting == 0


def test_a_deal_inside_the_coup_is_still_the_holds_business_not_the_latchs():
    # 000 rule 12: DEAL inside an undecided coup holds (COUP_NOT_FINISHED), latch or not.
    machine = CoupMachine(get_profile("baden"), latching=True)
    run(machine, "SHOE DEAL 9C@B OK 5D")
    lines = run(machine, "DEAL")
    assert lines[-1]["code"] == "COUP_NOT_FINISHED" and machine.state == "on_hold"
    assert [s.id for s in machine.public.latches] == ["hold-1-1-1", "hold-1-1-2"]


def test_the_console_voids_the_coup_in_play_without_a_hold():
    machine = CoupMachine(get_profile("baden"), latching=True)
    run(machine, "SHOE DEAL 9C 5D")
    lines = machine.void("sup")
    assert [(x["event"], x.get("outcome")) for x in lines] == [("coup.result", "void")]
    assert machine.state == "decided"
    with pytest.raises(ValueError, match="no coup is in play"):
        machine.void("sup")


def test_without_the_console_faults_change_nothing_and_nothing_is_latched():
    machine = CoupMachine(get_profile("baden"))
    lines = run(machine, "SHOE FAULT:JAM:ON DEAL 9C@B OK 5D KH 3S DEAL")
    assert machine.public.latches == () and machine.state == "dealing"
    assert [line["event"] for line in lines].count("coup.result") == 1
    assert machine.lamp == "GREEN"


def test_a_whole_coup_that_waited_plays_its_own_holds_and_ways_out_in_order():
    # Behind a latch the shoe deals on: the next coup, with its own unreadable card and the
    # croupier's ENTER, waits whole; once resolved it is played as if it came then.
    machine = CoupMachine(get_profile("baden"), latching=True)
    run(machine, "SHOE DEAL 9C 5D KH 3S FAULT:JAM:ON FAULT:JAM:OFF")
    assert run(machine, "DEAL 2C ?? ENTER:TH 3D 5S CARTE 4H") == []
    lines = machine.resolve("fault-JAM", CONSOLE)
    assert [x["event"] for x in lines] == ["irregularity", "irregularity.resolved"]
    (latch,) = machine.public.latches  # ENTER lifted the new hold; its sign-off is due
    assert (latch.code, latch.lifted, latch.held) == ("UNREADABLE_CARD", "ENTER TH", False)
    coup = machine.coup
    assert coup is not None and (coup.number, coup.punter, coup.banker) == (
        2, ["2C", "3D", "4H"], ["TH", "5S"])
    assert machine.state == "banker_to_play" and machine.waiting == 0
