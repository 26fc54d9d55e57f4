"""What only the croupier sees, through the coup machine (shoe_daemon/game/coup/reports.py):
each report taken in the states where its rule acts and refused everywhere else (with the
rule cited, nothing changed), and every new transition played by its entries and its exits
to a decided, void or cancelled coup. What the display may show of it is checked on the
public view (shoe_daemon/display/view.py).

Seeds: 000 Zoppot 1934 rules 4, 10, 11, 15 (and 6, 8, 9 for what a fallen card uncovers);
003 Baden and Punto Banco, silent on all four.
"""

from __future__ import annotations

from typing import Any

import pytest

from shoe_daemon.display.view import Published, public_positions, table_view
from shoe_daemon.game.coup import CoupMachine
from shoe_daemon.game.houses import PROFILES, get_profile
from shoe_daemon.game.rules import Report
from tests.test_holds import run

Z = "zoppot-1934"
# A state of the table, by the script that reaches it at Zoppot (both sides free: 000).
SITUATIONS = {
    "no_shoe": "",
    "waiting_for_stakes": "SHOE",
    "dealing, nothing dealt": "SHOE DEAL",
    "dealing, three cards": "SHOE DEAL 2C TH 3D",
    "punter_to_declare": "SHOE DEAL 2C TH 3D 5S",  # punter 5: his choice
    "punter_drawing": "SHOE DEAL 2C TH AD 5S",  # punter 3: he draws
    "banker_to_play": "SHOE DEAL 2C TH 3D 5S RESTE",  # banker 5, free: his choice
    "decided": "SHOE DEAL 9C 5D KH 3S",
    "on_hold in a coup": "SHOE DEAL 9C ??",  # an unreadable card
    "on_hold between coups": "SHOE:1 DEAL 9C 5D KH 3S 9C",  # a foreign card after the result
}
# Where each report is taken (by hand from 000's rules): rule 15 while the punter holds his
# cards, rule 11 while the banker deals (a card dealt, play not held), rule 10 while a coup is
# in play, rule 4 while a coup is in play or just decided.
TAKEN = {
    Report.PUNTER_BAC: {"punter_to_declare", "punter_drawing", "banker_to_play"},
    Report.BANKER_CARD_LOST: {"dealing, three cards", "punter_to_declare", "punter_drawing",
                              "banker_to_play"},
    Report.CARD_FELL: {"dealing, three cards", "punter_to_declare", "punter_drawing",
                       "banker_to_play", "on_hold in a coup"},
    Report.PARTNER_OBJECTION: {"dealing, nothing dealt", "dealing, three cards",
                               "punter_to_declare", "punter_drawing", "banker_to_play",
                               "decided", "on_hold in a coup"},
}
ARGS = {Report.PUNTER_BAC: {}, Report.BANKER_CARD_LOST: {"position": "P1"},
        Report.CARD_FELL: {"position": "P1", "face": "down"},
        Report.PARTNER_OBJECTION: {"partner": "seat 4"}}


def machine_at(situation: str, profile: str = Z, latching: bool = True) -> CoupMachine:
    machine = CoupMachine(get_profile(profile), latching=latching)
    run(machine, SITUATIONS[situation])
    return machine


def results(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line for line in lines if line["event"] == "coup.result"]


def view(machine: CoupMachine, lines: list[dict[str, Any]]) -> dict[str, Any]:
    return table_view(machine.public, machine.profile, Published.of(lines), "T1")


# ---- where each report is taken, and refused ---------------------------------------------------


@pytest.mark.parametrize("report", list(Report), ids=lambda r: r.value)
@pytest.mark.parametrize("situation", list(SITUATIONS))
def test_a_report_is_taken_only_where_its_rule_acts(report: Report, situation: str):
    machine = machine_at(situation)
    before, waiting = machine.public, machine.waiting
    why = machine.refusal(report, **ARGS[report])
    (state,) = [s for s in machine.reports if s.kind == report.value]
    if situation in TAKEN[report]:
        assert why is None and state.why_not is None
        lines = machine.report(report, "bob", **ARGS[report])
        assert lines[0]["event"] == "irregularity" and lines[0]["by"] == "bob"
        assert lines[0]["rule"] == get_profile(Z).croupier_rule(report).source
    else:
        assert why is not None and "000 rule" in why, why  # the rule is cited
        if situation != "dealing, nothing dealt":
            assert state.why_not is not None
        with pytest.raises(ValueError) as refused:
            machine.report(report, "bob", **ARGS[report])
        assert str(refused.value) == why
        assert machine.public == before and machine.waiting == waiting  # nothing changed


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_a_house_without_the_rule_refuses_it_citing_its_cell(name: str):
    profile = get_profile(name)
    for report in Report:
        cell = profile.croupier_rule(report)
        machine = CoupMachine(profile, latching=True)
        run(machine, "SHOE DEAL 2C TH 3D 5S")  # punter 5: every report could act here
        (state,) = [s for s in machine.reports if s.kind == report.value]
        assert (state.applies, state.rule) == (cell.applies, cell.rule)
        if cell.applies:
            continue
        why = machine.refusal(report, **ARGS[report])
        assert why == f"{report.value} is not taken at {name}: {cell.source}"
        assert state.why_not == why and state.positions == ()
        before = machine.public
        with pytest.raises(ValueError):
            machine.report(report, "bob", **ARGS[report])
        assert machine.public == before


def test_a_report_names_only_a_dealt_card_not_in_the_discard():
    machine = machine_at("dealing, three cards")
    for report in (Report.BANKER_CARD_LOST, Report.CARD_FELL):
        (state,) = [s for s in machine.reports if s.kind == report.value]
        assert state.positions == ("P1", "P2", "B1")
        for position in ("B2", "P3", None):
            why = machine.refusal(report, position=position, face="up")
            assert why is not None and "by its position (P1, P2, B1)" in why
    assert "face up or down" in (machine.refusal(Report.CARD_FELL, position="P1") or "")
    assert "names the banker's partner" in (machine.refusal(Report.PARTNER_OBJECTION) or "")
    with pytest.raises(ValueError):
        machine.report("no_such_report", "bob")
    # After a bac the punter's two cards are in the discard: nothing more can befall them.
    machine = CoupMachine(get_profile(Z), latching=True)
    run(machine, "SHOE DEAL 4C TH AD KS")  # punter 5, banker 0
    machine.report(Report.PUNTER_BAC, "bob")
    (state,) = [s for s in machine.reports if s.kind == "card_fell"]
    assert state.positions == ("B1", "B2")
    assert "bac already" in (machine.refusal(Report.PUNTER_BAC) or "")


# ---- 000 rule 15: the punter's bac ----------------------------------------------------------


@pytest.mark.parametrize("latching", [False, True])
@pytest.mark.parametrize("situation", ["punter_to_declare", "punter_drawing", "banker_to_play"])
def test_a_bac_against_a_banker_above_0_decides_the_coup_at_once(situation: str,
                                                                  latching: bool):
    machine = machine_at(situation, latching=latching)
    punter = list(machine.coup.punter)
    lines = machine.report(Report.PUNTER_BAC, "bob")
    assert [line["event"] for line in lines] == ["irregularity", "coup.result"]
    result = lines[-1]
    assert result["outcome"] == "banker"  # banker 5 against bac
    assert result["punter"] == {"cards": punter, "total": 0, "natural": False, "bac": True}
    assert result["irregularities"] == ["PUNTER_BAC"]
    rule = get_profile(Z).croupier_rule(Report.PUNTER_BAC).source
    assert result["rulings"] == [{"code": "PUNTER_BAC", "rule": rule, "by": "bob"}]
    assert machine.state == "decided" and machine.lamp == "GREEN"
    # His cards went into the discard unseen: the showdown shows the banker's alone.
    shown = view(machine, lines)["coup"]
    assert shown["punter"] == {"cards": [None, None], "total": 0, "natural": False, "bac": True}
    assert shown["banker"]["cards"] == ["TH", "5S"] and shown["banker"]["total"] == 5
    assert [n["code"] for n in shown["notices"]] == ["PUNTER_BAC"]
    # The next coup is dealt as ever.
    lines = run(machine, "DEAL 9C 5D KH 3S")
    assert [r["outcome"] for r in results(lines)] == ["punter"]
    assert "rulings" not in results(lines)[0] and "bac" not in results(lines)[0]["punter"]


@pytest.mark.parametrize("situation", ["punter_to_declare", "punter_drawing", "banker_to_play"])
def test_a_banker_at_bac_himself_plays_on_and_the_totals_decide(situation: str):
    # Banker TH KS: 0. From each state the punter throws his cards; the banker then draws.
    scripts = {"punter_to_declare": "SHOE DEAL 4C TH AD KS",  # punter 5
               "punter_drawing": "SHOE DEAL 2C TH AD KS",  # punter 3: his card is due
               "banker_to_play": "SHOE DEAL 4C TH AD KS RESTE"}
    machine = CoupMachine(get_profile(Z), latching=True)
    run(machine, scripts[situation])
    lines = machine.report(Report.PUNTER_BAC, "bob")
    assert [line["event"] for line in lines] == ["irregularity"]
    assert machine.state == "banker_to_play" and machine.lamp == "AMBER"  # a free banker
    # His punter's card is no longer due: the next card is the banker's; CARTE changes nothing.
    lines = run(machine, "CARTE EXPOSE:P1 6H")
    (result,) = results(lines)
    assert result["outcome"] == "banker" and result["banker"]["cards"] == ["TH", "KS", "6H"]
    assert result["punter"]["total"] == 0 and len(result["punter"]["cards"]) == 2
    assert "EXPOSED_CARD" not in result["irregularities"]  # a card in the discard is not uncovered
    assert view(machine, lines)["coup"]["punter"]["cards"] == [None, None]


def test_bac_against_bac_a_free_banker_may_stand_for_egalite():
    machine = CoupMachine(get_profile(Z), latching=True)
    run(machine, "SHOE DEAL 4C TH AD KS")
    machine.report(Report.PUNTER_BAC, "bob")
    (result,) = results(run(machine, "STAND"))
    assert result["outcome"] == "egalite" and result["banker"]["total"] == 0


def test_bac_at_a_bound_banker_he_draws_and_a_stand_is_disregarded():
    # Baden binds the banker (003): with 0 he draws whatever the punter did.
    machine = CoupMachine(get_profile("baden"), latching=True)
    run(machine, "SHOE DEAL 4C TH AD KS")
    machine.report(Report.PUNTER_BAC, "bob")
    assert machine.lamp == "GREEN"
    lines = run(machine, "STAND 9D")
    assert [x["code"] for x in lines if x["event"] == "irregularity"] == ["FAUX_TIRAGE"]
    (result,) = results(lines)
    assert result["outcome"] == "banker" and result["banker"]["total"] == 9


def test_after_a_bac_the_banker_may_still_lose_the_coup_by_rule_11_or_a_void():
    machine = CoupMachine(get_profile(Z), latching=True)
    run(machine, "SHOE DEAL 4C TH AD KS")
    machine.report(Report.PUNTER_BAC, "bob")
    machine.report(Report.BANKER_CARD_LOST, "bob", position="B1")
    (latch,) = machine.public.latches
    (result,) = results(machine.resolve(latch.id, "ana", "OK"))
    assert result["outcome"] == "punter"
    assert [r["code"] for r in result["rulings"]] == ["PUNTER_BAC", "BANKER_CARD_LOST"]
    machine = CoupMachine(get_profile(Z), latching=True)
    run(machine, "SHOE DEAL 4C TH AD KS")
    machine.report(Report.PUNTER_BAC, "bob")
    (result,) = results(machine.void("ana"))
    assert result["outcome"] == "void"
    assert view(machine, [result])["coup"]["punter"]["cards"] == [None, None]


def test_after_a_bac_a_shoe_that_runs_out_cancels_the_coup():
    # 000 rule 24: the banker at 0 must draw and the shoe has no card left.
    machine = CoupMachine(get_profile(Z), latching=True)
    run(machine, "SHOE DEAL 4C TH AD KS")
    machine.report(Report.PUNTER_BAC, "bob")
    (result,) = results(run(machine, "EMPTY"))
    assert result["outcome"] == "cancelled" and result["punter"]["bac"] is True
    assert view(machine, [result])["coup"]["punter"]["cards"] == [None, None]


def test_an_exposed_card_stays_public_after_the_bac():
    machine = CoupMachine(get_profile(Z), latching=True)
    run(machine, "SHOE DEAL 2C EXPOSE:P1 TH 3D 5S")
    lines = machine.report(Report.PUNTER_BAC, "bob")
    coup = machine.public.coup
    assert coup is not None and coup.discarded == frozenset({"P2"})
    assert view(machine, lines)["coup"]["punter"]["cards"] == ["2C", None]


# ---- 000 rule 11: the banker's lost card, held for the supervisor's ruling ----------------------

# The card lost, what comes while the report holds play, and what ends the coup if the
# report is dismissed.
STATES_11 = {"dealing, three cards": ("B1", "5S", "RESTE STAND"),
             "punter_to_declare": ("B2", "RESTE", "STAND"),
             "punter_drawing": ("P2", "9H", "STAND"), "banker_to_play": ("B1", "STAND", "")}


@pytest.mark.parametrize("situation", list(STATES_11))
def test_the_lost_card_holds_and_upheld_the_coup_is_lost_to_the_banker(situation: str):
    machine = machine_at(situation)
    position, during, _ = STATES_11[situation]
    raised = machine.state
    lines = machine.report(Report.BANKER_CARD_LOST, "bob", position=position)
    assert [(x["code"], x["hold"], x["by"]) for x in lines] == [("BANKER_CARD_LOST", True, "bob")]
    assert machine.state == "on_hold" and machine.lamp == "RED"
    assert machine.hold_ is not None and machine.hold_.resume == raised
    (latch,) = machine.public.latches
    assert (latch.ways, latch.supervisor) == (("OK", "DISMISS"), True)
    assert run(machine, during) == [] and machine.waiting == 1  # what comes waits
    hold = machine.public.hold
    assert hold is not None and hold.code == "BANKER_CARD_LOST"
    left = machine.public.shoe.cards_left
    lines = machine.resolve(latch.id, "ana", "OK")
    assert [x["event"] for x in lines] == ["irregularity.resolved", "coup.result"]
    assert (lines[0]["how"], lines[0]["by"]) == ("OK", "ana")
    result = lines[-1]
    assert result["outcome"] == "punter" and result["irregularities"] == ["BANKER_CARD_LOST"]
    (ruling,) = result["rulings"]
    assert (ruling["code"], ruling["by"], ruling["reported_by"]) == ("BANKER_CARD_LOST", "ana",
                                                                     "bob")
    assert machine.state == "decided" and machine.waiting == 0 and machine.public.latches == ()
    # A card dealt while the report held play was this coup's: to the discard, counted out.
    card_waited = during not in ("RESTE", "STAND")
    assert machine.public.shoe.cards_left == left - card_waited
    shown = view(machine, [result])["coup"]
    hands = {"P": shown["punter"]["cards"], "B": shown["banker"]["cards"]}
    assert hands[position[0]][int(position[1]) - 1] is None  # the lost card is never shown


@pytest.mark.parametrize("situation", list(STATES_11))
def test_dismissed_play_goes_on_where_it_was(situation: str):
    machine = machine_at(situation)
    position, during, after = STATES_11[situation]
    raised = machine.state
    machine.report(Report.BANKER_CARD_LOST, "bob", position=position)
    assert machine.hold_ is not None and machine.hold_.resume == raised
    run(machine, during)
    (latch,) = machine.public.latches
    with pytest.raises(ValueError, match="lifted by OK or DISMISS"):
        machine.resolve(latch.id, "ana", "STAND")
    lines = machine.resolve(latch.id, "ana", "DISMISS")
    assert [(x["event"], x.get("how")) for x in lines[:1]] == [("irregularity.resolved",
                                                                "DISMISS")]
    assert machine.public.latches == ()
    # What waited is played as if it came now, and the coup ends as the cards say.
    lines += run(machine, after)
    (result,) = results(lines)
    assert result["outcome"] == {"dealing, three cards": "egalite",
                                 "punter_to_declare": "egalite", "punter_drawing": "banker",
                                 "banker_to_play": "egalite"}[situation]
    assert "rulings" not in result and result["irregularities"] == ["BANKER_CARD_LOST"]


def test_upheld_on_the_shoe_then_the_consoles_sign_off_and_the_next_coup_plays_afresh():
    machine = machine_at("dealing, three cards")
    machine.report(Report.BANKER_CARD_LOST, "bob", position="P2")
    assert run(machine, "5S OK") == []  # OK alone upholds nothing: a supervisor's KEY first
    assert machine.state == "on_hold"
    lines = run(machine, "KEY:ana OK DEAL 9C 5D KH 3S")
    assert [r["outcome"] for r in results(lines)] == ["punter"]
    (latch,) = machine.public.latches
    assert (latch.lifted, latch.lifted_by, latch.held) == ("OK", "ana", False)
    lines = machine.resolve(latch.id, "bob")  # the sign-off: the DEAL that waited plays
    (result,) = results(lines)
    assert (result["coup"], result["punter"]["cards"]) == (2, ["9C", "KH"])


def test_the_lost_card_is_refused_while_another_hold_holds_play():
    machine = machine_at("on_hold in a coup")
    why = machine.refusal(Report.BANKER_CARD_LOST, position="P1")
    assert why is not None and "play is held for UNREADABLE_CARD" in why and "000 rule 11" in why


# ---- 000 rule 10: a card fallen from the table ---------------------------------------------------


def test_a_card_that_fell_face_down_stays_in_play_unseen():
    machine = machine_at("punter_to_declare")
    before = machine.state
    lines = machine.report(Report.CARD_FELL, "bob", position="B1", face="down")
    assert [x["code"] for x in lines] == ["CARD_FELL"] and machine.state == before
    assert view(machine, lines)["coup"]["banker"]["cards"] == [None, None]
    (result,) = results(run(machine, "RESTE STAND"))
    assert result["banker"]["cards"] == ["TH", "5S"] and result["outcome"] == "egalite"
    assert [r["code"] for r in result["rulings"]] == ["CARD_FELL"]


def test_a_card_that_fell_face_up_is_exposed_with_what_rules_6_and_8_uncover():
    machine = machine_at("dealing, three cards")  # P1 2C, B1 TH, P2 3D
    lines = machine.report(Report.CARD_FELL, "bob", position="P1", face="up")
    assert [(x["code"], x["rule"]) for x in lines[1:]] == [("EXPOSED_CARD", "000 rule 6")]
    assert view(machine, lines)["coup"]["banker"]["cards"] == ["TH"]  # B1 uncovered too
    lines = machine.report(Report.CARD_FELL, "bob", position="P2", face="up")
    assert [(x["code"], x["rule"]) for x in lines[1:]] == [("EXPOSED_CARD", "000 rule 8")]
    assert machine.coup is not None and machine.coup.banker_bound  # rule 8: after the shoe
    # Punter 5 stands; the banker, bound now, has 5 against a punter who stood: 000 rule 20
    # leaves it to him, and he stands.
    (result,) = results(run(machine, "5S RESTE STAND"))
    assert result["outcome"] == "egalite" and result["irregularities"] == [
        "CARD_FELL", "EXPOSED_CARD", "CARD_FELL", "EXPOSED_CARD"]
    assert view(machine, [result])["coup"]["punter"]["cards"] == ["2C", "3D"]


def test_a_fallen_card_while_play_is_held_and_a_third_card():
    machine = machine_at("on_hold in a coup")  # 9C dealt, ?? held
    lines = machine.report(Report.CARD_FELL, "bob", position="P1", face="down")
    assert [x["code"] for x in lines] == ["CARD_FELL"] and machine.state == "on_hold"
    lines = run(machine, "ENTER:5D KH 3S")
    (result,) = results(lines)
    assert result["irregularities"] == ["UNREADABLE_CARD", "CARD_FELL"]
    machine = machine_at("punter_drawing")
    run(machine, "9H")  # the punter's third card, face up (000 rule 9)
    lines = machine.report(Report.CARD_FELL, "bob", position="P3", face="up")
    assert [x["code"] for x in lines] == ["CARD_FELL"]  # public already: nothing uncovered


def test_a_fallen_card_at_punto_banco_remains_valid():
    machine = CoupMachine(get_profile("baden-punto-banco"), latching=True)
    run(machine, "SHOE DEAL 2C 9C 3D")
    lines = machine.report(Report.CARD_FELL, "bob", position="B1", face="up")
    assert lines[0]["rule"] == get_profile("baden-punto-banco").croupier_rule(
        Report.CARD_FELL).source
    (result,) = results(run(machine, "KC"))
    assert result["banker"]["cards"] == ["9C", "KC"] and result["swiss_nine"] == [
        "simple", "colour", "swiss"]


# ---- 000 rule 4: the banker's partner objects, and nothing changes -------------------------------


@pytest.mark.parametrize("script,after", [
    ("SHOE DEAL 2C TH 3D 5S RESTE", "STAND"),  # banker 5 stands: égalité
    ("SHOE DEAL 2C TH 3D 5S RESTE", "9D"),  # or draws
    ("SHOE DEAL 2C TH AD 5S", "4H 9D"),
])
def test_the_partners_objection_changes_nothing_in_the_play(script: str, after: str):
    """The banker's play is taken from his own buttons and cards only: the same coup with
    and without the partner's objection decides the same, card for card."""
    plain = CoupMachine(get_profile(Z), latching=True)
    (expected,) = results(run(plain, script + " " + after))
    objected = CoupMachine(get_profile(Z), latching=True)
    run(objected, script)
    lines = objected.report(Report.PARTNER_OBJECTION, "bob", partner="seat 4")
    assert [(x["code"], x["hold"]) for x in lines] == [("PARTNER_OBJECTION", False)]
    assert "seat 4" in lines[0]["detail"]
    (got,) = results(run(objected, after))
    assert {k: v for k, v in got.items() if k not in ("irregularities", "rulings")} == {
        k: v for k, v in expected.items() if k not in ("irregularities", "rulings")}
    assert got["irregularities"] == ["PARTNER_OBJECTION"]
    assert got["rulings"][0]["rule"].startswith("000 rule 4: ")


def test_an_objection_after_the_result_is_recorded_against_that_coup():
    machine = machine_at("decided")
    lines = machine.report(Report.PARTNER_OBJECTION, "ana", partner="outsider A")
    assert (lines[0]["coup"], lines[0]["by"]) == (1, "ana") and machine.state == "decided"
    assert machine.coup is not None and machine.coup.outcome == "punter"
    (result,) = results(run(machine, "DEAL 9C 5D KH 3S"))
    assert result["coup"] == 2 and "rulings" not in result


# ---- the public view: a card gone into the discard unseen is never shown ------------------------


def test_public_positions_leave_out_the_discarded_cards_showdown_or_not():
    machine = CoupMachine(get_profile(Z), latching=True)
    run(machine, "SHOE DEAL 2C TH 3D 5S")
    machine.report(Report.PUNTER_BAC, "bob")
    coup = machine.public.coup
    assert coup is not None and coup.outcome == "banker"
    assert public_positions(coup) == {"B1", "B2"}
