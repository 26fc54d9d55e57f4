"""Punto Banco at Baden (003's PUNTO BANCO): bets per box within the table's limits, Banco
less 5 %, Egalité 8:1 with the Punto and Banco stakes staying, and the Swiss Nine bets."""

from __future__ import annotations

from decimal import Decimal

import pytest

from shoe_daemon.money.refusals import Refusal
from shoe_daemon.money.verify import check_settlement
from tests.money.support import Desk, amounts, line

PB = "baden-punto-banco"


def desk_with(*bets: tuple[int, str, str]) -> Desk:
    desk = Desk(PB)
    for box, bet, amount in bets:
        desk.do("bet", box=box, bet=bet, amount=amount)
    return desk


def test_punto_wins_even_money() -> None:
    desk = desk_with((1, "punto", "100"), (2, "banco", "100"), (3, "egalite", "20"))
    settlement = desk.coup_played("punter")
    net = amounts(settlement)
    assert (net["b1"], net["b2"], net["b3"]) == (100, -100, -20)  # Egalité "abgezogen"
    assert net["house"] == 20 and settlement["commission"] == "0.00"


@pytest.mark.parametrize(("stake", "commission", "net"), [
    ("100", "5.00", "95.00"), ("15", "0.75", "14.25"), ("13", "0.65", "12.35"),
])
def test_banco_wins_less_the_taxe(stake: str, commission: str, net: str) -> None:
    """003: "erhalten Sie den einfachen Einsatz abzüglich 5% Taxe als Gewinn"."""
    desk = desk_with((4, "banco", stake), (5, "punto", "50"))
    settlement = desk.coup_played("banker")
    banco = settlement["lines"][0]
    assert (banco["commission"], banco["net"]) == (commission, net)
    assert Decimal(banco["paid"]) == Decimal(stake) + Decimal(net)
    assert settlement["commission"] == commission
    assert amounts(settlement)["house"] == Decimal(50) - Decimal(stake)


def test_egalite_pays_eight_to_one_and_the_stakes_stay() -> None:
    """003: "wird die Chance «Egalité» achtfach (8:1) ausgezahlt, und die Einsätze auf Punto
    bzw. Banco verbleiben auf dem Tableau." """
    desk = desk_with((1, "punto", "100"), (1, "egalite", "10"), (2, "banco", "60"))
    settlement = desk.coup_played("egalite")
    by_stake = {ln["stake"]: ln for ln in settlement["lines"]}
    assert by_stake["b2"]["net"] == "80.00" and by_stake["b2"]["paid"] == "90.00"
    assert by_stake["b1"]["result"] == "stays" and by_stake["b1"]["carried"] == "100.00"
    assert by_stake["b3"]["result"] == "stays" and by_stake["b1"]["net"] == "0.00"
    # the next round starts with them on the layout; they cannot be taken back
    desk.do("bet", box=1, bet="punto", amount="20")
    rnd = desk.table.round
    assert [(b.id, b.box, b.bet.value, b.amount, b.carried) for b in rnd.bets] == [
        ("b1", 1, "punto", Decimal(100), True), ("b2", 2, "banco", Decimal(60), True),
        ("b3", 1, "punto", Decimal(20), False)]
    with pytest.raises(Refusal) as caught:
        desk.do("withdraw", stake="b1")
    assert caught.value.code == "carried" and "verbleiben" in caught.value.rule
    settlement = desk.coup_played("punter")
    assert amounts(settlement)["b1"] == 100 and amounts(settlement)["b2"] == -60


def test_carried_bets_stand_alone_for_the_next_coup() -> None:
    desk = desk_with((3, "banco", "40"))
    desk.coup_played("egalite")
    settlement = desk.coup_played("banker")  # nobody added anything
    assert settlement["lines"][0]["stake"] == "b1" and settlement["lines"][0]["net"] == "38.00"


@pytest.mark.parametrize(("cards", "won"), [
    (("9C", "KC"), {"simple_nine", "colour_nine", "swiss_nine"}),  # clubs: all three
    (("KH", "9H"), {"simple_nine", "colour_nine"}),
    (("9D", "TS"), {"simple_nine"}),
    (("9D", "8S"), set()),
    (("5C", "4C"), set()),
])
def test_swiss_nine(cards: tuple[str, str], won: set[str]) -> None:
    """003: Simple Nine 19fach, Colour Nine 77fach, Swiss Nine 300fach, on the Banco side's
    first two cards, whoever wins the coup."""
    desk = desk_with((2, "simple_nine", "5"), (2, "colour_nine", "5"), (2, "swiss_nine", "5"),
                     (3, "punto", "10"))
    settlement = desk.coup_played("punter", banker=(*cards, "2D"), punter=("9S", "TD"))
    pays = {"simple_nine": 19, "colour_nine": 77, "swiss_nine": 300}
    for ln in settlement["lines"]:
        if ln["kind"] in pays:
            expected = 5 * pays[ln["kind"]] if ln["kind"] in won else -5
            assert Decimal(ln["net"]) == expected, ln


def test_swiss_nine_must_agree_with_the_result() -> None:
    desk = desk_with((2, "simple_nine", "5"))
    desk.coup = 1
    desk.do("close", shoe=1, coup=1)
    wrong = line(PB, 1, 1, "banker", banker=("9C", "KC"))
    wrong["swiss_nine"] = []
    with pytest.raises(Refusal, match="Swiss Nine"):
        desk.do("settle", result=wrong)


def test_void_returns_every_bet_carried_ones_too() -> None:
    desk = desk_with((1, "punto", "100"))
    desk.coup_played("egalite")
    desk.do("bet", box=2, bet="swiss_nine", amount="5")
    settlement = desk.coup_played("void")
    assert [(ln["stake"], ln["result"], ln["paid"]) for ln in settlement["lines"]] == [
        ("b1", "returned", "100.00"), ("b2", "returned", "5.00"), (None, "returned", "0.00")]
    assert desk.table.carried == ()


def test_limits_per_box_and_chance() -> None:
    """003: "Die Minimum- und Maximumeinsätze der drei Chancen sind am Tisch angezeigt."""
    desk = Desk(PB)
    for fields, code in (({"box": 1, "bet": "punto", "amount": "5"}, "below_minimum"),
                         ({"box": 1, "bet": "punto", "amount": "5001"}, "above_maximum"),
                         ({"box": 1, "bet": "swiss_nine", "amount": "101"}, "above_maximum"),
                         ({"box": 1, "bet": "swiss_nine", "amount": "2"}, "below_minimum"),
                         ({"box": 10, "bet": "punto", "amount": "50"}, "bad_request"),
                         ({"box": 1, "bet": "punto", "amount": "50.50"}, "not_a_chip"),
                         ({"box": 1, "bet": "tie", "amount": "50"}, "bad_request")):
        with pytest.raises(Refusal) as caught:
            desk.do("bet", **fields)
        assert caught.value.code == code, fields
    desk.do("bet", box=1, bet="punto", amount="4000")
    with pytest.raises(Refusal, match="above the maximum"):
        desk.do("bet", box=1, bet="punto", amount="1001")
    desk.do("bet", box=2, bet="punto", amount="1001")  # another box
    for op, fields in (("stake", {"who": "seat 1", "amount": "10"}),
                       ("take_bank", {"who": "seat 1", "amount": "10"}), ("suite", {})):
        with pytest.raises(Refusal) as caught:
            desk.do(op, **fields)
        assert caught.value.code == "not_offered"


def test_after_rien_ne_va_plus() -> None:
    desk = desk_with((1, "punto", "100"))
    desk.do("close", shoe=1, coup=1)
    for op, fields in (("bet", {"box": 2, "bet": "banco", "amount": "10"}),
                       ("withdraw", {"stake": "b1"})):
        with pytest.raises(Refusal) as caught:
            desk.do(op, **fields)
        assert caught.value.code == "after_close"


def test_recorded_settlement_is_recomputed() -> None:
    desk = desk_with((1, "banco", "15"), (2, "egalite", "10"), (2, "colour_nine", "5"))
    settlement = desk.coup_played("banker", banker=("9H", "KH"))
    rnd = next(r for r in desk.steps[-2][1] if r["event"] == "money.round")
    result = line(PB, 1, 1, "banker", banker=("9H", "KH"))
    assert check_settlement(desk.profile, rnd, result, settlement) is None
    changed = dict(settlement, commission="0.70")
    assert check_settlement(desk.profile, rnd, result, changed).startswith("commission")
