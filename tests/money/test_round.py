"""The betting round of a Chemin de fer coup: each kind of play, the order of priority and
every refusal, with the rule it cites, per house where its seed has the rule."""

from __future__ import annotations

from decimal import Decimal

import pytest

from shoe_daemon.money.legacy import uncounted
from shoe_daemon.money.refusals import Refusal
from shoe_daemon.money.steps import StepReader
from tests.money.support import CHEMIN_DE_FER, Desk, profile, refused

FULL = range(1, 10)



def banked(name: str, amount: str = "800", seated=None, **more: object) -> Desk:
    """A table of `name` with every place taken (or `seated`), seat 1 banking `amount`."""
    if seated is None:
        seated = range(1, profile(name).chemin_de_fer.places.value + 1)
    desk = Desk(name, seated, **more)
    desk.do("take_bank", who="seat 1", amount=amount)
    return desk


def stakes(desk: Desk) -> dict[str, tuple[str, str, Decimal]]:
    assert desk.table.round is not None
    return {s.id: (s.who.key, s.kind.value, s.value) for s in desk.table.round.stakes}


# --- the general game ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", CHEMIN_DE_FER)
def test_general_game_up_to_the_bank(name: str) -> None:
    """003: "Ist die Banksumme erreicht, können keine weiteren Spieler mehr setzen." and
    each house's like rule (000, 001, 002, 004)."""
    desk = banked(name, "1000", seated=range(1, 9))
    desk.do("stake", who="seat 3", amount="300")
    desk.do("stake", who="seat 5", amount="200")
    desk.do("stake", who="seat 7", amount="500")
    refusal = refused(desk, "more_than_bank", "stake", who="seat 8", amount="20")
    assert "left" in refusal.reason
    assert refusal.rule == profile(name).chemin_de_fer.up_to_bank.source
    assert desk.table.round.holder.key == "seat 7"  # the highest stake holds the hand


def test_holder_between_equal_stakes_is_nearest_the_banker() -> None:
    desk = banked("baden", "1000")
    desk.do("stake", who="seat 6", amount="300")
    desk.do("stake", who="seat 4", amount="300")
    desk.do("stake", who="seat 2", amount="100")
    assert desk.table.round.holder.key == "seat 4"


def test_stake_limits() -> None:
    desk = banked("zoppot-1934", "5000")
    refused(desk, "below_minimum", "stake", who="seat 2", amount="1")  # "Minimum 2 Guldens"
    desk.do("stake", who="seat 2", amount="2400")
    refusal = refused(desk, "above_maximum", "stake", who="seat 2", amount="2")  # his total
    assert "Maximum 2400 Guldens" in refusal.rule
    refused(desk, "not_a_chip", "stake", who="seat 3", amount="2.50")
    refused(desk, "bad_request", "stake", who="seat 3", amount=2.5)  # a float, never
    refused(desk, "bad_request", "stake", who="seat 3", amount="2.505")  # below the unit


@pytest.mark.parametrize(("op", "fields", "what"), [
    ("stake", {"who": "seat 2"}, "stake"),
    ("banco", {"who": "seat 2", "kind": "banco_with_table"}, "stake"),
    ("share", {"who": "seat 3", "of": "seat 2"}, "stake"),
])
@pytest.mark.parametrize("amount", ["0", "0.00", "-5", "-10"])
def test_nothing_or_less_is_not_a_stake(op: str, fields: dict, what: str, amount: str
                                        ) -> None:
    """A zero stake gets its own reason (issue 20), not "not a whole number of the table's
    chip", and so does a negative one; the rule is the minimum it falls short of."""
    desk = banked("zoppot-1934", "800")
    if op == "share":
        desk.do("banco", who="seat 2", kind="banco")
    refusal = refused(desk, "no_amount", op, amount=amount, **fields)
    assert refusal.reason.startswith(f"a {what} ")
    assert ("is nothing" in refusal.reason) == (Decimal(amount) == 0)
    assert "chip" not in refusal.reason
    assert refusal.rule == profile("zoppot-1934").min_stake.source
    refused(Desk("zoppot-1934", FULL), "not_a_chip", "take_bank", who="seat 1",
            amount="20.50")  # still its own


@pytest.mark.parametrize("amount", ["0", "-100"])
def test_nothing_or_less_is_not_a_bank_a_bid_or_a_garage(amount: str) -> None:
    desk = Desk("baden", FULL)
    refusal = refused(desk, "no_amount", "take_bank", who="seat 1", amount=amount)
    assert refusal.reason.startswith("a bank ") and "chip" not in refusal.reason
    assert refusal.rule == profile("baden").min_bank.source
    zoppot = Desk("zoppot-1934", FULL)
    refusal = refused(zoppot, "no_amount", "take_bank", who="seat 1", amount="500",
                      partner="seat 2", partner_amount=amount)
    assert refusal.reason.startswith("a partner's part ")
    zoppot.do("take_bank", who="seat 1", amount="500")
    zoppot.do("stake", who="seat 2", amount="100")
    zoppot.coup_played("banker")
    zoppot.do("suite")
    assert refused(zoppot, "no_amount", "bid", who="seat 3", amount=amount).reason.startswith(
        "a bid ")
    shimmy = Desk("shimmy", range(1, 10))
    shimmy.do("take_bank", who="seat 1", amount="500")
    assert refused(shimmy, "no_amount", "garage", amount=amount).reason.startswith(
        "a garage ")


def test_nothing_or_less_is_not_a_bet_nor_a_correction() -> None:
    desk = Desk("baden-punto-banco")
    for amount in ("0", "-5"):
        refusal = refused(desk, "no_amount", "bet", box=1, bet="punto", amount=amount)
        assert refusal.reason.startswith("a bet ") and "chip" not in refusal.reason
    baden = banked("baden", "800")
    baden.do("stake", who="seat 2", amount="100")
    baden.do("close", shoe=1, coup=1)
    refused(baden, "no_amount", "correct", stake="s1", amount="-100", by="ana", reason="r")
    refused(baden, "no_amount", "correct", who="seat 3", amount="0", by="ana", reason="r")
    baden.do("correct", stake="s1", amount="0", by="ana", reason="never there")  # taken away


def test_the_banker_does_not_punt_against_his_bank() -> None:
    desk = banked("baden")
    refused(desk, "not_a_player", "stake", who="seat 1", amount="100")
    refused(desk, "not_a_player", "banco", who="seat 1", kind="banco_solo")
    desk.do("leave", seat=9)
    refused(desk, "not_a_player", "stake", who="seat 9", amount="100")


def test_no_bank_no_stakes() -> None:
    desk = Desk("baden", FULL)
    refused(desk, "no_bank", "stake", who="seat 2", amount="100")


def test_the_minimum_of_players_begins_a_game_it_does_not_gate_a_stake() -> None:
    """The ruling of issue 20: 001 "To begin the game at least six players must be sitting
    at the table", and "The game begins with the player sitting at box no. 1 (banker), who
    lays a stake"; 003 "Zu Beginn der Partie, zu der mindestens fünf Spieler benötigt
    werden" and "Der Spieler mit der niedrigsten Platznummer übernimmt die erste
    Bankhalterschaft". The game's first bank is refused with too few seated; once begun, a
    hand under way goes on when players leave, and so does the game from banker to banker."""
    desk = Desk("clermont-2015", range(1, 6))
    refusal = refused(desk, "too_few_players", "take_bank", who="seat 1", amount="500")
    assert "six players" in refusal.rule and "issue 20" in refusal.rule
    assert refusal.reason == "5 players are seated: the game begins with at least 6"
    desk.do("sit", seat=6)
    records = desk.do("take_bank", who="seat 1", amount="500")
    assert records[0]["seated"] == 6
    desk.do("stake", who="seat 2", amount="100")
    desk.do("leave", seat=6)
    desk.do("leave", seat=5)  # four seated: the hand goes on
    desk.do("stake", who="seat 3", amount="100")
    desk.do("banco", who="seat 4", kind="banco_solo")
    desk.coup_played("punter")  # the bank passes, and the game goes on with four
    desk.do("take_bank", who="seat 2", amount="500")
    desk.do("stake", who="seat 3", amount="100")
    baden = Desk("baden", range(1, 5))
    refusal = refused(baden, "too_few_players", "take_bank", who="seat 1", amount="500")
    assert "mindestens fünf Spieler" in refusal.rule
    baden.do("sit", seat=9)
    baden.do("take_bank", who="seat 1", amount="500")
    baden.do("leave", seat=9)
    baden.do("stake", who="seat 2", amount="100")


def test_a_bank_taken_before_issue_20_was_not_counted() -> None:
    """A ledger written before issue 20 counted the players at each stake, not at the take:
    its `take` record has no `seated` and is played again uncounted (legacy.py)."""
    desk = Desk("baden", range(1, 5))
    records = desk.do("take_bank", who="seat 1", amount="500", before_issue_20=True)
    assert "seated" not in records[0] and uncounted(records[0])
    op = StepReader(profile("baden")).read(records, lambda shoe, coup: {})[0][0]
    assert op == {"op": "take_bank", "who": "seat 1", "amount": "500.00",
                  "before_issue_20": True}


# --- banco forms and priority --------------------------------------------------------------------


@pytest.mark.parametrize("name", CHEMIN_DE_FER)
def test_banco_solo_plays_the_whole_bank_and_clears_the_table(name: str) -> None:
    desk = banked(name, "800")
    desk.do("stake", who="seat 4", amount="300")
    records = desk.do("banco", who="seat 5", kind="banco_solo")
    assert [r["event"] for r in records] == ["money.withdrawn", "money.stake"]
    assert stakes(desk) == {"s2": ("seat 5", "banco_solo", Decimal(800))}
    refusal = refused(desk, "banco_called", "stake", who="seat 6", amount="50")
    assert refusal.rule == profile(name).chemin_de_fer.banco_clears_table.source
    refused(desk, "bad_request", "banco", who="seat 2", kind="banco_solo", amount="500")


@pytest.mark.parametrize("name", CHEMIN_DE_FER)
def test_banco_out_of_turn(name: str) -> None:
    """Prime, at the banker's right, has priority: a lower banco is refused, a higher one
    displaces it (000: "Prime ... has prior right to be punter"; 002: "the one nearest the
    banker's right has the privilege"; 003: Prime-Folge)."""
    desk = banked(name, "800")
    desk.do("banco", who="seat 3", kind="banco_solo")
    refusal = refused(desk, "out_of_turn", "banco", who="seat 5", kind="banco_solo")
    assert "out of turn" in refusal.reason
    assert refusal.rule == profile(name).chemin_de_fer.prime.source
    records = desk.do("banco", who="seat 2", kind="banco_solo")  # Prime
    assert records[0] == {"event": "money.withdrawn", "stake": "s1", "who": "seat 3",
                          "amount": records[0]["amount"],
                          "why": "displaced by seat 2's banco, who has priority"}
    assert desk.table.round.holder.key == "seat 2"


def test_prime_is_counted_from_the_banker() -> None:
    desk = Desk("baden", FULL)
    desk.do("decline_bank", who="seat 1")
    desk.do("take_bank", who="seat 2", amount="500")
    desk.do("banco", who="seat 1", kind="banco_solo")  # the last place before the banker
    desk.do("banco", who="seat 3", kind="banco_solo")  # Prime of seat 2's bank
    refused(desk, "out_of_turn", "banco", who="seat 9", kind="banco_solo")


@pytest.mark.parametrize("name", ["zoppot-1934", "baden"])
def test_banco_with_shareholders(name: str) -> None:
    """000 II "plays with a shareholder"; 003 "kann aber andere Spieler beteiligen"."""
    desk = banked(name, "800")
    desk.do("banco", who="seat 4", kind="banco")
    desk.do("share", who="seat 6", of="seat 4", amount="300")
    desk.do("share", who="seat 7", of="seat 4", amount="200")
    assert stakes(desk) == {"s1": ("seat 4", "banco", Decimal(300)),
                            "s2": ("seat 6", "share", Decimal(300)),
                            "s3": ("seat 7", "share", Decimal(200))}
    refused(desk, "more_than_bank", "share", who="seat 8", of="seat 4", amount="299")
    desk.do("withdraw", stake="s2")
    assert stakes(desk)["s1"] == ("seat 4", "banco", Decimal(600))
    refused(desk, "no_such_stake", "share", who="seat 8", of="seat 5", amount="50")


@pytest.mark.parametrize("name", ["clermont-2015", "eight-pack", "shimmy"])
def test_banco_with_a_shareholder_not_offered(name: str) -> None:
    desk = banked(name)
    refusal = refused(desk, "not_offered", "banco", who="seat 3", kind="banco")
    assert refusal.rule == profile(name).chemin_de_fer.kinds["banco"].source


@pytest.mark.parametrize("name", ["zoppot-1934", "clermont-2015", "baden"])
def test_banco_with_the_table(name: str) -> None:
    """000 III: "at least half the amount in the bank, the remainder being put up by the other
    players"; 001 "Bank with table"; 003 "mindestens die Hälfte der Banksumme"."""
    desk = banked(name, "1000")
    refusal = refused(desk, "with_table_share", "banco", who="seat 3",
                      kind="banco_with_table", amount="499")
    assert refusal.rule == profile(name).chemin_de_fer.with_table_share.source
    refused(desk, "bad_request", "banco", who="seat 3", kind="banco_with_table")
    desk.do("banco", who="seat 3", kind="banco_with_table", amount="600")
    desk.do("stake", who="seat 5", amount="250")
    refused(desk, "more_than_bank", "stake", who="seat 6", amount="200")
    refused(desk, "more_than_bank", "banco", who="seat 2", kind="banco_with_table",
            amount="800")
    records = desk.do("close", shoe=1, coup=1)
    kinds = [s["kind"] for s in records[-1]["stakes"]]
    answerable = profile(name).chemin_de_fer.with_table_answerable.value
    # 000/003: the punter answers for the 150 the table left; 001 says nothing of it
    assert kinds == ["banco_with_table", "table"] + (["difference"] if answerable else [])
    if answerable:
        assert records[-1]["stakes"][-1]["amount"] in ("150.00", "150")


@pytest.mark.parametrize("name", ["eight-pack", "shimmy"])
def test_banco_with_the_table_not_offered(name: str) -> None:
    refused(banked(name), "not_offered", "banco", who="seat 3", kind="banco_with_table",
            amount="500")


# --- outsiders -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["zoppot-1934", "baden"])
def test_outsiders_may_stake_beyond_the_bank(name: str) -> None:
    """000: outsiders "are won or lost in consecutive order, commencing from the smallest sum,
    to the amount equal to the sum in the bank": taken beyond it, covered at settlement."""
    desk = banked(name, "500")
    desk.do("stake", who="seat 2", amount="400")
    desk.do("stake", who="outsider A", amount="300")
    desk.do("stake", who="outsider B", amount="50")
    refused(desk, "bad_request", "stake", who="outsider C", amount="50", box=3)
    refused(desk, "not_a_player", "banco", who="outsider C", kind="banco_solo")


@pytest.mark.parametrize("name", ["eight-pack", "shimmy"])
def test_outsiders_not_taken(name: str) -> None:
    refusal = refused(banked(name), "not_offered", "stake", who="outsider A", amount="50")
    assert refusal.rule == profile(name).chemin_de_fer.outsiders.source


def test_clermont_standing_players_stake_at_a_box_within_the_bank() -> None:
    """001: standing players "may only stake the box in front of them"; "The stakes of the
    various players play together to cover the bank without exceeding it."""
    desk = banked("clermont-2015", "500", seated=range(1, 9))
    refused(desk, "bad_request", "stake", who="outsider A", amount="50")
    desk.do("stake", who="outsider A", amount="300", box=4)
    refused(desk, "more_than_bank", "stake", who="outsider B", amount="300", box=5)
    refused(desk, "bad_request", "stake", who="outsider B", amount="30", box=9)


def test_clermont_over_the_line_is_worth_half() -> None:
    """001: "Stakes placed over the line are worth half their value."""
    desk = banked("clermont-2015", "500", seated=range(1, 9))
    desk.do("stake", who="seat 2", amount="25", over_line=True)
    assert stakes(desk)["s1"] == ("seat 2", "table", Decimal("12.50"))
    refused(banked("baden"), "not_offered", "stake", who="seat 2", amount="20", over_line=True)


# --- closing -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", CHEMIN_DE_FER)
def test_nothing_changes_after_rien_ne_va_plus(name: str) -> None:
    desk = banked(name)
    desk.do("stake", who="seat 2", amount="100")
    desk.do("close", shoe=1, coup=1)
    rule = profile(name).chemin_de_fer.closing.source
    for op, fields in (("stake", {"who": "seat 3", "amount": "100"}),
                       ("banco", {"who": "seat 3", "kind": "banco_solo"}),
                       ("withdraw", {"stake": "s1"}),
                       ("close", {"shoe": 1, "coup": 2})):
        assert refused(desk, "after_close", op, **fields).rule == rule
    refused(desk, "after_close", "suite")
    refused(desk, "seating", "leave", seat=2)


def test_zoppot_rule_7_is_cited_after_the_deal() -> None:
    desk = banked("zoppot-1934")
    desk.do("close", shoe=1, coup=1)
    refusal = refused(desk, "after_close", "banco", who="seat 2", kind="banco_solo")
    assert "not even 'Prime', may become punter" in refusal.rule


def test_open_bank_is_fixed_when_betting_closes() -> None:
    """000 rule 5: "to play without a limit (open bank)"; "As soon as the sum has been fixed,
    the croupier requests the banker to deposit his stake." """
    desk = Desk("zoppot-1934", FULL)
    desk.do("take_bank", who="seat 1", amount="open")
    refused(desk, "not_offered", "banco", who="seat 2", kind="banco_solo")
    desk.do("stake", who="seat 2", amount="2400")
    desk.do("stake", who="seat 3", amount="1000")
    desk.do("stake", who="outsider A", amount="50")
    records = desk.do("close", shoe=1, coup=1)
    assert records[0]["change"] == "open_bank_fixed" and records[0]["amount"] == "3450.00"
    assert desk.bank["amount"] == "3450.00"
    refused(Desk("baden", FULL), "not_offered", "take_bank", who="seat 1", amount="open")


def test_withdrawn_stakes_keep_their_numbers() -> None:
    desk = banked("baden")
    desk.do("stake", who="seat 2", amount="100")
    desk.do("withdraw", stake="s1")
    assert desk.table.round.stakes == () and not desk.table.staked
    refused(desk, "no_such_stake", "withdraw", stake="s1")
    records = desk.do("stake", who="seat 3", amount="100")
    assert records[0]["stake"]["id"] == "s2"  # a stake's id is never used twice in a round


@pytest.mark.parametrize("action", [
    None, [], {"op": "fly"}, {"op": "stake"}, {"op": "stake", "who": "seat 2", "amount": "1",
                                               "colour": "red"},
    {"op": "stake", "who": "seat 99", "amount": "10"}, {"op": "stake", "who": "me",
                                                        "amount": "10"},
    {"op": "stake", "who": "seat 2", "amount": "10", "over_line": "yes"},
    {"op": "banco", "who": "seat 2", "kind": "table"},
    {"op": "banco", "who": "seat 2", "kind": "everything"},
    {"op": "sit", "seat": 0}, {"op": "sit", "seat": True}, {"op": "close", "shoe": 1, "coup": 0},
    {"op": "settle", "result": "banker"}, {"op": "settle", "result": {"event": "coup.result"}},
    {"op": "bet", "box": 1, "bet": "punto", "amount": "10"},
])
def test_malformed_actions_are_refused(action: object) -> None:
    desk = banked("baden")
    before = desk.table
    with pytest.raises(Refusal) as caught:
        desk.table.apply(action)  # type: ignore[arg-type]
    assert caught.value.code in ("bad_request", "not_offered")
    assert desk.table is before
