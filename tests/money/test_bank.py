"""The bank across coups and shoes: who takes it, where it goes after a loss, the Suite and
its auction (000 rules 22, 23), the offer at the last sum (001, 003), the banker out of turn
and his successor, Schokolade and garage, and a new shoe (000 rule 25)."""

from __future__ import annotations

import pytest

from shoe_daemon.money.bank import Bank
from tests.money.support import Desk, amounts, line, profile, refused


def full(name: str) -> Desk:
    return Desk(name, range(1, profile(name).chemin_de_fer.places.value + 1))


def won(desk: Desk, who: str = "seat 4", amount: str = "100") -> dict:
    desk.do("stake", who=who, amount=amount)
    return desk.coup_played("banker")


def lost(desk: Desk, who: str = "seat 4", amount: str = "100") -> dict:
    desk.do("stake", who=who, amount=amount)
    return desk.coup_played("punter")


# --- taking the bank -----------------------------------------------------------------------------


def test_the_lowest_place_banks_first() -> None:
    """003: "Der Spieler mit der niedrigsten Platznummer übernimmt die erste Bankhalterschaft"."""
    desk = Desk("baden", [2, 3, 5, 6, 8])
    refusal = refused(desk, "out_of_turn", "take_bank", who="seat 3", amount="500")
    assert "niedrigsten Platznummer" in refusal.rule
    refused(desk, "below_minimum", "take_bank", who="seat 2", amount="50")
    refused(desk, "not_a_chip", "take_bank", who="seat 2", amount="150.50")
    desk.do("take_bank", who="seat 2", amount="500")
    assert desk.bank["holder"] == "seat 2" and desk.bank["anchor"] == 2


def test_a_maximum_bank_from_the_table() -> None:
    desk = Desk("shimmy", range(1, 10), max_bank=1000)
    refused(desk, "above_maximum", "take_bank", who="seat 1", amount="1001")


@pytest.mark.parametrize("name", ["zoppot-1934", "clermont-2015", "eight-pack", "baden",
                                  "shimmy"])
def test_declined_bank_goes_on(name: str) -> None:
    """004: "Any player may refuse to operate the shoe and provide the bank when it is his turn
    to do so, and it then goes to next in circuit." (a decision for the others)"""
    desk = full(name)
    refused(desk, "out_of_turn", "decline_bank", who="seat 2")
    records = desk.do("decline_bank", who="seat 1")
    assert records[0]["bank"]["in_turn"] == "seat 2"
    assert records[0]["rule"] == "chemin_de_fer.decline_bank"
    assert "next in circuit" in profile(name).term(records[0]["rule"]).source
    desk.do("take_bank", who="seat 2", amount="500")


@pytest.mark.parametrize("name", ["zoppot-1934", "clermont-2015", "baden", "shimmy"])
def test_after_a_loss_the_bank_passes_to_the_next_place(name: str) -> None:
    """000: "Should the banker lose a coup, the 'shoe' passes on directly to the next place"."""
    desk = Desk(name, [1, 2, 4, 5, 6, 7, 8])
    desk.do("take_bank", who="seat 1", amount="500")
    settlement = lost(desk)
    assert settlement["bank"]["passes_to"] == "seat 2"
    desk.do("take_bank", who="seat 2", amount="300")
    desk.do("leave", seat=4)
    assert lost(desk, "seat 5")["bank"]["passes_to"] == "seat 5"  # the empty place is passed over
    refused(desk, "out_of_turn", "take_bank", who="seat 6", amount="300")
    desk.do("take_bank", who="seat 5", amount="300")


def test_leaving_and_sitting() -> None:
    desk = Desk("baden", range(1, 9))
    refused(desk, "seating", "sit", seat=3)
    desk.do("take_bank", who="seat 1", amount="500")
    refused(desk, "seating", "leave", seat=1)
    desk.do("stake", who="seat 3", amount="50")
    refused(desk, "seating", "leave", seat=3)
    desk.do("sit", seat=9)
    assert desk.table.round.seating.occupied == frozenset(range(1, 10))


def test_leaving_while_the_coup_is_dealt_says_why() -> None:
    """A player with a stake stays until it is settled; one without waits for the
    settlement too (where the bank passes is counted from the places as dealt), and each
    refusal says which is his case (an answer to a person is always true)."""
    desk = Desk("baden", range(1, 10))
    desk.do("take_bank", who="seat 1", amount="500")
    desk.do("stake", who="seat 3", amount="50")
    desk.do("close", shoe=1, coup=1)
    refusal = refused(desk, "seating", "leave", seat=3)
    assert refusal.reason == "seat 3 has a stake in the coup: it is withdrawn or settled first"
    refusal = refused(desk, "seating", "leave", seat=2)
    assert refusal.reason.startswith("the coup is dealt: a player leaves after its settlement")
    desk.do("settle", result=line("baden", 1, 1, "punter"))
    desk.do("leave", seat=2)
    assert desk.table.bank.turn(desk.table.seating) == 3  # the next place seated banks


# --- Zoppot: the Suite and its auction -----------------------------------------------------------


def test_zoppot_suite_auction_and_rule_22() -> None:
    """000: the banker "may withdraw the bank after winning a coup, with the word, 'Suite'"; it
    "is then auctioned by the croupier"; rule 22: he and his partner "may not share in the
    bidding for the said 'suite', nor are they free to take part in the auction until the
    next time the bank changes hands"; rule 23: the winner may put it up again."""
    desk = full("zoppot-1934")
    desk.do("take_bank", who="seat 1", amount="1000", partner="seat 9", partner_amount="300")
    refusal = refused(desk, "not_now", "suite")  # not yet won a coup
    assert "after winning a coup" in refusal.rule
    desk.do("stake", who="seat 4", amount="100")
    desk.coup_played("egalite")
    refused(desk, "not_now", "suite")  # an égalité is not a win at Zoppot
    won(desk)
    records = desk.do("suite")
    assert records[-1]["paid"] == {"seat 1": "766.50", "seat 9": "328.50"}
    assert records[-1]["bank"]["phase"] == "auction"
    refused(desk, "excluded", "bid", who="seat 1", amount="500")
    refused(desk, "excluded", "bid", who="seat 9", amount="500")
    refused(desk, "below_minimum", "bid", who="seat 5", amount="5")
    desk.do("bid", who="seat 5", amount="400")
    refused(desk, "bid_too_low", "bid", who="outsider A", amount="400")
    desk.do("bid", who="outsider A", amount="450")
    desk.do("award")
    assert desk.bank["holder"] == "outsider A" and desk.bank["anchor"] == 1
    assert desk.bank["last_banker"] == "seat 1"
    # Prime is counted from the originator of the Suite (rules 14, 26): seat 2 first
    desk.do("banco", who="seat 3", kind="banco_solo")
    desk.do("banco", who="seat 2", kind="banco_solo")
    desk.do("withdraw", stake="s2")
    # ... and the last banker is paid last (rule 26, "finally, the last banker")
    for seat, amount in (("seat 1", "100"), ("seat 5", "50"), ("seat 2", "20")):
        desk.do("stake", who=seat, amount=amount)
    settlement = desk.coup_played("banker")
    assert [ln["who"] for ln in settlement["lines"]] == ["seat 1", "seat 2", "seat 5",
                                                         "outsider A"]
    # rule 23: the out-of-turn banker, having won, may auction the Suite again
    records = desk.do("suite")
    refused(desk, "excluded", "bid", who="seat 1", amount="500")  # still barred
    refused(desk, "excluded", "bid", who="outsider A", amount="500")
    desk.do("bid", who="seat 6", amount="300")
    desk.do("award")
    assert desk.bank["excluded"] == [["outsider A", 1]]  # seat 1 free again: changed hands
    assert desk.bank["anchor"] == 1  # still counted from the originator
    lost(desk, "seat 3")
    assert desk.bank["in_turn"] == "seat 2"  # the place after the banker in turn who gave it up


def test_zoppot_payment_order_ends_with_the_last_banker() -> None:
    desk = full("zoppot-1934")
    desk.do("take_bank", who="seat 1", amount="1000")
    won(desk)
    desk.do("suite")
    desk.do("bid", who="seat 6", amount="500")
    desk.do("award")
    for seat, amount in (("seat 1", "40"), ("seat 5", "100"), ("seat 2", "20"),
                         ("seat 9", "30")):
        desk.do("stake", who=seat, amount=amount)
    settlement = desk.coup_played("banker")
    assert [ln["who"] for ln in settlement["lines"]] == ["seat 5", "seat 2", "seat 9",
                                                         "seat 1", "seat 6"]  # the bank


def test_an_auction_without_bids_goes_to_the_next_place() -> None:
    desk = full("zoppot-1934")
    desk.do("take_bank", who="seat 1", amount="500")
    won(desk)
    desk.do("suite")
    desk.do("award")
    assert desk.bank["phase"] == "vacant" and desk.bank["in_turn"] == "seat 2"


def test_new_shoe_keeps_the_figure_rule_25() -> None:
    """000 rule 25: "The first coup of a new 'shoe' is announced at exactly the same figure as
    that which was won by the bank in the last coup of the preceding 'shoe'." """
    desk = full("zoppot-1934")
    desk.do("take_bank", who="seat 1", amount="500")
    won(desk)
    before = desk.bank
    records = desk.do("new_shoe", shoe=2)
    assert records[0]["change"] == "new_shoe"
    assert "rule 25" in desk.profile.term(records[0]["rule"]).source
    assert desk.bank == before and desk.bank["amount"] == "595.00"
    assert "suite" in desk.table.summary()["may"]  # "provided that the banker does not wish
    desk.shoe = 2  # to make a 'suite'"
    desk.coup = 0
    desk.do("stake", who="seat 3", amount="100")
    settlement = desk.coup_played("banker")
    assert settlement["shoe"] == 2 and settlement["bank"]["before"] == "595.00"


# --- Clermont: the offer, the standing players, the auction --------------------------------------


def test_clermont_pass_offer_standing_and_auction() -> None:
    """001: the banker "retires after at least one valid round"; the bank is offered "with the
    same amount at which it stood", "starting with the player on the right of the last
    banker"; then "to the standing player that 'speaks first'"; then auctioned, where
    "players who are seated take precedence" at equal bids."""
    desk = full("clermont-2015")
    desk.do("take_bank", who="seat 1", amount="500")
    refused(desk, "not_now", "suite")
    desk.do("stake", who="seat 4", amount="100")
    desk.coup_played("egalite")  # "considered invalid (égalité)"
    refused(desk, "not_now", "suite")
    won(desk)
    records = desk.do("suite")
    assert records[-1]["bank"]["offer"] == "595.00" and records[-1]["bank"]["in_turn"] == "seat 2"
    refused(desk, "out_of_turn", "accept_offer", who="seat 3")
    for seat in range(2, 9):
        desk.do("decline_bank", who=f"seat {seat}")
    assert desk.bank["standing"] is True
    refused(desk, "out_of_turn", "accept_offer", who="seat 2")
    desk.do("to_auction")
    desk.do("bid", who="outsider A", amount="600")
    desk.do("bid", who="seat 3", amount="600")  # seated: equal and first
    refused(desk, "bid_too_low", "bid", who="outsider B", amount="600")
    desk.do("award")
    assert desk.bank["holder"] == "seat 3" and desk.bank["anchor"] == 1


def test_clermont_standing_player_takes_the_offer_out_of_turn() -> None:
    desk = full("clermont-2015")
    desk.do("take_bank", who="seat 1", amount="500")
    won(desk)
    desk.do("suite")
    for seat in range(2, 9):
        desk.do("decline_bank", who=f"seat {seat}")
    desk.do("accept_offer", who="outsider A")
    assert desk.bank["holder"] == "outsider A" and desk.bank["amount"] == "595.00"
    lost(desk, "seat 6")
    assert desk.bank["in_turn"] == "seat 2"


# --- Baden: the offer in turn, the auction, the banker out of turn -------------------------------


def test_baden_offer_in_turn_then_auction_and_successor() -> None:
    """003: the bank given up "wird zunächst in der Höhe der letzten Banksumme den Mitspielern
    der Reihe nach angeboten", then "«meistbietend» versteigert"; after the banker out of turn
    "geht die nächste Bankhalterschaft an den rechts vom vorletzten Bankhalter sitzenden
    Spieler über"."""
    desk = full("baden")
    for seat in (1, 2, 3):
        desk.do("decline_bank", who=f"seat {seat}")
    desk.do("take_bank", who="seat 4", amount="500")
    desk.do("stake", who="seat 6", amount="100")
    desk.coup_played("egalite")
    records = desk.do("suite")  # after an égalité, as after a win
    assert records[-1]["bank"]["in_turn"] == "seat 5"
    for seat in (5, 6, 7, 8, 9, 1, 2, 3):
        desk.do("decline_bank", who=f"seat {seat}")
    assert desk.bank["phase"] == "auction"
    desk.do("bid", who="seat 4", amount="700")  # nothing bars him at Baden
    desk.do("bid", who="outsider Z", amount="800")
    desk.do("award")
    assert desk.bank["holder"] == "outsider Z" and desk.bank["anchor"] == 4
    lost(desk, "seat 9")
    assert desk.bank["in_turn"] == "seat 5"  # right of the penultimate banker, seat 4


def test_baden_offer_taken_in_turn() -> None:
    desk = full("baden")
    desk.do("take_bank", who="seat 1", amount="500")
    won(desk)  # the Schokolade, Fr. 400, set aside by the settlement (issue 20)
    desk.do("suite")
    desk.do("decline_bank", who="seat 2")
    desk.do("accept_offer", who="seat 3")
    # "in der Höhe der letzten Banksumme": 100 doubled, less the Taxe of 5
    assert desk.bank["holder"] == "seat 3" and desk.bank["amount"] == "195.00"
    assert desk.bank["anchor"] == 3 and desk.bank["last_banker"] is None


# --- Shimmy: garage and passing at any time; eight-pack: no Suite --------------------------------


def test_shimmy_garage_and_pass() -> None:
    """004: "The banker may at any time ask for some of the chips in the bank to be garaged
    (withdrawn from the bank as winnings) and he may at any time pass the bank"."""
    desk = full("shimmy")
    desk.do("take_bank", who="seat 1", amount="500")
    won(desk, amount="300")
    records = desk.do("garage", amount="200")
    assert records[0]["paid"] == {"seat 1": "200"} and desk.bank["amount"] == "585"
    refused(desk, "below_minimum", "garage", amount="490")
    desk.do("stake", who="seat 2", amount="50")
    refused(desk, "not_now", "garage", amount="10")
    desk.do("withdraw", stake="s1")
    records = desk.do("suite")
    assert records[-1]["paid"] == {"seat 1": "585"}
    assert desk.bank["phase"] == "vacant" and desk.bank["in_turn"] == "seat 2"


def test_shimmy_passes_before_any_coup() -> None:
    desk = full("shimmy")
    desk.do("take_bank", who="seat 1", amount="500")
    desk.do("suite")
    assert desk.bank["in_turn"] == "seat 2"


def test_eight_pack_has_no_suite() -> None:
    desk = full("eight-pack")
    desk.do("take_bank", who="seat 1", amount="500")
    refused(desk, "not_now", "suite")


def test_suite_during_betting_returns_the_stakes() -> None:
    desk = full("baden")
    desk.do("take_bank", who="seat 1", amount="500")
    won(desk)
    desk.do("stake", who="seat 2", amount="100")
    records = desk.do("suite")
    assert records[0] == {"event": "money.withdrawn", "stake": "s1", "who": "seat 2",
                          "amount": "100.00", "why": "the banker gave up the bank"}
    assert desk.table.round is None


def test_bank_state_reads_back() -> None:
    desk = full("zoppot-1934")
    desk.do("take_bank", who="seat 1", amount="1000", partner="seat 9", partner_amount="300")
    won(desk)
    desk.do("suite")
    desk.do("bid", who="seat 5", amount="400")
    state = desk.table.bank
    again = Bank.from_dict(desk.profile, desk.limits, state.to_dict())
    assert again == state


def test_settled_bank_follows_the_settlement() -> None:
    desk = full("baden")
    desk.do("take_bank", who="seat 1", amount="500")
    settlement = won(desk, amount="200")
    # 003: "die Verdopplung der ursprünglichen Einsätze der Gegenspieler, abzüglich Taxe"
    assert desk.bank["amount"] == settlement["bank"]["after"] == "390.00"
    assert desk.bank["set_aside"] == settlement["bank"]["set_aside"] == "300.00"
    assert amounts(settlement)["bank"] == 190
