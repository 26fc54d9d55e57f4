"""A supervisor's money ops: the limits changed mid-session, a stake corrected after betting
closed, the last settlement reopened; and the table's money whole at a new shoe (the
`money.table` record the daemon restores from)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from shoe_daemon.money.refusals import Refusal
from shoe_daemon.money.table import TableMoney
from shoe_daemon.money.verify import check_actions, check_settlement
from tests.money.support import Desk, amounts, line, profile

ANA = {"by": "ana", "reason": "the inspector's decision"}


def worked_example() -> Desk:
    """003's worked example, up to the deal: bank Fr. 800, Ponte Fr. 300 + 200 + 100."""
    desk = Desk("baden", range(1, 10))
    desk.do("take_bank", who="seat 1", amount="800")
    for who, amount in (("seat 3", "300"), ("seat 5", "200"), ("seat 7", "100")):
        desk.do("stake", who=who, amount=amount)
    return desk


def closed(desk: Desk) -> dict:
    desk.coup += 1
    return desk.do("close", shoe=desk.shoe, coup=desk.coup)[-1]


def settled(desk: Desk, outcome: str) -> list[dict]:
    return desk.do("settle", result=line(desk.profile.name, desk.shoe, desk.coup, outcome))


# --- limits -------------------------------------------------------------------------------------


def test_the_inspector_changes_the_minimum_during_a_game_001() -> None:
    """001: "The Inspector has the right to change the minimum stake limits at any time, even
    during a game": stakes placed stand; new ones meet the new minimum; the coup dealt keeps
    the limits it was dealt under."""
    desk = Desk("clermont-2015", range(1, 8))
    desk.do("take_bank", who="seat 1", amount="500")
    desk.do("stake", who="seat 2", amount="10")
    record = desk.do("limits", min_stake="50", **ANA)[0]
    assert record["event"] == "money.limits" and record["by"] == "ana"
    assert record["reason"] == ANA["reason"] and record["source"] == "supervisor"
    assert (record["before"]["min_stake"], record["limits"]["min_stake"]) == ("10", "50")
    with pytest.raises(Refusal, match="below the minimum stake") as refused:
        desk.do("stake", who="seat 3", amount="20")
    assert refused.value.code == "below_minimum"
    assert "The Inspector has the right to change the minimum" in refused.value.rule
    desk.do("stake", who="seat 3", amount="50")
    round_record = closed(desk)
    assert [s["amount"] for s in round_record["stakes"]] == ["10.00", "50.00"]
    assert round_record["limits"]["min_stake"] == "50"
    desk.do("limits", min_stake="100", **ANA)  # while the coup is dealt
    assert desk.table.round.limits.min_stake == Decimal(50)  # it keeps its limits
    settled(desk, "banker")
    with pytest.raises(Refusal, match="below the minimum stake"):
        desk.do("stake", who="seat 2", amount="50")
    assert check_actions(desk.profile, desk.limits, desk.steps) is None


def test_a_limit_the_table_cannot_take_is_refused_and_changes_nothing() -> None:
    desk = Desk("baden", range(1, 10))
    before = desk.table
    with pytest.raises(Refusal, match="min_stake"):
        desk.do("limits", min_stake="500", max_stake="100", **ANA)
    with pytest.raises(Refusal, match="not a limit a supervisor changes"):
        desk.do("limits", commission_percent="10", **ANA)  # the table's make-up
    with pytest.raises(Refusal, match="nothing changes"):
        desk.do("limits", min_stake="10", **ANA)
    with pytest.raises(Refusal, match="name the limits"):
        desk.do("limits", **ANA)
    assert desk.table is before


def test_the_configuration_may_change_the_make_up_of_the_table() -> None:
    desk = Desk("baden", (1, 2))
    record = desk.do("limits", source="configuration", by="configuration",
                     reason="the configuration's [money] changed", min_bank="200",
                     min_stake="20", places=11, commission_percent="4")[0]
    assert record["limits"]["places"] == 11 and desk.table.seating.places == 11
    assert desk.table.configured == desk.table.limits
    assert desk.table.limits.commission_percent == Decimal(4)


# --- a stake corrected after betting closed -------------------------------------------------------


def test_a_stake_keyed_wrong_is_corrected_after_the_deal() -> None:
    desk = worked_example()
    first = closed(desk)
    records = desk.do("correct", stake="s2", amount="250", **ANA)
    correction, *rest = records
    assert correction == {"event": "money.correction", "change": "stake", "shoe": 1, "coup": 1,
                          "stake": "s2", "who": "seat 5", "amount": "250.00", "by": "ana",
                          "reason": ANA["reason"], "rule": "chemin_de_fer.closing"}
    assert [r["event"] for r in rest] == ["money.withdrawn", "money.stake", "money.round"]
    corrected = rest[-1]
    assert [(s["who"], s["amount"]) for s in corrected["stakes"]] == [
        ("seat 3", "300.00"), ("seat 7", "100.00"), ("seat 5", "250.00")]
    assert first["stakes"] != corrected["stakes"]  # the first round stays as it was
    settlement = settled(desk, "banker")[0]
    assert settlement["commission"] == "32.50"  # 5 % of 650
    assert check_settlement(desk.profile, corrected, line("baden", 1, 1, "banker"),
                            settlement) is None
    assert check_actions(desk.profile, desk.limits, desk.steps) is None


def test_a_stake_never_there_goes_and_one_missed_comes() -> None:
    desk = worked_example()
    closed(desk)
    gone = desk.do("correct", stake="s3", amount="0", **ANA)
    assert [s["id"] for s in gone[-1]["stakes"]] == ["s1", "s2"]
    came = desk.do("correct", who="seat 8", amount="150", **ANA)
    assert [(s["who"], s["amount"]) for s in came[-1]["stakes"]][-1] == ("seat 8", "150.00")
    settlement = settled(desk, "punter")[0]
    assert amounts(settlement)["bank"] == Decimal(-650)


def test_a_correction_that_breaks_a_rule_is_refused_with_the_rule() -> None:
    desk = worked_example()
    closed(desk)
    before = desk.table
    with pytest.raises(Refusal, match="more than the bank") as refused:
        desk.do("correct", who="seat 8", amount="300", **ANA)
    assert refused.value.code == "more_than_bank"
    with pytest.raises(Refusal, match="no such stake"):
        desk.do("correct", stake="s9", amount="10", **ANA)
    with pytest.raises(Refusal, match="already"):
        desk.do("correct", stake="s1", amount="300", **ANA)
    assert desk.table is before


def test_a_correction_only_between_the_deal_and_the_settlement() -> None:
    desk = worked_example()
    with pytest.raises(Refusal, match="withdraw the stake") as refused:
        desk.do("correct", stake="s1", amount="10", **ANA)
    assert refused.value.code == "not_now"
    closed(desk)
    settled(desk, "banker")
    with pytest.raises(Refusal, match="not yet settled"):
        desk.do("correct", stake="s1", amount="10", **ANA)


def test_a_banco_with_the_table_corrected_answers_for_a_new_difference_000() -> None:
    desk = Desk("zoppot-1934", range(1, 10))
    desk.do("take_bank", who="seat 1", amount="1000")
    desk.do("banco", who="seat 2", kind="banco_with_table", amount="500")
    desk.do("stake", who="seat 3", amount="200")
    first = closed(desk)
    assert [s["kind"] for s in first["stakes"]] == ["banco_with_table", "table", "difference"]
    records = desk.do("correct", stake="s1", amount="600", **ANA)
    assert [r["event"] for r in records[:2]] == ["money.correction", "money.withdrawn"]
    assert records[1]["stake"] == "s3"  # the first difference goes
    corrected = records[-1]
    assert [(s["kind"], s["amount"]) for s in corrected["stakes"]] == [
        ("table", "200.00"), ("banco_with_table", "600.00"), ("difference", "200.00")]
    assert check_actions(desk.profile, desk.limits, desk.steps) is None


def test_an_open_banks_round_is_not_entered_again_000_rule_5() -> None:
    desk = Desk("zoppot-1934", range(1, 10))
    desk.do("take_bank", who="seat 1", amount="open")
    desk.do("stake", who="seat 2", amount="50")
    closed(desk)
    with pytest.raises(Refusal, match="open bank") as refused:
        desk.do("correct", stake="s1", amount="40", **ANA)
    assert "rule 5" in refused.value.rule or "open bank" in refused.value.rule


def test_punto_banco_a_bet_corrected() -> None:
    desk = Desk("baden-punto-banco")
    desk.do("bet", box=1, bet="punto", amount="100")
    desk.do("bet", box=2, bet="banco", amount="50")
    closed(desk)
    records = desk.do("correct", stake="b2", amount="80", **ANA)
    assert [b["amount"] for b in records[-1]["bets"]] == ["100.00", "80.00"]
    settlement = settled(desk, "banker")[0]
    assert amounts(settlement)["b3"] == Decimal("76.00")  # 80 less the Taxe of 4


# --- a settlement reopened --------------------------------------------------------------------


def test_a_coup_found_void_after_its_settlement_returns_every_stake() -> None:
    """003's worked example settled (banker wins, Taxe Fr. 30, bank Fr. 1370); the supervisor
    finds the coup void after all: every stake returns (000 rule 24), the Taxe goes back,
    and the bank is Fr. 800 again. The original settlement is carried in the correction."""
    desk = worked_example()
    closed(desk)
    original = settled(desk, "banker")[0]
    correction, bank = desk.do("reopen", how="void", **ANA)
    assert correction["original"] == original and correction["how"] == "void"
    assert correction["settlement"]["outcome"] == "void"
    assert correction["commission"] == "-30.00"
    by_stake = {(a["stake"] or a["kind"]): a for a in correction["adjustments"]}
    assert {k: a["paid"] for k, a in by_stake.items()} == {
        "s1": "300.00", "s2": "200.00", "s3": "100.00", "bank": "0.00"}
    assert by_stake["bank"]["carried"] == "-570.00"  # the bank gives back its win
    assert bank["change"] == "corrected" and bank["bank"]["amount"] == "800.00"
    assert "paid" not in bank
    assert desk.table.bank.amount == Decimal(800)
    assert check_actions(desk.profile, desk.limits, desk.steps) is None


def test_a_bank_that_ended_comes_back_with_its_set_aside_handed_back() -> None:
    desk = worked_example()
    closed(desk)
    settled(desk, "banker")  # the Schokolade, Fr. 200, set aside (003, issue 20)
    desk.do("stake", who="seat 3", amount="500")
    closed(desk)
    settled(desk, "punter")  # the bank ends: the banker is paid his Schokolade
    assert desk.table.bank.holder is None
    correction, bank = desk.do("reopen", how="void", **ANA)
    assert correction["paid"] == {"seat 1": "-200.00"}  # he hands the Schokolade back
    assert bank["bank"]["holder"] == "seat 1" and bank["bank"]["set_aside"] == "200.00"


def test_only_the_last_settlement_and_before_anything_else() -> None:
    desk = worked_example()
    closed(desk)
    settled(desk, "banker")
    with pytest.raises(Refusal, match="already the one the rules give") as refused:
        desk.do("reopen", how="rules", **ANA)
    assert refused.value.code == "not_now"
    desk.do("new_shoe", shoe=2)  # a new shoe changes no money: it may still be reopened
    desk.do("limits", min_stake="20", **ANA)
    desk.do("stake", who="seat 4", amount="20")
    with pytest.raises(Refusal, match="only the last coup settled"):
        desk.do("reopen", how="void", **ANA)


def test_a_settlement_recorded_wrong_by_earlier_software_is_recomputed() -> None:
    desk = worked_example()
    closed(desk)
    right = settled(desk, "banker")[0]
    wrong = {**right, "commission": "60.00", "lines": [
        *right["lines"][:3], {**right["lines"][3], "carried": "1340.00", "commission": "60.00",
                              "net": "540.00"}]}
    table = desk.table.with_recorded(wrong)
    correction, _ = table.apply({"op": "reopen", "how": "rules", **ANA})[1]
    assert correction["original"] == wrong and correction["settlement"] == right
    assert correction["commission"] == "-30.00"
    assert [(a["kind"], a["carried"]) for a in correction["adjustments"]] == [
        ("bank", "30.00")]


def test_punto_banco_an_egalite_found_void() -> None:
    desk = Desk("baden-punto-banco")
    desk.do("bet", box=1, bet="punto", amount="100")
    desk.do("bet", box=1, bet="egalite", amount="10")
    closed(desk)
    settled(desk, "egalite")
    assert [b.id for b in desk.table.carried] == ["b1"]
    correction, = desk.do("reopen", how="void", **ANA)
    by_stake = {a["stake"]: a for a in correction["adjustments"]}
    assert by_stake["b1"]["paid"] == "100.00" and by_stake["b1"]["carried"] == "-100.00"
    assert by_stake["b2"]["paid"] == "-80.00"  # the Egalité's 8:1 comes back
    assert desk.table.carried == ()


# --- the table's money whole at a new shoe ------------------------------------------------------


@pytest.mark.parametrize("name", ["zoppot-1934", "baden", "baden-punto-banco", "shimmy"])
def test_a_new_shoe_records_the_table_whole(name: str) -> None:
    desk = Desk(name, range(1, 8) if profile(name).chemin_de_fer else ())
    if desk.table.bank is not None:
        desk.do("take_bank", who="seat 1", amount="500")
        desk.do("stake", who="seat 2", amount="100")
    else:
        desk.do("bet", box=3, bet="punto", amount="100")
    records = desk.do("new_shoe", shoe=2)
    snapshot = records[-1]
    assert snapshot["event"] == "money.table" and snapshot["shoe"] == 2
    assert records[0]["event"] == ("money.bank" if desk.table.bank else "money.shoe")
    table = TableMoney.from_snapshot(desk.profile, snapshot)
    assert table == desk.table
    # The restore plays the shoe's start again: the same table, the same records.
    again, replayed = table.apply({"op": "new_shoe", "shoe": 2})
    assert again == table and replayed == records


def test_an_unreadable_snapshot_names_what_is_wrong() -> None:
    desk = worked_example()
    snapshot = desk.table.snapshot()
    from shoe_daemon.money.stakes import RecordError

    with pytest.raises(RecordError, match="bank"):
        TableMoney.from_snapshot(desk.profile, {**snapshot, "bank": {"phase": "nowhere"}})
    with pytest.raises(RecordError, match="not a zoppot-1934"):
        TableMoney.from_snapshot(profile("zoppot-1934"), snapshot)


def test_a_settlement_spelled_as_before_issue_20_is_the_same_settlement() -> None:
    """A settlement recorded before issue 20 that differs from today's only in how it names
    a player (`passes_to: 2`) and in not saying its order is not a settlement to reopen."""
    desk = worked_example()
    closed(desk)
    settlement = settled(desk, "punter")[0]
    assert settlement["bank"]["passes_to"] == "seat 2"
    old = {k: v for k, v in settlement.items() if k != "order"}
    old["bank"] = {**settlement["bank"], "passes_to": 2}
    assert desk.table.with_recorded(old) is desk.table
    with pytest.raises(Refusal, match="already the one the rules give"):
        desk.table.apply({"op": "reopen", "how": "rules", **ANA})
