"""The recall of every table's money, through the real API, loop and ledger: a table never
banked, a bank taken mid-shoe, Punto Banco, a table without money, a shoe with a void and a
correction; each coup's stakes by the player's key (never an internal id), its settlement
line by line in the payment order, and the corrections with who made and approved them.
And a fault of the recall's own (a record it cannot read, written behind its back) is the
console's 500, logged with its traceback, never a 404 nor the traceback sent."""

from __future__ import annotations

import json
import re
from typing import Any

from hil.processes import start_daemon, stop
from shoe_daemon.audit.ledger import Ledger
from tests.attack.sign_in_support import ANA_PIN, PEOPLE, SCREEN, log_lines
from tests.console_support import Client, people_by_cli
from tests.money_support import money_table

INTERNAL_ID = re.compile(r"^[sb][0-9]+$")


def recall(client: Client, query: str = "") -> dict[str, Any]:
    status, body, _ = client.get("/api/recall" + query)
    assert status == 200, body
    assert body["consistent"] is True
    return body


def coup_of(client: Client, shoe: int, coup: int) -> dict[str, Any]:
    (told,) = recall(client, f"?shoe={shoe}&coup={coup}")["coups"]
    return told


def no_internal_ids(value: Any) -> None:
    """No stake's internal id (s1, b2) anywhere in what the recall tells of the money."""
    if isinstance(value, dict):
        assert "id" not in value and "stake" not in value, value
        for item in value.values():
            no_internal_ids(item)
    elif isinstance(value, list):
        for item in value:
            no_internal_ids(item)
    else:
        assert not (isinstance(value, str) and INTERNAL_ID.match(value)), value


def money_of(told: dict[str, Any]) -> dict[str, Any]:
    money = {k: told[k] for k in ("stakes", "settlement", "corrections")}
    no_internal_ids(money)
    return money


def test_a_coup_dealt_before_anyone_took_the_bank_then_a_bank_taken_mid_shoe(tmp_path):
    with money_table(tmp_path / "state", "baden") as play:
        play.coup("banker")  # nobody holds the bank yet: nothing is staked
        unbanked = coup_of(play.bob, 1, 1)
        assert unbanked["stakes"]["bank"] is None and unbanked["stakes"]["stakes"] == []
        assert unbanked["settlement"]["lines"] == [] and unbanked["settlement"]["counts"] is False
        play.seat(1, 2, 3, 4, 5)
        play.ok("take_bank", who="seat 1", amount="800")
        play.ok("stake", who="seat 3", amount="300")
        play.ok("stake", who="seat 2", amount="300")
        play.ok("stake", who="outsider A", amount="100")
        play.coup("punter")
        last = recall(play.bob)["coups"]
        assert [(c["shoe"], c["coup"]) for c in last] == [(1, 2), (1, 1)]
        money = money_of(last[0])
        stakes = money["stakes"]
        assert stakes["bank"]["banker"] == "seat 1" and stakes["bank"]["amount"] == "800.00"
        assert [(s["who"], s["kind"], s["amount"]) for s in stakes["stakes"]] == [
            ("seat 3", "table", "300.00"), ("seat 2", "table", "300.00"),
            ("outsider A", "outsider", "100.00")]
        ledger = play.money("money.settlement")[-1]
        lines = money["settlement"]["lines"]
        # Line by line, in the order the money settled them (000 rule 26: the highest stake,
        # then Prime and the places following, outsiders, the bank last).
        assert [(x["who"], x["kind"], x["result"], x["paid"], x["net"]) for x in lines] == [
            (x["who"], x["kind"], x["result"], x["paid"], x["net"]) for x in ledger["lines"]]
        assert [x["who"] for x in lines] == ["seat 2", "seat 3", "outsider A", "seat 1"]
        assert money["settlement"]["bank"]["passes_to"] == "seat 2"  # the bank lost
        assert money["settlement"]["bank"]["holder"] == "seat 1"


def test_punto_banco_bets_by_box_and_the_house_line(tmp_path):
    with money_table(tmp_path / "state", "baden-punto-banco") as play:
        play.ok("bet", box="2", bet="punto", amount="100")
        play.ok("bet", box="4", bet="banco", amount="50")
        play.coup("banker")
        money = money_of(coup_of(play.bob, 1, 1))
        assert money["stakes"]["bank"] is None
        assert [(b["who"], b["bet"], b["amount"]) for b in money["stakes"]["stakes"]] == [
            ("box 2", "punto", "100.00"), ("box 4", "banco", "50.00")]
        assert [(x["who"], x["result"]) for x in money["settlement"]["lines"]] == [
            ("box 2", "lost"), ("box 4", "won"), ("house", "won")]
        assert money["settlement"]["commission"] == "2.50"
        play.ok("bet", box="1", bet="egalite", amount="20")
        assert [(b["who"], b["bet"]) for b in recall(play.bob)["betting"]] == [
            ("box 1", "egalite")]


def test_a_shoe_with_a_void_a_correction_and_a_reopened_settlement(tmp_path):
    with money_table(tmp_path / "state", "baden") as play:
        play.seat(1, 2, 3, 5, 7)
        play.ok("take_bank", who="seat 1", amount="800")
        play.ok("stake", who="seat 3", amount="300")
        play.ok("stake", who="seat 5", amount="200")
        play.t.shoe.feed("DEAL 2C 9H")
        play.ok("correct", as_=play.ana, stake="s2", amount="250",
                reason="keyed 200, the chips say 250")
        play.t.shoe.feed("3D KD")  # the banker's natural 9
        play.ok("reopen", as_=play.ana, how="void", reason="a card was marked")
        play.ok("stake", who="seat 2", amount="100")
        play.t.shoe.feed("DEAL 4C 5H")
        play.ok("void", as_=play.ana, reason="the shoe jammed mid-deal")
        first, second = coup_of(play.bob, 1, 1), coup_of(play.bob, 1, 2)
        money = money_of(first)
        assert [(s["who"], s["amount"]) for s in money["stakes"]["stakes"]] == [
            ("seat 3", "300.00"), ("seat 5", "250.00")]  # the corrected round
        stake, reopened = money["corrections"]
        assert (stake["change"], stake["who"], stake["amount"], stake["by"],
                stake["approved_by"]) == ("stake", "seat 5", "250.00", "ana", None)
        assert (reopened["change"], reopened["how"], reopened["by"]) == (
            "settlement", "void", "ana")
        assert money["settlement"]["outcome"] == "void"
        assert all(x["result"] == "returned" for x in money["settlement"]["lines"]
                   if x["kind"] != "bank")
        assert {x["who"] for x in reopened["adjustments"]} >= {"seat 3", "seat 5"}
        voided = money_of(second)
        assert second["outcome"] == "void"
        assert [(s["who"], s["amount"]) for s in voided["stakes"]["stakes"]] == [
            ("seat 2", "100.00")]
        assert voided["settlement"]["outcome"] == "void"
        assert [x["result"] for x in voided["settlement"]["lines"]] == ["returned", "returned"]


def test_a_table_without_money_tells_no_money(tmp_path):
    from tests.console_support import console_table

    with console_table(tmp_path / "state") as t:
        t.shoe.feed("HELLO:0badcafe SHOE DEAL 9C 5D KH 3S")
        c = t.client()
        c.sign_in("bob", "1234")
        body = recall(c)
        (coup,) = body["coups"]
        assert (coup["stakes"], coup["settlement"], coup["corrections"]) == (None, None, [])
        assert body["betting"] == []


def test_a_record_the_recall_cannot_read_is_the_consoles_500_logged_never_a_404(tmp_path):
    """The real daemon; a settlement record without its coup written into its ledger behind
    its back: the recall fails for real. The answer is 500 saying only that; the log has the
    fault with its traceback; the console goes on."""
    state = tmp_path / "state"
    people_by_cli(state, PEOPLE)
    proc = start_daemon(tmp_path, "baden", extra=["--console", f"{SCREEN}:0"])
    try:
        from hil.processes import console_url

        url = console_url(tmp_path, proc, timeout=30)
        ana = Client(url)
        assert ana.sign_in("ana", ANA_PIN)[0] == 200
        assert recall(ana)["coups"] == []
        ledger = Ledger(state)
        try:  # another program's record, of a shape the money never wrote
            ledger.append("money.settlement", {"event": "money.settlement", "lines": []})
        finally:
            ledger.close()
        status, body, _ = ana.get("/api/recall")
        assert status == 500, body
        assert body == {"error": "the console could not answer this: the fault is logged at "
                                 "the table"}
        assert "Traceback" not in json.dumps(body)
        (fault,) = log_lines(tmp_path, "console.fault")
        assert fault["path"] == "/api/recall" and fault["level"] == "error"
        assert "Traceback" in fault["exception"] and "KeyError" in fault["exception"]
        assert ana.get("/api/recall?shoe=1&coup=7")[0] == 500  # the same record is read
        assert ana.get("/api/me")[0] == 200  # the console goes on
    finally:
        stop(proc)


def test_a_ledger_written_before_one_key_for_a_player_is_told_by_key():
    """Settlements recorded before contract 2 named the place the bank passes to by its
    number (`passes_to: 2`): the recall tells it as every player is told, "seat 2"."""
    from shoe_daemon.console.recall_money import told_settlement

    old = {"event": "money.settlement", "profile": "baden", "shoe": 1, "coup": 4,
           "outcome": "punter", "currency": "CHF", "commission": "0.00", "counts": True,
           "lines": [{"who": "seat 3", "kind": "table", "stake": "s1", "staked": "300.00",
                      "in_play": "300.00", "result": "won", "paid": "600.00",
                      "carried": "0.00", "commission": "0.00", "net": "300.00"}],
           "bank": {"holder": "seat 1", "before": "800.00", "after": "0.00",
                    "partner_after": "0.00", "uncovered": "500.00", "ends": True,
                    "passes_to": 2},
           "suivi": None, "rules": ["chemin_de_fer.payment_order"]}
    told = told_settlement(old)
    assert told["bank"]["passes_to"] == "seat 2" and told["bank"]["holder"] == "seat 1"
    assert [(x["who"], x["net"]) for x in told["lines"]] == [("seat 3", "300.00")]
    no_internal_ids(told)
