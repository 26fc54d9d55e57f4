"""Each house's money rules at a live table, through the console's API against the real
service loop, ledger and server: the croupier's entries, the coups the shoe deals, the
settlements the ledger keeps, each refusal with its rule and nothing kept. The seeds: 000
Zoppot 1934, 001 Clermont 2015, 002 the eight-pack rules, 003 Baden, 004 the shimmy."""

from __future__ import annotations

from shoe_daemon.money.houses import get_money_profile
from shoe_daemon.money.verify import check_settlement
from tests.money_support import money_table, nets


def checked(play, settlement: dict) -> None:
    """The settlement is the one the rules give for its round and its result line."""
    rounds = [r for r in play.money("money.round")
              if (r["shoe"], r["coup"]) == (settlement["shoe"], settlement["coup"])]
    result = next(r.body["line"] for r in play.t.records("result")
                  if r.body["line"]["event"] == "coup.result"
                  and (r.body["line"]["shoe"], r.body["line"]["coup"]) == (settlement["shoe"],
                                                                           settlement["coup"]))
    profile = get_money_profile(settlement["profile"])
    assert check_settlement(profile, rounds[-1], result, settlement) is None


# --- 003 Baden ------------------------------------------------------------------------------------


def test_baden_five_players_the_suivi_and_the_suite_after_an_egalite(tmp_path):
    with money_table(tmp_path / "state", "baden") as play:
        play.seat(1, 2, 3, 4)
        money = play.bob.get("/api/state")[1]["console"]["money"]  # what the page reads
        assert (money["offers"]["min_players"], money["begun"]) == (5, False)
        # The minimum of players begins the game (issue 20): its first bank waits for five.
        body = play.refused("take_bank", 409, "too_few_players", who="seat 1", amount="800")
        assert "mindestens fünf Spieler" in body["rule"]
        assert body["error"] == "4 players are seated: the game begins with at least 5"
        play.seat(5)
        play.ok("take_bank", who="seat 1", amount="800")
        assert play.bob.get("/api/state")[1]["console"]["money"]["begun"] is True
        play.ok("banco", who="seat 3", kind="banco_solo")
        settlement = play.coup("banker")  # seat 3 lost his banco: the suivi is his
        assert settlement["suivi"] == "seat 3"
        checked(play, settlement)
        play.ok("banco", who="seat 3", kind="banco_solo")
        body = play.refused("banco", 409, "out_of_turn", who="seat 2", kind="banco_solo")
        assert "suivi" in body["error"] or "priority" in body["error"]
        play.ok("withdraw", stake="s1")
        play.ok("banco", who="seat 2", kind="banco_solo")  # Prime calls first
        answer = play.ok("banco", who="seat 3", kind="banco_solo")  # the suivi displaces him
        assert [m["event"] for m in answer["money"]] == ["money.withdrawn", "money.stake"]
        settlement = play.coup("egalite")
        assert all(line["result"] in ("returned", "stays") or line["kind"] == "bank"
                   for line in settlement["lines"])
        # 003: the Suite after a win or an égalité; the bank is offered at the last sum.
        answer = play.ok("suite")
        bank = answer["money"][-1]["bank"]
        # Offered at the last sum: 800 + 800 less the Taxe of 40.
        assert (bank["phase"], bank["offer"], bank["in_turn"]) == ("offer", "1560.00", "seat 2")
        play.ok("decline_bank", who="seat 2")
        play.refused("accept_offer", 409, "out_of_turn", who="seat 4")
        play.ok("accept_offer", who="seat 3")
        assert play.bank()["holder"] == "seat 3"


# --- 000 Zoppot 1934 ---------------------------------------------------------------------------


def test_zoppot_banco_solo_clears_the_general_game_and_outsiders_smallest_first(tmp_path):
    with money_table(tmp_path / "state", "zoppot-1934") as play:
        play.seat(1, 2, 3, 4, 5)
        play.ok("take_bank", who="seat 1", amount="100")
        play.ok("stake", who="seat 3", amount="30")
        play.ok("stake", who="seat 4", amount="20")
        answer = play.ok("banco", who="seat 2", kind="banco_solo")
        assert [(m["event"], m.get("why")) for m in answer["money"][:2]] == [
            ("money.withdrawn", "seat 2 called banco: the general game is not played")] * 2
        play.ok("withdraw", stake="s3")
        play.ok("stake", who="seat 3", amount="60")
        play.ok("stake", who="outsider A", amount="50")
        play.ok("stake", who="outsider B", amount="30")
        settlement = play.coup("banker")
        checked(play, settlement)
        lines = {line["who"]: line for line in settlement["lines"]}
        # 000: outsiders "won or lost in consecutive order, commencing from the smallest sum,
        # to the amount equal to the sum in the bank": B's 30 whole, then A's 10 of 50.
        assert lines["outsider B"]["in_play"] == "30.00"
        assert (lines["outsider A"]["in_play"], lines["outsider A"]["paid"]) == ("10.00",
                                                                                 "40.00")
        assert settlement["commission"] == "5.00"  # the table's 5 % of 100


def test_zoppot_open_bank_partner_rule_22_and_rule_25(tmp_path):
    with money_table(tmp_path / "state", "zoppot-1934") as play:
        play.seat(1, 2, 3)
        body = play.refused("take_bank", 409, "partner", who="seat 1", amount="500",
                            partner="seat 2", partner_amount="100")
        assert "rule 4" in body["rule"] or "full table" in body["error"]
        play.ok("take_bank", who="seat 1", amount="open")
        play.ok("stake", who="seat 2", amount="30")
        play.ok("stake", who="seat 3", amount="40")
        play.refused("banco", 409, "not_offered", who="seat 2", kind="banco_solo")
        settlement = play.coup("banker")
        fixed = next(m for m in play.money("money.bank") if m["change"] == "open_bank_fixed")
        assert fixed["amount"] == "70.00"  # 000 rule 5: the open bank takes its stakes' sum
        assert settlement["bank"]["before"] == "70.00"
        # Rule 25: a new shoe at exactly the same figure.
        before = play.bank()["amount"]
        play.shoe()
        assert play.money("money.bank")[-1]["change"] == "new_shoe"
        assert play.money("money.table")[-1]["bank"]["amount"] == before == play.bank()["amount"]
        # Rule 22: the banker who gave the Suite does not bid for it.
        play.ok("suite")
        assert play.bank()["phase"] == "auction"
        body = play.refused("bid", 409, "excluded", who="seat 1", amount="100")
        assert "may not share in the bidding" in body["rule"]
        play.ok("bid", who="seat 2", amount="100")
        play.ok("award")
        assert play.bank()["holder"] == "seat 2"


# --- 001 Clermont 2015 ---------------------------------------------------------------------------


def test_clermont_over_the_line_a_standing_player_and_the_inspectors_limits(tmp_path):
    with money_table(tmp_path / "state", "clermont-2015") as play:
        play.seat(1, 2, 3, 4, 5)
        play.refused("take_bank", 409, "too_few_players", who="seat 1", amount="500")
        play.seat(6)
        play.ok("take_bank", who="seat 1", amount="500")
        answer = play.ok("stake", who="seat 2", amount="100", over_line="true")
        assert answer["money"][0]["stake"]["value"] == "50.00"  # worth half
        body = play.refused("stake", 400, "bad_request", who="outsider X", amount="20")
        assert "box" in body["error"]
        play.ok("stake", who="outsider X", amount="20", box="3")
        # 001: "The Inspector has the right to change the minimum stake limits at any time":
        # a supervisor's, refused to the croupier.
        status, body = play.bob.act("limits", min_stake="50", reason="the inspector's order")
        assert status == 403 and "needs a supervisor" in body["error"]
        answer = play.ok("limits", as_=play.ana, min_stake="50", reason="the inspector's order")
        assert answer["money"][0]["by"] == "ana" and answer["action"]["by"] == "ana"
        play.refused("stake", 409, "below_minimum", who="seat 4", amount="20")
        settlement = play.coup("punter")
        checked(play, settlement)
        assert nets(settlement)["s1"] == "50.00"  # the half in play won, the half returned
        assert settlement["bank"]["ends"]


def test_clermont_offer_to_the_standing_players_then_the_auction(tmp_path):
    with money_table(tmp_path / "state", "clermont-2015") as play:
        play.seat(1, 2, 3, 4, 5, 6)
        play.ok("take_bank", who="seat 1", amount="500")
        play.ok("stake", who="seat 2", amount="100")
        play.coup("banker")
        play.ok("suite")  # after a valid coup
        for place in (2, 3, 4, 5, 6):
            play.ok("decline_bank", who=f"seat {place}")
        assert play.bank()["standing"]
        play.ok("to_auction")
        play.ok("bid", who="outsider Z", amount="300")
        play.ok("bid", who="seat 3", amount="300")  # 001: the seated player first at equal bids
        play.ok("award")
        assert play.bank()["holder"] == "seat 3"


# --- 002 the eight-pack rules -------------------------------------------------------------------


def test_eight_pack_the_bank_rotates_after_every_coup(tmp_path):
    with money_table(tmp_path / "state", "eight-pack") as play:
        play.seat(1, 2, 3)
        play.ok("take_bank", who="seat 1", amount="100")
        play.ok("stake", who="seat 2", amount="40")
        settlement = play.coup("banker")
        checked(play, settlement)
        assert settlement["bank"]["ends"] and settlement["bank"]["passes_to"] == "seat 2"
        play.refused("suite", 409, "not_now")
        play.ok("take_bank", who="seat 2", amount="100")


# --- 003 Punto Banco ------------------------------------------------------------------------------


def test_punto_banco_payouts_banco_less_5_egalite_8_to_1_and_swiss_nine(tmp_path):
    with money_table(tmp_path / "state", "baden-punto-banco") as play:
        play.refused("sit", 409, "not_offered", seat="1")
        play.ok("bet", box="1", bet="banco", amount="100")
        play.ok("bet", box="2", bet="punto", amount="100")
        play.ok("bet", box="3", bet="egalite", amount="10")
        for bet in ("simple_nine", "colour_nine", "swiss_nine"):
            play.ok("bet", box="4", bet=bet, amount="5")
        play.refused("bet", 409, "below_minimum", box="5", bet="punto", amount="5")
        settlement = play.coup("banker", banker=("9C", "KC"))  # a clubs pair: all three nines
        checked(play, settlement)
        paid = {line["stake"]: line["paid"] for line in settlement["lines"] if line["stake"]}
        assert paid == {"b1": "195.00", "b2": "0.00", "b3": "0.00", "b4": "100.00",
                        "b5": "390.00", "b6": "1505.00"}
        assert settlement["commission"] == "5.00"
        play.ok("bet", box="2", bet="punto", amount="100")
        play.ok("bet", box="3", bet="egalite", amount="10")
        settlement = play.coup("egalite")
        results = {line["stake"]: (line["result"], line["paid"]) for line in settlement["lines"]
                   if line["stake"]}
        assert results == {"b1": ("stays", "0.00"), "b2": ("won", "90.00")}
        carried = play.t.loop.table.till.summary()["carried"]
        assert [(b["box"], b["bet"], b["amount"]) for b in carried] == [(2, "punto", "100.00")]
        body = play.refused("withdraw", 409, "carried", stake="b1")
        assert "verbleiben" in body["rule"]


# --- 004 the shimmy -----------------------------------------------------------------------------


def test_shimmy_go_banco_the_garage_and_a_pass_at_any_time(tmp_path):
    with money_table(tmp_path / "state", "shimmy") as play:
        play.seat(1, 2, 3, 4)
        play.ok("take_bank", who="seat 1", amount="200")
        play.ok("stake", who="seat 2", amount="50")
        answer = play.ok("banco", who="seat 3", kind="banco_solo")
        assert answer["money"][0]["event"] == "money.withdrawn"  # the partial staker's back
        play.refused("banco", 409, "not_offered", who="seat 4", kind="banco")
        settlement = play.coup("banker")
        assert settlement["suivi"] == "seat 3"
        assert play.bank()["amount"] == "390"  # 200 + 200 less 5 %, in whole chips
        body = play.refused("garage", 409, "below_minimum", amount="300")
        assert "minimum bank" in body["error"]
        answer = play.ok("garage", amount="100")
        assert answer["money"][0]["paid"] == {"seat 1": "100"}
        play.ok("suite")  # 004: "at any time"
        assert play.bank()["phase"] == "vacant" and play.bank()["in_turn"] == "seat 2"


# --- a supervisor's: corrections, a reopened settlement -----------------------------------------


def test_a_supervisor_corrects_a_stake_after_the_deal_and_reopens_a_settlement(tmp_path):
    with money_table(tmp_path / "state", "baden") as play:
        play.seat(1, 2, 3, 5, 7)
        play.ok("take_bank", who="seat 1", amount="800")
        play.ok("stake", who="seat 3", amount="300")
        play.ok("stake", who="seat 5", amount="200")
        play.t.shoe.feed("DEAL 2C 9H")  # the coup is dealt: betting is closed
        body = play.refused("stake", 409, "after_close", who="seat 7", amount="100")
        assert "Rien ne va plus" in body["rule"] and "a supervisor may correct" in body["error"]
        play.refused("withdraw", 409, "after_close", stake="s1")
        status, body = play.bob.act("correct", stake="s2", amount="250", reason="keyed wrong")
        assert status == 403 and body["error"] == "correct needs a supervisor: bob is a croupier"
        answer = play.ok("correct", as_=play.ana, stake="s2", amount="250",
                         reason="keyed 200, the chips say 250")
        correction = answer["money"][0]
        assert (correction["event"], correction["by"], correction["reason"]) == (
            "money.correction", "ana", "keyed 200, the chips say 250")
        assert answer["money"][-1]["event"] == "money.round"
        play.t.shoe.feed("3D KD")  # the banker's natural 9
        settlement = play.money("money.settlement")[-1]
        checked(play, settlement)
        assert settlement["commission"] == "27.50"  # 5 % of 550: the corrected round
        rounds = play.money("money.round")
        assert len(rounds) == 2 and rounds[0]["stakes"] != rounds[1]["stakes"]
        # The coup is found void after its settlement: reopened, every stake returned.
        play.refused("reopen", 403, None, how="void", reason="a card was marked")
        answer = play.ok("reopen", as_=play.ana, how="void", reason="a card was marked")
        correction, bank = answer["money"]
        assert correction["original"] == settlement
        assert correction["settlement"]["outcome"] == "void"
        assert bank["bank"]["amount"] == "800.00"
        play.refused("reopen", 409, "not_now", as_=play.ana, how="void", reason="again")
        recall = play.bob.get("/api/recall?shoe=1&coup=1")[1]["coups"][0]
        assert recall["settlement"]["outcome"] == "void"
        assert [c["change"] for c in recall["corrections"]] == ["stake", "settlement"]
        assert [s["amount"] for s in recall["stakes"]["stakes"]] == ["300.00", "250.00"]


def test_the_money_action_kinds_need_the_money_kept(tmp_path):
    from tests.console_support import console_table

    with console_table(tmp_path / "state") as t:  # the console, no [money]
        c = t.client()
        c.sign_in("bob", "1234")
        status, body = c.act("sit", seat="1")
        assert status == 409 and "not kept at this table" in body["error"]
        assert not [r for r in t.records() if r.kind.startswith("money.")]
