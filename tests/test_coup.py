"""The coup state machine against the house rules, case by case from the seed text.

Seeds: 000 Zoppot 1934, 001 Clermont 2015, 002 eight-pack, 003 Baden, 004 shimmy.
Scripts use hil.script notation: cards in dealing order punter, banker, punter, banker.
"""

from __future__ import annotations

from typing import Any

import pytest

from hil.script import parse_script
from shoe_daemon.game.coup import CoupMachine
from shoe_daemon.game.houses import get_profile


def play(profile: str, script: str) -> tuple[CoupMachine, list[dict[str, Any]]]:
    machine = CoupMachine(get_profile(profile))
    lines: list[dict[str, Any]] = []
    for message in parse_script(script):
        lines += machine.handle(message)
    return machine, lines


def coups(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["event"] == "coup.result"]


def irregular(events: list[dict[str, Any]]) -> list[str]:
    return [e["code"] for e in events if e["event"] == "irregularity"]


def only_coup(events: list[dict[str, Any]]) -> dict[str, Any]:
    results = coups(events)
    assert len(results) == 1, results
    return results[0]


# ---- naturals: 000 "he has a coup"; 002 "a natural nine beats a natural eight" ----------


def test_natural_nine_beats_natural_eight():
    _, ev = play("eight-pack", "SHOE DEAL 9C 5D KH 3S")
    r = only_coup(ev)
    assert r["outcome"] == "punter"
    assert r["punter"] == {"cards": ["9C", "KH"], "total": 9, "natural": True}
    assert r["banker"] == {"cards": ["5D", "3S"], "total": 8, "natural": True}
    assert (r["shoe"], r["coup"], r["profile"], r["last_coup"]) == (1, 1, "eight-pack", False)


def test_equal_naturals_are_egalite():
    _, ev = play("eight-pack", "SHOE DEAL 8C 8H KD TS")
    assert only_coup(ev)["outcome"] == "egalite"


def test_banker_natural_against_punter_five_ends_the_deal():
    # 000: "If the banker gets the coup, and not the punter, then the banker is the winner."
    machine, ev = play("baden", "SHOE DEAL 2C 4D 3H 5S")
    r = only_coup(ev)
    assert r["outcome"] == "banker" and r["banker"]["natural"] and not r["punter"]["natural"]
    assert machine.state == "decided"


# ---- the punter's rule ------------------------------------------------------------------


def test_punter_with_four_draws_without_a_button():
    # 003 "0 bis 4 Punkte ... dritte Karte"; then Baden grid row 5, third card 4: V.
    machine, ev = play("baden", "SHOE DEAL 2C TH 2D 5S 4C")
    assert coups(ev) == []
    assert machine.state == "banker_to_play" and machine.lamp == "AMBER"
    ev += machine.handle(parse_script("STAND")[0])
    r = only_coup(ev)
    assert r["punter"]["cards"] == ["2C", "2D", "4C"] and r["punter"]["total"] == 8
    assert r["banker"]["cards"] == ["TH", "5S"] and r["outcome"] == "punter"


def test_punter_with_five_must_declare():
    # 003: with 5 "entscheidet der ... Spieler nach seinem Ermessen" (a Volonté).
    machine, _ = play("baden", "SHOE DEAL 2C TH 3D 5S")
    assert machine.state == "punter_to_declare" and machine.lamp == "AMBER"


def test_punter_with_six_stands_and_banker_five_draws_at_baden():
    # 003: the punter stood -> the banker draws "fünf oder weniger".
    _, ev = play("baden", "SHOE DEAL 3C TH 3D 5S 2H")
    r = only_coup(ev)
    assert r["punter"]["cards"] == ["3C", "3D"] and r["banker"]["cards"] == ["TH", "5S", "2H"]
    assert r["outcome"] == "banker"  # 7 against 6


def test_declaration_reste_then_banker_plays():
    _, ev = play("baden", "SHOE DEAL 2C TH 3D 6S RESTE")
    r = only_coup(ev)  # banker 6, punter stood: Baden stands on 6 -> decided, no input
    assert r["outcome"] == "banker" and r["punter"]["total"] == 5 and r["banker"]["total"] == 6


# ---- the banker's table (bound) -----------------------------------------------------------


def test_bound_banker_forced_to_stand_is_decided_without_input():
    # 003 grid row 3, punter's third card 8: R.
    _, ev = play("baden", "SHOE DEAL 2C TH AD 3S 8H")
    r = only_coup(ev)
    assert r["banker"]["cards"] == ["TH", "3S"] and r["punter"]["total"] == 1
    assert r["outcome"] == "banker"


def test_bound_banker_must_draw_on_three_against_five():
    _, ev = play("baden", "SHOE DEAL 2C TH AD 3S 5H 4C")
    r = only_coup(ev)
    assert r["banker"]["cards"] == ["TH", "3S", "4C"] and r["outcome"] == "punter"  # 8 v 7


def test_eight_pack_five_against_four_is_a_forced_draw():
    # 002: "Five or four: BANKER STANDS ON 6, 7; DRAWS TO 5, 4, ..."
    machine, ev = play("eight-pack", "SHOE DEAL 2C TH AD 5S 4H")
    assert coups(ev) == [] and machine.lamp == "GREEN"
    ev += machine.handle(parse_script("STAND")[0])
    assert irregular(ev) == ["FAUX_TIRAGE"]
    ev += machine.handle(parse_script("KC")[0])
    assert only_coup(ev)["banker"]["cards"] == ["TH", "5S", "KC"]


def test_bound_banker_card_against_the_table_is_faux_tirage_and_discarded():
    # 003 row 6, third card 2: R. A card anyway: 000 rule 21, to the discard.
    _, ev = play("baden", "SHOE DEAL 2C TH AD 6S 2H 9D")
    r = only_coup(ev)
    assert r["banker"]["cards"] == ["TH", "6S"] and r["outcome"] == "banker"
    assert irregular(ev) == ["FAUX_TIRAGE"]
    assert next(e for e in ev if e["event"] == "irregularity")["rule"].startswith("003")


# ---- free and bound sides -------------------------------------------------------------------


def test_zoppot_banker_plays_free_until_he_announces_the_table():
    # 000: "he must announce his intention ... or, he can play free": with 6 against a
    # third card 1 (Table II: may not draw) a free banker still chooses.
    machine, ev = play("zoppot-1934", "SHOE DEAL 2C TH AD 6S AH")
    assert coups(ev) == [] and machine.state == "banker_to_play" and machine.lamp == "AMBER"
    ev += machine.handle(parse_script("9D")[0])
    r = only_coup(ev)
    assert r["banker"]["cards"] == ["TH", "6S", "9D"] and irregular(ev) == []


def test_zoppot_banker_with_the_table_is_bound():
    _, ev = play("zoppot-1934", "SHOE DEAL TABLE:B 2C TH AD 6S AH")
    assert only_coup(ev)["banker"]["cards"] == ["TH", "6S"]


def test_clermont_rule_table_makes_a_bound_punter_stand_on_five():
    # 001 Player Hand: "5,6,7. Does not draw card" -- only for one who declares it.
    free, _ = play("clermont-2015", "SHOE DEAL 2C TH 3D 6S")
    assert free.state == "punter_to_declare"
    bound, _ = play("clermont-2015", "SHOE DEAL TABLE:P 2C TH 3D 6S")
    assert bound.state == "banker_to_play"  # the Clermont banker plays free: his choice


def test_bound_punter_carte_on_six_is_faux_tirage_card_goes_to_banker_who_draws():
    # 000 rule 21: the card drawn by mistake is "used for the same coup" if the banker
    # asks for a card. Baden banker 4, punter stood: draws.
    _, ev = play("baden", "SHOE DEAL 3C TH 3D 4S CARTE 5H")
    r = only_coup(ev)
    assert r["punter"]["cards"] == ["3C", "3D"] and r["banker"]["cards"] == ["TH", "4S", "5H"]
    assert irregular(ev) == ["FAUX_TIRAGE"] and r["irregularities"] == ["FAUX_TIRAGE"]


def test_bound_punter_carte_on_six_card_discarded_when_banker_stands():
    _, ev = play("baden", "SHOE DEAL 3C TH 3D 7S CARTE 5H DEAL 8C 9D KH KS")
    results = coups(ev)
    assert results[0]["banker"]["cards"] == ["TH", "7S"]
    assert results[0]["outcome"] == "banker"
    assert results[1]["punter"]["cards"] == ["8C", "KH"]  # the discarded 5H is not carried
    assert irregular(ev) == ["FAUX_TIRAGE"]


def test_free_punter_first_declaration_binds():
    # 000 rule 17: a banco-solo punter cannot retract "Carte".
    machine, _ = play("zoppot-1934", "SHOE DEAL 2C TH 3D 6S CARTE RESTE")
    assert machine.state == "punter_drawing"


# ---- exposed cards: 000 rules 6 and 8 ------------------------------------------------------


def test_punter_first_card_exposed_uncovers_banker_first_card():
    machine, ev = play("zoppot-1934", "SHOE DEAL 2C EXPOSE:P1")
    assert machine.coup is not None and machine.coup.exposed == {"P1", "B1"}
    e = next(e for e in ev if e["event"] == "irregularity")
    assert (e["code"], e["rule"], e["hold"]) == ("EXPOSED_CARD", "000 rule 6", False)


def test_both_punter_cards_exposed_bind_the_banker_to_the_table():
    # 000 rule 8: "play after the shoe". Banker 6, third card 1: Table II, may not draw.
    _, ev = play("zoppot-1934", "SHOE DEAL 2C TH AD EXPOSE:P1 EXPOSE:P2 6S AH")
    r = only_coup(ev)
    assert r["banker"]["cards"] == ["TH", "6S"] and r["irregularities"] == ["EXPOSED_CARD"] * 2


# ---- face up in the shoe ------------------------------------------------------------------


def test_clermont_face_up_card_is_null_and_void():
    # 001: "Any cards that appear face up in the shoe are automatically null and void".
    _, ev = play("clermont-2015", "SHOE DEAL 9C! 2C TH 3D 6S")
    machine, _ = play("clermont-2015", "SHOE DEAL 9C! 2C TH 3D 6S")
    assert machine.coup is not None and machine.coup.punter == ["2C", "3D"]
    assert irregular(ev) == ["FACE_UP_IN_SHOE"]


def test_zoppot_face_up_card_stays_valid_and_exposed():
    machine, ev = play("zoppot-1934", "SHOE DEAL 9C! 5D KH 3S")
    r = only_coup(ev)
    assert r["punter"]["cards"] == ["9C", "KH"] and r["irregularities"] == ["FACE_UP_IN_SHOE"]
    assert machine.coup is not None and {"P1", "B1"} <= machine.coup.exposed


# ---- unreadable and foreign cards ------------------------------------------------------------


def test_unreadable_card_holds_until_entered_and_later_cards_wait():
    machine, ev = play("baden", "SHOE DEAL 9C ?? KH")
    assert machine.state == "on_hold" and machine.lamp == "RED"
    assert irregular(ev) == ["UNREADABLE_CARD"]
    ev += machine.handle(parse_script("3S")[0])
    assert coups(ev) == []
    ev += machine.handle(parse_script("ENTER:5D")[0])
    r = only_coup(ev)
    assert r["banker"]["cards"] == ["5D", "3S"] and r["outcome"] == "punter"
    resolved = [e for e in ev if e["event"] == "irregularity.resolved"]
    assert resolved[0]["how"] == "ENTER 5D"


def test_foreign_card_holds_for_a_supervisor():
    # One pack (BTN,SHOE,1): a second 9C cannot come from it.
    machine, ev = play("baden", "SHOE:1 DEAL 9C 5D 9C")
    assert machine.state == "on_hold" and irregular(ev) == ["FOREIGN_CARD"]
    ev += machine.handle(parse_script("OK")[0])
    assert machine.state == "on_hold"  # OK alone is not enough: a supervisor's KEY first
    for m in parse_script("KEY:4711 OK KH 3S"):
        ev += machine.handle(m)
    r = only_coup(ev)
    assert r["punter"]["cards"] == ["9C", "KH"] and r["banker"]["cards"] == ["5D", "3S"]
    resolved = [e for e in ev if e["event"] == "irregularity.resolved"]
    assert resolved[0]["by"] == "4711"


# ---- order and number: 000 rules 12, 13 ---------------------------------------------------------


def test_wrong_order_holds_and_ok_puts_the_card_in_its_place():
    machine, ev = play("baden", "SHOE DEAL 9C@B")
    assert machine.state == "on_hold" and irregular(ev) == ["WRONG_ORDER"]
    assert next(e for e in ev if e["event"] == "irregularity")["rule"] == "000 rule 12"
    for m in parse_script("OK 5D KH 3S"):
        ev += machine.handle(m)
    assert only_coup(ev)["punter"]["cards"] == ["9C", "KH"]


def test_card_after_a_natural_is_wrong_number_and_stays_for_the_next_deal():
    _, ev = play("baden", "SHOE DEAL 9C 5D KH 3S 4H DEAL 5D 5C 3S")
    results = coups(ev)
    assert irregular(ev) == ["WRONG_NUMBER"]
    assert results[1]["punter"]["cards"] == ["4H", "5C"]  # 000 rule 13
    assert results[1]["banker"]["cards"] == ["5D", "3S"]


def test_card_before_deal_is_wrong_number():
    _, ev = play("baden", "SHOE 4H DEAL 5D 5C 3S")
    assert irregular(ev) == ["WRONG_NUMBER"]
    assert only_coup(ev)["punter"]["cards"] == ["4H", "5C"]


def test_uncovered_extra_card_goes_to_the_discard():
    _, ev = play("baden", "SHOE DEAL 9C 5D KH 3S 4H! DEAL 5D 8C 4S 2C")
    assert coups(ev)[1]["punter"]["cards"] == ["5D", "4S"]


def test_declaration_missing_holds_until_declared():
    machine, ev = play("baden", "SHOE DEAL 2C TH 3D 6S 4H")
    assert machine.state == "on_hold" and irregular(ev) == ["DECLARATION_MISSING"]
    ev += machine.handle(parse_script("CARTE")[0])
    assert machine.coup is not None and machine.coup.punter == ["2C", "3D", "4H"]


def test_table_position_sensor_tells_the_declaration():
    _, ev = play("baden", "SHOE DEAL 2C TH 3D 5S 4H@B")
    r = only_coup(ev)  # 4H went to the banker: the punter stood
    assert r["banker"]["cards"] == ["TH", "5S", "4H"] and r["punter"]["total"] == 5


def test_deal_inside_an_undecided_coup_holds():
    machine, ev = play("baden", "SHOE DEAL 2C TH DEAL")
    assert machine.state == "on_hold" and irregular(ev) == ["COUP_NOT_FINISHED"]
    ev += machine.handle(parse_script("OK")[0])
    assert machine.state == "dealing" and machine.coup is not None and machine.coup.number == 1


def test_supervisor_void_cancels_the_coup_and_the_held_deal_then_starts():
    _, ev = play("baden", "SHOE DEAL 2C TH DEAL KEY:99 VOID 9C 5D KH 3S")
    results = coups(ev)
    assert [r["outcome"] for r in results] == ["void", "punter"]
    assert results[1]["coup"] == 2


def test_void_needs_a_supervisor_key():
    machine, ev = play("baden", "SHOE DEAL 2C TH VOID")
    assert coups(ev) == [] and machine.state == "dealing"
    ev += machine.handle(parse_script("KEY:12")[0])
    ev += machine.handle(parse_script("VOID")[0])
    assert only_coup(ev)["outcome"] == "void"


# ---- the cut card and the end of the shoe --------------------------------------------------------


def test_cut_card_mid_coup_completes_the_coup_and_the_next_is_the_last():
    _, ev = play("baden", "SHOE DEAL 9C CUT 5D KH 3S DEAL 9D 5H KD 3C")
    results = coups(ev)
    assert [r["last_coup"] for r in results] == [False, True]


def test_deal_after_last_coup_is_recorded():
    _, ev = play("baden", "SHOE CUT DEAL 9C 5D KH 3S DEAL 9D 5H KD 3C")
    assert "DEAL_AFTER_LAST_COUP" in irregular(ev)


def test_zoppot_cut_card_seven_from_the_bottom():
    # 000: "counts off seven cards from the bottom of the pack, and inserts another blank".
    _, early = play("zoppot-1934", "SHOE:1 CUT")
    assert irregular(early) == ["CUT_CARD_MISPLACED"]  # 52 cards left, not 7
    from shoe_daemon.game.cards import ALL_CODES

    # 45 cards out of a one-pack shoe (here as extra cards, counted all the same): 7 left.
    _, right = play("zoppot-1934", "SHOE:1 " + " ".join(ALL_CODES[:45]) + " CUT")
    assert "CUT_CARD_MISPLACED" not in irregular(right)


def test_empty_inside_a_coup_is_a_short_last_coup():
    # 000 rule 24: "the coup is cancelled without loss to either side".
    _, ev = play("baden", "SHOE DEAL 2C TH AD 3S EMPTY")
    r = only_coup(ev)
    assert r["outcome"] == "cancelled" and r["irregularities"] == ["SHORT_LAST_COUP"]
    assert next(e for e in ev if e["event"] == "irregularity")["rule"] == "000 rule 24"


# ---- a table that joined a shoe in play ---------------------------------------------------------
# The shoe's start, its cut card and its inventory are what the last coup and the foreign
# cards are decided by (000: six packs, the blank seven cards from the bottom; rule 24): a
# table that did not see its BTN,SHOE publishes nothing of that shoe.


def test_a_table_that_joined_a_shoe_in_play_publishes_none_of_its_coups():
    # Mid-coup, then whole coups, the cut card and the end of the shoe, none of it seen from
    # its BTN,SHOE: the old machine took the first DEAL as a new shoe 1 and the stray cards as
    # wrong numbers, and published coups the table could not decide right.
    machine, ev = play("zoppot-1934", "KH 3S DEAL 9C 5D KH 3S DEAL 2C 9H 3D KC CUT EMPTY")
    assert ev == []
    assert machine.state == "no_shoe" and machine.unseen == 14
    assert machine.lamp == "RED"  # the croupier is told: the table follows no shoe
    assert machine.public.shoe is None


def test_the_next_shoe_is_published_whole_after_joining_mid_shoe():
    machine, ev = play("baden", "DEAL 9C 5D KH 3S SHOE DEAL 9D 5H KD 3C")
    r = only_coup(ev)
    assert (r["shoe"], r["coup"], r["punter"]["cards"]) == (1, 1, ["9D", "KD"])
    assert machine.unseen == 5 and machine.lamp == "GREEN"


def test_hardware_faults_before_the_first_shoe_still_latch():
    machine = CoupMachine(get_profile("baden"), latching=True)
    for message in parse_script("FAULT:JAM:ON DEAL 9C"):
        assert machine.handle(message) == []
    assert [latch.code for latch in machine.latches] == ["JAM"]
    assert (machine.waiting, machine.unseen) == (2, 0)  # the DEAL waits behind the latch
    assert machine.handle(parse_script("FAULT:JAM:OFF")[0]) == []
    assert machine.resolve("fault-JAM", "ana") == []
    assert (machine.waiting, machine.unseen, machine.state) == (0, 2, "no_shoe")


# ---- Punto Banco: 003 ----------------------------------------------------------------------


def test_punto_banco_player_draws_on_five_and_swiss_nine_is_reported():
    _, ev = play("baden-punto-banco", "SHOE DEAL 2C 9C 3D KC")
    r = only_coup(ev)
    assert r["swiss_nine"] == ["simple", "colour", "swiss"] and r["outcome"] == "banker"
    machine, _ = play("baden-punto-banco", "SHOE DEAL 2C TH 3D 6S")
    assert machine.state == "punter_drawing"


@pytest.mark.parametrize(
    ("script", "bets"),
    [
        ("SHOE DEAL 2C 9H 3D KD", ["simple"]),
        ("SHOE DEAL 2C 9H 3D KH", ["simple", "colour"]),
        ("SHOE DEAL 2C 9H 3D 9D 7S", []),
    ],
)
def test_punto_banco_swiss_nine_levels(script, bets):
    _, ev = play("baden-punto-banco", script)
    assert coups(ev)[0]["swiss_nine"] == bets


# ---- the faux tirage the banker redresses: 000 rule 21 ---------------------------------------


@pytest.mark.parametrize(("press", "banker", "how"), [
    ("OK", ["2C", "2D", "9C"], "OK"),  # the banker takes the card drawn by mistake
    ("STAND", ["2C", "2D"], "STAND"),  # he stands: the card goes to the discard
])
def test_a_free_banker_lifts_the_faux_tirage_hold_as_the_instruction_says(press, banker, how):
    # The bound punter (TABLE:P) has 6 and calls CARTE against the table; the free Zoppot
    # banker (000: "he can play free") then chooses. Redressed and played, not cancelled.
    machine, ev = play("zoppot-1934", "SHOE DEAL TABLE:P 3H 2C 3S 2D CARTE 9C")
    hold = [e for e in ev if e["event"] == "irregularity"][-1]
    assert machine.state == "on_hold" and hold["code"] == "FAUX_TIRAGE" and hold["hold"]
    assert "OK" in hold["action"] and "STAND" in hold["action"]
    for message in parse_script(f"{press} DEAL"):
        ev += machine.handle(message)
    r = only_coup(ev)
    assert r["banker"]["cards"] == banker and r["punter"]["cards"] == ["3H", "3S"]
    assert r["outcome"] == "punter" and r["irregularities"] == ["FAUX_TIRAGE", "FAUX_TIRAGE"]
    resolved = [e for e in ev if e["event"] == "irregularity.resolved"]
    assert [(e["code"], e["how"], e["by"]) for e in resolved] == [("FAUX_TIRAGE", how, "croupier")]
    assert machine.state == "dealing" and machine.coup is not None and machine.coup.number == 2


# ---- BTN,FREE (protocol 1.1): 003 banco solo, "nach Belieben" -----------------------------


def test_baden_banco_solo_punter_may_draw_on_six_without_a_faux_tirage():
    # 003: "Spielt nur ein Ponte gegen den Bankhalter, können beide nach Belieben eine dritte
    # Karte ... ziehen". Bound, the same CARTE is a faux tirage (see above).
    machine, ev = play("baden", "SHOE FREE:P FREE:B DEAL 3C TH 3D 4S CARTE 5H")
    assert coups(ev) == [] and machine.state == "banker_to_play" and machine.lamp == "AMBER"
    ev += machine.handle(parse_script("STAND")[0])
    r = only_coup(ev)
    assert r["punter"]["cards"] == ["3C", "3D", "5H"] and r["banker"]["cards"] == ["TH", "4S"]
    assert r["outcome"] == "banker" and irregular(ev) == [] and r["irregularities"] == []


def test_a_free_punters_call_on_seven_is_his_and_never_the_bankers_faux_tirage():
    # Issue 23: FREE:P alone, the punter on 7 calls CARTE: 003 "nach Belieben" on every
    # total below a natural, so the coup waits for his call and the card is his. The banker,
    # still bound, then plays Baden's grid: 4 against a third card 5 draws.
    machine, ev = play("baden", "SHOE FREE:P DEAL 3C TH 4D 4S")
    assert coups(ev) == [] and machine.state == "punter_to_declare"
    ev += [e for m in parse_script("CARTE 5H 2D") for e in machine.handle(m)]
    r = only_coup(ev)
    assert r["punter"]["cards"] == ["3C", "4D", "5H"] and r["banker"]["cards"] == ["TH", "4S", "2D"]
    assert r["outcome"] == "banker" and irregular(ev) == [] and r["irregularities"] == []


def test_a_free_punter_on_two_may_stand():
    # 003 "nach Belieben": free, even a 2 is his call, awaited (bound, the grid draws).
    machine, ev = play("baden", "SHOE FREE:P DEAL 2C TH QD 4S")
    assert machine.state == "punter_to_declare"
    ev += machine.handle(parse_script("RESTE")[0])
    assert coups(ev) == [] and machine.state == "banker_to_play"
    bound, _ = play("baden", "SHOE DEAL 2C TH QD 4S")
    assert bound.state == "punter_drawing"


def test_a_free_banker_may_draw_where_the_grid_says_stand():
    # Baden grid row 6, punter's third card 2: R. Bound, his card is a faux tirage; free
    # (FREE:B inside the coup, before his turn), it is his.
    _, ev = play("baden", "SHOE DEAL FREE:B 2C TH AD 6S 2H 9D")
    r = only_coup(ev)
    assert r["banker"]["cards"] == ["TH", "6S", "9D"] and irregular(ev) == []


def test_free_pressed_inside_the_coup_frees_the_punter_after_his_implied_declaration():
    # The bound punter's 6 stood by the grid; FREE:P before he played: his CARTE is his own.
    # Then the banker, still bound, draws with 4 against a third card 5.
    _, ev = play("baden", "SHOE DEAL 3C TH 3D 4S FREE:P CARTE 5H 2D")
    r = only_coup(ev)
    assert r["punter"]["cards"] == ["3C", "3D", "5H"]
    assert r["banker"]["cards"] == ["TH", "4S", "2D"] and irregular(ev) == []


def test_free_pressed_between_coups_is_for_the_next_coup_only():
    # Coup 1 banco solo; coup 2 bound again: the same CARTE on 6 is a faux tirage, and the
    # card drawn for the punter goes to the banker, who draws with 4 (000 rule 21).
    _, ev = play(
        "baden", "SHOE FREE:P FREE:B DEAL 3C TH 3D 7S CARTE 5H STAND DEAL 3H TD 3S 4C CARTE 5D"
    )
    assert irregular(ev) == ["FAUX_TIRAGE"]
    assert [e["coup"] for e in ev if e["event"] == "irregularity"] == [2]
    first, second = coups(ev)
    assert first["punter"]["cards"] == ["3C", "3D", "5H"]
    assert first["banker"]["cards"] == ["TH", "7S"]
    assert second["punter"]["cards"] == ["3H", "3S"]
    assert second["banker"]["cards"] == ["TD", "4C", "5D"]


def test_the_last_of_table_and_free_pressed_between_coups_holds():
    free, _ = play("zoppot-1934", "SHOE TABLE:P FREE:P DEAL 2C TH 3D 6S")
    assert free.state == "punter_to_declare"  # free: 000 gives him the choice with 5
    bound, _ = play("clermont-2015", "SHOE FREE:P TABLE:P DEAL 2C TH 3D 6S")
    assert bound.state == "banker_to_play"  # bound: 001's table stands on 5


def test_free_does_not_unbind_a_banker_bound_by_rule_8():
    # 000 rule 8: both punter cards uncovered, the banker plays after the shoe, free or not.
    # Baden grid row 6, third card 1: R.
    _, ev = play("baden", "SHOE DEAL FREE:B 2C TH AD EXPOSE:P1 EXPOSE:P2 FREE:B 6S AH")
    assert only_coup(ev)["banker"]["cards"] == ["TH", "6S"]


def test_free_changes_nothing_at_punto_banco():
    # 003 PUNTO BANCO: "nach einem festen Ziehungschema".
    machine, _ = play("baden-punto-banco", "SHOE FREE:P FREE:B DEAL 2C TH 3D 6S")
    assert machine.state == "punter_drawing"
