"""Settling a Chemin de fer coup by each house's rules, 003's worked example first."""

from __future__ import annotations

import copy
import json
from decimal import Decimal

import pytest

from shoe_daemon.money.legacy import schokolade_asked
from shoe_daemon.money.limits import LimitsError, TableLimits
from shoe_daemon.money.refusals import Refusal
from shoe_daemon.money.settlement import Settlement
from shoe_daemon.money.table import settings_of
from shoe_daemon.money.verify import check_settlement, settle_round
from tests.money.support import CHEMIN_DE_FER, Desk, amounts, limits, line, profile, refused


def banked(name: str, amount: str, seated=None, **more: object) -> Desk:
    if seated is None:
        seated = range(1, profile(name).chemin_de_fer.places.value + 1)
    desk = Desk(name, seated, **more)
    desk.do("take_bank", who="seat 1", amount=amount)
    return desk



def round_record(desk: Desk) -> dict:
    """The last closed round's record among the desk's steps."""
    return next(r for _, records in reversed(desk.steps) for r in records
                if r["event"] == "money.round")


# --- 003's worked example ------------------------------------------------------------------------


def test_schokolade_worked_example() -> None:
    """003 and its worked example, by the ruling of issue 20: Banco Fr. 800 less Ponte Fr.
    600 is Schokolade Fr. 200, set aside ("gehört im nächsten Spiel nicht mehr zur
    Banksumme"); Banksumme Fr. 1200 less Taxe Fr. 30 is neue Banksumme Fr. 1170 ("Die neue
    Banksumme ergibt sich aus der Verdopplung der ursprünglichen Einsätze der Gegenspieler,
    abzüglich Taxe"), by the settlement itself."""
    desk = banked("baden", "800")
    desk.do("stake", who="seat 3", amount="300")
    desk.do("stake", who="seat 5", amount="200")
    desk.do("stake", who="seat 7", amount="100")
    records = desk.coup_played_records("banker")
    settlement = records[0]
    assert settlement["commission"] == "30.00"  # Taxe Fr. 30
    assert settlement["bank"]["uncovered"] == "200.00"
    assert settlement["bank"]["set_aside"] == "200.00"  # Schokolade Fr. 200
    assert settlement["bank"]["after"] == "1170.00"  # neue Banksumme Fr. 1170
    assert Decimal(settlement["bank"]["after"]) == 2 * Decimal(600) - Decimal(30)
    assert "chemin_de_fer.set_aside" in settlement["rules"]
    bank_line = settlement["lines"][-1]  # the bank and the Schokolade stay on the table
    assert (bank_line["carried"], bank_line["paid"], bank_line["net"]) == ("1370.00", "0.00",
                                                                           "570.00")
    assert records[1]["bank"]["amount"] == "1170.00"
    assert records[1]["bank"]["set_aside"] == "200.00"
    assert "schokolade" not in records[1]["may"]
    refusal = refused(desk, "not_now", "schokolade")  # set aside already: nothing to ask
    assert "set aside" in refusal.reason
    # The next coup is played against Fr. 1170: a banco plays it whole.
    assert desk.do("banco", who="seat 2", kind="banco_solo")[-1]["stake"]["amount"] == "1170.00"
    desk.do("withdraw", stake="s1")
    # "zahlt der Croupier die volle Banksumme (inklusive Schokolade) an ihn aus"
    suite = desk.do("suite")[-1]
    assert suite["paid"] == {"seat 1": "1370.00"}
    assert suite["bank"]["phase"] == "offer" and suite["bank"]["offer"] == "1170.00"


def test_schokolade_asked_in_a_ledger_written_before_issue_20() -> None:
    """A settlement recorded before issue 20 (no `set_aside`) kept the uncovered part in the
    bank (1,370) until the banker asked for it; it is played again by that reading."""
    desk = banked("baden", "800")
    desk.do("stake", who="seat 3", amount="600")
    desk.do("close", shoe=1, coup=1)
    records = desk.do("settle", result=line("baden", 1, 1, "banker"), schokolade="asked")
    assert "set_aside" not in records[0]["bank"]
    assert records[0]["bank"]["after"] == "1370.00" and records[1]["bank"]["amount"] == \
        "1370.00"
    assert "schokolade" in records[1]["may"]
    assert desk.do("schokolade")[0]["bank"]["amount"] == "1170.00"
    assert schokolade_asked(profile("baden"), records[0])
    refused(desk, "bad_request", "settle", result=line("baden", 1, 2, "banker"),
            schokolade="yes")


def asked_reading(stake: str = "600") -> Desk:
    """003's worked example at a table configured `schokolade = "asked"` (003: "kann der
    Bankhalter die entstehende Differenz zur Seite stellen lassen"): the bank 1,370, the
    uncovered 200 in it until the banker asks for the Schokolade, as before issue 20."""
    desk = banked("baden", "800", schokolade="asked")
    desk.do("stake", who="seat 3", amount=stake)
    records = desk.coup_played_records("banker")
    assert "set_aside" not in records[0]["bank"] and records[0]["bank"]["after"] == "1370.00"
    assert desk.bank["amount"] == "1370.00" and desk.bank["uncovered"] == "200.00"
    assert round_record(desk)["limits"]["schokolade"] == "asked"
    return desk


def test_the_schokolade_setting() -> None:
    """`schokolade` is 003's ("set_aside", the default, by the ruling of issue 20, or
    "asked"), and only where the house sets a Schokolade aside; a round of the default
    records no setting, as before issue 20."""
    assert limits("baden").schokolade == "set_aside"
    assert "schokolade" not in limits("baden").to_dict()
    assert limits("baden", schokolade="asked").to_dict()["schokolade"] == "asked"
    assert TableLimits.from_dict(limits("baden", schokolade="asked").to_dict()) == limits(
        "baden", schokolade="asked")
    with pytest.raises(LimitsError, match=r"money\.schokolade: 'set_aside'"):
        limits("baden", schokolade="sometimes")
    with pytest.raises(LimitsError, match=r"money\.schokolade: shimmy sets no Schokolade"):
        limits("shimmy", schokolade="asked")
    desk = asked_reading()
    assert settings_of(desk.table.limits, True)["schokolade"] == "asked"
    records = desk.do("limits", source="configuration", by="configuration", reason="r",
                      **{**settings_of(limits("baden"), True)})
    assert "schokolade" not in records[0]["limits"]  # back to the default from the next round


def test_schokolade_asked_while_betting_is_open() -> None:
    """003: "Wurde die Banksumme nicht in voller Höhe angesetzt, kann der Bankhalter die
    entstehende Differenz zur Seite stellen lassen. Dieser Betrag, Schokolade genannt,
    gehört im nächsten Spiel nicht mehr zur Banksumme": before the next coup is played, so
    while betting is open, stakes placed or not (issue 20). The stakes stand in the order
    placed while the smaller bank covers them ("Ist die Banksumme erreicht, können keine
    weiteren Spieler mehr setzen"); the rest are returned whole."""
    desk = asked_reading()
    desk.do("stake", who="seat 2", amount="500")
    desk.do("stake", who="seat 4", amount="600")
    desk.do("stake", who="outsider A", amount="300")  # covered from the smallest, beyond
    desk.do("stake", who="seat 5", amount="200")
    assert "schokolade" in desk.table.summary()["may"]
    records = desk.do("schokolade")
    assert [(r["event"], r.get("stake")) for r in records] == [("money.withdrawn", "s4"),
                                                               ("money.bank", None)]
    assert records[0]["why"] == "the Schokolade was set aside: the smaller bank does not " \
        "cover it"
    assert records[-1]["bank"]["amount"] == "1170.00"
    assert records[-1]["bank"]["set_aside"] == "200.00"
    assert [s.id for s in desk.table.round.stakes] == ["s1", "s2", "s3"]
    refused(desk, "more_than_bank", "stake", who="seat 5", amount="100")
    desk.do("stake", who="seat 5", amount="70")  # what the smaller bank leaves
    settlement = desk.coup_played("banker")
    assert settlement["bank"]["before"] == "1170.00"
    refused(desk, "not_now", "schokolade")  # set aside by the settlement now


def test_schokolade_asked_returns_a_banco_called_against_the_larger_bank() -> None:
    desk = asked_reading()
    desk.do("banco", who="seat 2", kind="banco_solo")
    records = desk.do("schokolade")
    assert [r["event"] for r in records] == ["money.withdrawn", "money.bank"]
    assert desk.table.round is None or not desk.table.round.stakes
    stake = desk.do("banco", who="seat 2", kind="banco_solo")[-1]["stake"]
    assert stake["amount"] == "1170.00"  # called again against the bank as it is now
    desk.coup += 1
    desk.do("close", shoe=1, coup=desk.coup)
    refusal = refused(desk, "after_close", "schokolade")
    assert refusal.rule == profile("baden").chemin_de_fer.closing.source


# --- the commission ------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "staked", "commission", "more"), [
    ("zoppot-1934", "613", "30.65", {}),  # the table's 5 %, to the Pfennig
    ("zoppot-1934", "613", "24.52", {"commission_percent": 4}),
    ("clermont-2015", "613", "30.65", {}),  # 001: "a 5% commission"
    ("eight-pack", "613", "0", {}),  # 002: none
    ("baden", "613", "30.65", {}),
    ("shimmy", "613", "30", {}),  # 30.65 in whole chips: rounded down
    ("shimmy", "19", "0", {}),  # 0.95: nothing
])
def test_commission_on_the_bankers_win(name: str, staked: str, commission: str,
                                       more: dict) -> None:
    desk = banked(name, "1000", **more)
    desk.do("stake", who="seat 2", amount=staked)
    settlement = desk.coup_played("banker")
    assert Decimal(settlement["commission"]) == Decimal(commission)
    net = amounts(settlement)
    assert net["s1"] == -Decimal(staked)
    assert net["bank"] == Decimal(staked) - Decimal(commission)
    assert "commission" in settlement["rules"] and "rounding" in settlement["rules"]


@pytest.mark.parametrize("name", CHEMIN_DE_FER)
def test_punters_win_even_money_and_the_bank_passes(name: str) -> None:
    desk = banked(name, "1000")
    desk.do("stake", who="seat 3", amount="300")
    desk.do("stake", who="seat 4", amount="200")
    settlement = desk.coup_played("punter")
    assert settlement["commission"] in ("0", "0.00")  # 004: "Winnings by punters suffer no
    paid = amounts(settlement, "paid")  # casino tax."
    assert (paid["s1"], paid["s2"]) == (600, 400)
    assert paid["bank"] == 500  # "erhält der Bankhalter den verbleibenden Rest ausbezahlt"
    assert settlement["bank"]["ends"] and settlement["bank"]["passes_to"] == "seat 2"
    assert desk.bank["phase"] == "vacant" and desk.bank["in_turn"] == "seat 2"


@pytest.mark.parametrize("name", CHEMIN_DE_FER)
def test_egalite_returns_every_stake(name: str) -> None:
    desk = banked(name, "1000")
    desk.do("stake", who="seat 3", amount="300")
    settlement = desk.coup_played("egalite")
    assert {ln["result"] for ln in settlement["lines"]} == {"returned"}
    assert amounts(settlement, "paid")["s1"] == 300
    assert desk.bank["amount"] == settlement["bank"]["after"] == settlement["bank"]["before"]
    assert "chemin_de_fer.egalite" in settlement["rules"]


@pytest.mark.parametrize("outcome", ["cancelled", "void"])
@pytest.mark.parametrize("name", CHEMIN_DE_FER)
def test_a_void_coup_returns_every_stake(name: str, outcome: str) -> None:
    """000 rule 24: "the coup is cancelled without loss to either side"."""
    desk = banked(name, "1000")
    desk.do("stake", who="seat 3", amount="300")
    desk.do("stake", who="seat 4", amount="200")
    before = desk.bank
    settlement = desk.coup_played(outcome)
    assert all(Decimal(ln["net"]) == 0 for ln in settlement["lines"])
    assert all(ln["paid"] == ln["staked"] for ln in settlement["lines"] if ln["stake"])
    assert desk.bank == before
    assert settlement["rules"] == ["void"]
    assert "rule 24" in profile(name).void.source


# --- outsiders, the partner, the difference ------------------------------------------------------


@pytest.mark.parametrize("outcome", ["banker", "punter"])
def test_outsiders_from_the_smallest_sum_to_the_bank(outcome: str) -> None:
    """000: "won or lost in consecutive order, commencing from the smallest sum, to the amount
    equal to the sum in the bank. If the bank wins, the remaining stakes are returned in part
    or in whole; if the bank loses, they win in part or not at all." """
    desk = banked("zoppot-1934", "500")
    desk.do("stake", who="outsider A", amount="300")  # s1
    desk.do("stake", who="seat 2", amount="400")  # s2: seated first
    desk.do("stake", who="outsider B", amount="50")  # s3
    desk.do("stake", who="outsider C", amount="80")  # s4
    settlement = desk.coup_played(outcome)
    covered = amounts(settlement, "in_play")
    assert (covered["s2"], covered["s3"], covered["s4"], covered["s1"]) == (400, 50, 50, 0)
    sign = -1 if outcome == "banker" else 1
    net = amounts(settlement)
    assert (net["s3"], net["s4"], net["s1"]) == (sign * 50, sign * 50, 0)
    assert amounts(settlement, "paid")["s4"] == (30 if outcome == "banker" else 130)
    order = [ln["stake"] for ln in settlement["lines"]]
    assert order == ["s2", "s3", "s4", "s1", None]  # outsiders after the seated, smallest first


def test_payment_order_rule_26() -> None:
    """000 rule 26: "First, the highest table stake, then the stake of the player seated at the
    right hand of the banker (Prime), and then the others in rotation." """
    desk = banked("zoppot-1934", "2000")
    for seat, amount in ((5, "100"), (3, "50"), (7, "300"), (2, "40"), (9, "10")):
        desk.do("stake", who=f"seat {seat}", amount=amount)
    settlement = desk.coup_played("banker")
    assert [ln["who"] for ln in settlement["lines"]] == ["seat 7", "seat 2", "seat 3", "seat 5",
                                                         "seat 9", "seat 1"]  # the bank last


def test_partner_in_the_bank_rule_4() -> None:
    """000 rule 4: "The prescribed minimum stake must be put up by the banker alone. When there
    is a full table of players, he may have a partner for any sum in excess of the minimum." """
    desk = Desk("zoppot-1934", range(1, 9))
    with pytest.raises(Refusal, match="every place is taken") as caught:
        desk.do("take_bank", who="seat 1", amount="1000", partner="seat 5",
                partner_amount="300")
    assert caught.value.code == "partner"
    desk.do("sit", seat=9)
    with pytest.raises(Refusal, match="alone"):
        desk.do("take_bank", who="seat 1", amount="1000", partner="seat 5",
                partner_amount="995")
    desk.do("take_bank", who="seat 1", amount="1000", partner="seat 5", partner_amount="300")
    with pytest.raises(Refusal, match="own bank"):
        desk.do("stake", who="seat 5", amount="10")
    desk.do("stake", who="seat 2", amount="7")
    settlement = desk.coup_played("banker")  # 7 won, 5 % = 0.35, 6.65 to share
    net = amounts(settlement)
    assert net["partner"] == Decimal("1.99")  # 6.65 x 3/10 = 1.995, toward zero
    assert net["bank"] == Decimal("4.66")
    assert desk.bank["partner_amount"] == "301.99" and desk.bank["amount"] == "1006.65"
    with pytest.raises(Refusal) as other:
        Desk("baden", range(1, 10)).do("take_bank", who="seat 1", amount="1000",
                                        partner="seat 5", partner_amount="300")
    assert other.value.code == "not_offered"


@pytest.mark.parametrize(("name", "lost"), [("zoppot-1934", 750), ("baden", 750),
                                             ("clermont-2015", 600)])
def test_banco_with_the_table_answers_for_the_difference(name: str, lost: int) -> None:
    """000 III: "the punter playing 'Banco with the table' is responsible for the difference";
    003 likewise; 001 says nothing of it, so nobody is charged it there."""
    desk = banked(name, "1000")
    desk.do("banco", who="seat 3", kind="banco_with_table", amount="600")
    desk.do("stake", who="seat 5", amount="250")
    settlement = desk.coup_played("banker")
    punter = sum(-Decimal(ln["net"]) for ln in settlement["lines"] if ln["who"] == "seat 3")
    assert punter == lost
    assert amounts(settlement)["s2"] == -250


# --- suivi and the rotation ----------------------------------------------------------------------


def test_suivi_at_baden_for_half_the_bank() -> None:
    """003 Banco suivi: "Verliert ein Ponte mindestens die Hälfte der Banksumme oder eine der
    Banco-Formen, hat er im nächsten Spiel ... das unbedingte Vorrecht auf eine Banco-Ansage." """
    desk = banked("baden", "800")
    desk.do("stake", who="seat 6", amount="400")
    desk.do("stake", who="seat 2", amount="100")
    assert desk.coup_played("banker")["suivi"] == "seat 6"
    desk.do("banco", who="seat 6", kind="banco_solo")
    with pytest.raises(Refusal) as caught:
        desk.do("banco", who="seat 2", kind="banco_solo")  # Prime, but seat 6 has the suivi
    assert caught.value.code == "out_of_turn" and "Banco suivi" in caught.value.rule


@pytest.mark.parametrize(("name", "suivi"), [("zoppot-1934", "seat 4"),
                                              ("clermont-2015", "seat 4"),
                                              ("eight-pack", None), ("baden", "seat 4"),
                                              ("shimmy", "seat 4")])
def test_suivi_after_a_lost_banco(name: str, suivi: str | None) -> None:
    desk = banked(name, "800")
    desk.do("banco", who="seat 4", kind="banco_solo")
    settlement = desk.coup_played("banker")
    if name == "eight-pack":  # the bank rotated: seat 2 banks now
        desk.do("take_bank", who="seat 2", amount="800")
    assert settlement["suivi"] == suivi
    desk.do("banco", who="seat 5", kind="banco_solo")
    if suivi:
        desk.do("banco", who=suivi, kind="banco_solo")  # displaces anyone
    egalite = desk.coup_played("egalite")
    assert egalite["suivi"] == suivi  # kept for the coup dealt again


def test_no_suivi_for_the_general_games_holder_at_zoppot() -> None:
    desk = banked("zoppot-1934", "800")
    desk.do("stake", who="seat 4", amount="600")
    assert desk.coup_played("banker")["suivi"] is None


def test_eight_pack_bank_rotates_after_each_coup() -> None:
    """002: "the role of banker rotates among the players after each hand"."""
    desk = banked("eight-pack", "500")
    desk.do("stake", who="seat 2", amount="100")
    settlement = desk.coup_played("banker")
    bank = next(ln for ln in settlement["lines"] if ln["kind"] == "bank")
    assert (bank["paid"], bank["carried"]) == ("600", "0")
    assert desk.bank["phase"] == "vacant" and desk.bank["in_turn"] == "seat 2"
    with pytest.raises(Refusal, match=r"place 2's to take"):
        desk.do("take_bank", who="seat 1", amount="500")


def test_a_coup_dealt_without_a_bank_settles_nothing() -> None:
    desk = Desk("baden", range(1, 10))
    settlement = desk.coup_played("banker")
    assert settlement["lines"] == [] and settlement["counts"] is False
    assert check_settlement(desk.profile, round_record(desk), line("baden", 1, 1, "banker"),
                            settlement) is None


# --- the serialised form and its check -----------------------------------------------------------


def test_settlement_is_recomputed_from_its_records() -> None:
    desk = banked("zoppot-1934", "500")
    desk.do("stake", who="seat 2", amount="400")
    desk.do("stake", who="outsider A", amount="300")
    settlement = desk.coup_played("banker")
    rnd, result = round_record(desk), line("zoppot-1934", 1, 1, "banker")
    stored = json.loads(json.dumps(settlement))  # as the ledger keeps it
    assert check_settlement(desk.profile, rnd, result, stored) is None
    again = Settlement.from_dict(stored, desk.profile.currency.value).to_dict()
    assert again == settlement

    tampered = copy.deepcopy(stored)
    tampered["lines"][1]["net"] = "-300.00"
    assert check_settlement(desk.profile, rnd, result, tampered) == (
        "lines[1].net: recorded '-300.00', the rules give '-100.00'")
    tampered = copy.deepcopy(stored)
    tampered["commission"] = "24.00"
    assert check_settlement(desk.profile, rnd, result, tampered).startswith("commission:")
    tampered = copy.deepcopy(stored)
    del tampered["lines"][-1]
    assert "lines" in check_settlement(desk.profile, rnd, result, tampered)
    other = copy.deepcopy(rnd)
    other["stakes"][0]["amount"] = other["stakes"][0]["value"] = "450.00"
    assert check_settlement(desk.profile, other, result, stored).startswith("lines[0]")
    punter = line("zoppot-1934", 1, 1, "punter")
    assert check_settlement(desk.profile, rnd, punter, stored).startswith("outcome:")
    late = line("zoppot-1934", 1, 2, "banker")
    assert "cannot be recomputed" in check_settlement(desk.profile, rnd, late, stored)


def test_a_round_record_over_the_bank_is_refused() -> None:
    desk = banked("baden", "500")
    desk.do("stake", who="seat 2", amount="400")
    desk.coup_played("banker")
    rnd = copy.deepcopy(round_record(desk))
    rnd["stakes"][0]["value"] = "600.00"
    with pytest.raises(ValueError, match="more than the bank"):
        settle_round(desk.profile, rnd, line("baden", 1, 1, "banker"))
